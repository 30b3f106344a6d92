"""One owner for each call's pieces (docs/architecture.md, "Who owns what").

- ModelGraph holds its owner alone, and calls the owner's hook points and reads the
  owner's attributes when the graph is built: an attribute replaced on an instance
  after construction (`est._model_fn = wrapped`, the pattern of regularization
  wrappers) changes what the next call does, as with the original.
- `construction.HOOK_POINTS` is docs/estimator.md's list, and each is called through
  the instance.
- One input path: `graph/inputs.read` opens `large_arrays_fed` once per call, and a
  Dataset becomes batches in `inputs.dataset_batches` alone, in every branch.
- No hook of a training run is built outside `training/hook_plan.py`.
- No import circle among the library's modules.
"""

import ast
import os
import re
from unittest import mock

import numpy as np
import tensorflow as tf

import estimator_lib
from estimator_lib.engine import construction
from estimator_lib.engine import evaluation
from estimator_lib.graph import inputs
from estimator_lib.graph import model_graph
from estimator_lib.tf_internals import patches as tf_patches
from estimator_lib.training import session as session_lib

_LIBRARY = os.path.join(os.path.dirname(__file__), "..", "..", "src", "estimator_lib")
_DOCS = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "estimator.md")


def _input_fn():
    x = np.arange(8, dtype=np.float32).reshape(8, 1) / 8.0
    return tf.data.Dataset.from_tensor_slices(({"x": x}, 2.0 * x)).batch(4)


def _model_fn(features, labels, mode, params):
    weight = tf.compat.v1.get_variable("w", [1, 1], initializer=tf.compat.v1.ones_initializer())
    predictions = tf.matmul(features["x"], weight) * params.get("scale", 1.0)
    if mode == estimator_lib.ModeKeys.PREDICT:
        return estimator_lib.EstimatorSpec(mode, predictions={"y": predictions})
    loss = tf.reduce_mean(tf.square(predictions - labels))
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return estimator_lib.EstimatorSpec(mode, loss=loss, train_op=train_op)


def _serving_input_receiver_fn():
    x = tf.compat.v1.placeholder(tf.float32, [None, 1], name="x")
    return estimator_lib.export.ServingInputReceiver({"x": x}, {"x": x})


class CallTimeReadsTest(tf.test.TestCase):

    def _estimator(self, **kwargs):
        return estimator_lib.Estimator(_model_fn, model_dir=self.get_temp_dir(), **kwargs)

    def test_model_graph_keeps_only_its_owner(self):
        estimator = self._estimator()
        self.assertEqual(vars(model_graph.ModelGraph(estimator)), {"owner": estimator})

    def test_the_estimator_holds_each_piece_of_constructor_state_once(self):
        estimator = self._estimator()
        self.assertEqual(set(vars(estimator)), set(construction.CALL_TIME_ATTRIBUTES))
        # The original's copies of RunConfig fields are views of `_config`.
        for attribute, field in construction.CONFIG_ALIASES.items():
            self.assertIs(getattr(estimator, attribute), getattr(estimator._config, field))

    def test_a_config_alias_assigned_on_the_instance_replaces_the_config(self):
        estimator = self._estimator()
        placed = []

        def device_fn(op):
            placed.append(op.type)
            return "/cpu:0"

        estimator._device_fn = device_fn
        self.assertIs(estimator.config.device_fn, device_fn)
        self.assertNotIn("_device_fn", vars(estimator))
        estimator.train(_input_fn, steps=1)
        self.assertIn("VarHandleOp", placed)

    def test_model_fn_replaced_on_the_instance_runs_in_every_entry_point(self):
        estimator = self._estimator()
        estimator.train(_input_fn, steps=1)
        calls = []
        original = estimator._model_fn

        def doubled_loss(features, labels, mode, params):
            calls.append(mode)
            spec = original(features, labels, mode, params)
            if mode == estimator_lib.ModeKeys.EVAL:
                return spec._replace(loss=2.0 * spec.loss)
            return spec

        plain = estimator.evaluate(_input_fn, steps=1)["loss"]
        estimator._model_fn = doubled_loss
        self.assertAllClose(estimator.evaluate(_input_fn, steps=1)["loss"], 2.0 * plain)
        estimator.train(_input_fn, steps=1)
        next(estimator.predict(_input_fn))
        estimator.export_saved_model(os.path.join(self.get_temp_dir(), "export"),
                                     _serving_input_receiver_fn)
        self.assertEqual(calls, ["eval", "train", "infer", "infer"])

    def test_params_replaced_on_the_instance_reach_the_model_fn(self):
        estimator = self._estimator(params={"scale": 1.0})
        estimator.train(_input_fn, steps=1)
        before = next(estimator.predict(_input_fn))["y"]
        estimator._params = {"scale": 3.0}
        self.assertAllClose(next(estimator.predict(_input_fn))["y"], 3.0 * before)

    def test_config_replaced_on_the_instance_is_the_one_model_fn_receives(self):
        estimator = self._estimator()
        seen = []

        def model_fn(features, labels, mode, params, config):
            seen.append(config.tf_random_seed)
            return _model_fn(features, labels, mode, params)

        estimator._model_fn = model_fn
        estimator._config = estimator._config.replace(tf_random_seed=77)
        estimator.train(_input_fn, steps=1)
        self.assertEqual(seen, [77])

    def test_warm_start_settings_replaced_on_the_instance_apply(self):
        source = self._estimator()
        source.train(_input_fn, steps=3)
        trained = source.get_variable_value("w")
        estimator = estimator_lib.Estimator(
            _model_fn, model_dir=os.path.join(self.get_temp_dir(), "fresh"))
        estimator._warm_start_settings = estimator_lib.WarmStartSettings(
            source.model_dir, vars_to_warm_start="w")
        predicted = [p["y"][0] for p in estimator.predict(_input_fn)]
        self.assertAllClose(predicted, np.arange(8) / 8.0 * trained[0, 0])
        self.assertNotAllClose(trained, [[1.0]])  # not the initial value

    def test_session_config_replaced_on_the_instance_is_the_sessions(self):
        estimator = self._estimator()
        estimator.train(_input_fn, steps=1)
        replaced = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=1,
                                            inter_op_parallelism_threads=1)
        estimator._session_config = replaced
        with mock.patch.object(evaluation, "run_evaluation",
                               wraps=evaluation.run_evaluation) as run, \
                mock.patch.object(session_lib, "local_session",
                                  wraps=session_lib.local_session) as local:
            estimator.evaluate(_input_fn, steps=1)
            next(estimator.predict(_input_fn))
        self.assertIs(run.call_args.kwargs["session_config"], replaced)
        self.assertIs(local.call_args.kwargs["config"], replaced)


class HookPointsTest(tf.test.TestCase):

    def test_hook_points_are_the_documented_contract(self):
        with open(_DOCS) as f:
            text = f.read()
        bullet = text[text.index("**The Estimator's hook points are called through `self`"):]
        bullet = bullet[:bullet.index("the exporters'")]
        documented = set(re.findall(r"`(_[a-z_]+)`", bullet))
        self.assertEqual(documented, set(construction.HOOK_POINTS))
        for name in construction.HOOK_POINTS:
            self.assertTrue(callable(getattr(estimator_lib.Estimator, name)), name)

    def test_each_hook_point_is_called_through_the_instance(self):
        called = []

        def counting(name):
            def method(self, *args, **kwargs):
                called.append(name)
                return getattr(super(Counting, self), name)(*args, **kwargs)
            return method

        Counting = type("Counting", (estimator_lib.Estimator,),
                        {name: counting(name) for name in construction.HOOK_POINTS})
        estimator = Counting(_model_fn, model_dir=self.get_temp_dir())
        estimator.train(_input_fn, steps=1)
        estimator.evaluate(_input_fn, steps=1)
        list(estimator.predict(_input_fn))
        estimator.export_saved_model(os.path.join(self.get_temp_dir(), "export"),
                                     _serving_input_receiver_fn)
        self.assertNotIn("_get_iterator_from_input_fn", called)  # A strategy's alone.
        Counting(_model_fn, config=estimator_lib.RunConfig(
            model_dir=os.path.join(self.get_temp_dir(), "mirrored"),
            train_distribute=tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"]))).train(
                _input_fn, steps=1)
        self.assertEqual(set(called), set(construction.HOOK_POINTS))


class OneInputPathTest(tf.test.TestCase):

    def _entries_of_large_arrays_fed(self, run):
        with mock.patch.object(tf_patches, "large_arrays_fed",
                               wraps=tf_patches.large_arrays_fed) as fed, \
                mock.patch.object(inputs, "dataset_batches",
                                  wraps=inputs.dataset_batches) as batches:
            run()
        return fed.call_count, batches.call_count

    def test_every_branch_opens_large_arrays_fed_once_and_batches_in_one_place(self):
        def estimator(**config):
            return estimator_lib.Estimator(
                _model_fn, config=estimator_lib.RunConfig(
                    model_dir=os.path.join(self.get_temp_dir(), str(len(config))), **config))

        one_step = estimator()
        looped = estimator(steps_per_run=2)
        self.assertEqual(self._entries_of_large_arrays_fed(
            lambda: one_step.train(_input_fn, steps=1)), (1, 1))
        self.assertEqual(self._entries_of_large_arrays_fed(
            lambda: looped.train(_input_fn, steps=2)), (1, 1))
        self.assertEqual(self._entries_of_large_arrays_fed(
            lambda: one_step.evaluate(_input_fn, steps=1)), (1, 1))
        self.assertEqual(self._entries_of_large_arrays_fed(
            lambda: next(one_step.predict(_input_fn))), (1, 1))
        mirrored = estimator(train_distribute=tf.distribute.MirroredStrategy(
            ["/cpu:0", "/cpu:1"]))
        # The strategy's own iterator: large arrays fed once, no initializable iterator.
        self.assertEqual(self._entries_of_large_arrays_fed(
            lambda: mirrored.train(_input_fn, steps=1)), (1, 0))

    def test_only_the_input_path_opens_large_arrays_fed_or_makes_an_iterator(self):
        makers = {}
        for directory, _, files in os.walk(_LIBRARY):
            for name in files:
                if not name.endswith(".py"):
                    continue
                path = os.path.join(directory, name)
                relative = os.path.relpath(path, _LIBRARY).replace(os.sep, "/")
                with open(path) as f:
                    tree = ast.parse(f.read())
                for node in ast.walk(tree):
                    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                            node.func.attr in ("large_arrays_fed", "make_initializable_iterator"):
                        makers.setdefault(node.func.attr, []).append(relative)
        self.assertEqual(makers["large_arrays_fed"], ["graph/inputs.py"])
        # dataset_batches and `iterator` (the default of the Estimator's
        # `_get_iterator_from_input_fn`, without a strategy); the one-shot iterator's
        # fallback (patch 1) is the only other maker.
        self.assertEqual(sorted(makers["make_initializable_iterator"]),
                         ["graph/inputs.py", "graph/inputs.py", "tf_internals/patches.py"])


class HooksInOnePlaceTest(tf.test.TestCase):

    def test_no_training_module_but_hook_plan_builds_a_hook(self):
        builders = {}
        training = os.path.join(_LIBRARY, "training")
        for name in sorted(os.listdir(training)):
            if not name.endswith(".py"):
                continue
            with open(os.path.join(training, name)) as f:
                tree = ast.parse(f.read())
            defined = {node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call):
                    continue
                called = ast.unparse(node.func).split(".")[-1]
                if called.endswith("Hook") and called not in defined:
                    builders.setdefault(name, set()).add(called)
        self.assertEqual(sorted(builders), ["hook_plan.py"], builders)


def _module_path(package: str, name: str) -> str:
    """The file of module `package.name` if it is one (a .py file or a package)."""
    folder = os.path.join(os.path.dirname(_LIBRARY), *package.split("."), name)
    return folder + ".py" if os.path.exists(folder + ".py") else folder


class ImportCircleTest(tf.test.TestCase):

    def test_no_module_imports_a_module_that_imports_it_back(self):
        edges = {}
        for directory, _, files in os.walk(_LIBRARY):
            for name in files:
                if not name.endswith(".py"):
                    continue
                path = os.path.join(directory, name)
                relative = os.path.relpath(path, os.path.dirname(_LIBRARY))[:-3]
                module = relative.replace(os.sep, ".").removesuffix(".__init__")
                with open(path) as f:
                    tree = ast.parse(f.read())
                targets = edges.setdefault(module, set())
                for node in ast.walk(tree):
                    if isinstance(node, ast.ImportFrom) and node.module and \
                            node.module.startswith("estimator_lib"):
                        # `from package import submodule` imports the submodule.
                        targets.update(f"{node.module}.{alias.name}"
                                       if os.path.exists(_module_path(node.module, alias.name))
                                       else node.module for alias in node.names)
                    elif isinstance(node, ast.Import):
                        targets.update(alias.name for alias in node.names)
                    elif (isinstance(node, ast.Call) and ast.unparse(node.func).endswith(
                            "import_module") and node.args
                          and isinstance(node.args[0], ast.Constant)):
                        targets.add(node.args[0].value)
        pairs = sorted((a, b) for a in edges for b in edges[a]
                       if b in edges and a in edges[b] and a < b)
        self.maxDiff = None
        self.assertEqual(pairs, [])


if __name__ == "__main__":
    tf.test.main()
