"""After compat.install(), every name of tensorflow-estimator 2.15 resolves at its path.

tests/data/tf215_names.json (written by tests/data/make_tf215_names.py with the
original) records, for every module of `tensorflow_estimator.python.estimator`, the
public names it defines; TF 2.15's `tensorflow.python.estimator.*` shims; and the
`tf.estimator`, `tf.compat.v1.estimator`, `tf.compat.v2.estimator` namespaces.
Each must import and have each name, except the list below, each with its reason.
Having a name is not all: one representative of each kind, on each kind of path (the
original's modules, TF 2.15's pre-split shims, the `tf.*` namespaces), is used as
the original's was: classes built, functions called, module constants compared with
the original's values.
"""

import importlib
import inspect
import json
import os
import sys
import types

import numpy as np
import tensorflow as tf

from estimator_lib import compat
from estimator_lib.legacy import original_tree
from tests.estimator_lib.legacy import route_check

_DATA = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "data",
                     "tf215_names.json")
_T = "tensorflow_estimator.python.estimator."

# --- Exceptions: original path (a module, or `module:name`) -> why it does not resolve.
_TPU = ("needs TPU hardware: estimator_lib runs TPUEstimator with use_tpu=False "
        "(docs/MIGRATION.md)")
TPU_HARDWARE = {
    _T + "tpu.tpu_context": f"TPUContext, the per-core TPU topology; {_TPU}",
    _T + "tpu.error_handling": f"ErrorRendezvous of the infeed/outfeed threads; {_TPU}",
    _T + "tpu.iteration_count_estimator": f"TPU loop-time estimates; {_TPU}",
    **{f"{_T}tpu.tpu_estimator:{name}": f"TPU infeed/outfeed and inference; {_TPU}"
       for name in ("CatchInvalidHostcallFunctions", "TPUInfeedOutfeedSessionHook",
                    "TPUInfeedOutfeedSessionHookForPrediction", "TensorPacker",
                    "call_computation", "export_estimator_savedmodel",
                    "generate_broadcast_enqueue_ops_fn",
                    "generate_per_core_enqueue_ops_fn_for_host",
                    "generate_per_host_enqueue_ops_fn_for_host",
                    "generate_per_host_v2_enqueue_ops_fn_for_host")},
}
TF_REMOVED = {
    _T + "tpu._tpu_estimator_embedding": (
        "built on tensorflow.python.tpu.tpu_embedding, which TF 2.21 removed"),
}
TEST_HELPERS = {
    _T + name: ("the original's own test code (shared test cases); the conformance harness "
                "registers the original files at this path, so nothing may stand there")
    for name in ("canned.dnn_testing_utils", "canned.linear_testing_utils",
                 "canned.v1.dnn_testing_utils_v1", "canned.v1.linear_testing_utils_v1")
}
# pending: implemented by another branch (none left).
PENDING = {}
EXCEPTIONS = {**TPU_HARDWARE, **TF_REMOVED, **TEST_HELPERS, **PENDING}

# Paths of legacy/original_tree.py that TF 2.15 did not have, each with why it stays.
EXTRA_PATHS = {
    _T + "canned.boosted_trees": "tensorflow-estimator <= 2.8's BoostedTrees* module (refusals)",
    _T + "keras": "keras_lib's older name, which TF 2.15's `tensorflow.python.estimator.keras` "
                  "shim still re-exported",
    _T + "warm_starting_util": "an older home of VocabInfo and WarmStartSettings",
    _T + "tpu.experimental": "estimator_lib.tpu.experimental, under the package's own path",
    "tensorflow.estimator.inputs": "alias of api._v2.estimator.inputs, importable only",
    "tensorflow.compat.v2.estimator.inputs": "alias of api._v2.estimator.inputs, importable only",
}

# Names that resolve to a refusal (NotImplementedError naming the alternative).
_REFUSAL_MODULES = ("estimator_lib.legacy.unsupported",)


def _load():
    with open(_DATA) as f:
        return json.load(f)


def _entries(data):
    """(path, the original module it is, {name: kind}) for every recorded namespace."""
    for path, record in data["modules"].items():
        yield path, path, record["names"]
    for path, record in data["pre_split"].items():
        yield path, record["resolves_to"] or path, record["names"]
    for path, names in data["api"].items():
        yield path, path, names


def _resolve(path: str):
    if path.startswith("tf."):
        module = tf
        for part in path.split(".")[1:]:
            module = getattr(module, part)
        return module
    return importlib.import_module(path)


def _exception(original: str, name=None):
    return EXCEPTIONS.get(f"{original}:{name}") or EXCEPTIONS.get(original)


def _is_refusal(value) -> bool:
    module = getattr(value, "__module__", "")
    return module in _REFUSAL_MODULES


def _kind(value) -> str:
    if isinstance(value, types.ModuleType):
        return "module"
    if inspect.isclass(value):
        return "class"
    return "function" if callable(value) else "constant"


class OriginalNamesTest(tf.test.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.data = _load()
        cls.was_installed = compat.is_installed()
        compat.install()

    @classmethod
    def tearDownClass(cls):
        if not cls.was_installed:
            compat.uninstall()

    def _survey(self):
        """Per recorded name: 'works', 'refusal' (placeholder), or the failure."""
        outcomes = []
        for path, original, names in _entries(self.data):
            try:
                module = _resolve(path)
            except (ImportError, AttributeError) as e:
                outcomes.extend((path, original, name, kind, f"module: {e!r}")
                                for name, kind in (names.items() or [(None, None)]))
                continue
            for name, kind in names.items():
                if not hasattr(module, name):
                    outcomes.append((path, original, name, kind, "missing"))
                    continue
                value = getattr(module, name)
                outcomes.append((path, original, name, kind,
                                 "refusal" if _is_refusal(value) else "works"))
        return outcomes

    def test_every_recorded_name_resolves_but_the_listed_exceptions(self):
        outcomes = self._survey()
        failures = [f"{path}:{name}: {outcome}" for path, original, name, _, outcome in outcomes
                    if outcome not in ("works", "refusal") and not _exception(original, name)]
        self.assertEqual([], failures)

    def test_exceptions_are_still_needed(self):
        # An exception whose name now works must leave the list (pending ones: at merge).
        stale = sorted({
            f"{original}:{name}" for path, original, name, _, outcome in self._survey()
            if outcome == "works" and _exception(original, name)
            and not _exception(original, name).startswith("pending")})
        self.assertEqual([], stale)
        recorded = {original for _, original, _ in _entries(self.data)}
        for key in EXCEPTIONS:
            self.assertIn(key.split(":")[0], recorded, msg=f"{key} is not a recorded module")

    def test_coverage(self):
        outcomes = [o for o in self._survey() if o[2] is not None]
        modules_failed = {o[0] for o in self._survey() if o[4].startswith("module")}
        in_scope = [o for o in outcomes if o[1] not in TEST_HELPERS]
        resolved = [o for o in in_scope if o[4] in ("works", "refusal")]
        working = [o for o in in_scope if o[4] == "works"]
        outside_tpu = [o for o in in_scope if not (
            _exception(o[1], o[2]) in TPU_HARDWARE.values()
            or _exception(o[1], o[2]) in TF_REMOVED.values())]
        outside_tpu_resolved = [o for o in outside_tpu if o[4] in ("works", "refusal")]
        print(f"\ntf215 names: {len(outcomes)} recorded ({len(outcomes) - len(in_scope)} in "
              f"the original's test helpers, not counted; {len(modules_failed)} modules do "
              f"not import); resolve: {len(resolved)}/{len(in_scope)} = "
              f"{len(resolved) / len(in_scope):.1%} ({len(working)} working, "
              f"{len(resolved) - len(working)} refusals); outside the TPU-hardware modules: "
              f"{len(outside_tpu_resolved)}/{len(outside_tpu)} = "
              f"{len(outside_tpu_resolved) / len(outside_tpu):.1%}")
        pending = [o for o in outside_tpu if o not in outside_tpu_resolved]
        self.assertTrue(all(_exception(o[1], o[2]) in PENDING.values() for o in pending),
                        msg=[o for o in pending if _exception(o[1], o[2]) not in PENDING.values()])
        self.assertGreaterEqual(len(resolved) / len(in_scope), 0.95)

    def test_kinds_match_the_original(self):
        mismatches = []
        for path, _, names in _entries(self.data):
            try:
                module = _resolve(path)
            except (ImportError, AttributeError):
                continue
            for name, kind in names.items():
                if hasattr(module, name) and _kind(getattr(module, name)) != kind:
                    mismatches.append(f"{path}:{name}: {kind} -> "
                                      f"{_kind(getattr(module, name))}")
        self.assertEqual([], mismatches)

    def test_refusals_are_only_the_unsupported_names(self):
        # Only the BoostedTrees estimators are refused (legacy/unsupported.py); the RNN
        # estimators, LinearSDCA and KMeans work, and must not resolve to a refusal.
        refusals = {f"{o[0]}:{o[2]}" for o in self._survey() if o[4] == "refusal"}
        for refusal in refusals:
            self.assertRegex(refusal, r":BoostedTrees(Classifier|Regressor|Estimator)$",
                             msg=refusal)

    def test_a_constant_of_each_path_has_the_originals_value(self):
        # Values read from TF 2.15.1 + tensorflow-estimator 2.15.0 (module constants
        # other than objects and the pandas flag, which depends on the machine).
        expected = {
            _T + "head.base_head": {
                "CLASSIFY_SERVING_KEY": "classification", "DEFAULT_SERVING_KEY":
                "serving_default", "PREDICT_SERVING_KEY": "predict",
                "REGRESS_SERVING_KEY": "regression"},
            _T + "model_fn": {"AVERAGE_LOSS_METRIC_KEY": "average_loss",
                              "LOSS_METRIC_KEY": "loss"},
            "tensorflow.python.estimator.model_fn": {
                "AVERAGE_LOSS_METRIC_KEY": "average_loss", "LOSS_METRIC_KEY": "loss"},
            _T + "util": {"MAX_DIRECTORY_CREATION_ATTEMPTS": 10},
            "tensorflow.python.estimator.util": {"MAX_DIRECTORY_CREATION_ATTEMPTS": 10},
            _T + "tools.checkpoint_converter": {
                "OPT_NAME_V1_TO_V2": {"Adagrad": "Adagrad", "RMSProp": "RMSprop",
                                      "Ftrl": "Ftrl", "Adam": "Adam", "SGD": "SGD"},
                "OPT_VAR_NAME_V1_TO_V2": {
                    "Adam": {"Adam": "m", "Adam_1": "v"},
                    "Ftrl": {"Ftrl": "accumulator", "Ftrl_1": "linear"},
                    "RMSProp": {"RMSProp": "rms", "RMSProp_1": None},
                    "Adagrad": {"Adagrad": "accumulator"}},
                "HP_IN_CKPT": {"Adam": {"beta1_power": "training/Adam/beta_1",
                                        "beta2_power": "training/Adam/beta_2"}}},
        }
        for path, constants in expected.items():
            module = _resolve(path)
            for name, value in constants.items():
                self.assertEqual(getattr(module, name), value, msg=f"{path}:{name}")
        for path in (_T + "export.export_lib", "tensorflow.python.estimator.export.export_lib"):
            module = _resolve(path)
            self.assertEqual(module.SIGNATURE_KEY_MAP[tf.estimator.ModeKeys.PREDICT],
                             "serving_default")
            self.assertEqual(module.EXPORT_TAG_MAP[tf.estimator.ModeKeys.TRAIN], ["train"])

    def test_a_class_and_a_function_of_each_path_work(self):
        # Classes: an Estimator (pre-split path), its RunConfig (the original's module)
        # and a canned estimator (tf.compat.v1); functions: numpy_input_fn (tf.*) and a
        # receiver builder (the original's module), called and used.
        run_config = _resolve(_T + "run_config").RunConfig(model_dir=self.get_temp_dir(),
                                                           tf_random_seed=1)
        self.assertEqual(run_config.model_dir, self.get_temp_dir())
        numpy_input_fn = _resolve("tf.compat.v1.estimator.inputs").numpy_input_fn
        x = np.arange(8, dtype=np.float32).reshape(8, 1)
        input_fn = numpy_input_fn({"x": x}, 2 * x[:, 0], batch_size=4, shuffle=False,
                                  num_epochs=None)

        def model_fn(features, labels, mode):
            prediction = tf.compat.v1.layers.dense(features["x"], 1)[:, 0]
            if mode == tf.estimator.ModeKeys.PREDICT:
                return tf.estimator.EstimatorSpec(mode, predictions={"y": prediction})
            loss = tf.compat.v1.losses.mean_squared_error(labels, prediction)
            train_op = tf.compat.v1.train.GradientDescentOptimizer(0.01).minimize(
                loss, tf.compat.v1.train.get_global_step())
            return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                              predictions={"y": prediction})

        estimator_class = _resolve("tensorflow.python.estimator.estimator").Estimator
        estimator = estimator_class(model_fn, config=run_config)
        estimator.train(input_fn, steps=2)
        self.assertEqual(2, estimator.get_variable_value("global_step"))
        build = _resolve(_T + "export.export").build_raw_serving_input_receiver_fn
        export_dir = estimator.export_saved_model(
            os.path.join(self.get_temp_dir(), "export"), build({"x": tf.constant([[1.]])}))
        self.assertTrue(os.path.isdir(export_dir))
        canned = _resolve("tf.compat.v1.estimator").LinearRegressor(
            [tf.feature_column.numeric_column("x")],
            model_dir=os.path.join(self.get_temp_dir(), "linear"))
        canned.train(input_fn, steps=1)
        self.assertEqual(1, canned.get_variable_value("global_step"))

    def test_paths_are_the_same_objects(self):
        import tensorflow_estimator.python.estimator.estimator_lib as estimator_lib  # noqa
        from tensorflow_estimator.python.estimator import estimator, gc, util
        from tensorflow_estimator.python.estimator.export import export_lib
        from tensorflow_estimator.python.estimator.hooks import hooks
        from tensorflow.python.estimator import gc as pre_split_gc
        self.assertIs(estimator_lib.Estimator, tf.compat.v1.estimator.Estimator)
        self.assertIs(estimator_lib.DNNClassifier, tf.compat.v1.estimator.DNNClassifier)
        self.assertIs(estimator_lib.export, export_lib)
        self.assertIs(estimator_lib.hooks, hooks)
        self.assertIs(pre_split_gc, gc)
        self.assertTrue(callable(estimator.maybe_overwrite_model_dir_and_session_config))
        self.assertEqual(10, util.MAX_DIRECTORY_CREATION_ATTEMPTS)
        # The module exists, empty; once imported it is `tf.estimator.inputs`, as in TF 2.15
        # (a fresh process has no `tf.estimator.inputs`: tests/.../one_module_test.py).
        inputs = importlib.import_module(_T + "api._v2.estimator.inputs")
        self.assertEqual([], [n for n in dir(inputs) if not n.startswith("_")])
        self.assertIs(inputs, tf.estimator.inputs)


class TableTest(tf.test.TestCase):
    """legacy/original_tree.py holds every recorded module path, and only those."""

    def _table_paths(self):
        paths = set(original_tree.TREE)
        for alias, target in original_tree.ALIASES.items():
            paths.update(alias + path[len(target):] for path in original_tree.TREE
                         if path == target or path.startswith(target + "."))
        return paths

    def test_every_recorded_module_is_a_path_of_the_table(self):
        data = _load()
        recorded = set(data["modules"]) | set(data["pre_split"])
        self.assertEqual([], sorted(recorded - self._table_paths() - set(EXCEPTIONS)))

    def test_every_path_of_the_table_was_recorded_or_says_why_not(self):
        data, routes = _load(), route_check.load()["routes"]
        recorded = (set(data["modules"]) | set(data["pre_split"]) | set(routes)
                    | {r["reaches"] for r in routes.values()} | {r["root"] for r in routes.values()}
                    | {"tensorflow_estimator.python"})  # The parent of the recorded modules.
        extra = sorted(path for path in self._table_paths() - recorded
                       if not path.startswith("tensorflow.python.estimator."))
        self.assertEqual(sorted(EXTRA_PATHS), extra)
        # The pre-split names mirror the table (TF 2.15 had shims for 31 of them).
        self.assertEqual([], sorted(
            path for path in self._table_paths() - recorded
            if path.startswith("tensorflow.python.estimator.") and
            _T + path[len("tensorflow.python.estimator."):] not in self._table_paths()))


class UninstallTest(tf.test.TestCase):

    def test_uninstall_removes_the_new_paths(self):
        if compat.is_installed():
            self.skipTest("installed by another test of this process")
        compat.install()
        self.assertIn(_T + "tools.checkpoint_converter", sys.modules)
        compat.uninstall()
        for path in (_T + "gc", _T + "tools.checkpoint_converter", _T + "util",
                     "tensorflow.python.estimator.util", _T + "canned.timeseries.estimators"):
            self.assertNotIn(path, sys.modules)
        self.assertFalse(compat.is_installed())


if __name__ == "__main__":
    tf.test.main()
