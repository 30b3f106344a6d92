"""Auto-regressive time-series models: ARModel and its LSTM prediction model.

ARModel regresses an output window of `output_window_size` steps on the input
window of `input_window_size` steps before it (values, time-bucket features and
exogenous features) through a pluggable Keras prediction model. Training takes
one window per series; evaluation slides non-overlapping output windows along a
longer series, and prediction feeds its own predictions back in
(`ar_loops.py`).
"""

import math
from typing import Any, Callable, Dict, Optional, Sequence, Union

import tensorflow as tf
import tf_keras

from estimator_lib.canned.timeseries import ar_loops
from estimator_lib.canned.timeseries import model
from estimator_lib.canned.timeseries import model_utils
from estimator_lib.canned.timeseries.feature_keys import PredictionFeatures
from estimator_lib.canned.timeseries.feature_keys import TrainEvalFeatures
from estimator_lib.core.model_fn import ModeKeys


class LSTMPredictionModel(tf_keras.models.Model):
    """A simple encoder/decoder model using an LSTM, the default of `ARModel`.

    The encoder LSTM reads the input window; its final state starts the decoder
    LSTM over the output window's features; dense layers give each output step's
    mean and (through exp) covariance.
    """

    def __init__(self, num_features: int, input_window_size: int, output_window_size: int,
                 num_units: int = 128):
        """Builds the layers.

        Args:
            num_features: Number of features per time step.
            input_window_size: Past steps the regression reads (unused by the layers).
            output_window_size: Future steps predicted (unused by the layers).
            num_units: Units of the encoder and decoder LSTMs.
        """
        super().__init__()
        del input_window_size, output_window_size  # The layers take any window.
        self._encoder = tf_keras.layers.LSTM(num_units, name="encoder", dtype=self.dtype,
                                             return_state=True)
        self._decoder = tf_keras.layers.LSTM(num_units, name="decoder", dtype=self.dtype,
                                             return_sequences=True)
        self._mean_transform = tf_keras.layers.Dense(num_features, name="mean_transform")
        self._covariance_transform = tf_keras.layers.Dense(num_features,
                                                           name="covariance_transform")

    def call(self, input_window_features, output_window_features):
        """Compute predictions from input and output windows."""
        _, state_h, state_c = self._encoder(input_window_features)
        decoded = self._decoder(output_window_features, initial_state=[state_h, state_c])
        return {"mean": self._mean_transform(decoded),
                "covariance": tf.math.exp(self._covariance_transform(decoded))}


def _normal_negative_log_likelihood(targets, prediction, covariance):
    """-sum log N(prediction; targets, sqrt(max(covariance, 1e-5))), term by term."""
    sigma = tf.math.sqrt(tf.math.maximum(covariance, 1e-5))
    z = (prediction - targets) / sigma
    log_prob = -0.5 * tf.math.square(z) - (0.5 * math.log(2. * math.pi) + tf.math.log(sigma))
    return -tf.math.reduce_sum(log_prob)


class ARModel(model.TimeSeriesModel):
    """Auto-regressive model, both linear and non-linear.

    Features are the values of the input window, time features and exogenous
    features; a prediction model maps them to the output window's mean and
    covariance, fed to the loss. Each periodicity in `periodicities` is cut into
    `num_time_buckets` buckets; a time t gives, per bucket, its offset into the
    bucket (in bucket units) when t falls in it and 0 otherwise: periodicities (9,
    12) and 3 buckets give 6 time features, of which t = 17 sets the third of 9's
    and the second of 12's. With `input_window_size=0` the model regresses on time
    alone.
    """
    SQUARED_LOSS = "squared_loss"
    NORMAL_LIKELIHOOD_LOSS = "normal_likelihood_loss"

    def __init__(self, periodicities: Union[int, Sequence[int], None], input_window_size: int,
                 output_window_size: int, num_features: int,
                 prediction_model_factory: Callable[..., Any] = LSTMPredictionModel,
                 num_time_buckets: int = 10, loss: str = NORMAL_LIKELIHOOD_LOSS,
                 exogenous_feature_columns: Optional[Sequence[Any]] = None):
        """Configures the model.

        Args:
            periodicities: One periodicity or several, in the time feature's units.
            input_window_size: Past steps regressed on.
            output_window_size: Future steps predicted at once (> 0).
            num_features: Features per time step.
            prediction_model_factory: Called with `num_features`,
                `input_window_size`, `output_window_size`; returns a Keras model
                whose call(input_window, output_window) returns {"mean",
                "covariance"} Tensors shaped [batch, output_window_size, num_features].
            num_time_buckets: Buckets per periodicity (> 0).
            loss: SQUARED_LOSS or NORMAL_LIKELIHOOD_LOSS (which trains the covariance).
                With SQUARED_LOSS evaluation reports the loss on unscaled data.
            exogenous_feature_columns: `tf.feature_column`s of extra, unpredicted
                features.

        Raises:
            ValueError: A bad window size, bucket count, periodicity or loss.
        """
        if loss not in (self.SQUARED_LOSS, self.NORMAL_LIKELIHOOD_LOSS):
            raise ValueError(f"loss must be ARModel.SQUARED_LOSS ({self.SQUARED_LOSS!r}) or "
                             f"ARModel.NORMAL_LIKELIHOOD_LOSS "
                             f"({self.NORMAL_LIKELIHOOD_LOSS!r}), got {loss!r}.")
        self._model_factory = prediction_model_factory
        self.input_window_size = input_window_size
        self.output_window_size = output_window_size
        self.window_size = input_window_size + output_window_size
        self.loss = loss
        super().__init__(num_features=num_features,
                         exogenous_feature_columns=exogenous_feature_columns)
        self.exogenous_size = (self._get_exogenous_embedding_shape()[-1]
                               if exogenous_feature_columns is not None else 0)
        if not num_time_buckets > 0:
            raise ValueError(f"num_time_buckets must be > 0, got {num_time_buckets}.")
        self._buckets = int(num_time_buckets)
        if not periodicities:
            periodicities = []
        elif not isinstance(periodicities, (list, tuple)):
            periodicities = [periodicities]
        self._periodicities = [int(p) for p in periodicities]
        if any(p <= 0 for p in self._periodicities):
            raise ValueError(f"periodicities must be > 0, got {periodicities}.")
        if not (self._periodicities or input_window_size):
            raise ValueError("ARModel needs periodicities or input_window_size > 0 (got "
                             f"periodicities={periodicities}, input_window_size="
                             f"{input_window_size}).")
        if not output_window_size > 0:
            raise ValueError(f"output_window_size must be > 0, got {output_window_size}.")

    def initialize_graph(self, input_statistics=None):
        """Sets the input statistics, then builds the network under the original's `model/` scope.

        The scope is the original's, so that checkpoints carry over in both directions.

        Args:
            input_statistics: A `math_utils.InputStatistics` the data is normalised with;
                None for data-independent defaults.
        """
        super().initialize_graph(input_statistics=input_statistics)
        # The original's variable scope, so checkpoints carry over in both directions.
        self._model_scope = tf.compat.v1.variable_scope("model/", use_resource=True)
        self._model_instance = self._model_factory(
            num_features=self.num_features, input_window_size=self.input_window_size,
            output_window_size=self.output_window_size)

    def get_start_state(self):
        """The state before any data: an empty window.

        Returns:
            (times, values, exogenous): zeros of shapes [input_window_size] (int64),
            [input_window_size, num_features] and [input_window_size, exogenous_size].
        """
        return (tf.zeros([self.input_window_size], dtype=tf.int64),
                tf.zeros([self.input_window_size, self.num_features], dtype=self.dtype),
                tf.zeros([self.input_window_size, self.exogenous_size], dtype=self.dtype))

    def random_model_parameters(self, seed=None):
        """Not supported: does nothing and returns None, as the original's."""
        pass

    def generate(self, number_of_series, series_length, model_parameters=None, seed=None):
        """Not supported: does nothing and returns None, as the original's.

        Args:
            number_of_series: How many series to sample.
            series_length: Each series' length.
            model_parameters: The parameters to sample with; None for the model's own.
            seed: The sampling seed.
        """
        pass

    def _predicted_covariance_op(self, activations, num_values):
        activation, activation_size = activations[-1]
        if self.loss == ARModel.NORMAL_LIKELIHOOD_LOSS:
            log_sigma_square = model_utils.fully_connected(
                activation, activation_size, self.output_window_size * num_values,
                name="log_sigma_square", activation=None)
            return tf.reshape(tf.math.exp(log_sigma_square),
                              [-1, self.output_window_size, num_values])
        shape = tf.stack([tf.compat.v1.shape(activation)[0],
                          tf.constant(self.output_window_size), tf.constant(num_values)])
        return tf.ones(shape=shape, dtype=activation.dtype)

    def _predicted_mean_op(self, activations):
        activation, activation_size = activations[-1]
        mean = model_utils.fully_connected(
            activation, activation_size, self.output_window_size * self.num_features,
            name="predicted_mean", activation=None)
        return tf.reshape(mean, [-1, self.output_window_size, self.num_features])

    def prediction_ops(self, times, values, exogenous_regressors) -> Dict[str, tf.Tensor]:
        """The prediction model's {"mean", "covariance"} for one window per series.

        Args:
            times: [batch size, window_size] integer times: the input window's, then
                the output window's.
            values: [batch size, input_window_size, num_features] input values.
            exogenous_regressors: [batch size, window_size, exogenous_size] or None.

        Returns:
            {"mean", "covariance"}, each [batch size, output_window_size, num_features].
        """
        times.get_shape().assert_is_compatible_with([None, self.window_size])
        batch_size = tf.compat.v1.shape(times)[0]
        if self.input_window_size:
            values.get_shape().assert_is_compatible_with(
                [None, self.input_window_size, self.num_features])
        if exogenous_regressors is not None:
            exogenous_regressors.get_shape().assert_is_compatible_with(
                [None, self.window_size, self.exogenous_size])
        split = (self.input_window_size, self.output_window_size)
        inputs, outputs = [], []
        input_size = output_size = 0
        if self._periodicities:
            _, time_features = self._compute_time_features(times)
            width = self._buckets * len(self._periodicities)
            time_features = tf.reshape(time_features, [batch_size, self.window_size, width])
            input_time, output_time = tf.split(time_features, split, axis=1)
            inputs.append(input_time)
            outputs.append(output_time)
            input_size += width
            output_size += width
        if self.input_window_size:
            window = tf.slice(values, [0, 0, 0], [-1, self.input_window_size, -1])
            inputs.append(tf.reshape(
                window, [batch_size, self.input_window_size, self.num_features]))
            input_size += self.num_features
        if self.exogenous_size:
            input_exogenous, output_exogenous = tf.split(exogenous_regressors, split, axis=1)
            inputs.append(input_exogenous)
            outputs.append(output_exogenous)
            input_size += self.exogenous_size
            output_size += self.exogenous_size
        input_features = tf.concat(inputs, axis=2)
        output_features = (tf.concat(outputs, axis=2) if outputs else tf.zeros(
            [batch_size, self.output_window_size, 0], dtype=self.dtype))
        static_batch = times.get_shape().dims[0].value
        input_features.set_shape([static_batch, self.input_window_size, input_size])
        output_features.set_shape([static_batch, self.output_window_size, output_size])
        return self._output_window_predictions(input_features, output_features)

    def _output_window_predictions(self, input_window_features, output_window_features):
        with self._model_scope:
            predictions = self._model_instance(input_window_features, output_window_features)
            for prediction in predictions.values():
                prediction.set_shape([None, self.output_window_size, self.num_features])
            return predictions

    def loss_op(self, targets, prediction_ops) -> tf.Tensor:
        """The mean per value of the squared error or normal negative log likelihood."""
        prediction = prediction_ops["mean"]
        if self.loss == ARModel.NORMAL_LIKELIHOOD_LOSS:
            loss = _normal_negative_log_likelihood(targets, prediction,
                                                   prediction_ops["covariance"])
        else:
            loss = tf.math.reduce_sum(tf.math.square(prediction - targets))
        return loss / tf.cast(tf.math.reduce_prod(tf.compat.v1.shape(targets)), loss.dtype)

    def _process_exogenous_features(self, times, features):
        embedded = super()._process_exogenous_features(times=times, features=features)
        if embedded is not None:
            return embedded
        return tf.zeros(tf.concat([tf.compat.v1.shape(times), tf.constant([0])], axis=0))

    def _exogenous_of(self, times, features):
        """The embedded exogenous features of `features` (all but times/values/state)."""
        skip = (TrainEvalFeatures.TIMES, TrainEvalFeatures.VALUES,
                PredictionFeatures.STATE_TUPLE)
        return self._process_exogenous_features(
            times=times, features={k: v for k, v in features.items() if k not in skip})

    def predict(self, features):
        """Predictions for PredictionFeatures.TIMES after the window in STATE_TUPLE.

        Args:
            features: PredictionFeatures.TIMES ([batch size, window] times after the
                state's), PredictionFeatures.STATE_TUPLE ((times, values, exogenous)
                of at least the last input_window_size steps) and the exogenous
                features at the prediction times.

        Returns:
            {"mean", "covariance"}, each [batch size, window, num_features].
        """
        if not self._graph_initialized:
            self.initialize_graph()
        return ar_loops.predict(self, features, exogenous_of=self._exogenous_of,
                                scale_back_data=self._scale_back_data,
                                scale_back_variance=self._scale_back_variance)

    def _process_window(self, features, mode, exogenous_regressors) -> model.ModelOutputs:
        """Model outputs on exactly one window of data per series."""
        times = tf.cast(features[TrainEvalFeatures.TIMES], tf.int64)
        values = tf.cast(features[TrainEvalFeatures.VALUES], dtype=self.dtype)
        exogenous_regressors = tf.cast(exogenous_regressors, dtype=self.dtype)
        original_values = values
        if not times.get_shape().is_compatible_with([None, self.window_size]):
            raise ValueError(
                f"ARModel with input_window_size={self.input_window_size} and "
                f"output_window_size={self.output_window_size} expects feature "
                f"'{TrainEvalFeatures.TIMES}' to have shape (batch_size, {self.window_size}) "
                f"(for any batch_size), but got shape {times.get_shape()}. If you are using "
                f"RandomWindowInputFn, set window_size={self.window_size} or adjust the "
                "input_window_size and output_window_size arguments to ARModel.")
        values = self._scale_data(values)
        input_values = values[:, :self.input_window_size, :] if self.input_window_size else None
        predictions = self.prediction_ops(times, input_values, exogenous_regressors)
        targets = tf.slice(values, [0, self.input_window_size, 0], [-1, -1, -1])
        targets.get_shape().assert_is_compatible_with(predictions["mean"].get_shape())
        if mode == ModeKeys.EVAL and self.loss == ARModel.SQUARED_LOSS:
            loss = self.loss_op(self._scale_back_data(targets),
                                {"mean": self._scale_back_data(predictions["mean"])})
        else:
            loss = self.loss_op(targets, predictions)
        last = -self.input_window_size
        return model.ModelOutputs(
            loss=loss,
            end_state=(times[:, last:], values[:, last:, :], exogenous_regressors[:, last:, :]),
            predictions={"mean": self._scale_back_data(predictions["mean"]),
                         "covariance": self._scale_back_variance(predictions["covariance"]),
                         "observed": original_values[:, -self.output_window_size:]},
            prediction_times=times[:, -self.output_window_size:])

    def get_batch_loss(self, features, mode, state) -> model.ModelOutputs:
        """Predictions and a loss: one window (TRAIN), or every output window (EVAL).

        Args:
            features: TIMES [batch size, window] and VALUES [batch size, window,
                num_features] (and exogenous features). Training needs window ==
                window_size; evaluation at least window_size, and evaluates the last
                whole output windows (non-overlapping).
            mode: tf.estimator.ModeKeys.TRAIN or EVAL.
            state: The (times, values, exogenous) state the evaluation continues.

        Returns:
            A ModelOutputs.

        Raises:
            ValueError: Another mode, or a window too short.
        """
        features = {name: tf.compat.v1.convert_to_tensor(value)
                    for name, value in features.items()}
        times = features[TrainEvalFeatures.TIMES]
        exogenous = self._exogenous_of(times, features)
        if mode == ModeKeys.TRAIN:
            return self._process_window(features, mode=mode, exogenous_regressors=exogenous)
        if mode == ModeKeys.EVAL:
            return ar_loops.evaluate(self, features, exogenous, state,
                                     process_window=self._process_window,
                                     scale_data=self._scale_data)
        raise ValueError(f"Unknown mode '{mode}' passed to get_batch_loss.")

    def _compute_time_features(self, time):
        """Per periodicity and bucket: t's offset into the bucket it falls in, else 0."""
        batch_size = tf.compat.v1.shape(time)[0]
        periods = tf.constant(self._periodicities, shape=[1, 1, len(self._periodicities), 1],
                              dtype=time.dtype)
        time = tf.reshape(time, [batch_size, -1, 1, 1])
        window_offset = time / self._periodicities
        position = (tf.cast(time % periods, self.dtype) * self._buckets
                    / tf.cast(periods, self.dtype))
        buckets = tf.reshape(tf.range(self._buckets, dtype=self.dtype),
                             [1, 1, 1, self._buckets])
        offset = tf.nn.relu(position - buckets)
        return window_offset, tf.where(offset < 1.0, offset, tf.compat.v1.zeros_like(offset))
