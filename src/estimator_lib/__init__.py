"""estimator_lib: the tf.estimator API, re-provided on TensorFlow 2.16+.

Import it before TensorFlow touches `tf.keras`: it sets TF_USE_LEGACY_KERAS=1 so
that `tf.keras` is Keras 2 (tf_keras), which graph-mode Estimators need.
"""

# pylint: disable=g-bad-import-order,wrong-import-position
import sys as _sys

from estimator_lib.core import keras_switch as _keras_switch  # noqa: F401  (must run before TensorFlow loads)

__version__ = "0.1.0"

if _sys.argv[:1] == ["-m"]:
    # `python -m estimator_lib.<module>`: Python imports this package before the module
    # runs (argv[0] is "-m" until then). The binaries parse their flags and answer --help
    # or a flag error before TensorFlow loads, so the public names load on first use.
    from estimator_lib._lazy_api import module_dir as __dir__  # noqa: F401
    from estimator_lib._lazy_api import module_getattr as __getattr__  # noqa: F401
else:
    # The core names now; the canned estimators, heads, model_to_estimator, tpu,
    # experimental and compat on first use (_lazy_api.LAZY_NAMES), through __getattr__.
    from estimator_lib._lazy_api import module_dir as __dir__  # noqa: F401
    from estimator_lib._lazy_api import module_getattr as __getattr__  # noqa: F401
    from estimator_lib._api import *  # noqa: F401,F403  pylint: disable=wildcard-import
