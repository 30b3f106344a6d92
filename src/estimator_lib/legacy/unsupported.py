"""What estimator_lib does not re-provide, each with the alternative to use instead.

BoostedTrees* are classes here so that legacy code importing or even subclassing
them still loads; building one raises a NotImplementedError naming what to use instead.
They cannot be re-provided on this TensorFlow: tensorflow-estimator dropped them after
2.8 (2.15's `tf.estimator` has no such names), and TensorFlow 2.15 and 2.21 define the
`BoostedTrees*` ops but register no kernel for any of them (nor ship the TreeEnsemble
proto), so neither the original nor a re-provision built on those ops can run here.
The other canned estimators, the RNN estimators, KMeans, LinearSDCA, the heads and
TPUEstimator are re-provided (estimator_lib.canned, .head, .tpu).
`UNSUPPORTED` lists every such name with its
alternative; docs/MIGRATION.md shows the same table.
"""

from typing import Dict, Tuple

_MIGRATION = "See docs/MIGRATION.md in estimator_lib."

_TREES = ("TensorFlow Decision Forests (`tensorflow_decision_forests.keras."
          "GradientBoostedTreesModel`) trained with `model.fit`")

# (API name, alternative) for every class this module defines.
_CLASSES: Tuple[Tuple[str, str], ...] = (
    ("BoostedTreesClassifier", _TREES), ("BoostedTreesRegressor", _TREES),
    ("BoostedTreesEstimator", _TREES),
)

# Where each name lived in the original API (tf.estimator unless listed).
_LOCATIONS: Dict[str, str] = {
}


def _api_name(name: str) -> str:
    location = _LOCATIONS.get(name, "tf.estimator")
    return f"{location}.{name}"


def message(name: str) -> str:
    """The NotImplementedError text for the unsupported API `name` (a class name here)."""
    alternative = dict(_CLASSES)[name]
    return (f"{_api_name(name)} is not supported by estimator_lib: tensorflow-estimator "
            f"removed it after 2.8, and TensorFlow no longer registers kernels for the "
            f"BoostedTrees* ops it runs on, so estimator_lib re-provides the Estimator, the "
            f"canned DNN/Linear/Baseline estimators and TPUEstimator, not this one. Use "
            f"{alternative} instead. {_MIGRATION}")


def _make_unsupported(name: str, alternative: str) -> type:

    def __new__(cls, *args, **kwargs):
        del cls, args, kwargs
        raise NotImplementedError(message(name))

    doc = f"Not supported; building one raises NotImplementedError. Use {alternative}."
    return type(name, (), {"__new__": __new__, "__doc__": doc, "__module__": __name__})


for _name, _alternative in _CLASSES:
    globals()[_name] = _make_unsupported(_name, _alternative)
del _name, _alternative

# Every unsupported API name -> the alternative; the table in docs/MIGRATION.md.
UNSUPPORTED: Dict[str, str] = dict(
    [(_api_name(name), alternative) for name, alternative in _CLASSES])

# Class names by the namespace they belong in, for estimator_lib.compat.
CANNED_NAMES = tuple(name for name, _ in _CLASSES if name not in _LOCATIONS)
EXPERIMENTAL_NAMES = ()
V1_EXPERIMENTAL_NAMES = EXPERIMENTAL_NAMES
