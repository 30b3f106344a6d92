"""The public names that load on first use (see __init__ and _api).

`import estimator_lib` loads the core (`_api`: Estimator, RunConfig, hooks, export,
train_and_evaluate, ...). The names below live in modules that a program training
its own model_fn never needs (the canned estimators, the heads, model_to_estimator
and the Keras side, TPUEstimator, the legacy aliases behind `compat`); each loads
its module when it is first read, as `estimator_lib.DNNClassifier` or
`from estimator_lib import DNNClassifier`, and is then an ordinary attribute.
"""

import importlib
import importlib.util
import sys


_CANNED = "estimator_lib.canned"
_HEAD = "estimator_lib.head"

# Public name -> (module, attribute in it). tf.estimator's canned names are the V2 classes.
LAZY_NAMES = {
    "BaselineClassifier": (_CANNED, "BaselineClassifierV2"),
    "BaselineEstimator": (_CANNED, "BaselineEstimatorV2"),
    "BaselineRegressor": (_CANNED, "BaselineRegressorV2"),
    "DNNClassifier": (_CANNED, "DNNClassifierV2"),
    "DNNEstimator": (_CANNED, "DNNEstimatorV2"),
    "DNNLinearCombinedClassifier": (_CANNED, "DNNLinearCombinedClassifierV2"),
    "DNNLinearCombinedEstimator": (_CANNED, "DNNLinearCombinedEstimatorV2"),
    "DNNLinearCombinedRegressor": (_CANNED, "DNNLinearCombinedRegressorV2"),
    "DNNRegressor": (_CANNED, "DNNRegressorV2"),
    "LinearClassifier": (_CANNED, "LinearClassifierV2"),
    "LinearEstimator": (_CANNED, "LinearEstimatorV2"),
    "LinearRegressor": (_CANNED, "LinearRegressorV2"),
    "BinaryClassHead": (_HEAD, "BinaryClassHead"),
    "Head": (_HEAD, "Head"),
    "LogisticRegressionHead": (_HEAD, "LogisticRegressionHead"),
    "MultiClassHead": (_HEAD, "MultiClassHead"),
    "MultiHead": (_HEAD, "MultiHead"),
    "MultiLabelHead": (_HEAD, "MultiLabelHead"),
    "PoissonRegressionHead": (_HEAD, "PoissonRegressionHead"),
    "RegressionHead": (_HEAD, "RegressionHead"),
    "classifier_parse_example_spec": (_HEAD, "classifier_parse_example_spec"),
    "regressor_parse_example_spec": (_HEAD, "regressor_parse_example_spec"),
    "model_to_estimator": ("estimator_lib.keras", "model_to_estimator"),
}

# Subpackages and modules of the public face that load on first use (`estimator_lib.X`).
LAZY_MODULES = ("canned", "compat", "experimental", "head", "tpu")


def _load_core(package) -> None:
    """Loads `_api` (TensorFlow and the core names) into the package, once."""
    api = importlib.import_module("estimator_lib._api")
    for key, value in vars(api).items():
        if not key.startswith("_") and key not in vars(package):
            setattr(package, key, value)


def public_names() -> list:
    """Every public name of the package, loaded or not (its `__all__` and `__dir__`)."""
    api = importlib.import_module("estimator_lib._api")
    core = [key for key in vars(api) if not key.startswith("_")]
    return sorted(set(core) | set(LAZY_NAMES) | set(LAZY_MODULES))


def module_dir() -> list:
    """`estimator_lib.__dir__`: the loaded attributes and every public name."""
    return sorted(set(vars(sys.modules["estimator_lib"])) | set(public_names()))


def module_getattr(name: str):
    """`estimator_lib.__getattr__`: a lazy public name, a submodule, or a core name.

    A lazy name (LAZY_NAMES) imports its module after the core; a submodule
    (`estimator_lib.flags`, `estimator_lib.bin`, `estimator_lib.canned`) is imported by
    itself, so reading flags never loads TensorFlow; any other name loads
    `estimator_lib._api` (TensorFlow and the core names) into the package once.
    """
    package = sys.modules["estimator_lib"]
    if name == "__all__":  # `from estimator_lib import *`: every public name, as before.
        return public_names()
    if name.startswith("__"):
        raise AttributeError(name)
    if name in LAZY_NAMES:
        _load_core(package)
        module_name, attribute = LAZY_NAMES[name]
        value = getattr(importlib.import_module(module_name), attribute)
        setattr(package, name, value)
        return value
    if importlib.util.find_spec(f"estimator_lib.{name}") is not None:
        return importlib.import_module(f"estimator_lib.{name}")
    _load_core(package)
    try:
        return vars(package)[name]
    except KeyError:
        raise AttributeError(f"module 'estimator_lib' has no attribute {name!r}") from None
