"""The input of every Estimator call: calling the input_fn, and its result as batches.

`read()` is the one input path, for every branch (one step per run, the in-graph
loop of `steps_per_run`, a strategy's replicas, evaluate, predict). Within it:

- `large_arrays_fed` is open (once), so large numpy arrays that the input_fn turns
  into constants become placeholders (`tf_internals/patches.py`, patch 1), fed when
  the input starts;
- the input_fn is called through the owner's `_call_input_fn`, whose default is
  `call_input_fn` here (where to change how an input_fn is called);
- a Dataset becomes batches in one place, `dataset_batches`: an initializable
  iterator over it with tf.data's autotune thread off (patch 5), initialised by an
  `InputInitializerHook` that feeds the large arrays.
"""

from typing import Any, Callable, Dict, List, Tuple

import tensorflow as tf
from tensorflow.python.util import deprecation
from tensorflow.python.util import function_utils

from estimator_lib.core import keras_switch as _keras_switch
from estimator_lib.core.model_fn import ModeKeys
from estimator_lib.tf_internals import patches as tf_patches
from estimator_lib.tf_internals import process_swaps

logging = tf.compat.v1.logging


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


def read(owner, input_fn: Callable, mode: str, *, strategy=None,
         steps_per_run: int = 1) -> Tuple[Callable, List]:
    """Returns `(get_next, input hooks)`: the one input path of every Estimator call.

    `get_next()` returns `(features, labels)`: with a strategy, per-replica values of
    its iterator; with `steps_per_run` > 1, a new batch on each call (the loop body
    calls it); otherwise the batch the owner's `_get_features_and_labels_from_input_fn`
    (or, in PREDICT, `_get_features_from_input_fn`) made, as the original did.

    Args:
        owner: The Estimator (graph/model_graph.GraphOwner): its `_call_input_fn` and
            input hook points are called.
        input_fn: The input_fn.
        mode: The `ModeKeys` mode.
        strategy: The strategy whose replicas each take a batch, or None.
        steps_per_run: Training steps per session run.

    Raises:
        ValueError: With `steps_per_run` > 1, if input_fn returned no Dataset.
    """
    # pylint: disable=protected-access
    with tf_patches.large_arrays_fed() as feeds:
        if strategy is not None:
            return _replicated(owner, strategy, input_fn, mode)
        if steps_per_run > 1:
            result = owner._call_input_fn(dataset_form(input_fn), mode)
            if not is_dataset(result):
                raise ValueError(
                    f"With steps_per_run={steps_per_run} the input_fn must return a "
                    "tf.data.Dataset, from which every step of the in-graph loop takes its "
                    f"own batch. Received: {type(result).__name__} (tensors made outside the "
                    "loop would give each step the same batch). Return the Dataset itself, "
                    "or use steps_per_run=1.")
            return dataset_batches(result, feeds)
        if mode == ModeKeys.PREDICT:
            features, hooks = owner._get_features_from_input_fn(input_fn, mode)
            labels = None
        else:
            features, labels, hooks = owner._get_features_and_labels_from_input_fn(
                input_fn, mode)
    return (lambda: (features, labels)), list(hooks)


def dataset_batches(dataset, feeds=None) -> Tuple[Callable, List]:
    """Returns `(get_next, [hook])`: the one place a Dataset becomes batches.

    An initializable iterator over `dataset` with tf.data's autotune thread off
    (patch 5), initialised by an `InputInitializerHook` feeding `feeds` (the large
    arrays the input_fn captured). Each `get_next()` call adds a get_next op.

    Args:
        dataset: The input_fn's Dataset.
        feeds: The `FedArrays` of the input call, or None.
    """
    iterator = tf.compat.v1.data.make_initializable_iterator(
        tf_patches.autotune_thread_off(dataset))
    return ((lambda: split_features_and_labels(iterator.get_next())),
            [InputInitializerHook(lambda: iterator.initializer, feeds or {})])


def _replicated(owner, strategy, input_fn, mode) -> Tuple[Callable, List]:
    """(get_next, hooks) over the iterator of the owner's `_get_iterator_from_input_fn`
    (`iterator`, the default): per-replica batches, as the original."""
    iterator_, hooks = owner._get_iterator_from_input_fn(  # pylint: disable=protected-access
        input_fn, mode, strategy)
    return (lambda: split_features_and_labels(iterator_.get_next())), list(hooks)


def iterator(owner, input_fn: Callable, mode: str, distribution=None) -> Tuple[Any, List]:
    """`(iterator, input hooks)` of `input_fn`: the default of the Estimator's
    `_get_iterator_from_input_fn`, as the original's.

    With a strategy, its `make_input_fn_iterator` calls the owner's `_call_input_fn` with
    each input context (the input_fn batches per replica and is not split); without
    one, an initializable iterator over the Dataset the input_fn returns. Either way
    large arrays are fed (`large_arrays_fed`, where `read` opened it) and the input
    runs without tf.data's autotune thread.

    Args:
        owner: The Estimator: its `_call_input_fn` is called.
        input_fn: The input_fn.
        mode: The `ModeKeys` mode.
        distribution: The strategy whose replicas each take a batch, or None.
    """
    feeds = tf_patches.current_feeds()
    if distribution is None:
        dataset = tf_patches.autotune_thread_off(owner._call_input_fn(input_fn, mode))  # pylint: disable=protected-access
        result = tf.compat.v1.data.make_initializable_iterator(dataset)
        return result, [InputInitializerHook(lambda: result.initializer, feeds)]
    with tf_patches.per_device_autotune_off(), process_swaps.ignoring_warnings(
            tf_patches.DATA_OPTIONS_WARNING, UserWarning):
        # TensorFlow's MultiDeviceIterator reads dataset.options() in graph mode, which
        # warns (a UserWarning) on every replicated input; the user did nothing to see.
        result = distribution.make_input_fn_iterator(
            # The per-device datasets' own prefetch runs the input beside the step.
            lambda input_context: tf_patches.autotune_thread_off(owner._call_input_fn(  # pylint: disable=protected-access
                dataset_form(input_fn), mode, input_context=input_context),
                keep_injected_prefetch=False))
    return result, [InputInitializerHook(lambda: _initializer(result), feeds)]


def _initializer(iterator):
    """The distributed iterator's initializer ops, without TensorFlow's own deprecation
    warning: its `initializer` property calls the deprecated `initialize()`."""
    with deprecation.silence():
        return iterator.initializer


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

    A Dataset becomes batches (`dataset_batches`). Tensors: the initializers of the
    iterators they come from (`feeds.initializers`) run in a hook, and the large
    arrays are fed on every run only if the tensors read them.

    Args:
        result: What the input_fn returned.
        feeds: The large arrays to feed; None takes those of the `read()` this runs
            in (none outside one).
    """
    if feeds is None:
        feeds = tf_patches.current_feeds()
    if is_dataset(result):
        get_next, hooks = dataset_batches(result, feeds)
        features, labels = get_next()
        return features, labels, hooks
    hooks = []
    if feeds:
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


def warn_without_dataset(features) -> None:
    """Logs the original's warning for a PREDICT input that would yield forever."""
    if not reads_a_dataset_or_queue(features):
        logging.warning("Input graph does not use tf.data.Dataset or contain a "
                        "QueueRunner. That means predict yields forever. This is "
                        "probably a mistake.")


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
