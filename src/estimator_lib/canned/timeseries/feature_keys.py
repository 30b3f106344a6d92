"""The feature and result key names of the time-series models (the original's)."""

import tensorflow as tf


class State:
    """Key formats for accepting/returning state."""
    # The model-dependent state tuple, as a feature or a filtering result.
    STATE_TUPLE = "start_tuple"
    # Prefix of the flattened state's keys in exported signatures.
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
