"""`estimator_lib.compat.install()`: makes tf.estimator and tensorflow_estimator resolve here.

The public face of `estimator_lib.legacy.aliases`, which holds the implementation.

    python -m estimator_lib.compat --enable | --disable | --status

does it for a whole Python environment instead, with no change to any code: TensorFlow's
first import, anywhere in that environment, then calls `install()`
(`estimator_lib.legacy.activation`; README, "Activation without code change").
"""

import sys as _sys

if __name__ == "__main__":
    # Answered before the imports below, which load TensorFlow.
    from estimator_lib.legacy import activation as _activation
    _sys.exit(_activation.main())

from estimator_lib.legacy.aliases import API_VERSION  # noqa: E402,F401
from estimator_lib.legacy.aliases import EstimatorV1  # noqa: E402,F401
from estimator_lib.legacy.aliases import install  # noqa: E402,F401
from estimator_lib.legacy.aliases import is_installed  # noqa: E402,F401
from estimator_lib.legacy.aliases import uninstall  # noqa: E402,F401

# What the reference's compat page shows (and `import *` gives).
__all__ = [
    "install",
    "uninstall",
    "is_installed",
    "EstimatorV1",
    "API_VERSION",
]
