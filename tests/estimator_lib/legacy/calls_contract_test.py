"""A subclass overriding one of the original's private methods sees it called where the
original called it, with arguments the original's signature takes: generated from the
`calls` of tests/data/tf215_class_contract.json.

For every recorded class with `calls` (the private methods each method reaches through
`self`, read from the original's source), the edges A -> B that start at a method a
user calls (A public, or `__init__`) are followed to every B that A reaches. A
generated subclass of our class at the same path overrides each such B (recording its
arguments, then calling ours); a scenario runs A; each B must have been called during
A, and its arguments must bind to the original's parameters of B.

A class whose edges' methods are all inherited, unchanged, from a class that is run
is covered by that run (the canned estimators inherit the Estimator's). What is not
run, or not called, is listed below with its reason (docs/estimator.md, "Private
names"; class_contract_test's _HOOK_POINTS_ABSENT for methods not here).
"""

import inspect
import json
import os
import tempfile

import numpy as np
import tensorflow as tf

from estimator_lib import compat
from tests.estimator_lib.legacy import class_contract_test as contract

_DATA = contract._DATA  # pylint: disable=protected-access
_P = "tensorflow_estimator.python.estimator."

# B (the callee) -> why it is not called here, for every A.
_NOT_CALLED = {
    **{name: "not here (class_contract_test._HOOK_POINTS_ABSENT)"
       for name in contract._HOOK_POINTS_ABSENT},  # pylint: disable=protected-access
    "_evaluate_build_graph": "evaluate() builds its graph in _evaluate_build_graph(input_fn, "
                             "checkpoint_path) with another signature "
                             "(class_contract_test._HOOK_SIGNATURES)",
    "_evaluate_run": "as _evaluate_build_graph",
    "_add_meta_graph_for_mode": "export's per-mode step takes our arguments "
                                "(class_contract_test._HOOK_SIGNATURES)",
    "_create_and_assert_global_step": "the ModelGraph creates the step through "
                                      "_create_global_step, which is called",
    "_get_iterator_from_input_fn": "called under a strategy only, as the original's "
                                   "distributed steps called it (the scenarios here run "
                                   "none); graph_owner_test's HookPointsTest trains under "
                                   "MirroredStrategy and sees it called",
}

# Recorded classes with calls that no scenario below runs, by path prefix: why.
_NOT_RUN = {
    "canned.head.LossSpec": "a namedtuple: `_replace` calls `_make`, Python's own",
    "tpu.tpu_config.TPUConfig": "a namedtuple: `_replace` calls `_make`, Python's own",
    "run_config.RunConfig": "its edges end in the TF_CONFIG methods not here "
                            "(_init_distributed_setting_from_environment_var, ...)",
    "tpu.tpu_config.RunConfig": "as run_config.RunConfig",
    "canned.dnn._DNNModel": "not reached here (class_contract_test._NOT_REACHED)",
    "canned.linear.LinearSDCA": "get_train_step's callee _prune_and_unique_sparse_ids is not "
                                "here (class_contract_test._HOOK_POINTS_ABSENT)",
    "early_stopping._MultiWorkerEarlyStoppingHook": "begin() needs a MultiWorkerMirroredStrategy "
                                                    "cluster (tests/estimator_lib/distribute)",
    "head.sequential_head.": "the RNN estimators' head: run by canned/rnn_test.py",
    "canned.saved_model_estimator.": "needs an exported SavedModel: its own tests",
    "canned.kmeans.": "Estimator edges, inherited; its own train() runs in kmeans_test.py",
    "canned.timeseries.": "time-series inputs: canned/timeseries tests",
    "canned.rnn.": "sequence inputs: canned/rnn_test.py",
    "tpu.tpu_estimator.TPUEstimator": "TPUEstimator's own private steps (the TPU rewrite); "
                                      "tpu_estimator_test.py runs it on CPU",
}


def _short(path):
    return path[len(_P):] if path.startswith(_P) else path


def _signature(parameters):
    """An inspect.Signature of the contract's [[name, kind, has_default]]."""
    return inspect.Signature([
        inspect.Parameter(name, getattr(inspect.Parameter, kind),
                          default=None if has_default else inspect.Parameter.empty)
        for name, kind, has_default in parameters])


def _reached(calls, method):
    return contract._closure(calls, method)  # pylint: disable=protected-access


def _entry_points(original):
    calls = original["calls"]
    for method in sorted(calls):
        if not method.startswith("_") or method == "__init__":
            yield method, sorted(_reached(calls, method))


def _recording_subclass(base, names, log, extra=None):
    """A subclass of `base` overriding each of `names`: records (name, args), then calls
    `base`'s."""
    namespace = dict(extra or {})
    holder = {}
    for name in names:
        raw = inspect.getattr_static(base, name)

        def make(name, raw):
            if isinstance(raw, staticmethod):
                def static(*args, **kwargs):
                    log.append((name, False, args, kwargs))
                    return getattr(base, name)(*args, **kwargs)
                static.__signature__ = inspect.signature(raw.__func__)
                return staticmethod(static)

            def method(self, *args, **kwargs):
                log.append((name, True, args, kwargs))
                return getattr(super(holder["cls"], self), name)(*args, **kwargs)
            # The override shows the overridden method's signature: callers that read it
            # (a loss_fn's arguments) see what they would see without it.
            method.__signature__ = inspect.signature(raw)
            return method

        namespace[name] = make(name, raw)
    cls = type(base)(f"Recording{base.__name__}", (base,), namespace)
    holder["cls"] = cls
    return cls


# ------------------------------------------------------------------- scenarios


def _model_fn(features, labels, mode):
    logits = tf.compat.v1.layers.dense(features["x"], 1, name="dense")
    loss = (tf.reduce_mean(tf.square(logits - labels)) if labels is not None
            else tf.constant(0.0))
    train_op = None
    if mode == tf.estimator.ModeKeys.TRAIN:
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
            loss, tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(
        mode, loss=loss, train_op=train_op, predictions={"y": logits},
        export_outputs={"p": tf.estimator.export.PredictOutput({"y": logits})})


def _input_fn():
    x = np.ones([4, 1], np.float32)
    return tf.data.Dataset.from_tensor_slices(({"x": x}, x)).batch(2)


def _receiver_fn():
    x = tf.compat.v1.placeholder(tf.float32, [None, 1])
    return tf.estimator.export.ServingInputReceiver({"x": x}, {"x": x})


def _run_estimator(cls, method, tmp):
    """Runs `method` of an instance of `cls` (a recording Estimator subclass)."""
    if method == "__init__":
        cls(_model_fn, model_dir=tmp())
        return
    est = cls(_model_fn, model_dir=tmp())
    est.train(_input_fn, steps=1)
    del cls.log[:]
    if method == "train":
        est.train(_input_fn, steps=1)
    elif method == "evaluate":
        est.evaluate(_input_fn, steps=1)
    elif method == "predict":
        list(est.predict(_input_fn))
    elif method in ("export_saved_model", "export_savedmodel"):
        getattr(est, method)(tmp(), _receiver_fn)
    elif method == "experimental_export_all_saved_models":
        est.experimental_export_all_saved_models(
            tmp(), {tf.estimator.ModeKeys.PREDICT: _receiver_fn})
    elif method == "model_fn":
        with tf.Graph().as_default():
            tf.compat.v1.train.create_global_step()
            est.model_fn({"x": tf.ones([2, 1])}, tf.ones([2, 1]), "train", est.config)
    else:
        raise AssertionError(f"no scenario for Estimator.{method}")


_HEAD_ARGS = {
    "BinaryClassHead": ((), lambda: tf.constant([[1], [0]])),
    "MultiClassHead": ((3,), lambda: tf.constant([[1], [2]])),
    "MultiLabelHead": ((3,), lambda: tf.constant([[1, 0, 1], [0, 1, 0]])),
    "RegressionHead": ((), lambda: tf.constant([[1.], [2.]])),
    "LogisticRegressionHead": ((), lambda: tf.constant([[0.5], [0.2]])),
    "PoissonRegressionHead": ((), lambda: tf.constant([[1.], [2.]])),
    "_BinaryLogisticHeadWithSigmoidCrossEntropyLoss": ((), lambda: tf.constant([[1], [0]])),
    "_MultiClassHeadWithSoftmaxCrossEntropyLoss": ((3,), lambda: tf.constant([[1], [2]])),
    "_RegressionHeadWithMeanSquaredErrorLoss": ((1,), lambda: tf.constant([[1.], [2.]])),
}


def _run_head(cls, name, method, head_kind):
    args, labels_fn = _HEAD_ARGS[name]
    head = cls(*args)
    if method != "__init__":
        del cls.log[:]
    with tf.Graph().as_default():
        tf.compat.v1.train.create_global_step()
        logits = tf.ones([2, head.logits_dimension])
        labels = labels_fn()
        features = {"x": tf.ones([2, 1])}
        if method == "__init__":
            # What a constructor stores (LogisticRegressionHead's own loss function, the
            # original's `loss_fn=self._logistic_loss`) is called by the loss it makes.
            if hasattr(head, "loss"):
                head.loss(labels, logits, features=features)
        elif method == "create_estimator_spec":
            for mode in ("train", "eval", "infer"):
                kwargs = dict(features=features, mode=mode, logits=logits,
                              labels=None if mode == "infer" else labels)
                if mode == "train":
                    kwargs["train_op_fn"] = lambda loss: tf.no_op()
                head.create_estimator_spec(**kwargs)
        elif method == "create_loss":
            head.create_loss(features, "train", logits, labels)
        elif method == "loss":
            head.loss(labels, logits, features=features)
        elif method == "predictions":
            head.predictions(logits)
        elif method == "update_metrics":
            head.update_metrics(head.metrics(), features, logits, labels)
        else:
            raise AssertionError(f"no scenario for {name}.{method} ({head_kind})")


class _Estimator:
    """A stand-in estimator for exporters and the in-memory evaluator's scenarios."""


class CallsContractTest(tf.test.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        with open(os.path.join(_DATA, "tf215_class_contract.json")) as f:
            cls.record = json.load(f)
        cls._was_installed = compat.is_installed()
        compat.install()

    @classmethod
    def tearDownClass(cls):
        if not cls._was_installed:
            compat.uninstall()
        super().tearDownClass()

    def _tmp(self):
        return tempfile.mkdtemp(dir=self.get_temp_dir())

    def _check(self, path, original, ours, method, expected, log):
        """Each expected callee was called during `method`, with bindable arguments."""
        members = original["members"]
        called = {}
        for name, bound, args, kwargs in log:
            called.setdefault(name, (bound, args, kwargs))
        for name in expected:
            with self.subTest(f"{_short(path)}: {method} -> {name}"):
                self.assertIn(name, called, f"{name} was not called by {method}")
                bound, args, kwargs = called[name]
                parameters = members[name].get("parameters")
                if parameters is None:
                    continue
                signature = _signature(parameters)
                try:
                    signature.bind(*((ours,) if bound else ()), *args, **kwargs)
                except TypeError as e:
                    self.fail(f"{name}{signature} cannot take {args} {kwargs}: {e}")

    def _edges(self, path, original, cls):
        """(method, callees here, not-called) for each entry point of the record."""
        for method, reached in _entry_points(original):
            here = [b for b in reached if hasattr(cls, b) and b not in _NOT_CALLED]
            yield method, here

    def test_every_recorded_class_is_run_covered_or_listed(self):
        run = self._run_paths()
        used = set()
        for path, original in sorted(self.record["classes"].items()):
            if not original.get("calls"):
                continue
            short = _short(path)
            prefix = next((p for p in _NOT_RUN if short == p or (
                p.endswith(".") and short.startswith(p))), None)
            with self.subTest(short):
                if prefix:
                    used.add(prefix)
                    continue
                self.assertIn(path, run, f"{short} has calls and no scenario")
        self.assertEqual(sorted(set(_NOT_RUN) - used), [], "stale _NOT_RUN entries")

    def _run_paths(self):
        paths = set()
        for path, original in self.record["classes"].items():
            if not original.get("calls"):
                continue
            cls = contract._resolve(path)  # pylint: disable=protected-access
            if not isinstance(cls, type):
                continue
            if issubclass(cls, tf.estimator.Estimator) and not _short(path).startswith(
                    tuple(_NOT_RUN)):
                paths.add(path)
            elif _short(path).split(".")[-1] in _HEAD_ARGS or _short(path) in (
                    "exporter.BestExporter", "exporter.LatestExporter",
                    "hooks.hooks.InMemoryEvaluatorHook", "head.base_head.Head",
                    "canned.head._Head", "head.multi_head.MultiHead"):
                paths.add(path)
        return paths

    def _estimator_classes(self):
        """path -> our class, one per distinct class, the canned ones covered by theirs."""
        seen = {}
        for path in sorted(self._run_paths()):
            cls = contract._resolve(path)  # pylint: disable=protected-access
            if issubclass(cls, tf.estimator.Estimator):
                seen.setdefault(cls, path)
        return seen

    def test_estimator_edges(self):
        checked, uncovered = 0, []
        runs = {}
        bases = (tf.estimator.Estimator, tf.compat.v1.estimator.Estimator)
        # The Estimators first: the classes after them whose methods are theirs are covered.
        for cls, path in sorted(self._estimator_classes().items(),
                                key=lambda kv: (kv[0] not in bases, kv[1])):
            original = self.record["classes"][path]
            for method, expected in self._edges(path, original, cls):
                # The methods involved, as this class has them: a class whose are all
                # the Estimator's (v1 or v2) is covered by the Estimator's run.
                key = (method, tuple((b, getattr(cls, b)) for b in expected),
                       getattr(cls, method, None))
                if key in runs:
                    checked += len(expected)
                    continue
                if cls not in bases:
                    uncovered.append(f"{_short(path)}.{method}")
                    continue  # A canned class's own methods: its own tests run them.
                log = []
                recording = _recording_subclass(
                    cls, expected, log,
                    extra={"_assert_members_are_not_overridden": lambda self: None})
                recording.log = log
                _run_estimator(recording, method, self._tmp)
                self._check(path, original, recording, method, expected, log)
                runs[key] = True
                checked += len(expected)
        self.assertGreaterEqual(checked, 665)
        self.assertEqual(uncovered, [], "Estimator subclasses with entry points of their own")

    def test_head_edges(self):
        checked = 0
        for path in sorted(self._run_paths()):
            cls = contract._resolve(path)  # pylint: disable=protected-access
            name = _short(path).split(".")[-1]
            if name not in _HEAD_ARGS:
                continue
            original = self.record["classes"][path]
            for method, expected in self._edges(path, original, cls):
                if not expected:
                    continue
                log = []
                recording = _recording_subclass(cls, expected, log)
                recording.log = log
                _run_head(recording, name, method, _short(path))
                self._check(path, original, recording, method, expected, log)
                checked += len(expected)
        self.assertGreaterEqual(checked, 20)

    def test_a_head_overriding_only_create_tpu_estimator_spec_is_seen(self):
        """The edge create_estimator_spec -> _create_tpu_estimator_spec, with a per-example
        loss made by the override (issue 44's head), for every head class."""
        for path in sorted(self._run_paths()):
            name = _short(path).split(".")[-1]
            if name not in _HEAD_ARGS:
                continue
            cls = contract._resolve(path)  # pylint: disable=protected-access
            seen = []

            class Scaled(cls):  # pylint: disable=missing-class-docstring
                def _create_tpu_estimator_spec(self, *args, **kwargs):
                    spec = super()._create_tpu_estimator_spec(*args, **kwargs)
                    seen.append(spec.mode)
                    if spec.loss is None:
                        return spec
                    return spec._replace(loss=spec.loss * 2.0)

            args, labels_fn = _HEAD_ARGS[name]
            with self.subTest(_short(path)), tf.Graph().as_default():
                tf.compat.v1.train.create_global_step()
                head = Scaled(*args)
                logits = tf.ones([2, head.logits_dimension])
                plain = cls(*args).create_estimator_spec(
                    features={}, mode="eval", logits=logits, labels=labels_fn())
                spec = head.create_estimator_spec(
                    features={}, mode="eval", logits=logits, labels=labels_fn())
                self.assertEqual(seen, ["eval"])
                self.assertIsInstance(spec, tf.estimator.EstimatorSpec)
                with tf.compat.v1.Session() as session:
                    session.run(tf.compat.v1.local_variables_initializer())
                    ours, theirs = session.run([spec.loss, plain.loss])
                self.assertAllClose(ours, 2.0 * theirs)

    def test_exporter_edges(self):
        for path in ("exporter.BestExporter", "exporter.LatestExporter"):
            original = self.record["classes"][_P + path]
            cls = contract._resolve(_P + path)  # pylint: disable=protected-access
            for method, expected in self._edges(path, original, cls):
                log = []
                recording = _recording_subclass(cls, expected, log)
                est = tf.estimator.Estimator(_model_fn, model_dir=self._tmp())
                est.train(_input_fn, steps=1)
                exporter = recording(name="e", serving_input_receiver_fn=_receiver_fn)
                exporter.export(est, self._tmp(), est.latest_checkpoint(), {"loss": 1.0},
                                False)
                self._check(_P + path, original, exporter, method, expected, log)

    def test_in_memory_evaluator_edges(self):
        path = _P + "hooks.hooks.InMemoryEvaluatorHook"
        original = self.record["classes"][path]
        cls = contract._resolve(path)  # pylint: disable=protected-access
        est = tf.estimator.Estimator(_model_fn, model_dir=self._tmp())
        for method, expected in self._edges(path, original, cls):
            log = []
            recording = _recording_subclass(cls, expected, log)
            hook = recording(est, _input_fn, every_n_iter=1)
            est.train(_input_fn, steps=2, hooks=[hook])
            self._check(path, original, hook, method, expected, log)


if __name__ == "__main__":
    tf.test.main()
