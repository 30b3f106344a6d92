"""The fixed-weight prediction model and data the time-series fixtures train on.

Shared by make_tf215_timeseries_fixtures.py (the original, TF 2.15's tf.keras) and
tests/estimator_lib/canned/timeseries/fixtures_test.py (ours, tf_keras): the same
layers with constant initial weights, so both sides start equal.
"""

import numpy as np

PERIODICITY = 4
INPUT_WINDOW = 3
OUTPUT_WINDOW = 2
BUCKETS = 2
SERIES_LENGTH = 24
BATCH = 4
HIDDEN = 3


def series():
    """(times [SERIES_LENGTH] int64, values [SERIES_LENGTH, 1] float32)."""
    times = np.arange(SERIES_LENGTH, dtype=np.int64)
    values = (np.sin(times * 2 * np.pi / PERIODICITY) + 0.1 * times
              + 0.05 * np.cos(times * 1.7)).astype(np.float32)
    return times, values[:, None]


def train_windows():
    """Every window of INPUT_WINDOW + OUTPUT_WINDOW steps, in order: (times, values)."""
    times, values = series()
    size = INPUT_WINDOW + OUTPUT_WINDOW
    starts = range(SERIES_LENGTH - size + 1)
    return (np.stack([times[s:s + size] for s in starts]),
            np.stack([values[s:s + size] for s in starts]))


def _weights(shape, seed):
    return np.random.RandomState(seed).uniform(-0.5, 0.5, shape).astype(np.float32)


def flat_factory(keras):
    """A prediction_model_factory of a two-layer model with fixed initial weights."""

    class FixedFlatModel(keras.Model):
        """Flattened windows -> tanh hidden layer -> mean and log variance."""

        def __init__(self, num_features, input_window_size, output_window_size):
            super().__init__()
            self._outputs = output_window_size
            self._features = num_features
            self._flatten = keras.layers.Flatten()
            self._hidden = None
            self._mean = None
            self._log_variance = None

        def build_layers(self, width):
            constant = keras.initializers.Constant
            out = self._outputs * self._features
            self._hidden = keras.layers.Dense(
                HIDDEN, activation="tanh", name="hidden",
                kernel_initializer=constant(_weights([width, HIDDEN], 1)),
                bias_initializer=constant(_weights([HIDDEN], 2)))
            self._mean = keras.layers.Dense(
                out, name="mean", kernel_initializer=constant(_weights([HIDDEN, out], 3)),
                bias_initializer=constant(_weights([out], 4)))
            self._log_variance = keras.layers.Dense(
                out, name="log_variance",
                kernel_initializer=constant(_weights([HIDDEN, out], 5)),
                bias_initializer="zeros")

        def call(self, input_window_features, output_window_features):
            import tensorflow as tf
            joined = tf.concat([self._flatten(input_window_features),
                                self._flatten(output_window_features)], axis=1)
            if self._hidden is None:
                self.build_layers(int(joined.shape[1]))
            hidden = self._hidden(joined)
            shape = [-1, self._outputs, self._features]
            return {"mean": tf.reshape(self._mean(hidden), shape),
                    "covariance": tf.reshape(tf.exp(self._log_variance(hidden)), shape)}

    return FixedFlatModel
