"""Every change estimator_lib makes to TensorFlow's own code, in one place.

Each patch says what it changes, why (the upstream problem), and when it is in
force. Nothing else in the package assigns to a TensorFlow module or class.

1. `large_arrays_fed()` — swaps `constant_op._constant_impl` while an input_fn runs
   in any thread: installed by the first thread in, restored by the last out, under a
   lock (`process_swaps.SharedSwap`); in other threads it passes straight through.
   Why: the original froze numpy inputs into the graph as constants
   (`Dataset.from_tensor_slices(x)`); 60,000 Fashion-MNIST images became 1.4 GB of
   model_dir and half a minute before the first step. Here arrays of
   `LARGE_ARRAY_BYTES` or more become placeholders fed when the iterator starts.
   Only in the graph the input_fn is called in (not in a function body built there).
   A function that captures by value cannot take a placeholder: while the input_fn
   runs, `DatasetV1._make_one_shot_iterator` is swapped too, and a one-shot
   iterator over fed arrays (`make_one_shot_iterator(dataset).get_next()`, as
   cloudml-samples' trainers and numpy_input_fn do) falls back to an initializable
   one, whose initializer the Estimator runs with the arrays fed
   (`FedArrays.initializers`).
2. `close_in_background(session)` — replaces one session's `close` (that instance
   only), so that it returns at once and the session closes on a daemon thread. Why:
   in a multi-worker or parameter-server job, closing a session whose peer task died
   never returns, and the survivors must end with an error naming that task. When:
   the training sessions of distributed jobs only (training/session.py), after the
   hooks' `end()`; the next train, evaluate, predict or export joins it before
   building its graph. Local sessions close on the caller's thread, as the original
   did: closing in the background there (to skip the 0-12 s tf.data autotune wait)
   aborted the process now and then when graphs were built while a session closed
   (about one run in three of the original's InMemoryEvaluatorHook test).
3. `keras_initializers_seeded(seed)` — swaps tf_keras' private seed generator while a
   model_fn runs with `RunConfig.tf_random_seed` set, and while the train binary builds
   its Keras model from --seed (`bin/jobs/job.py`), restored after (a threading.local
   of tf_keras: the calling thread's alone). Why: tf_keras draws seeds for unseeded
   initializers from its own generator, not the graph seed, so the same
   tf_random_seed gave different Keras weights in each process.
4. `bound_multi_worker_wait()` — wraps
   `CollectiveAllReduceExtended._initialize_multi_worker`. Why:
   `tf.distribute.MultiWorkerMirroredStrategy()` waits forever, holding the GIL, for a
   task that never starts; the wrapper starts a watchdog process that ends the wait
   after ESTIMATOR_LIB_CLUSTER_WAIT_SECS (600 s; 0 = forever) naming the missing task
   (`distribute/cluster_wait.py`, which passes the wrapper in). When: from the import
   of estimator_lib.distribute on (`cluster_wait.install()`, the one call): the strategy
   is built in user code before any RunConfig or Estimator exists, and a program may
   set TF_CONFIG itself after importing estimator_lib. The wrapper passes straight
   through unless the strategy waits for a cluster; the variable is read
   (core/environment.py) when that wait starts.
5. `autotune_thread_off(dataset)` — not a patch of TensorFlow's code but of its
   default: the Dataset an input_fn returns gets `options.autotune.enabled = False`
   unless the input_fn set that option itself. Why: destroying a tf.data iterator
   (closing the session that holds it) joins its autotune model thread, and that
   thread misses its wake-up: `CancellationManager::StartCancel` runs the callback
   that notifies `Model::OptimizeLoop` before it marks itself cancelled, so the
   woken thread still reads "not cancelled" and sleeps out its optimisation period,
   which doubles from 10 ms to 60 s as training runs. Every train, evaluate and
   predict stood 0 to 15 s (seen) in `close()` after its last step, at random (the
   seed CNN on 2 devices: 2 of 3 calls, 5 s; bench/session_teardown.py). With autotuning off no such
   thread exists; `AUTOTUNE` values take tf.data's static defaults (parallel calls
   = min(16, cores), prefetch buffers grown by the legacy prefetch autotuner); per
   step the seed CNN is as fast (docs/benchmarks.md). tf.data's `inject_prefetch`
   rewrite, which appends `prefetch(AUTOTUNE)` to a pipeline not ending in one, only
   runs under autotuning: the Estimator appends that prefetch itself where the rewrite
   would have (the input_fn's options leave it on, the last transformation is no
   prefetch), or the whole pipeline ran inside each step (the canned LinearClassifier
   of bench/canned.py: 0.79x the original's step, 0.9x with it; docs/benchmarks.md);
   not on the per-device datasets below, which end in their own. When: Datasets returned by an
   input_fn, on one device and per replica; `autotune.enabled = True` set in the
   input_fn keeps autotuning (and the wait). Also the one-shot iterators an input_fn
   makes while it runs (through patch 1's swap); other iterators are left as they are.
   Under a strategy, `per_device_autotune_off()` also swaps
   `multi_device_iterator_ops._create_device_dataset` while the Estimator builds the
   per-replica input (shared as patch 1's swaps; it acts in the building thread only):
   each device's dataset (the host iterator's elements and a
   fixed prefetch(1), nothing to tune) ran its own autotune thread and paid the
   same wait, 4.7 s in 2 of 3 MirroredStrategy train() calls.
6. `write_graph_on_protobuf_7()` — replaces the `text_format` module that
   `tensorflow.python.framework.graph_io` calls by one whose `MessageToString` drops
   `float_format`. Why: `tf.io.write_graph(..., as_text=True)` of TensorFlow 2.15-2.20
   passes `float_format=''`, which protobuf 7 no longer takes, and TensorFlow 2.20 allows
   protobuf 7 (`protobuf>=5.28.0`; pip installs 7.36 with it today): every
   `tf.compat.v1.train.CheckpointSaverHook` a program passes to `train()` (also
   `estimator_lib.CheckpointSaverHook`, which is TensorFlow's) raised TypeError when its
   session started, and so did `tf.io.write_graph`. TensorFlow 2.21 dropped the argument;
   with it dropped here, 2.20 writes what 2.21 writes. When: from the API's load
   (`_api.py`, after the check of internals) on, and only on TensorFlow 2.20 or earlier
   with a protobuf whose `MessageToString` has no `float_format`; never undone.
"""

import atexit
import collections
import contextlib
import inspect
import random
import threading
from typing import Callable, Optional

import numpy as np

from estimator_lib.tf_internals import versions
from estimator_lib.tf_internals.process_swaps import SharedSwap, ignoring_warnings

LARGE_ARRAY_BYTES = 1 << 20  # Arrays at least this large are fed rather than frozen.
# The start of the UserWarning `Dataset.options()` gives in graph mode.
DATA_OPTIONS_WARNING = "To make it possible to preserve tf.data options"

# ------------------------------------------------------- 1. large arrays fed

_feeding = threading.local()


class FedArrays(dict):
    """{placeholder: array} to feed, and the iterator initializers that need them."""

    def __init__(self, graph=None):
        super().__init__()
        self.graph = graph
        self.initializers = []


def _constant_or_placeholder(original, value, dtype, shape, name, verify_shape,
                             allow_broadcast):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    feeds = getattr(_feeding, "feeds", None)
    if (feeds is not None and isinstance(value, np.ndarray) and shape is None
            and value.nbytes >= LARGE_ARRAY_BYTES and not tf.executing_eagerly()
            and tf.compat.v1.get_default_graph() is feeds.graph):
        array = value if dtype is None else value.astype(tf.as_dtype(dtype).as_numpy_dtype,
                                                         copy=False)
        placeholder = tf.compat.v1.placeholder(tf.as_dtype(array.dtype), array.shape,
                                               name=f"{name}_fed")
        feeds[placeholder] = array
        return placeholder
    return original(value, dtype, shape, name, verify_shape=verify_shape,
                    allow_broadcast=allow_broadcast)


def _one_shot_or_initializable(original, dataset):
    """A one-shot iterator; over fed arrays, an initializable one the Estimator starts."""
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    feeds = getattr(_feeding, "feeds", None)
    try:
        return original(dataset)
    except ValueError as error:
        if not feeds or "Cannot capture a placeholder" not in str(error):
            raise
    iterator = tf.compat.v1.data.make_initializable_iterator(dataset)
    feeds.initializers.append(iterator.initializer)
    return iterator


def _constant_impl_patched(original):
    def constant_impl(value, dtype, shape, name, verify_shape, allow_broadcast):
        """TensorFlow's `_constant_impl`, a large array fed instead of frozen.

        Args:
            value: The constant's value.
            dtype: Its dtype.
            shape: Its shape.
            name: Its name.
            verify_shape: TensorFlow's argument, passed on.
            allow_broadcast: TensorFlow's argument, passed on.
        """
        return _constant_or_placeholder(original, value, dtype, shape, name, verify_shape,
                                        allow_broadcast)
    return constant_impl


def _one_shot_patched(original):
    def make_one_shot_iterator(dataset):
        if getattr(_feeding, "feeds", None) is None:  # Not this thread's input_fn.
            return original(dataset)
        return _one_shot_or_initializable(original, autotune_thread_off(dataset))
    return make_one_shot_iterator


def _constant_op():
    from tensorflow.python.framework import constant_op  # pylint: disable=import-outside-toplevel
    return constant_op


def _dataset_v1():
    from tensorflow.python.data.ops import dataset_ops  # pylint: disable=import-outside-toplevel
    return dataset_ops.DatasetV1


# In place while any thread runs an input_fn; pass-throughs in every other thread.
_constant_swap = SharedSwap(_constant_op, "_constant_impl", _constant_impl_patched)
_one_shot_swap = SharedSwap(_dataset_v1, "_make_one_shot_iterator", _one_shot_patched)


@contextlib.contextmanager
def large_arrays_fed():
    """Within it, large numpy arrays converted to tensors become fed placeholders.

    Yields a `FedArrays`: the {placeholder: array} dict to feed when initialising the
    input, and the initializers of one-shot iterators that fell back to initializable.
    Only this thread, and only its default graph at entry, are affected; the swaps are
    shared by the threads inside (lock, reference count) and undone by the last out.
    """
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    feeds = FedArrays(tf.compat.v1.get_default_graph())
    previous = getattr(_feeding, "feeds", None)
    with _constant_swap(), _one_shot_swap():
        _feeding.feeds = feeds
        try:
            yield feeds
        finally:
            _feeding.feeds = previous


def current_feeds():
    """The `FedArrays` of the `large_arrays_fed` block this thread is in, or None."""
    return getattr(_feeding, "feeds", None)


# ------------------------------------------------- 2. sessions closed in background

# Closes still running; joined at exit (a close cut off by interpreter exit aborts the
# process) and bounded, so that many short train()/evaluate() calls cannot pile up sessions.
_closing = collections.deque()
_MAX_CLOSING = 4


def close_in_background(session):
    """Makes `session.close()` return at once, closing on a daemon thread.

    Hooks have run `end()` (the final checkpoint is on disk) before MonitoredSession
    closes the raw session. The close is idempotent: `BaseSession.__del__` calls it
    again.
    """
    close = session.close
    started = threading.Event()

    def close_once():
        if started.is_set():
            return
        started.set()
        while len(_closing) >= _MAX_CLOSING:
            _join_oldest_close()
        thread = threading.Thread(target=close, name="estimator_lib-session-close",
                                  daemon=True)
        thread.start()
        _closing.append(thread)

    session.close = close_once
    return session


def abandon_closing_sessions() -> None:
    """Stops waiting for the closes still running: they reach a task that died, and a
    close of a session over gRPC to a dead task never returns (training/session.py
    calls this when it ends training naming such a task). Their daemon threads end
    with the process."""
    _closing.clear()


@atexit.register
def wait_for_closing_sessions() -> None:
    """Joins every close still running (also before a caller needs the memory back)."""
    while _closing:
        _join_oldest_close()


def _join_oldest_close() -> None:
    # Another thread may have taken the last one between our check and this pop.
    try:
        thread = _closing.popleft()
    except IndexError:
        return
    thread.join()


# ----------------------------------------------- 3. Keras initializers seeded

@contextlib.contextmanager
def keras_initializers_seeded(seed):
    """Makes unseeded tf_keras initializers draw from `seed` while a graph is built."""
    if seed is None:
        yield
        return
    from tf_keras.src import backend  # pylint: disable=import-outside-toplevel
    # A threading.local: the change is this thread's alone.
    holder = backend._SEED_GENERATOR  # pylint: disable=protected-access
    had, previous = hasattr(holder, "generator"), getattr(holder, "generator", None)
    holder.generator = random.Random(seed)
    try:
        yield
    finally:
        if had:
            holder.generator = previous
        else:
            del holder.generator


# ----------------------------------------------- 4. multi-worker wait bounded

def bound_multi_worker_wait(wrap: Callable[[Callable], Callable]) -> bool:
    """Replaces `CollectiveAllReduceExtended._initialize_multi_worker` by `wrap(it)`.

    Idempotent. Returns False (after a warning) if TensorFlow no longer has the
    private method it wraps.
    """
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    from tensorflow.python.distribute import collective_all_reduce_strategy  # pylint: disable=import-outside-toplevel

    extended = collective_all_reduce_strategy.CollectiveAllReduceExtended
    initialize = getattr(extended, "_initialize_multi_worker", None)
    if initialize is None:
        tf.compat.v1.logging.warning(
            "estimator_lib cannot bound MultiWorkerMirroredStrategy's wait for the "
            "cluster on this TensorFlow: a task that never starts blocks the others.")
        return False
    if not getattr(initialize, "bounded_by_estimator_lib", False):
        wrapped = wrap(initialize)
        wrapped.bounded_by_estimator_lib = True
        extended._initialize_multi_worker = wrapped  # pylint: disable=protected-access
    return True


# ------------------------------------------- 5. tf.data autotune thread off

# The datasets tf.data chains after a pipeline's last transformation (options,
# autotuning, rewrites); inject_prefetch looks through them, as does the check below.
_NOT_A_TRANSFORMATION = frozenset((
    "AssertNextDataset", "ExperimentalAssertNextDataset", "OptionsDataset", "ModelDataset",
    "OptimizeDataset", "MaxIntraOpParallelismDataset", "PrivateThreadPoolDataset"))


def autotune_thread_off(dataset, *, keep_injected_prefetch: bool = True):
    """`dataset` with tf.data autotuning off, unless its options already name it.

    With `keep_injected_prefetch`, a `prefetch(AUTOTUNE)` is appended where tf.data's
    default `inject_prefetch` rewrite would have added one under autotuning (which
    it only does with autotuning on): without it the whole input pipeline ran inside
    every training step instead of beside it (LinearClassifier on bench/canned.py's
    input: 0.43 ms of a 1.25 ms step in IteratorGetNext, 0.13-0.18 ms with it).
    """
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    if not isinstance(dataset, tf.data.Dataset):
        return dataset
    # In graph mode options() warns that options set inside a function it cannot
    # see; those a Dataset-returning input_fn sets are in its Python object.
    with ignoring_warnings(DATA_OPTIONS_WARNING, UserWarning):
        current = dataset.options()
    if current.autotune.enabled is not None:
        return dataset
    if keep_injected_prefetch and _would_inject_prefetch(dataset, current):
        dataset = dataset.prefetch(tf.data.AUTOTUNE)
    options = tf.data.Options()
    options.autotune.enabled = False
    return dataset.with_options(options)


def _would_inject_prefetch(dataset, options) -> bool:
    """Whether tf.data's inject_prefetch would append a prefetch to `dataset` under
    autotuning: the optimisation is on (by default, or named), and the pipeline's last
    transformation, looking through the datasets tf.data itself chains, is no prefetch.
    """
    optimization = options.experimental_optimization
    if optimization.inject_prefetch is False:
        return False
    if optimization.apply_default_optimizations is False and not optimization.inject_prefetch:
        return False
    op = getattr(getattr(dataset, "_variant_tensor", None), "op", None)
    while op is not None and _op_base_name(op.type) in _NOT_A_TRANSFORMATION and op.inputs:
        op = op.inputs[0].op
    if op is None:  # Not a graph tensor: judge by the Python class.
        return "Prefetch" not in type(dataset).__name__
    return _op_base_name(op.type) != "PrefetchDataset"


def _op_base_name(op_type: str) -> str:
    """`op_type` without a version suffix ("OptimizeDatasetV2" -> "OptimizeDataset")."""
    base = op_type.rstrip("0123456789")
    if base != op_type and base.endswith("V"):
        return base[:-1]
    return op_type


_per_device = threading.local()


def _device_dataset_patched(original):
    def create_device_dataset(*args, **kwargs):
        dataset = original(*args, **kwargs)
        if not getattr(_per_device, "depth", 0):  # Not this thread's Estimator input.
            return dataset
        # Each ends in its own prefetch already.
        return autotune_thread_off(dataset, keep_injected_prefetch=False)
    return create_device_dataset


def _multi_device_iterator_ops():
    from tensorflow.python.data.ops import multi_device_iterator_ops  # pylint: disable=import-outside-toplevel
    return multi_device_iterator_ops


_device_dataset_swap = SharedSwap(_multi_device_iterator_ops, "_create_device_dataset",
                                  _device_dataset_patched)


@contextlib.contextmanager
def per_device_autotune_off():
    """Within it, a MultiDeviceIterator's per-device datasets that this thread builds
    run without autotuning (the swap shared as `large_arrays_fed`'s)."""
    with _device_dataset_swap():
        _per_device.depth = getattr(_per_device, "depth", 0) + 1
        try:
            yield
        finally:
            _per_device.depth -= 1


# ------------------------------------ 6. tf.io.write_graph on protobuf 7

class _TextFormatWithoutFloatFormat:
    """`google.protobuf.text_format` as graph_io calls it: `MessageToString` without the
    `float_format` protobuf 7 dropped (what TensorFlow 2.21's graph_io passes)."""

    def __init__(self, text_format):
        self._text_format = text_format

    def __getattr__(self, name):
        return getattr(self._text_format, name)

    def MessageToString(self, message, float_format=None, **kwargs):  # pylint: disable=invalid-name
        """Returns `text_format.MessageToString(message, **kwargs)`; `float_format` ignored."""
        del float_format
        return self._text_format.MessageToString(message, **kwargs)


def takes_float_format() -> bool:
    """Says whether this protobuf's `text_format.MessageToString` takes `float_format`
    (protobuf 4.25 and 5.29 do, 7.36 does not)."""
    from google.protobuf import text_format  # pylint: disable=import-outside-toplevel
    return "float_format" in inspect.signature(text_format.MessageToString).parameters


def write_graph_on_protobuf_7(tensorflow_version: Optional[str] = None) -> bool:
    """Makes `tf.io.write_graph` of TensorFlow `tensorflow_version` (default: this one)
    work on protobuf 7 (module docstring). Idempotent. Returns True where the patch is in
    force: TensorFlow 2.20 or earlier with a protobuf that has no `float_format`."""
    version = tensorflow_version or versions.tensorflow_version()
    if versions.minor(version) > (2, 20) or takes_float_format():
        return False
    from tensorflow.python.framework import graph_io  # pylint: disable=import-outside-toplevel
    if not isinstance(graph_io.text_format, _TextFormatWithoutFloatFormat):
        graph_io.text_format = _TextFormatWithoutFloatFormat(graph_io.text_format)
    return True
