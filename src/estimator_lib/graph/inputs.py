"""Calling an input_fn in the Estimator's graph and taking its result apart.

Large numpy arrays that an input_fn turns into constants become placeholders
(`estimator_lib.tf_internals.patches.large_arrays_fed`); `InputInitializerHook` feeds them
when the iterator is initialised.
"""

from typing import Callable, Dict, List, Tuple

import tensorflow as tf
from tensorflow.python.util import function_utils

from estimator_lib.core import keras_switch as _keras_switch
from estimator_lib.tf_internals import patches as tf_patches


class DatasetInitializerHook(tf.compat.v1.train.SessionRunHook):
    """Initializes `iterator` once the session is created (the original's
    `util._DatasetInitializerHook`, which libraries and its tests check for)."""

    def __init__(self, iterator):
        self._iterator = iterator
        self._initializer = None

    def begin(self):
        """Takes the iterator's initializer op from the graph."""
        self._initializer = self._iterator.initializer

    def after_create_session(self, session, coord):
        """Runs the initializer in the new session."""
        del coord
        session.run(self._initializer)


class InputInitializerHook(DatasetInitializerHook):
    """Initialises the input iterator once the session exists, feeding large arrays.

    `make_init_ops` is called in `begin()`, while the graph can still grow.
    """

    # pylint: disable-next=super-init-not-called
    def __init__(self, make_init_ops: Callable, feeds: Dict):
        self._make_init_ops = make_init_ops
        self._feeds = feeds
        self._init_ops = None

    def begin(self):
        """Builds the initializer ops, once.

        A graph evaluated again (`InMemoryEvaluatorHook`) begins a session per
        evaluation and is finalized after the first, so the first ops are kept.
        """
        if self._init_ops is None:
            self._init_ops = self._make_init_ops()

    def after_create_session(self, session, coord):
        """Runs the iterator's initializer in the new session, feeding the large arrays.

        Args:
            session: The session just created.
            coord: The session's coordinator (unused).
        """
        del coord
        session.run(self._init_ops, feed_dict=self._feeds or None)


# The attribute by which an input_fn that returns tensors when called names its Dataset
# form (numpy_input_fn, pandas_input_fn): a function of the same arguments returning the
# tf.data.Dataset those tensors come from.
DATASET_INPUT_FN = "dataset_input_fn"


def dataset_form(input_fn: Callable) -> Callable:
    """The input_fn to call where the Estimator consumes Datasets only (a strategy's
    per-replica input, the in-graph loop): its Dataset form where it names one
    (`DATASET_INPUT_FN`), else the input_fn itself."""
    return getattr(input_fn, DATASET_INPUT_FN, input_fn)


def call_input_fn(input_fn: Callable, mode: str, *, params, config, input_context=None):
    """Calls `input_fn`, passing only the optional arguments it names.

    Args:
        input_fn: The input_fn.
        mode: The `ModeKeys` mode.
        params: The Estimator's params dict.
        config: The `RunConfig`.
        input_context: The `tf.distribute.InputContext`, or None.

    Returns:
        What `input_fn` returned.
    """
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
    """Whether `value` is a `tf.data.Dataset` (the v1 `tf.compat.v1.data.Dataset` included).

    Args:
        value: What an input_fn returned.

    Returns:
        True for a Dataset; False for tensors, a tuple or a dict of them.
    """
    return isinstance(value, (tf.data.Dataset, tf.compat.v1.data.Dataset))


def parse_input_fn_result(result, feeds=None
                          ) -> Tuple[object, object, List[tf.compat.v1.train.SessionRunHook]]:
    """Splits an input_fn's result into (features, labels, hooks).

    A Dataset becomes an initializable iterator whose initializer runs in a hook
    (fed with `feeds`, the large arrays the input_fn captured). Tensors: the
    initializers of the iterators they come from (`feeds.initializers`) run in a
    hook too, and the arrays are fed on every run only if the tensors read them.
    """
    hooks = []
    if is_dataset(result):
        iterator = tf.compat.v1.data.make_initializable_iterator(
            tf_patches.autotune_thread_off(result))
        hooks.append(InputInitializerHook(lambda: iterator.initializer, feeds or {}))
        result = iterator.get_next()
    elif feeds:
        initializers = list(getattr(feeds, "initializers", ()))
        if initializers:
            hooks.append(InputInitializerHook(lambda: initializers, feeds))
        if _reads_any(result, set(feeds)):
            # Plain tensors made from large arrays: feed them on every run.
            hooks.append(tf.compat.v1.train.FeedFnHook(lambda: feeds))
    features, labels = split_features_and_labels(result)
    return features, labels, hooks


def _reads_any(result, placeholders) -> bool:
    """Whether any tensor of `result` depends on one of `placeholders` in the graph."""
    targets = {placeholder.op for placeholder in placeholders}
    pending = [t.op for t in tf.nest.flatten(result, expand_composites=True)
               if isinstance(t, tf.Tensor)]
    seen = set()
    while pending:
        op = pending.pop()
        if op in seen:
            continue
        seen.add(op)
        if op in targets:
            return True
        pending.extend(t.op for t in op.inputs)
        pending.extend(op.control_inputs)
    return False


def reads_a_dataset_or_queue(result) -> bool:
    """As the original's predict check: a Dataset's get_next at the top, or queue runners."""
    if is_dataset(result):
        return True
    if any(isinstance(t, tf.Tensor) and t.op.type == "IteratorGetNext"
           for t in tf.nest.flatten(result)):
        return True
    return bool(tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.QUEUE_RUNNERS))


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
