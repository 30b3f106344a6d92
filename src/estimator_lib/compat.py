"""`estimator_lib.compat.install()`: makes tf.estimator and tensorflow_estimator resolve here.

The public face of `estimator_lib.legacy.aliases`, which holds the implementation.
"""

from estimator_lib.legacy.aliases import API_VERSION  # noqa: F401
from estimator_lib.legacy.aliases import EstimatorV1  # noqa: F401
from estimator_lib.legacy.aliases import install  # noqa: F401
from estimator_lib.legacy.aliases import is_installed  # noqa: F401
from estimator_lib.legacy.aliases import uninstall  # noqa: F401
