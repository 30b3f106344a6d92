"""Helpers for building time-series models and for continuing from their outputs."""

from typing import Any, Callable, Dict, Optional

import numpy as np
import tensorflow as tf

from estimator_lib.canned.timeseries import feature_keys


def fully_connected(inp: tf.Tensor, inp_size: int, layer_size: int, name: str,
                    activation: Optional[Callable] = tf.nn.relu,
                    dtype: tf.DType = tf.float32) -> tf.Tensor:
    """A dense layer from `{name}_weight` and `{name}_bias` variables.

    Args:
        inp: The [batch, inp_size] input.
        inp_size: Its width.
        layer_size: The output width.
        name: Prefix of the two variables' names.
        activation: Applied to the output unless None.
        dtype: The weight's dtype.

    Returns:
        The [batch, layer_size] output.
    """
    weight = tf.compat.v1.get_variable(name=f"{name}_weight", shape=[inp_size, layer_size],
                                       dtype=dtype)
    bias = tf.compat.v1.get_variable(name=f"{name}_bias", shape=[layer_size],
                                     initializer=tf.compat.v1.initializers.zeros())
    output = tf.compat.v1.nn.xw_plus_b(inp, weight, bias)
    if activation is None:
        return output
    if not callable(activation):
        raise ValueError(f"activation must be callable or None, got {activation!r}.")
    return activation(output)


def canonicalize_times_or_steps_from_output(times, steps,
                                            previous_model_output: Dict[str, Any]) -> np.ndarray:
    """The [batch, window] times to predict, from either `times` or `steps`.

    Args:
        times: Absolute times ([window] or [batch, window]), or None.
        steps: How many steps after the previous output's last time, or None.
        previous_model_output: An evaluation or filtering result (has
            FilteringResults.TIMES).

    Returns:
        A [batch size, window] array of times.

    Raises:
        ValueError: Both or neither of `times`/`steps`, a batch size other than the
            previous output's, or times not after the previous output's.
    """
    if steps is not None and times is not None:
        raise ValueError("Only one of `steps` and `times` may be specified.")
    if steps is None and times is None:
        raise ValueError("One of `steps` and `times` must be specified.")
    previous_times = previous_model_output[feature_keys.FilteringResults.TIMES]
    if steps is not None:
        return previous_times[:, -1:] + 1 + np.arange(steps)[None, ...]
    times = np.array(times)
    if len(times.shape) != 2:
        times = times[None, ...]
    if previous_times.shape[0] != times.shape[0]:
        raise ValueError(
            f"`times` must have a batch dimension matching the previous model output (got "
            f"a batch dimension of {times.shape[0]} for `times` and "
            f"{previous_times.shape[0]} for the previous model output).")
    if not (previous_times[:, -1] < times[:, 0]).all():
        raise ValueError("Prediction times must be after the corresponding previous model "
                         "output.")
    return times
