"""Every entry point leaves the process's globals as it found them (issue 35, part 3).

Before and after each of train, evaluate, predict, export_saved_model and
train_and_evaluate (returning, an error raised in the model_fn, one raised in the
input_fn): the default graph and eager mode; TensorFlow's and absl's logging verbosity
and handlers; signal handlers; tf.config and tf.data options; warnings filters;
os.environ; what `tf.keras` is; tf_keras' global settings; and the id of every
attribute of TensorFlow's public modules (a walk of `tf.*`) and of the modules and
classes estimator_lib patches (tf_internals/patches.py). docs/architecture.md lists what
estimator_lib changes and when it puts it back.

GlobalsLeftAsFoundTest calls each entry point once first (setUpClass), so that what
TensorFlow loads on first use does not show as a change; FreshProcessTest therefore runs
each entry point again as the first call of a fresh process (`python -m
tests.estimator_lib.globals_test --fresh ENTRY MODEL_DIR`), so that a global changed on
a first call only, and not put back, shows too.
"""

import collections
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import types
import warnings

import absl.logging
import numpy as np
import tensorflow as tf
import tf_keras
from absl.testing import parameterized
from tensorflow.python.data.ops import dataset_ops
from tensorflow.python.data.ops import debug_mode
from tensorflow.python.data.ops import multi_device_iterator_ops
from tensorflow.python.distribute import collective_all_reduce_strategy
from tensorflow.python.eager import context
from tensorflow.python.framework import config
from tensorflow.python.framework import constant_op
from tensorflow.python.summary.writer import writer
from tensorflow.python.summary.writer import writer_cache
from tf_keras.src import backend as keras_backend

import estimator_lib as el
from tests.estimator_lib import testing

# The modules and classes estimator_lib's patches and writes touch: every attribute.
_PATCHED = (constant_op, dataset_ops, dataset_ops.DatasetV1, dataset_ops.DatasetV2,
            multi_device_iterator_ops, collective_all_reduce_strategy.CollectiveAllReduceExtended,
            writer, writer_cache, keras_backend, tf.compat.v1.Session, tf.compat.v1.train.Saver)
_SIGNALS = sorted(set(signal.valid_signals()) - {signal.SIGKILL, signal.SIGSTOP})


def _tensorflow_attributes():
    """{module.name: id} over TensorFlow's public module tree (and tf_keras'), breadth
    first: a module is named by its own name and reached at its least depth, so a module
    that a call imports adds names and moves none."""
    seen, found = set(), {}
    queue = collections.deque([(0, tf), (0, tf_keras)])
    while queue:
        depth, module = queue.popleft()
        if id(module) in seen:
            continue
        seen.add(id(module))
        for name, value in sorted(vars(module).items()):
            if name.startswith("__"):
                continue
            found[f"{module.__name__}.{name}"] = id(value)
            if isinstance(value, types.ModuleType) and value.__name__.startswith(
                    ("tensorflow", "tf_keras", "keras")) and depth < 6:
                queue.append((depth + 1, value))
    return found


def _logger_state(logger):
    return (logger.level, logger.disabled, logger.propagate, tuple(map(id, logger.handlers)),
            tuple((id(h), h.level, id(h.formatter)) for h in logger.handlers))


def snapshot():
    """The process state an Estimator call must leave as found."""
    options = context.context().config
    return {
        "default graph": id(tf.compat.v1.get_default_graph()),
        "default graph seed": tf.compat.v1.get_default_graph().seed,
        "eager": tf.executing_eagerly(),
        "tf verbosity": tf.compat.v1.logging.get_verbosity(),
        "tf logger": _logger_state(tf.get_logger()),
        "absl verbosity": absl.logging.get_verbosity(),
        "absl logger": _logger_state(absl.logging.get_absl_logger()),
        "root logger": _logger_state(logging.getLogger()),
        "signals": {s: signal.getsignal(s) for s in _SIGNALS},
        "threads": (tf.config.threading.get_inter_op_parallelism_threads(),
                    tf.config.threading.get_intra_op_parallelism_threads()),
        "soft placement": tf.config.get_soft_device_placement(),
        "functions run eagerly": tf.config.functions_run_eagerly(),
        "jit": tf.config.optimizer.get_jit(),
        "optimizer options": tf.config.optimizer.get_experimental_options(),
        "op determinism": config.is_op_determinism_enabled(),
        "tensor float 32": tf.config.experimental.tensor_float_32_execution_enabled(),
        "device policy": tf.config.experimental.get_device_policy(),
        "context config": options.SerializeToString(deterministic=True),
        "tf.data debug mode": debug_mode.DEBUG_MODE,
        "warnings filters": list(warnings.filters),
        "environ": dict(os.environ),
        "tf.keras": id(tf.keras),
        "keras settings": (keras_backend.floatx(), keras_backend.epsilon(),
                           keras_backend.image_data_format(),
                           tf_keras.mixed_precision.global_policy().name),
        "keras seed generator": dict(vars(keras_backend._SEED_GENERATOR)),  # pylint: disable=protected-access
        "patched": {f"{getattr(owner, '__name__', owner)}.{name}": id(value)
                    for owner in _PATCHED for name, value in vars(owner).items()},
        "tensorflow": _tensorflow_attributes(),
    }


class _Raised(Exception):
    pass


def _raise(*args, **kwargs):
    del args, kwargs
    raise _Raised("on purpose")


def _model_fn(fail):
    def model_fn(features, labels, mode):
        if fail:
            _raise()
        return testing.linear_model_fn(features, labels, mode)
    return model_fn


def _large_input_fn(fail, *, repeat):
    # Large enough to be fed rather than frozen: the swaps of patch 1 run.
    x = np.random.RandomState(0).randn(4096, 64).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int32)

    def input_fn():
        if fail:
            _raise()
        dataset = tf.data.Dataset.from_tensor_slices(({"x": x[:, :4]}, y)).batch(16)
        return dataset.repeat() if repeat else dataset.take(2)
    return input_fn


def _serving_input_fn(fail):
    def serving_input_receiver_fn():
        if fail:
            _raise()
        x = tf.compat.v1.placeholder(tf.float32, [None, 4])
        return el.export.ServingInputReceiver({"x": x}, {"x": x})
    return serving_input_receiver_fn


def _call(entry, estimator, fail_input, temp_dir):
    if entry == "train":
        estimator.train(_large_input_fn(fail_input, repeat=True), steps=2)
    elif entry == "evaluate":
        estimator.evaluate(_large_input_fn(fail_input, repeat=False))
    elif entry == "predict":
        list(estimator.predict(_large_input_fn(fail_input, repeat=False)))
    elif entry == "export_saved_model":
        estimator.export_saved_model(os.path.join(temp_dir, "export"),
                                     _serving_input_fn(fail_input))
    else:
        el.train_and_evaluate(
            estimator, el.TrainSpec(_large_input_fn(fail_input, repeat=True), max_steps=4),
            el.EvalSpec(_large_input_fn(False, repeat=False), steps=None,
                        start_delay_secs=0, throttle_secs=0))


_ENTRIES = ("train", "evaluate", "predict", "export_saved_model", "train_and_evaluate")


# TensorFlow's own records of what ran, which TensorFlow sets whoever runs it (the
# original's calls set them too): not state a call may put back.
_TENSORFLOW_RECORDS = {
    # flags.config() makes the flags object on first use.
    "tensorflow.core.config.flags.FLAGS",
    # Session.__init__ records that a session without the mixed-precision rewrite exists.
    "tensorflow.python.training.experimental.mixed_precision_global_state."
    "_non_mixed_precision_session_created",
    # Saver.__init__ (the first) and every Saver.save record the time of the last write.
    "tensorflow.python.training.saver._END_TIME_OF_LAST_WRITE",
}


def _diff(before, after, *, imports=False):
    """What differs between two snapshots, but _TENSORFLOW_RECORDS. `imports`: not the
    names a first call adds to TensorFlow's module tree either (modules it imports; the
    names already there keep their values), nor a module's `__warningregistry__`
    (Python's, made when a warning is first shown)."""
    changed = []
    for key in before:
        if before[key] == after[key]:
            continue
        if isinstance(before[key], dict):
            names = sorted(k for k in set(before[key]) | set(after[key])
                           if before[key].get(k) != after[key].get(k)
                           and k not in _TENSORFLOW_RECORDS)
            if imports:
                names = [k for k in names if not str(k).endswith(".__warningregistry__")
                         and not (key == "tensorflow" and k not in before[key])]
            if not names:
                continue
            changed.append(f"{key}: {names[:20]}")
        else:
            changed.append(f"{key}: {before[key]!r} -> {after[key]!r}")
    return changed


class GlobalsLeftAsFoundTest(tf.test.TestCase, parameterized.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        # One call of each first: what TensorFlow loads lazily on first use loads here.
        cls._warm_dir = tempfile.mkdtemp()
        estimator = el.Estimator(_model_fn(False), model_dir=cls._warm_dir)
        for entry in _ENTRIES:
            _call(entry, estimator, False, cls._warm_dir)
        snapshot()  # Walking the module tree loads what loads on first access.

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls._warm_dir, ignore_errors=True)
        super().tearDownClass()

    @parameterized.named_parameters(
        (f"{entry}_{failure or 'returns'}", entry, failure)
        for entry in _ENTRIES for failure in (None, "model_fn", "input_fn"))
    def test_globals_are_left_as_found(self, entry, failure):
        model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        if entry in ("evaluate", "predict", "export_saved_model"):
            # The call reads a checkpoint (made before the snapshot).
            el.Estimator(_model_fn(False), model_dir=model_dir).train(
                _large_input_fn(False, repeat=True), steps=1)
        estimator = el.Estimator(_model_fn(failure == "model_fn"), model_dir=model_dir)
        before = snapshot()
        if failure is None:
            _call(entry, estimator, False, model_dir)
        else:
            with self.assertRaises(_Raised):
                _call(entry, estimator, failure == "input_fn", model_dir)
        self.assertEqual(_diff(before, snapshot()), [])

    def test_a_changed_global_is_seen(self):
        # The snapshot can fail: each kind of change shows in the diff.
        before = snapshot()
        previous = constant_op._constant_impl  # pylint: disable=protected-access
        handler = signal.getsignal(signal.SIGUSR1)
        levels = (tf.get_logger().level, absl.logging.get_absl_logger().level)
        try:
            constant_op._constant_impl = lambda *args, **kwargs: None  # pylint: disable=protected-access
            signal.signal(signal.SIGUSR1, signal.SIG_IGN)
            absl.logging.set_verbosity(absl.logging.ERROR)
            os.environ["ESTIMATOR_LIB_GLOBALS_TEST"] = "1"
            tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.FATAL - 10)
            tf.config.set_soft_device_placement(not tf.config.get_soft_device_placement())
            after = snapshot()
            changed = "\n".join(_diff(before, after))
            # The fresh-process rule (imports allowed) sees the same changes.
            fresh = "\n".join(_diff(before, after, imports=True))
        finally:
            constant_op._constant_impl = previous  # pylint: disable=protected-access
            signal.signal(signal.SIGUSR1, handler)
            os.environ.pop("ESTIMATOR_LIB_GLOBALS_TEST")
            tf.get_logger().setLevel(levels[0])
            absl.logging.set_verbosity(before["absl verbosity"])
            absl.logging.get_absl_logger().setLevel(levels[1])
            tf.config.set_soft_device_placement(before["soft placement"])
        for key in ("patched", "signals", "absl verbosity", "environ", "tf verbosity",
                    "soft placement"):
            self.assertIn(key, changed)
            self.assertIn(key, fresh)
        self.assertIn("_constant_impl", changed)
        self.assertIn("_constant_impl", fresh)
        self.assertEqual(_diff(before, snapshot()), [])


_REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _resolve_lazy_modules():
    """Loads every lazily loaded module of the tree _tensorflow_attributes walks (tf.keras,
    tf.compat.v1.keras, tf_keras' own loaders, ...), until none is left: TensorFlow
    replaces each loader by its module on first use, whoever uses it, so the first call
    of a process would show them as changed."""
    for _ in range(10):
        seen, stack, loaded = set(), [tf, tf_keras], 0
        while stack:
            module = stack.pop()
            if id(module) in seen:
                continue
            seen.add(id(module))
            for value in list(vars(module).values()):
                if not isinstance(value, types.ModuleType):
                    continue
                if "LazyLoader" in type(value).__name__:
                    # A loader (TensorFlow's, Keras', tf_keras') loads its module when
                    # asked for a name it lacks.
                    hasattr(value, "__estimator_lib_no_such_name__")
                    loaded += 1
                elif value.__name__.startswith(("tensorflow", "tf_keras", "keras")):
                    stack.append(value)
        if not loaded:
            return


def fresh_process_main(entry, model_dir):
    """In a fresh process: the snapshot, `entry`'s first call, what it left changed."""
    _resolve_lazy_modules()
    estimator = el.Estimator(_model_fn(False), model_dir=model_dir)
    before = snapshot()
    _call(entry, estimator, False, model_dir)
    print("CHANGED " + json.dumps(_diff(before, snapshot(), imports=True)), flush=True)


class FreshProcessTest(tf.test.TestCase, parameterized.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        # A checkpoint for evaluate, predict and export, made in this process.
        cls._trained = tempfile.mkdtemp()
        el.Estimator(_model_fn(False), model_dir=cls._trained).train(
            _large_input_fn(False, repeat=True), steps=1)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls._trained, ignore_errors=True)
        super().tearDownClass()

    @parameterized.named_parameters((entry, entry) for entry in _ENTRIES)
    def test_the_first_call_in_a_process_leaves_the_globals_as_found(self, entry):
        model_dir = os.path.join(self.get_temp_dir(), entry)
        if entry in ("evaluate", "predict", "export_saved_model"):
            shutil.copytree(self._trained, model_dir)
        result = subprocess.run(
            [sys.executable, "-m", "tests.estimator_lib.globals_test", "--fresh", entry,
             model_dir], cwd=_REPOSITORY, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"),
            capture_output=True, text=True, timeout=300, check=False)
        lines = [line for line in result.stdout.splitlines() if line.startswith("CHANGED ")]
        self.assertEqual(result.returncode, 0, result.stderr[-3000:])
        self.assertLen(lines, 1, result.stdout[-3000:])
        self.assertEqual(json.loads(lines[0][len("CHANGED "):]), [])


if __name__ == "__main__":
    if sys.argv[1:2] == ["--fresh"]:
        fresh_process_main(*sys.argv[2:4])
    else:
        tf.test.main()
