"""The time-series heads' helpers: feature checks, flattened state, identity metrics."""

import re
from typing import Any, Dict, Iterable, Optional, Tuple

import tensorflow as tf

from estimator_lib.canned.timeseries import feature_keys

_STATE_KEY = re.compile(r"^" + feature_keys.State.STATE_PREFIX + r"_(\d+)$")


def state_to_dictionary(state_tuple) -> Dict[str, Any]:
    """Flatten model state into a dictionary with string keys (`model_state_00`, ...)."""
    return {f"{feature_keys.State.STATE_PREFIX}_{number:02d}": value
            for number, value in enumerate(tf.nest.flatten(state_tuple))}


def gather_state(features: Dict[str, Any], start_state) -> Tuple[Dict[str, Any], bool]:
    """Packs `model_state_<n>` features into State.STATE_TUPLE shaped as `start_state()`.

    `start_state` (a callable: the model's get_start_state) is called only when
    there is state to pack.

    Returns:
        (features, whether any state features were packed).
    """
    numbered = []
    for key, tensor in features.items():
        match = _STATE_KEY.search(key)
        if match:
            numbered.append((int(match.group(1)), key, tensor))
    if not numbered:
        return features, False
    features = {k: v for k, v in features.items() if not _STATE_KEY.search(k)}
    numbered.sort(key=lambda entry: entry[0])
    features[feature_keys.State.STATE_TUPLE] = tf.nest.pack_sequence_as(
        structure=start_state(), flat_sequence=[tensor for _, _, tensor in numbered])
    return features, True


def check_shapes_compatible_with(features: Dict[str, Any], compatible_with_name: str,
                                 compatible_with_value, ignore: Iterable[str] = ()) -> None:
    """Raises ValueError unless every feature is [batch, window, ...] like the times.

    Args:
        features: The dict of features.
        compatible_with_name: The name of the feature the others must match (the times).
        compatible_with_value: That feature's tensor.
        ignore: Feature keys not checked.

    Raises:
        ValueError: If a feature's first two dimensions differ from the times'.
    """
    ignore = set(ignore)
    times_shape = compatible_with_value.get_shape()
    for name, value in features.items():
        if name in ignore:
            continue
        shape = value.get_shape()
        if shape.ndims is None:
            continue
        if shape.ndims < 2:
            raise ValueError(f"Features must have shape (batch dimension, window size, ...) "
                             f"(got rank {shape.ndims} for feature '{name}')")
        if not shape[:2].is_compatible_with(times_shape):
            raise ValueError(
                "Features must have shape (batch dimension, window size, ...) where batch "
                f"dimension and window size match the '{compatible_with_name}' feature (got "
                f"shape {shape} for feature '{name}' but shape {times_shape} for feature "
                f"'{compatible_with_name}')")


def _require(features: Dict[str, Any], key: str, purpose: str) -> None:
    if key not in features:
        raise ValueError(f"Expected a '{key}' feature for {purpose}.")


def _check_times_rank(times, key: str) -> None:
    if not times.get_shape().is_compatible_with([None, None]):
        raise ValueError(f"Expected shape (batch dimension, window size) for feature '{key}' "
                         f"(got shape {times.get_shape()})")


def check_train_eval_features(features: Dict[str, Any], model) -> None:
    """Raises ValueError if features are not suitable for training/evaluation."""
    times_key, values_key = (feature_keys.TrainEvalFeatures.TIMES,
                             feature_keys.TrainEvalFeatures.VALUES)
    _require(features, times_key, "training/evaluation")
    _require(features, values_key, "training/evaluation")
    times = features[times_key]
    _check_times_rank(times, times_key)
    if not features[values_key].get_shape().is_compatible_with(
            [None, None, model.num_features]):
        raise ValueError(
            f"Expected shape (batch dimension, window size, {model.num_features}) for feature "
            f"'{values_key}', since the model was configured with "
            f"num_features={model.num_features} (got shape {times.get_shape()})")
    check_shapes_compatible_with(features, times_key, times,
                                 ignore={feature_keys.State.STATE_TUPLE})


def check_predict_features(features: Dict[str, Any], one_shot: bool) -> None:
    """Raises ValueError if features are not suitable for (one-shot) prediction."""
    times_key = feature_keys.PredictionFeatures.TIMES
    _require(features, times_key, "prediction")
    ignore = {feature_keys.PredictionFeatures.STATE_TUPLE}
    if one_shot:
        _require(features, feature_keys.TrainEvalFeatures.VALUES, "prediction")
        ignore.add(feature_keys.TrainEvalFeatures.VALUES)
    _require(features, feature_keys.PredictionFeatures.STATE_TUPLE, "prediction")
    times = features[times_key]
    _check_times_rank(times, times_key)
    check_shapes_compatible_with(features, times_key, times, ignore=ignore)


def identity_metric(name: str, tensor: tf.Tensor):
    """A metric holding the value of `tensor` at its last update: (value, update_op).

    Keeps evaluation metrics from one batch: a metric with no variable would be read
    from another batch than those updated in variables (e.g. the mean loss). The
    variable has no fixed shape, so that it also works as a resource variable (the
    original's, of shape (), needed reference variables: v1 behaviour).
    """
    variable = tf.compat.v1.Variable(
        name=f"{name}_identity_metric", initial_value=tf.zeros([], dtype=tensor.dtype),
        collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES], validate_shape=False,
        shape=tf.TensorShape(None))
    update_op = tf.compat.v1.assign(variable, tensor, validate_shape=False)
    value = variable.value()
    value.set_shape(tensor.get_shape())
    return value, update_op


def identity_metric_nested(name: str, tensors):
    """`identity_metric` for each Tensor of a nest: (nest of values, grouped update)."""
    values, updates = [], []
    for number, tensor in enumerate(tf.nest.flatten(tensors)):
        value, update = identity_metric(f"{name}_{number}", tensor)
        values.append(value)
        updates.append(update)
    return tf.nest.pack_sequence_as(tensors, values), tf.group(*updates)
