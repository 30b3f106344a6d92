"""The original's classes as a library subclasses them: metaclass, abstract methods,
bases, members, and the private methods its public methods call.

`tests/data/tf215_class_contract.json` was recorded from the original (TF 2.15.1 +
tensorflow-estimator 2.15.0) by `tests/data/make_tf215_class_contract.py`: every class
reached at a module path of `tf215_names.json`. This test reaches ours by the same
paths after `compat.install()`, describes them with the generator's own code, and
compares. What differs is listed below, each with its reason (docs/estimator.md,
"The subclassing contract"); a difference that goes away must leave its list.

The private-call structure ("hook points"): for Estimator, TPUEstimator, RunConfig,
the heads, the canned estimators, the exporters and the hooks, every private method
that one of the original's public methods reaches through `self` must exist here
with a compatible signature, and representative ones are overridden by a subclass
below and seen called (ClassContractSubclassTest).
"""

import abc
import importlib.util
import json
import os
import tempfile

import numpy as np
import tensorflow as tf

from estimator_lib import compat

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "data")
_PACKAGE = "tensorflow_estimator.python.estimator."

# Original class paths not reached here, by prefix (after the package): why.
_NOT_REACHED = {
    "canned.dnn_testing_utils.": "the original's own test-suite bases (tf.test.TestCase "
                                 "subclasses); public names: original_names_test's concern",
    "canned.linear_testing_utils.": "as canned.dnn_testing_utils",
    "canned.v1.": "as canned.dnn_testing_utils (the v1 copies)",
    "tpu.": "TPU-only machinery (infeed/outfeed, TPU contexts, embeddings, error "
            "rendezvous, iteration counting): no TPU here",
    "inputs.queues.feeding_functions.": "queue feeding of numpy_input_fn/pandas_input_fn: ours feed tf.data",
    "export.function._": "private helpers of the original's export/function.py",
    "canned.dnn._DNNModel": "the v1 DNN's private Keras-less model: canned/dnn builds it",
    "canned.kmeans._ModelFn": "private; canned/kmeans.py",
    "canned.linear_optimizer.": "the SDCA solver's private tables: canned/linear_optimizer",
    "canned.timeseries.state_management._OverridableStateManager": "private base",
}

# The metaclass ours has where the original's was `type`: why.
_METACLASSES = {
    "estimator_lib.engine.estimator_v1._V1Meta":
        "makes the v2 Estimator an instance of the v1 class, as the original's class "
        "tree did (ours is the other way up); an abc.ABCMeta, so a library's "
        "`metaclass=abc.ABCMeta` or `abc.ABC` base has no conflict",
}

# Bases of the original's classes that are not reached here: why.
_BASES_NOT_REACHED = {
    "model_fn.TPUEstimatorSpec": "the namedtuple base of model_fn._TPUEstimatorSpec, "
                                 "at no module path",
    "training.EvalResult": "the namedtuple base of training._EvalResult, at no module path",
    "tpu._tpu_estimator_embedding.EmbeddingConfigSpec": "TPU embeddings (no TPU here)",
    "canned.timeseries.state_management._OverridableStateManager": "private base",
}

# Private methods the original's public methods reach through `self` that ours does
# not have: why. The ones ours has are called at the same point (tested below).
_TRAIN = ("train() runs one path (training/train_model.py) that decides the job's shape "
          "once; the original's default/distributed/MonitoredTrainingSession methods have "
          "no counterpart. The hook points inside it (_call_model_fn, _call_input_fn, "
          "_get_features_and_labels_from_input_fn, _create_global_step, "
          "_create_and_assert_global_step) are called where the original called them")
_EVAL = ("evaluate() is split as _evaluate_build_graph / _evaluate_run / _eval_spec so "
         "that InMemoryEvaluatorHook builds the graph once; _call_model_fn and "
         "_get_features_and_labels_from_input_fn are called as in the original")
_HOOK_POINTS_ABSENT = {
    "_train_model": _TRAIN, "_train_model_default": _TRAIN,
    "_train_model_distributed": _TRAIN, "_actual_train_model_distributed": _TRAIN,
    "_train_with_estimator_spec": _TRAIN, "_train_with_estimator_spec_distributed": _TRAIN,
    "_convert_train_steps_to_hooks": _TRAIN,
    "_actual_eval": _EVAL, "_call_model_fn_eval": _EVAL,
    "_call_model_fn_eval_distributed": _EVAL, "_convert_eval_steps_to_hooks": _EVAL,
    "_augment_model_fn": "TPU rewrite of the model_fn: ours runs it on CPU/GPU",
    "_call_model_fn_for_inference": "TPU inference rewrite: ours runs it on CPU/GPU",
    "_class_id_table": "the v2 heads build their lookup tables in head/vocabulary.py",
    "_class_string_table": "as _class_id_table",
    "_update_accuracy_baseline": "the v2 heads' metrics are built in head/ module functions",
    "_update_auc": "as _update_accuracy_baseline",
    "_get_default_session_config_distributed": "RunConfig reads TF_CONFIG through "
                                               "core/tf_config.py, its session config "
                                               "from distribute/job_shape.py",
    "_init_distributed_setting_from_environment_var": "as above (core/tf_config.py)",
    "_init_distributed_setting_from_environment_var_with_master": "as above",
    "_maybe_overwrite_session_config_for_distributed_training": "as above",
    "_verify_strategy_compatibility": "checked where the job's shape is decided",
    "_get_saver_def_from_mode": "SavedModelEstimator restores through its ModelGraph",
    "_prune_and_unique_sparse_ids": "LinearSDCA's ids: canned/linear_optimizer",
}

# Hook points ours has with another signature: why.
_HOOK_SIGNATURES = {
    "_add_meta_graph_for_mode": "export_saved_model's per-mode step; the arguments are "
                                "ours (no strip_default_attrs/save_variables split)",
    "_evaluate_build_graph": "evaluate()'s graph, built once for InMemoryEvaluatorHook: "
                             "(input_fn, checkpoint_path); the hooks are added at the run",
    "_evaluate_run": "one evaluation of the built graph: (graph, *, steps, hooks, "
                     "checkpoint_path, name, scaffold)",
}

# Private members (not hook points) of the classes reached whose names ours does not
# have: the original's implementation helpers, which none of its public methods calls
# through `self` (a subclass overriding one changed nothing in the original either).
# Today's count, pinned: more fails (a private name went missing), fewer fails too and
# prints the number to write here (so the pin follows each name added, and only then).
# (The executor's listener adds two: its base, TensorFlow's CheckpointSaverListener,
# lost `_estimator_api_names(_v1)` after 2.15.)
_PRIVATE_MEMBERS_ABSENT = 1283

# The hook points checked (present here, their signatures compared), pinned the same way:
# fewer fails (one went missing or stopped being compared), more asks for the new number.
_HOOK_POINTS_CHECKED = 539


def pinned_count_problem(what: str, constant: str, count: int, pinned: int,
                         better: str) -> str:
    """Why `count` is not `pinned` ("" when equal); `better` is "lower" or "higher"."""
    if count == pinned:
        return ""
    if (count < pinned) == (better == "lower"):
        return (f"{what}: {count}, pinned at {pinned}: better. Write {constant} = {count} "
                f"in {__name__.rpartition('.')[2]}.py")
    return f"{what}: {count}, pinned at {pinned}: worse"


def _load_generator():
    spec = importlib.util.spec_from_file_location(
        "make_tf215_class_contract", os.path.join(_DATA, "make_tf215_class_contract.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _short(path: str) -> str:
    return path[len(_PACKAGE):] if path.startswith(_PACKAGE) else path


def _resolve(path: str):
    """The object at `module.name` here; Keras 2.15's classes at tf_keras's path."""
    if path.startswith("keras.src."):
        path = "tf_" + path
    module_name, _, name = path.rpartition(".")
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return None
    return getattr(module, name, None)


def _closure(calls: dict, method: str) -> set:
    seen, stack = set(), list(calls.get(method, ()))
    while stack:
        name = stack.pop()
        if name not in seen:
            seen.add(name)
            stack.extend(calls.get(name, ()))
    return seen


def _parameters_compatible(original, ours) -> bool:
    """Every call the original's signature takes, ours takes: the same names and kinds,
    a default wherever the original had one, then only keyword-only ones with defaults."""
    if original is None or ours is None:
        return original == ours
    extra = ours[len(original):]
    return len(ours) >= len(original) and all(
        (name, kind) == (our_name, our_kind) and (our_default or not default)
        for (name, kind, default), (our_name, our_kind, our_default)
        in zip(original, ours)) and all(
            kind == "KEYWORD_ONLY" and has_default for _, kind, has_default in extra)


def _is_export_wrapper(member: dict) -> bool:
    """The `(self, /, *args, **kwargs)` __init__ TF 2.15's API export gave a class
    without its own (it only called object's)."""
    return [kind for _, kind, _ in member.get("parameters") or ()] == [
        "POSITIONAL_ONLY", "VAR_POSITIONAL", "VAR_KEYWORD"]


def _kind(member: dict) -> str:
    # `__new__` records as a method or a staticmethod depending on how the class was
    # built (the original's API export rewrapped it); both are called alike.
    return "method" if member["kind"] == "staticmethod" else member["kind"]


class ClassContractTest(tf.test.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        with open(os.path.join(_DATA, "tf215_class_contract.json")) as f:
            cls.record = json.load(f)
        cls.generator = _load_generator()
        cls._was_installed = compat.is_installed()
        compat.install()
        cls.ours = {}
        for path in cls.record["classes"]:
            value = _resolve(path)
            if isinstance(value, type):
                cls.ours[path] = value

    @classmethod
    def tearDownClass(cls):
        if not cls._was_installed:
            compat.uninstall()
        super().tearDownClass()

    def _pairs(self):
        for path, original in sorted(self.record["classes"].items()):
            if path in self.ours:
                yield path, original, self.ours[path]

    def test_the_recording_is_the_original(self):
        recorded = self.record["recorded_with"]
        self.assertEqual(recorded["tensorflow"], "2.15.1")
        self.assertEqual(recorded["tensorflow_estimator"], "2.15.0")
        self.assertLen(self.record["classes"], 406)

    def test_every_class_is_reached_or_listed(self):
        used = set()
        for path in sorted(self.record["classes"]):
            if path in self.ours:
                continue
            prefix = next((p for p in _NOT_REACHED if _short(path).startswith(p)), None)
            with self.subTest(path):
                self.assertIsNotNone(prefix, f"{path} is not reached here")
            used.add(prefix)
        self.assertEmpty(sorted(set(_NOT_REACHED) - used), "stale _NOT_REACHED entries")
        self.assertLen(self.ours, 324)

    def test_metaclass(self):
        used = set()
        for path, original, cls in self._pairs():
            ours = self.generator.type_name(type(cls))
            with self.subTest(path):
                if ours != original["metaclass"]:
                    self.assertEqual(original["metaclass"], "builtins.type")
                    self.assertIn(ours, _METACLASSES)
                    used.add(ours)
        self.assertEqual(sorted(used), sorted(_METACLASSES))

    def test_abstract_methods(self):
        for path, original, cls in self._pairs():
            with self.subTest(path):
                self.assertEqual(sorted(getattr(cls, "__abstractmethods__", ()) or ()),
                                 original["abstract"])

    def test_every_base_is_a_base_here(self):
        used = set()
        for path, original, cls in self._pairs():
            for base_path in original["mro"][1:]:
                if base_path == "builtins.object":
                    continue
                base = _resolve(base_path)
                with self.subTest(f"{path} < {base_path}"):
                    if base is None:
                        self.assertIn(_short(base_path), _BASES_NOT_REACHED)
                        used.add(_short(base_path))
                    else:
                        self.assertTrue(issubclass(cls, base), f"{cls} < {base}")
        self.assertEqual(sorted(used), sorted(_BASES_NOT_REACHED))

    def test_every_public_member_has_the_original_kind_and_signature(self):
        for path, original, cls in self._pairs():
            ours = self.generator.members(cls)
            for name, member in sorted(original["members"].items()):
                if name.startswith("_") and name not in ("__init__", "__call__"):
                    continue
                if name == "__init__" and _is_export_wrapper(member):
                    continue  # signatures_test compares these constructors ("builtin").
                if member.get("owner", "").startswith(("keras.", "tf_keras.")):
                    # Keras' own members (compile, fit, add_loss, ... of a Keras model
                    # the canned estimators subclass): Keras' API, not the Estimator's.
                    # Keras swaps such a subclass's bases to its v1 classes when one is
                    # built with TF2 behaviour off (version_utils.swap_class), in the
                    # original as here, so they also depend on what ran before.
                    continue
                with self.subTest(f"{path}.{name}"):
                    self.assertIn(name, ours)
                    self.assertEqual(_kind(ours[name]), _kind(member))
                    if "parameters" in member and name != "__new__":
                        self.assertTrue(
                            _parameters_compatible(member["parameters"],
                                                   ours[name].get("parameters")),
                            f"original {member['parameters']}\n"
                            f"ours     {ours[name].get('parameters')}")

    def _hook_points(self):
        """(path, class here, private name, original member) for every hook point."""
        for path, original, cls in self._pairs():
            calls = original.get("calls")
            if calls is None:
                continue
            reached = set()
            for name in original["members"]:
                if not name.startswith("_") or name == "__init__":
                    reached |= _closure(calls, name)
            for name in sorted(reached):
                yield path, cls, name, original["members"].get(name)

    def test_every_hook_point_is_here_with_its_signature(self):
        absent, signatures, checked = set(), set(), 0
        for path, cls, name, member in self._hook_points():
            with self.subTest(f"{path}.{name}"):
                if not hasattr(cls, name):
                    self.assertIn(name, _HOOK_POINTS_ABSENT)
                    absent.add(name)
                    continue
                checked += 1
                ours = self.generator.members(cls).get(name)
                if member and "parameters" in member and not _parameters_compatible(
                        member["parameters"], ours.get("parameters")):
                    self.assertIn(name, _HOOK_SIGNATURES,
                                  f"original {member['parameters']}\n"
                                  f"ours     {ours.get('parameters')}")
                    signatures.add(name)
        self.assertEqual(sorted(absent), sorted(_HOOK_POINTS_ABSENT))
        self.assertEqual(sorted(signatures), sorted(_HOOK_SIGNATURES))
        self.assertFalse(pinned_count_problem("hook points checked", "_HOOK_POINTS_CHECKED",
                                              checked, _HOOK_POINTS_CHECKED, "higher"))

    def test_private_members_absent_by_count(self):
        hook_points = {(path, name) for path, _, name, _ in self._hook_points()}
        absent = 0
        for path, original, cls in self._pairs():
            ours = self.generator.members(cls)
            absent += sum(1 for name in original["members"]
                          if name.startswith("_") and name not in ours
                          and (path, name) not in hook_points)
        self.assertFalse(pinned_count_problem(
            "the original's private members missing here", "_PRIVATE_MEMBERS_ABSENT",
            absent, _PRIVATE_MEMBERS_ABSENT, "lower"))

    def test_a_pinned_count_fails_both_ways(self):
        # Pure: the rule the two counts above are held to.
        self.assertEqual(pinned_count_problem("n", "_N", 5, 5, "lower"), "")
        self.assertIn("worse", pinned_count_problem("n", "_N", 6, 5, "lower"))
        self.assertIn("Write _N = 4 in class_contract_test.py",
                      pinned_count_problem("n", "_N", 4, 5, "lower"))
        self.assertIn("worse", pinned_count_problem("n", "_N", 4, 5, "higher"))
        self.assertIn("Write _N = 6 in", pinned_count_problem("n", "_N", 6, 5, "higher"))


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


def _recording_estimator(base, seen):
    """A subclass of `base` overriding the original's hook points, recording calls."""

    class Recording(base):

        def _call_model_fn(self, features, labels, mode, config):
            seen.append(("_call_model_fn", mode))
            return super()._call_model_fn(features, labels, mode, config)

        def _call_input_fn(self, input_fn, mode, input_context=None):
            seen.append(("_call_input_fn", mode))
            return super()._call_input_fn(input_fn, mode, input_context)

        def _get_features_and_labels_from_input_fn(self, input_fn, mode):
            seen.append(("_get_features_and_labels_from_input_fn", mode))
            return super()._get_features_and_labels_from_input_fn(input_fn, mode)

        def _get_features_from_input_fn(self, input_fn, mode):
            seen.append(("_get_features_from_input_fn", mode))
            return super()._get_features_from_input_fn(input_fn, mode)

        def _create_global_step(self, graph):
            seen.append(("_create_global_step",))
            return super()._create_global_step(graph)

        def _validate_features_in_predict_input(self, result):
            seen.append(("_validate_features_in_predict_input",))
            return super()._validate_features_in_predict_input(result)

        def _extract_batch_length(self, preds_evaluated):
            seen.append(("_extract_batch_length",))
            return super()._extract_batch_length(preds_evaluated)

        def _maybe_warm_start(self, checkpoint_path):
            seen.append(("_maybe_warm_start", checkpoint_path))
            return super()._maybe_warm_start(checkpoint_path)

        def _extract_keys(self, predictions, predict_keys):
            seen.append(("_extract_keys",))
            return super()._extract_keys(predictions, predict_keys)

        def _export_all_saved_models(self, *args, **kwargs):
            seen.append(("_export_all_saved_models",))
            return super()._export_all_saved_models(*args, **kwargs)

    return Recording


class ClassContractSubclassTest(tf.test.TestCase):
    """A subclass overriding the original's private methods sees them called."""

    def _tmp(self) -> str:
        return tempfile.mkdtemp(dir=self.get_temp_dir())

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls._was_installed = compat.is_installed()
        compat.install()

    @classmethod
    def tearDownClass(cls):
        if not cls._was_installed:
            compat.uninstall()
        super().tearDownClass()

    def test_estimator_hook_points_are_called_where_the_original_called_them(self):
        for base in (tf.estimator.Estimator, tf.compat.v1.estimator.Estimator):
            seen = []
            est = _recording_estimator(base, seen)(_model_fn, model_dir=self._tmp())
            with self.subTest(base=base.__name__, call="train"):
                est.train(_input_fn, steps=1)
                self.assertEqual(seen, [("_create_global_step",),
                                        ("_get_features_and_labels_from_input_fn", "train"),
                                        ("_call_input_fn", "train"),
                                        ("_call_model_fn", "train")])
            with self.subTest(base=base.__name__, call="evaluate"):
                del seen[:]
                est.evaluate(_input_fn)
                self.assertEqual(seen, [("_create_global_step",),
                                        ("_get_features_and_labels_from_input_fn", "eval"),
                                        ("_call_input_fn", "eval"),
                                        ("_call_model_fn", "eval"),
                                        ("_maybe_warm_start", est.latest_checkpoint())])
            with self.subTest(base=base.__name__, call="predict"):
                del seen[:]
                list(est.predict(_input_fn))
                self.assertEqual(seen, [("_create_global_step",),
                                        ("_get_features_from_input_fn", "infer"),
                                        ("_call_input_fn", "infer"),
                                        ("_validate_features_in_predict_input",),
                                        ("_call_model_fn", "infer"),
                                        ("_maybe_warm_start", est.latest_checkpoint()),
                                        ("_extract_keys",),
                                        ("_extract_batch_length",),
                                        ("_extract_batch_length",)])
            with self.subTest(base=base.__name__, call="export_saved_model"):
                del seen[:]
                est.export_saved_model(self._tmp(), _receiver_fn)
                self.assertEqual(seen, [("_export_all_saved_models",),
                                        ("_create_global_step",),
                                        ("_call_model_fn", "infer")])

    def test_assert_members_are_not_overridden_is_called_through_the_instance(self):
        class Lenient(tf.estimator.Estimator):
            def _assert_members_are_not_overridden(self):
                pass

            def train(self, *args, **kwargs):  # pylint: disable=arguments-differ
                return "overridden"

        self.assertEqual(Lenient(_model_fn, model_dir=self._tmp()).train(None),
                         "overridden")

        class Strict(tf.estimator.Estimator):
            def train(self, *args, **kwargs):  # pylint: disable=arguments-differ
                pass

        with self.assertRaisesRegex(ValueError, "cannot override members of Estimator"):
            Strict(_model_fn, model_dir=self._tmp())

    def test_model_fn_called_directly_in_eager_mode_reaches_the_model_fn(self):
        reached = []

        def model_fn(features, labels, mode, config):
            reached.append((mode, config.model_dir))
            raise KeyError("the model_fn's own")

        est = tf.estimator.Estimator(model_fn, model_dir=self._tmp())
        tf.compat.v1.train.create_global_step()
        with self.assertRaisesRegex(KeyError, "the model_fn's own"):
            est.model_fn({"x": tf.constant([[1.0]])}, None, "train", est.config)
        self.assertEqual(reached, [("train", est.model_dir)])

    def test_v1_head_subclass_without_the_canned_heads_methods_constructs(self):
        from tensorflow.python.estimator.canned import head as head_lib  # pylint: disable=import-outside-toplevel
        self.assertIs(type(head_lib._Head), type)  # pylint: disable=protected-access
        calls = []

        class Head(head_lib._Head):  # pylint: disable=protected-access
            name = "h"
            logits_dimension = 1

            def create_loss(self, features, mode, logits, labels):
                return None

            def _create_tpu_estimator_spec(self, *args):
                calls.append(len(args))
                return tf.compat.v1.estimator.tpu.TPUEstimatorSpec(
                    mode=tf.estimator.ModeKeys.PREDICT, predictions={"y": args[2]})

        with tf.Graph().as_default():
            spec = Head().create_estimator_spec(
                features={}, mode=tf.estimator.ModeKeys.PREDICT,
                logits=tf.constant([[1.0]]))
        self.assertIsInstance(spec, tf.estimator.EstimatorSpec)
        self.assertEqual(calls, [7])

        class Bare(head_lib._Head):  # pylint: disable=protected-access
            pass

        with self.assertRaisesRegex(NotImplementedError, "_create_tpu_estimator_spec"):
            Bare().create_estimator_spec(features={}, mode="infer", logits=None)

    def test_exporter_subclass_without_name_constructs(self):
        class Exporter(tf.estimator.Exporter):
            pass

        self.assertIsNone(Exporter().export(None, None, None, None, False))

    def test_best_exporter_hook_points_are_called(self):
        calls = []

        class Best(tf.estimator.BestExporter):
            def _get_best_eval_result(self, event_files):
                calls.append("_get_best_eval_result")
                return {"loss": 0.0}

            def _garbage_collect_exports(self, export_dir_base):
                calls.append("_garbage_collect_exports")

        est = tf.estimator.Estimator(_model_fn, model_dir=self._tmp())
        est.train(_input_fn, steps=1)
        exporter = Best(serving_input_receiver_fn=_receiver_fn)
        # The first export is made whatever the best result (the original's); later
        # ones only when better than the best so far.
        self.assertIsNotNone(exporter.export(est, self._tmp(),
                                             est.latest_checkpoint(), {"loss": 1.0}, False))
        self.assertEqual(calls, ["_get_best_eval_result", "_garbage_collect_exports"])
        self.assertIsNone(exporter.export(est, self._tmp(), est.latest_checkpoint(),
                                          {"loss": 2.0}, False))
        self.assertEqual(calls, ["_get_best_eval_result", "_garbage_collect_exports"])
        exporter.export(est, self._tmp(), est.latest_checkpoint(),
                        {"loss": -1.0}, False)
        self.assertEqual(calls, ["_get_best_eval_result", "_garbage_collect_exports",
                                 "_garbage_collect_exports"])

    def test_abc_metaclass_subclass_of_the_v1_estimator(self):
        class Base(tf.compat.v1.estimator.Estimator, metaclass=abc.ABCMeta):
            @abc.abstractmethod
            def _my_step(self):
                pass

        class Concrete(Base):
            def _my_step(self):
                return 1

        with self.assertRaisesRegex(TypeError, "abstract"):
            Base(_model_fn, model_dir=self._tmp())
        self.assertEqual(Concrete(_model_fn, model_dir=self._tmp())
                         ._my_step(), 1)


if __name__ == "__main__":
    tf.test.main()
