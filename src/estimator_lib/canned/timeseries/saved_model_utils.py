"""Driving an exported time-series SavedModel: filter, cold-start filter, predict.

Each function feeds one of the export's signatures (feature_keys.SavedModelLabels)
in a session the SavedModel was loaded into, continuing from an evaluation's or a
previous filtering's state.
"""

from typing import Any, Dict, Optional

import numpy as np

from estimator_lib.canned.timeseries import feature_keys
from estimator_lib.canned.timeseries import model_utils
from estimator_lib.canned.timeseries.head_features import state_to_dictionary

__all__ = ["predict_continuation", "cold_start_filter", "filter_continuation"]

_TIMES = feature_keys.TrainEvalFeatures.TIMES
_VALUES = feature_keys.TrainEvalFeatures.VALUES


def _canonicalize_numpy_data(data: Dict[str, Any], require_single_batch: bool):
    """Features as arrays shaped [batch size, series length, ...].

    `TIMES` may be a scalar (one example), [series length] or [batch, series
    length]; `VALUES` the same plus an optional features axis; every feature's shape
    starts with that of `TIMES`. Omitted axes become size 1.

    Raises:
        ValueError: A missing TIMES/VALUES, mismatched shapes, too many axes, or a
            batch when `require_single_batch`.
    """
    features = {key: np.array(value) for key, value in data.items()}
    if _TIMES not in features or _VALUES not in features:
        raise ValueError(f"{_TIMES} and {_VALUES} are required features.")
    times = features[_TIMES]
    for key, value in features.items():
        if value.shape[:len(times.shape)] != times.shape:
            raise ValueError(
                "All features must have their shapes prefixed by the shape of the times "
                f"feature. Got shape {value.shape} for feature '{key}', but shape "
                f"{times.shape} for '{_TIMES}'")
    values_rank = len(features[_VALUES].shape)
    if not times.shape:  # One example.
        if values_rank == 0:
            features[_VALUES] = features[_VALUES][..., None]
        elif values_rank > 1:
            raise ValueError(
                f"Got an unexpected number of dimensions for the '{_VALUES}' feature. Was "
                "expecting at most 1 dimension ([number of features]) since "
                f"'{_TIMES}' does not have a batch or time dimension, but got shape "
                f"{features[_VALUES].shape}")
        features = {key: value[None, None, ...] for key, value in features.items()}
    if len(times.shape) == 1:  # [series length]
        if values_rank == 1:
            features[_VALUES] = features[_VALUES][..., None]
        elif values_rank > 2:
            raise ValueError(
                f"Got an unexpected number of dimensions for the '{_VALUES}' feature. Was "
                "expecting at most 2 dimensions ([series length, number of features]) since "
                f"'{_TIMES}' does not have a batch dimension, but got shape "
                f"{features[_VALUES].shape}")
        features = {key: value[None, ...] for key, value in features.items()}
    elif len(features[_TIMES].shape) != 2:
        raise ValueError("Got an unexpected number of dimensions for times. Was expecting at "
                         "most two ([batch size, series length]), but got shape "
                         f"{times.shape}.")
    if require_single_batch and features[_TIMES].shape[0] != 1:
        raise ValueError("Got batch input, was expecting unbatched input.")
    return features


def _feeds_and_fetches(signature, features, graph, continue_from=None):
    """(fetches by output key, feed_dict) for one signature."""
    if continue_from is None:
        state = {}
    elif feature_keys.FilteringResults.STATE_TUPLE in continue_from:
        state = state_to_dictionary(continue_from[feature_keys.FilteringResults.STATE_TUPLE])
    else:
        state = continue_from
    inputs = {key: graph.as_graph_element(info.name) for key, info in signature.inputs.items()}
    fetches = {key: graph.as_graph_element(info.name)
               for key, info in signature.outputs.items()}
    feed_dict = {inputs[key]: value for key, value in state.items()}
    feed_dict.update({inputs[key]: value for key, value in features.items()})
    return fetches, feed_dict


def predict_continuation(continue_from, signatures, session, steps: Optional[int] = None,
                         times=None, exogenous_features: Optional[Dict[str, Any]] = None):
    """Predicts with an exported model, after an evaluation or a filtering.

    Args:
        continue_from: An Estimator's evaluate() result, or filter_continuation's /
            cold_start_filter's: the state predictions start from.
        signatures: The MetaGraphDef `tf.compat.v1.saved_model.load` returned.
        session: The session the model was loaded into.
        steps: How many steps after `continue_from` to predict (or give `times`).
        times: [batch, window] (or [window]) times to predict (or give `steps`).
        exogenous_features: Exogenous features at those times, [batch, window, ...].

    Returns:
        The model's predictions ("mean", "covariance", ...) and PredictionResults.TIMES.

    Raises:
        ValueError: If `times` or `steps` are misspecified.
    """
    predict_times = model_utils.canonicalize_times_or_steps_from_output(
        times=times, steps=steps, previous_model_output=continue_from)
    features = {feature_keys.PredictionFeatures.TIMES: predict_times}
    features.update(exogenous_features or {})
    fetches, feed_dict = _feeds_and_fetches(
        signatures.signature_def[feature_keys.SavedModelLabels.PREDICT], features,
        session.graph, continue_from=continue_from)
    output = session.run(fetches, feed_dict=feed_dict)
    output[feature_keys.PredictionResults.TIMES] = predict_times
    return output


def cold_start_filter(signatures, session, features):
    """Filters observations from the model's start state with an exported model.

    Args:
        signatures: The MetaGraphDef `tf.compat.v1.saved_model.load` returned.
        session: The session the model was loaded into.
        features: TIMES, VALUES (and exogenous features) as numpy data; see
            `_canonicalize_numpy_data` for the shapes accepted.

    Returns:
        The model state after the observations, with FilteringResults.TIMES.
    """
    features = _canonicalize_numpy_data(data=features, require_single_batch=False)
    fetches, feed_dict = _feeds_and_fetches(
        signatures.signature_def[feature_keys.SavedModelLabels.COLD_START_FILTER], features,
        session.graph)
    output = session.run(fetches, feed_dict=feed_dict)
    output[feature_keys.FilteringResults.TIMES] = features[_TIMES]
    return output


def filter_continuation(continue_from, signatures, session, features):
    """Filters observations after an evaluation's or a filtering's state.

    Args:
        continue_from: An evaluate() result or a previous filtering's.
        signatures: The MetaGraphDef `tf.compat.v1.saved_model.load` returned.
        session: The session the model was loaded into.
        features: TIMES, VALUES (and exogenous features) as numpy data.

    Returns:
        The model state after the observations, with FilteringResults.TIMES.
    """
    features = _canonicalize_numpy_data(data=features, require_single_batch=False)
    fetches, feed_dict = _feeds_and_fetches(
        signatures.signature_def[feature_keys.SavedModelLabels.FILTER], features,
        session.graph, continue_from=continue_from)
    output = session.run(fetches, feed_dict=feed_dict)
    output[feature_keys.FilteringResults.TIMES] = features[_TIMES]
    return output
