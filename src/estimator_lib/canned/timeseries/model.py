"""The base class of time-series models, and what a model returns."""

import abc
import collections
from typing import Any, Dict, List, Optional, Sequence

import tensorflow as tf

from estimator_lib.canned.timeseries import math_utils
from estimator_lib.canned.timeseries.feature_keys import TrainEvalFeatures

# loss: the scalar to minimise; end_state: the model's state after the data;
# predictions: a dict of Tensors shaped [batch size, window, ...];
# prediction_times: a [batch size, window] integer Tensor, their times.
ModelOutputs = collections.namedtuple(
    "ModelOutputs", ["loss", "end_state", "predictions", "prediction_times"])


class TimeSeriesModel(abc.ABC):
    """Base class for creating generative time series models."""

    def __init__(self, num_features: int,
                 exogenous_feature_columns: Optional[Sequence[Any]] = None,
                 dtype: tf.DType = tf.float32):
        """Configures the model.

        Args:
            num_features: Number of features of the series.
            exogenous_feature_columns: `tf.feature_column`s of extra features that
                inform the model but are not predicted (passed to
                `tf.compat.v1.feature_column.input_layer`).
            dtype: The floating point dtype of the model.
        """
        self._exogenous_feature_columns = list(exogenous_feature_columns or [])
        self.num_features = num_features
        self.dtype = dtype
        self._input_statistics = None
        self._graph_initialized = False
        self._stats_means = None
        self._stats_sigmas = None

    @property
    def exogenous_feature_columns(self) -> List[Any]:
        """`tf.feature_column`s for features which are not predicted."""
        return self._exogenous_feature_columns

    def generate(self, number_of_series, series_length, model_parameters=None, seed=None):
        """Samples synthetic series from the model (not supported by default).

        Args:
            number_of_series: How many series to sample.
            series_length: Each series' length.
            model_parameters: The parameters to sample with; None for the model's own.
            seed: The sampling seed.

        Returns:
            The sampled series (a subclass's); None by default.
        """
        raise NotImplementedError("This model does not support generation.")

    def initialize_graph(self, input_statistics: Optional[math_utils.InputStatistics] = None):
        """Defines the model's graph-independent ops; call before using it in a graph.

        Args:
            input_statistics: A math_utils.InputStatistics the model normalises its
                data with; None: data-independent defaults.
        """
        self._graph_initialized = True
        self._input_statistics = input_statistics
        if input_statistics:
            self._stats_means, variances = input_statistics.overall_feature_moments
            self._stats_sigmas = tf.math.sqrt(variances)

    def _scale_data(self, data):
        """Input scale -> model scale."""
        if self._input_statistics is None:
            return data
        return (data - self._stats_means) / self._stats_sigmas

    def _scale_variance(self, variance):
        """Input scale -> model scale, for variances."""
        if self._input_statistics is None:
            return variance
        return variance / self._input_statistics.overall_feature_moments.variance

    def _scale_back_data(self, data):
        """Model scale -> input scale."""
        if self._input_statistics is None:
            return data
        return data * self._stats_sigmas + self._stats_means

    def _scale_back_variance(self, variance):
        """Model scale -> input scale, for variances."""
        if self._input_statistics is None:
            return variance
        return variance * self._input_statistics.overall_feature_moments.variance

    def _check_graph_initialized(self) -> None:
        if not self._graph_initialized:
            raise ValueError(
                "TimeSeriesModels require initialize_graph() to be called before use. This "
                "defines variables and ops in the default graph, and allows Tensor-valued "
                "input statistics to be specified.")

    def define_loss(self, features: Dict[str, Any], mode: str) -> ModelOutputs:
        """The loss of a batch, each series starting from the same (replicated) start state.

        Args:
            features: TrainEvalFeatures.TIMES ([batch size, window]),
                TrainEvalFeatures.VALUES ([batch size, window, num_features]) and any
                exogenous features.
            mode: tf.estimator.ModeKeys.TRAIN or EVAL.

        Returns:
            A ModelOutputs.
        """
        self._check_graph_initialized()
        batch_size = tf.compat.v1.shape(features[TrainEvalFeatures.TIMES])[0]
        start_state = math_utils.replicate_state(self.get_start_state(), batch_size)
        return self.get_batch_loss(features=features, mode=mode, state=start_state)

    @abc.abstractmethod
    def get_start_state(self):
        """The state at the start of a series, without a batch dimension."""

    @abc.abstractmethod
    def get_batch_loss(self, features, mode, state):
        """Predictions, loss and end state of a batch starting from `state` (batched).

        Args:
            features: The batch's features.
            mode: The `ModeKeys` mode.
            state: The model state each series starts from.

        Returns:
            The batch's `ModelOutputs`.
        """

    @abc.abstractmethod
    def predict(self, features):
        """Distributions of future values from PredictionFeatures.TIMES and STATE_TUPLE."""

    def _get_exogenous_embedding_shape(self) -> List[int]:
        """The shape (no batch dimension) of the exogenous features once embedded."""
        if not self._exogenous_feature_columns:
            return (0,)
        with tf.Graph().as_default():
            spec = tf.compat.v1.feature_column.make_parse_example_spec(
                self._exogenous_feature_columns)
            parsed = tf.compat.v1.io.parse_example(
                serialized=tf.compat.v1.placeholder(shape=[None], dtype=tf.string),
                features=spec)
            embedded = tf.compat.v1.feature_column.input_layer(
                features=parsed, feature_columns=self._exogenous_feature_columns)
            return embedded.get_shape().as_list()[1:]

    def _process_exogenous_features(self, times, features):
        """Embeds the exogenous features into one [batch size, window, size] Tensor.

        Args:
            times: The [batch size, window] times of the batch (gives the shape).
            features: The exogenous features, each shaped [batch size, window, ...].

        Returns:
            The embedded Tensor, or None when the model has no exogenous columns.

        Raises:
            ValueError: If a feature's rank is unknown.
        """
        if not self._exogenous_feature_columns:
            return None
        flat = {}
        for name, tensor in features.items():
            if tensor.get_shape().ndims is None:
                raise ValueError(
                    f"Features with unknown rank are not supported. Got shape "
                    f"{tensor.get_shape()} for feature {name}.")
            shape = tf.compat.v1.shape(tensor)
            tensor = tf.reshape(tensor, tf.concat([[shape[0] * shape[1]], shape[2:]], axis=0))
            if tensor.get_shape().ndims == 1 and tensor.dtype != tf.string:
                tensor = tensor[:, None]
            flat[name] = tensor
        embedded = tf.compat.v1.feature_column.input_layer(
            features=flat, feature_columns=self._exogenous_feature_columns, trainable=True)
        result = tf.reshape(embedded, tf.concat(
            [tf.compat.v1.shape(times), tf.compat.v1.shape(embedded)[1:]], axis=0))
        result.set_shape(times.get_shape().concatenate(embedded.get_shape()[1:]))
        return tf.cast(result, dtype=self.dtype)
