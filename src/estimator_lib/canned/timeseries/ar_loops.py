"""ARModel's two loops over windows: evaluation along a series, and prediction.

`evaluate` runs the one-window model over the last whole, non-overlapping output
windows of a longer series (a `tf.while_loop`), averaging the losses; `predict`
feeds each output window's predicted means back in as the next input window.
Both are ARModel methods' bodies, kept here so ar_model.py stays one model.
"""

import tensorflow as tf

from estimator_lib.canned.timeseries import model
from estimator_lib.canned.timeseries.feature_keys import PredictionFeatures
from estimator_lib.canned.timeseries.feature_keys import TrainEvalFeatures
from estimator_lib.core.model_fn import ModeKeys


def _stacked_windows(tensor_array: tf.TensorArray, shape):
    """[iterations, batch, window, n] -> [batch, iterations * window, n] (as `shape`)."""
    return tf.reshape(tf.compat.v1.transpose(tensor_array.stack(), [1, 0, 2, 3]), shape)


def evaluate(ar_model, features, exogenous, state, *, process_window,
             scale_data) -> model.ModelOutputs:
    """ARModel.get_batch_loss in EVAL mode (see there).

    `process_window` and `scale_data` are the model's: one window's outputs, and
    values scaled as the model sees them.

    Args:
        ar_model: The `ARModel`.
        features: The dict of feature tensors (times, values, exogenous features).
        exogenous: The embedded exogenous features, `[batch, time, exogenous size]`.
        state: The model state the batch starts from.
        process_window: The model's function computing one window's outputs.
        scale_data: The model's function scaling values as the model sees them.

    Returns:
        The batch's `ModelOutputs` (loss, end state, predictions).
    """
    times = features[TrainEvalFeatures.TIMES]
    times.get_shape().assert_has_rank(2)
    static_window = times.get_shape().dims[1].value
    if static_window is not None and static_window < ar_model.window_size:
        raise ValueError(
            f"ARModel requires a window of at least input_window_size + output_window_size "
            f"to evaluate on (input_window_size={ar_model.input_window_size}, "
            f"output_window_size={ar_model.output_window_size}, and got shape "
            f"{times.get_shape()} for feature '{TrainEvalFeatures.TIMES}' (batch size, window "
            "size)).")
    output_window = ar_model.output_window_size
    iterations = (tf.compat.v1.shape(times)[1] - ar_model.input_window_size) // output_window
    output_size = iterations * output_window
    crop = output_size + ar_model.input_window_size
    features = {name: value[:, -crop:] for name, value in features.items()}

    def body(i, losses, means, covariances):
        start = i * output_window
        outputs = process_window(
            features={name: value[:, start:start + ar_model.window_size]
                      for name, value in features.items()},
            mode=ModeKeys.EVAL,
            exogenous_regressors=exogenous[:, start:start + ar_model.window_size])
        return (i + 1, losses.write(i, outputs.loss),
                means.write(i, outputs.predictions["mean"]),
                covariances.write(i, outputs.predictions["covariance"]))

    def arrays():
        return tf.TensorArray(dtype=ar_model.dtype, size=iterations)

    _, losses, means, covariances = tf.compat.v1.while_loop(
        lambda i, *_: i < iterations, body, [0, arrays(), arrays(), arrays()])
    values = tf.cast(features[TrainEvalFeatures.VALUES], dtype=ar_model.dtype)
    shape = [tf.compat.v1.shape(times)[0], output_window * iterations, ar_model.num_features]
    state_times, state_values, state_exogenous = state
    last = ar_model.input_window_size
    if last > 0:
        new_times = tf.concat([state_times, tf.cast(times, tf.int64)], axis=1)[:, -last:]
        new_times.set_shape((None, last))
        new_values = tf.concat([state_values, scale_data(values)],
                               axis=1)[:, -last:, :]
        new_values.set_shape((None, last, ar_model.num_features))
        new_exogenous = tf.concat([state_exogenous, exogenous], axis=1)[:, -last:, :]
        new_exogenous.set_shape((None, last, ar_model.exogenous_size))
    else:
        new_times, new_values, new_exogenous = state_times, state_values, state_exogenous
    return model.ModelOutputs(
        loss=tf.math.reduce_mean(losses.stack(), axis=0),
        end_state=(new_times, new_values, new_exogenous),
        predictions={"mean": _stacked_windows(means, shape),
                     "covariance": _stacked_windows(covariances, shape),
                     "observed": values[:, -output_size:]},
        prediction_times=times[:, -output_size:])


def predict(ar_model, features, *, exogenous_of, scale_back_data, scale_back_variance):
    """ARModel.predict (see there): output windows predicted one after another.

    The keyword arguments are the model's: the embedded exogenous features of a
    feature dict, and predictions scaled back to the data's scale.

    Args:
        ar_model: The `ARModel`.
        features: The dict of feature tensors (times, values, exogenous features).
        exogenous_of: The model's function embedding a feature dict's exogenous features.
        scale_back_data: The model's function scaling predictions back to the data's scale.
        scale_back_variance: The same for the predicted variances.

    Returns:
        The dict of predictions (mean and covariance per output window).
    """
    input_window, output_window = ar_model.input_window_size, ar_model.output_window_size
    times = tf.cast(tf.compat.v1.convert_to_tensor(features[PredictionFeatures.TIMES]),
                    tf.int32)
    exogenous = exogenous_of(times, features)
    with tf.control_dependencies([tf.compat.v1.debugging.assert_equal(
            tf.compat.v1.shape(times)[1], tf.compat.v1.shape(exogenous)[1])]):
        exogenous = tf.identity(exogenous)
    batch_size = tf.compat.v1.shape(times)[0]
    count = tf.compat.v1.shape(times)[1]
    iterations = (count + output_window - 1) // output_window
    padding = iterations * output_window - count
    times = tf.compat.v1.pad(times, [[0, 0], [0, padding]])
    exogenous = tf.compat.v1.pad(exogenous, [[0, 0], [0, padding], [0, 0]])
    state_times, state_values, state_exogenous = features[PredictionFeatures.STATE_TUPLE]
    state_times = tf.cast(tf.compat.v1.convert_to_tensor(state_times), tf.int32)
    state_values = tf.compat.v1.convert_to_tensor(state_values, dtype=ar_model.dtype)
    state_exogenous = tf.compat.v1.convert_to_tensor(state_exogenous, dtype=ar_model.dtype)

    first_times = times[:, :output_window]
    first_exogenous = exogenous[:, :output_window, :]
    first_values = 0
    if input_window > 0:
        first_times = tf.concat([state_times[:, -input_window:], first_times], 1)
        values_size = tf.compat.v1.shape(state_values)[1]
        with tf.control_dependencies([
                tf.compat.v1.debugging.assert_greater_equal(values_size, input_window),
                tf.compat.v1.debugging.assert_equal(values_size,
                                                    tf.compat.v1.shape(state_times)[1])]):
            first_values = state_values[:, -input_window:, :]
            first_exogenous = tf.concat([state_exogenous[:, -input_window:, :],
                                         first_exogenous[:, :output_window, :]], axis=1)

    def next_window(offset, window_times, window_values, window_exogenous, mean):
        """The (times, values, exogenous) of the window after this one's prediction."""
        upcoming = slice(offset, offset + output_window)
        if input_window == 0:
            return times[:, upcoming], window_values, exogenous[:, upcoming, :]
        if output_window < input_window:
            return (tf.concat([window_times[:, -input_window:], times[:, upcoming]], 1),
                    tf.concat([window_values[:, output_window:, :], mean], 1),
                    tf.concat([window_exogenous[:, -input_window:, :],
                               exogenous[:, upcoming, :]], axis=1))
        span = slice(offset - input_window, offset + output_window)
        return times[:, span], mean[:, -input_window:, :], exogenous[:, span, :]

    def body(i, window_times, window_values, window_exogenous, means, covariances):
        predictions = ar_model.prediction_ops(window_times, window_values, window_exogenous)
        offset = output_window * tf.math.minimum(i + 1, iterations - 1)
        new_times, new_values, new_exogenous = next_window(
            offset, window_times, window_values, window_exogenous, predictions["mean"])
        new_times.set_shape(first_times.get_shape())
        new_exogenous.set_shape(first_exogenous.get_shape())
        if isinstance(covariances, tf.TensorArray):
            covariances = covariances.write(i, predictions["covariance"])
        return (i + 1, new_times, new_values, new_exogenous,
                means.write(i, predictions["mean"]), covariances)

    squared = ar_model.loss == ar_model.SQUARED_LOSS
    covariances = 0. if squared else tf.TensorArray(dtype=ar_model.dtype, size=iterations)
    means = tf.TensorArray(dtype=ar_model.dtype, size=iterations)
    _, _, _, _, means, covariances = tf.compat.v1.while_loop(
        lambda i, *_: tf.math.less(i, iterations), body,
        [0, first_times, first_values, first_exogenous, means, covariances])

    def unwindowed(tensor_array):
        shape = tf.stack([batch_size, iterations * output_window, -1])
        return _stacked_windows(tensor_array, shape)[:, :count, :]

    mean = unwindowed(means)
    covariance = (tf.compat.v1.ones_like(mean) if squared else unwindowed(covariances))
    return {"mean": scale_back_data(mean), "covariance": scale_back_variance(covariance)}
