"""The original's `canned/timeseries` package: its key names, and refusals for the rest.

The time-series estimators (TimeSeriesRegressor, LSTMAutoRegressor, ARModel and
their heads, state managers and SavedModel helpers) were never part of the
tf.estimator API and are not re-provided. So that a library importing them at
load time still loads, each name exists at its original path after
`compat.install()`; building or calling one raises NotImplementedError naming the
alternative. The feature-key classes (plain string constants) are the original's.
"""

from typing import Dict, Tuple

import tensorflow as tf

_ALTERNATIVE = ("a tf.keras sequence model (tf.keras.layers.LSTM, or a Dense "
                "autoregression over a window of past values) trained with `model.fit` or "
                "wrapped by `estimator_lib.model_to_estimator`")

# Module under canned/timeseries -> its public classes and functions (not re-provided).
UNSUPPORTED: Dict[str, Tuple[Tuple[str, str], ...]] = {
    "ar_model": (("ARModel", "class"), ("LSTMPredictionModel", "class")),
    "estimators": (("LSTMAutoRegressor", "class"), ("TimeSeriesRegressor", "class")),
    "head": (("OneShotPredictionHead", "class"), ("TimeSeriesRegressionHead", "class"),
             ("state_to_dictionary", "function")),
    "math_utils": (("InputStatistics", "class"), ("InputStatisticsFromMiniBatch", "class"),
                   ("Moments", "class"), ("replicate_state", "function")),
    "model": (("ModelOutputs", "class"), ("TimeSeriesModel", "class")),
    "model_utils": (("canonicalize_times_or_steps_from_output", "function"),
                    ("fully_connected", "function")),
    "saved_model_utils": (("cold_start_filter", "function"),
                          ("filter_continuation", "function"),
                          ("predict_continuation", "function")),
    "state_management": (("FilteringOnlyStateManager", "class"),
                         ("PassthroughStateManager", "class")),
}


def message(module: str, name: str) -> str:
    """The NotImplementedError text for `canned.timeseries.<module>.<name>`."""
    return (f"tensorflow_estimator.python.estimator.canned.timeseries.{module}.{name} is not "
            "supported by estimator_lib: the time-series estimators were not part of the "
            f"tf.estimator API and are not re-provided. Use {_ALTERNATIVE} instead. See "
            "docs/MIGRATION.md in estimator_lib.")


def _refusal(module: str, name: str, kind: str):
    text = message(module, name)
    if kind == "class":

        def __new__(cls, *args, **kwargs):
            del cls, args, kwargs
            raise NotImplementedError(text)

        return type(name, (), {"__new__": __new__, "__module__": __name__,
                               "__doc__": f"Not supported; building one raises "
                                          f"NotImplementedError. {text}"})

    def refuse(*args, **kwargs):
        del args, kwargs
        raise NotImplementedError(text)

    refuse.__name__ = refuse.__qualname__ = name
    refuse.__doc__ = f"Not supported; calling it raises NotImplementedError. {text}"
    return refuse


# feature_keys.py: the original's key names, as they were.
class State:
    """Key formats for accepting/returning state."""
    STATE_TUPLE = "start_tuple"
    STATE_PREFIX = "model_state"


class Times:
    """Key formats for accepting/returning times."""
    TIMES = "times"


class Values:
    """Key formats for accepting/returning values."""
    VALUES = "values"


class TrainEvalFeatures(Times, Values):
    """Feature names used during training and evaluation."""


class PredictionFeatures(Times, State):
    """Feature names used during prediction."""


class FilteringFeatures(Times, Values, State):
    """Special feature names for filtering."""


class PredictionResults(Times):
    """Keys returned when predicting (not comprehensive)."""


class FilteringResults(Times, State):
    """Keys returned from evaluation/filtering."""


class SavedModelLabels:
    """Names of the signatures exported with export_saved_model."""
    PREDICT = tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY
    FILTER = "filter"
    COLD_START_FILTER = "cold_start_filter"


_FEATURE_KEYS = (State, Times, Values, TrainEvalFeatures, PredictionFeatures,
                 FilteringFeatures, PredictionResults, FilteringResults, SavedModelLabels)


def tree() -> Dict[str, Dict[str, object]]:
    """Module path under `python.estimator.` -> its attributes (for legacy.aliases)."""
    package = "canned.timeseries"
    result = {package: {}, f"{package}.feature_keys": {cls.__name__: cls
                                                      for cls in _FEATURE_KEYS}}
    for module, names in UNSUPPORTED.items():
        result[f"{package}.{module}"] = {name: _refusal(module, name, kind)
                                         for name, kind in names}
    return result
