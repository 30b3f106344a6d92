"""Calling an input_fn in the Estimator's graph and taking its result apart."""

from typing import Callable, List, Tuple

import tensorflow as tf
from tensorflow.python.util import function_utils

from estimator_lib import _keras_switch


class DatasetInitializerHook(tf.compat.v1.train.SessionRunHook):
    """Runs a dataset iterator's initializer once the session exists."""

    def __init__(self, iterator):
        self._iterator = iterator
        self._initializer = None

    def begin(self):
        self._initializer = self._iterator.initializer

    def after_create_session(self, session, coord):
        del coord
        session.run(self._initializer)


def call_input_fn(input_fn: Callable, mode: str, *, params, config, input_context=None):
    """Calls `input_fn`, passing only the optional arguments it names."""
    if not callable(input_fn):
        raise TypeError(f"`input_fn` must be callable. Received: {type(input_fn).__name__}.")
    args = set(function_utils.fn_args(input_fn))
    kwargs = {}
    if "mode" in args:
        kwargs["mode"] = mode
    if "params" in args:
        kwargs["params"] = params
    if "config" in args:
        kwargs["config"] = config
    if input_context is not None and "input_context" in args:
        kwargs["input_context"] = input_context
    with tf.device("/cpu:0"):
        return input_fn(**kwargs)


def is_dataset(value) -> bool:
    return isinstance(value, (tf.data.Dataset, tf.compat.v1.data.Dataset))


def parse_input_fn_result(result) -> Tuple[object, object, List[tf.compat.v1.train.SessionRunHook]]:
    """Splits an input_fn's result into (features, labels, hooks).

    A Dataset becomes an initializable iterator whose initializer runs in a hook.
    """
    hooks = []
    if is_dataset(result):
        iterator = tf.compat.v1.data.make_initializable_iterator(result)
        hooks.append(DatasetInitializerHook(iterator))
        result = iterator.get_next()
    features, labels = split_features_and_labels(result)
    return features, labels, hooks


def split_features_and_labels(result):
    """(features, labels) from a 2-tuple/list, else (result, None)."""
    _keras_switch.check_not_keras3(result, argument="input_fn result")
    if isinstance(result, (list, tuple)):
        if len(result) != 2:
            raise ValueError(
                "input_fn should return (features, labels) as a len 2 tuple, a Dataset of "
                f"them, or features alone. Received a {type(result).__name__} of length "
                f"{len(result)}.")
        return result[0], result[1]
    return result, None
