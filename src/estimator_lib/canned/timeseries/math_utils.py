"""Input statistics for time-series models, and state replicated over a batch.

`InputStatisticsFromMiniBatch` keeps running moments of the series in
non-trainable variables (`input_statistics/...`, `input_statistics_auxiliary/...`,
the original's names, so checkpoints carry over) and updates them from every
training batch; models normalise their inputs with them.
"""

import collections
from typing import Any, Dict, Optional

import tensorflow as tf

from estimator_lib.canned.timeseries.feature_keys import TrainEvalFeatures


def replicate_state(start_state: Any, batch_size: Any) -> Any:
    """Gives every tensor of `start_state` a leading batch dimension of `batch_size`.

    Args:
        start_state: A nest of Tensors without a batch dimension (for example a
            model's `get_start_state()`).
        batch_size: A scalar integer Tensor (or int), the batch size wanted.

    Returns:
        The same nest, each Tensor tiled `batch_size` times along a new axis 0.
    """

    def tile(state: tf.Tensor) -> tf.Tensor:
        multiples = tf.concat([[batch_size], tf.ones([tf.rank(state)], dtype=tf.int32)], 0)
        return tf.tile(tf.compat.v1.expand_dims(state, 0), multiples)

    return tf.nest.map_structure(tile, start_state)


Moments = collections.namedtuple("Moments", ["mean", "variance"])

InputStatistics = collections.namedtuple(
    "InputStatistics",
    ["series_start_moments", "overall_feature_moments", "start_time",
     "total_observation_count"])

_Auxiliary = collections.namedtuple(
    "_Auxiliary",
    ["max_time_seen", "chunk_count", "inter_observation_duration_sum", "example_count",
     "overall_feature_sum", "overall_feature_sum_of_squares"])


class InputStatisticsFromMiniBatch:
    """Generate statistics from mini-batch input."""

    def __init__(self, num_features: int, dtype: tf.DType,
                 starting_variance_window_size: int = 16):
        """Configures the statistics.

        Args:
            num_features: Number of features of the series.
            dtype: The floating point dtype of the statistics.
            starting_variance_window_size: How many points at the start of the series
                give its starting mean and variance.
        """
        self._starting_variance_window_size = starting_variance_window_size
        self._num_features = num_features
        self._dtype = dtype

    def initialize_graph(self, features: Dict[str, Any],
                         update_statistics: bool = True) -> InputStatistics:
        """Creates the statistics' variables (and their updates) in the default graph.

        Args:
            features: The input_fn's features (TrainEvalFeatures.TIMES and VALUES).
            update_statistics: Whether `features` update the statistics (training).

        Returns:
            An InputStatistics of Variables; when updating, of Tensors read after
            this batch's update.
        """
        times = features.get(TrainEvalFeatures.TIMES)
        values = features.get(TrainEvalFeatures.VALUES)
        if times is None or values is None:
            times = values = None
        with tf.compat.v1.variable_scope("input_statistics", use_resource=True):
            statistics = self._statistics_variables()
        with tf.compat.v1.variable_scope("input_statistics_auxiliary", use_resource=True):
            auxiliary = self._auxiliary_variables()
        if not (update_statistics and times is not None):
            return statistics
        update = self._update(statistics, auxiliary, times, values)
        with tf.control_dependencies([update]):
            read = tf.nest.pack_sequence_as(
                statistics, [tf.identity(v) for v in tf.nest.flatten(statistics)])
            batch_start = tf.cast(tf.math.reduce_min(times), tf.int64)
            return read._replace(start_time=tf.math.minimum(read.start_time, batch_start))

    def _variable(self, name: str, dtype: tf.DType, shape=None, initializer=None):
        return tf.compat.v1.get_variable(name=name, shape=shape, dtype=dtype,
                                         initializer=initializer, trainable=False)

    def _statistics_variables(self) -> InputStatistics:
        zeros, ones = tf.compat.v1.initializers.zeros(), tf.compat.v1.initializers.ones()
        features = [self._num_features]
        return InputStatistics(
            series_start_moments=Moments(
                mean=self._variable("series_start_mean", self._dtype, features, zeros),
                variance=self._variable("series_start_variance", self._dtype, features,
                                        ones)),
            overall_feature_moments=Moments(
                mean=self._variable("overall_feature_mean", self._dtype, features, zeros),
                variance=self._variable("overall_feature_var", self._dtype, features, ones)),
            start_time=self._variable("start_time", tf.int64, initializer=tf.int64.max),
            total_observation_count=self._variable("total_observation_count", tf.int64, [],
                                                   ones))

    def _auxiliary_variables(self) -> _Auxiliary:
        zeros = tf.compat.v1.initializers.zeros()
        features = [self._num_features]
        return _Auxiliary(
            max_time_seen=self._variable("max_time_seen", tf.int64, initializer=tf.int64.min),
            chunk_count=self._variable("chunk_count", tf.int64, [], zeros),
            inter_observation_duration_sum=self._variable(
                "inter_observation_duration_sum", self._dtype, [], zeros),
            example_count=self._variable("example_count", tf.int64, []),
            overall_feature_sum=self._variable("overall_feature_sum", self._dtype, features,
                                               zeros),
            overall_feature_sum_of_squares=self._variable(
                "overall_feature_sum_of_squares", self._dtype, features, zeros))

    def _update(self, statistics: InputStatistics, auxiliary: _Auxiliary,
                times: tf.Tensor, values: tf.Tensor) -> tf.Operation:
        """The ops folding one batch into `auxiliary`, then `statistics` from it."""
        dtype = self._dtype
        values = tf.cast(values, dtype)
        spacing = (tf.cast(tf.math.reduce_max(times, axis=1) - tf.math.reduce_min(times, axis=1),
                           dtype)
                   / tf.cast(tf.compat.v1.shape(times)[1] - 1, dtype))
        with tf.compat.v1.device(auxiliary.max_time_seen.device):
            newest = tf.math.maximum(auxiliary.max_time_seen,
                                     tf.cast(tf.math.reduce_max(times), tf.int64))
            max_time_seen = tf.compat.v1.assign(auxiliary.max_time_seen, newest)
        increments = (
            (auxiliary.chunk_count, tf.compat.v1.shape(times, out_type=tf.int64)[0]),
            (auxiliary.inter_observation_duration_sum, tf.math.reduce_sum(spacing)),
            (auxiliary.example_count, tf.compat.v1.size(times, out_type=tf.int64)),
            (auxiliary.overall_feature_sum, tf.math.reduce_sum(values, axis=[0, 1])),
            (auxiliary.overall_feature_sum_of_squares,
             tf.math.reduce_sum(values**2, axis=[0, 1])),
        )
        adds = []
        for variable, increment in increments:
            with tf.compat.v1.device(variable.device):
                adds.append(tf.compat.v1.assign_add(variable, increment))
        with tf.control_dependencies([tf.group(max_time_seen, *adds)]):
            count = tf.cast(auxiliary.example_count, dtype)
            mean = auxiliary.overall_feature_sum / count
            mean_update = tf.compat.v1.assign(statistics.overall_feature_moments.mean, mean)
            variance_update = tf.compat.v1.assign(
                statistics.overall_feature_moments.variance,
                count / (count - 1.) * (auxiliary.overall_feature_sum_of_squares / count
                                        - mean**2))
            first = tf.cast(tf.compat.v1.math.argmin(times[:, 0]), tf.int32)

            def start_moments():
                start_mean, start_variance = tf.compat.v1.nn.moments(
                    values[first, :self._starting_variance_window_size], axes=[0])
                return tf.group(
                    tf.compat.v1.assign(statistics.series_start_moments.mean, start_mean),
                    tf.compat.v1.assign(statistics.series_start_moments.variance,
                                        start_variance))

            with tf.compat.v1.device(statistics.start_time.device):
                start_update = tf.compat.v1.cond(
                    tf.math.less_equal(times[first, 0],
                                       tf.cast(statistics.start_time, times.dtype)),
                    start_moments, tf.no_op)
                with tf.control_dependencies([start_update]):
                    start = tf.math.minimum(statistics.start_time,
                                            tf.cast(tf.math.reduce_min(times), tf.int64))
                    start_time_update = tf.compat.v1.assign(statistics.start_time, start)
            mean_spacing = (auxiliary.inter_observation_duration_sum
                            / tf.cast(auxiliary.chunk_count, dtype))
            count_update = tf.compat.v1.assign(
                statistics.total_observation_count,
                tf.cast(tf.math.round(tf.cast(max_time_seen - start_time_update + 1, dtype)
                                      / mean_spacing), tf.int64))
            return tf.group(mean_update, variance_update, start_update, start_time_update,
                            count_update)
