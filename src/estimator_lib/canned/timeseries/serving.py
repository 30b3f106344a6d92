"""The time-series estimators' serving input receivers (their export inputs)."""

from typing import Dict, Optional

import tensorflow as tf

from estimator_lib.canned.timeseries import feature_keys
from estimator_lib.canned.timeseries.head_features import state_to_dictionary
from estimator_lib.export.receivers import ServingInputReceiver

_TIMES = feature_keys.TrainEvalFeatures.TIMES
_VALUES = feature_keys.TrainEvalFeatures.VALUES


def start_state_placeholders(model, batch_size_tensor,
                             static_batch_size: Optional[int] = None) -> Dict[str, tf.Tensor]:
    """`model_state_<n>` placeholders whose default is the start state, batched.

    Args:
        model: The time-series model.
        batch_size_tensor: The batch size, a scalar int tensor.
        static_batch_size: The batch size if known when building, else None.

    Returns:
        A dict of placeholder name to tensor.
    """
    with tf.Graph().as_default():
        model.initialize_graph()
        start_state = tf.nest.map_structure(
            lambda t: tf.get_static_value(tf.compat.v1.zeros_like(t)), model.get_start_state())
    placeholders = {}
    for name, state in state_to_dictionary(start_state).items():
        default = tf.tile(state[None, ...], multiples=tf.concat(
            [batch_size_tensor[None], tf.ones(len(state.shape), dtype=tf.int32)], axis=0))
        placeholders[name] = tf.compat.v1.placeholder_with_default(
            input=default, name=name,
            shape=tf.TensorShape((static_batch_size,)).concatenate(state.shape))
    return placeholders


def _exogenous_example_shapes(columns):
    """Feature key -> (shape with a batch dimension, dtype) parsed for the columns."""
    with tf.Graph().as_default():
        spec = tf.compat.v1.feature_column.make_parse_example_spec(columns)
        parsed = tf.compat.v1.io.parse_example(
            serialized=tf.compat.v1.placeholder(shape=[None], dtype=tf.string), features=spec)
        return {key: (value.get_shape(), value.dtype) for key, value in parsed.items()}


def raw_receiver_fn(model, default_batch_size: Optional[int],
                    default_series_length: Optional[int]):
    """TimeSeriesRegressor.build_raw_serving_input_receiver_fn (see there).

    Args:
        model: The time-series model.
        default_batch_size: The serving batch size, or None for any.
        default_series_length: The series length, or None for any.

    Returns:
        A serving input receiver function.
    """

    def receiver_fn():
        times = tf.compat.v1.placeholder(name=_TIMES, dtype=tf.int64,
                                         shape=[default_batch_size, default_series_length])
        placeholders = {_TIMES: times}
        placeholders[_VALUES] = tf.compat.v1.placeholder_with_default(
            name=_VALUES,
            input=tf.zeros(shape=[default_batch_size or 0, default_series_length or 0,
                                  model.num_features], dtype=model.dtype),
            shape=(default_batch_size, default_series_length, model.num_features))
        if model.exogenous_feature_columns:
            shapes = _exogenous_example_shapes(model.exogenous_feature_columns)
            for key, (shape, dtype) in shapes.items():
                per_example = shape.with_rank_at_least(1).as_list()[1:]
                placeholders[key] = tf.compat.v1.placeholder(
                    dtype=dtype, name=key,
                    shape=[default_batch_size, default_series_length] + per_example)
        placeholders.update(start_state_placeholders(
            model, tf.compat.v1.shape(times)[0], static_batch_size=default_batch_size))
        return ServingInputReceiver(placeholders, placeholders)

    return receiver_fn


def one_shot_parsing_receiver_fn(model, filtering_length: int, prediction_length: int,
                                 default_batch_size: Optional[int], values_input_dtype,
                                 truncate_values: bool):
    """TimeSeriesRegressor.build_one_shot_parsing_serving_input_receiver_fn (see there).

    Args:
        model: The time-series model.
        filtering_length: How many time steps of values the request holds.
        prediction_length: How many time steps to predict after them.
        default_batch_size: The serving batch size, or None for any.
        values_input_dtype: The dtype the values arrive in.
        truncate_values: Whether to cut the values to `filtering_length`.

    Returns:
        A serving input receiver function parsing `tf.train.Example`s.
    """
    values_input_dtype = values_input_dtype or tf.float32
    total_length = filtering_length + prediction_length
    values_length = total_length if truncate_values else filtering_length

    def receiver_fn():
        columns = list(model.exogenous_feature_columns) + [
            tf.feature_column.numeric_column(key=_TIMES, dtype=tf.int64),
            tf.feature_column.numeric_column(key=_VALUES, dtype=values_input_dtype,
                                             shape=(model.num_features,))]
        spec = {}
        for key, feature in tf.compat.v1.feature_column.make_parse_example_spec(
                columns).items():
            if isinstance(feature, tf.io.FixedLenFeature):
                length = values_length if key == _VALUES else total_length
                spec[key] = feature._replace(shape=(length,) + tuple(feature.shape))
            elif feature.dtype == tf.string:
                spec[key] = tf.io.FixedLenFeature(shape=(total_length,), dtype=tf.string)
            else:
                raise ValueError(f"VarLenFeatures not supported, got {feature} for key {key}")
        examples = tf.compat.v1.placeholder(shape=[default_batch_size], dtype=tf.string,
                                            name="input")
        features = tf.compat.v1.io.parse_example(serialized=examples, features=spec)
        features[_TIMES] = tf.compat.v1.squeeze(features[_TIMES], axis=-1)
        features[_VALUES] = tf.cast(features[_VALUES],
                                    dtype=model.dtype)[:, :filtering_length]
        features.update(start_state_placeholders(
            model, tf.compat.v1.shape(features[_TIMES])[0],
            static_batch_size=default_batch_size))
        return ServingInputReceiver(features, {"examples": examples})

    return receiver_fn
