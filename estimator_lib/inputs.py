"""Calling an input_fn in the Estimator's graph and taking its result apart.

Large numpy arrays that an input_fn turns into constants become placeholders
(`estimator_lib.tf_patches.large_arrays_fed`); `InputInitializerHook` feeds them
when the iterator is initialised.
"""

from typing import Callable, Dict, List, Tuple

import tensorflow as tf
from tensorflow.python.util import function_utils

from estimator_lib import _keras_switch


class InputInitializerHook(tf.compat.v1.train.SessionRunHook):
    """Initialises the input iterator once the session exists, feeding large arrays.

    `make_init_ops` is called in `begin()`, while the graph can still grow.
    """

    def __init__(self, make_init_ops: Callable, feeds: Dict):
        self._make_init_ops = make_init_ops
        self._feeds = feeds
        self._init_ops = None

    def begin(self):
        self._init_ops = self._make_init_ops()

    def after_create_session(self, session, coord):
        del coord
        session.run(self._init_ops, feed_dict=self._feeds or None)


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


def parse_input_fn_result(result, feeds=None
                          ) -> Tuple[object, object, List[tf.compat.v1.train.SessionRunHook]]:
    """Splits an input_fn's result into (features, labels, hooks).

    A Dataset becomes an initializable iterator whose initializer runs in a hook
    (fed with `feeds`, the large arrays the input_fn captured).
    """
    hooks = []
    if is_dataset(result):
        iterator = tf.compat.v1.data.make_initializable_iterator(result)
        hooks.append(InputInitializerHook(lambda: iterator.initializer, feeds or {}))
        result = iterator.get_next()
    elif feeds:
        # Plain tensors made from large arrays: feed them on every run.
        hooks.append(tf.compat.v1.train.FeedFnHook(lambda: feeds))
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
