"""Estimator behaviour, pinned to the reference run of the original (reference section 7)."""

import os
import tempfile

import numpy as np
import tensorflow as tf

import estimator_lib as el
from tests.estimator_lib import testing


def _messages(captured):
    return [record.getMessage() for record in captured.records]


class ReferenceRunTest(tf.test.TestCase):
    """The reference probe: log lines, evaluate keys, model_dir files, predict keys."""

    def setUp(self):
        super().setUp()
        self.model_dir = self.get_temp_dir()
        config = el.RunConfig(model_dir=self.model_dir, log_step_count_steps=50,
                              save_checkpoints_steps=100, save_summary_steps=50)
        self.estimator = el.Estimator(testing.linear_model_fn, config=config)

    def test_reference_run(self):
        with self.assertLogs("tensorflow", level="INFO") as captured:
            self.estimator.train(testing.train_input_fn(), steps=200)
        messages = _messages(captured)
        model_dir = self.model_dir
        for expected in ("Calling model_fn.", "Done calling model_fn.",
                         "Create CheckpointSaverHook.", "Graph was finalized.",
                         f"Saving checkpoints for 0 into {model_dir}/model.ckpt.",
                         f"Saving checkpoints for 100 into {model_dir}/model.ckpt.",
                         f"Saving checkpoints for 200 into {model_dir}/model.ckpt."):
            self.assertIn(expected, messages)
        self.assertTrue(any(m.startswith("loss = ") and m.endswith("step = 0")
                            for m in messages))
        self.assertTrue(any(m.startswith("loss = ") and ", step = 50 (" in m for m in messages))
        self.assertTrue(any(m.startswith("global_step/sec: ") for m in messages))
        self.assertTrue(messages[-1].startswith("Loss for final step: "))

        with self.assertLogs("tensorflow", level="INFO") as captured:
            self.estimator.train(testing.train_input_fn(), max_steps=150)
        self.assertEqual(_messages(captured),
                         ["Skipping training since max_steps has already saved."])

        with self.assertLogs("tensorflow", level="INFO") as captured:
            results = self.estimator.evaluate(testing.eval_input_fn())
        self.assertEqual(sorted(results), ["accuracy", "global_step", "loss"])
        self.assertEqual(results["accuracy"].dtype, np.float32)
        self.assertEqual(results["loss"].dtype, np.float32)
        self.assertEqual(results["global_step"].dtype, np.int64)
        self.assertEqual(results["global_step"], 200)
        self.assertGreater(results["accuracy"], 0.8)
        self.assertIn(
            f"Saving dict for global step 200: accuracy = {str(results['accuracy'])}, "
            f"global_step = 200, loss = {str(results['loss'])}", _messages(captured))

        predictions = list(self.estimator.predict(testing.eval_input_fn(n=5)))
        self.assertLen(predictions, 5)
        self.assertEqual(sorted(predictions[0]), ["classes", "probabilities"])
        batches = list(self.estimator.predict(testing.eval_input_fn(n=2), predict_keys=["classes"],
                                              yield_single_examples=False))
        self.assertEqual({k: v.shape for k, v in batches[0].items()}, {"classes": (2,)})

        self.assertEqual(self.estimator.get_variable_names(), [
            "dense/bias", "dense/bias/Adagrad", "dense/kernel", "dense/kernel/Adagrad",
            "global_step"])
        self.assertEqual(self.estimator.get_variable_value("global_step"), 200)

        files = sorted(tf.io.gfile.listdir(model_dir))
        expected = ["checkpoint", "eval", "graph.pbtxt"] + [
            f"model.ckpt-{step}.{suffix}" for step in (0, 100, 200)
            for suffix in ("data-00000-of-00001", "index", "meta")]
        self.assertEqual([f for f in files if not f.startswith("events.out.tfevents")],
                         expected)
        self.assertEqual(testing.event_tags(model_dir), {"global_step/sec", "loss"})
        self.assertEqual(testing.event_tags(os.path.join(model_dir, "eval")),
                         {"accuracy", "checkpoint_path", "loss"})

        export_dir = self.estimator.export_saved_model(
            os.path.join(model_dir, "export"),
            el.export.build_raw_serving_input_receiver_fn({"x": tf.zeros([1, 4])}))
        self.assertIsInstance(export_dir, bytes)
        self.assertRegex(export_dir.decode(), r"/export/\d{10}$")
        loaded = tf.saved_model.load(export_dir.decode())
        x, _ = testing.separable_data(3)
        served = loaded.signatures["serving_default"](x=tf.constant(x))
        self.assertAllClose(served["probabilities"],
                            [p["probabilities"] for p in predictions[:3]], atol=1e-5)


class TrainTest(tf.test.TestCase):

    def _estimator(self, **config):
        config.setdefault("save_checkpoints_steps", 1000)
        return el.Estimator(testing.linear_model_fn,
                            config=el.RunConfig(model_dir=self.get_temp_dir(), **config))

    def test_steps_are_relative_and_max_steps_absolute(self):
        estimator = self._estimator()
        estimator.train(testing.train_input_fn(), steps=3)
        estimator.train(testing.train_input_fn(), steps=3)
        self.assertEqual(estimator.get_variable_value("global_step"), 6)
        estimator.train(testing.train_input_fn(), max_steps=8)
        self.assertEqual(estimator.get_variable_value("global_step"), 8)

    def test_trains_until_input_is_exhausted(self):
        estimator = self._estimator()
        estimator.train(testing.eval_input_fn(batch_size=16, n=40))  # 3 batches
        self.assertEqual(estimator.get_variable_value("global_step"), 3)

    def test_empty_input_warns_that_no_steps_were_made(self):
        estimator = self._estimator()

        def empty_input_fn():
            return testing.eval_input_fn()().take(0)

        with self.assertLogs("tensorflow", level="WARNING") as captured:
            estimator.train(empty_input_fn)
        self.assertIn("Training with estimator made no steps. Perhaps input is empty or "
                      "misspecified.", _messages(captured))

    def test_step_arguments_are_validated(self):
        estimator = self._estimator()
        with self.assertRaisesRegex(ValueError, "Can not provide both steps and max_steps"):
            estimator.train(testing.train_input_fn(), steps=1, max_steps=1)
        with self.assertRaisesRegex(ValueError, r"Must specify steps > 0, given: 0"):
            estimator.train(testing.train_input_fn(), steps=0)
        with self.assertRaisesRegex(ValueError, r"Must specify max_steps > 0, given: -1"):
            estimator.train(testing.train_input_fn(), max_steps=-1)
        with self.assertRaisesRegex(TypeError, "SessionRunHook"):
            estimator.train(testing.train_input_fn(), steps=1, hooks=["not a hook"])

    def test_checkpoint_at_start_and_end_with_default_cadence(self):
        estimator = el.Estimator(testing.linear_model_fn, model_dir=self.get_temp_dir())
        estimator.train(testing.train_input_fn(), steps=5)
        names = tf.io.gfile.listdir(estimator.model_dir)
        self.assertIn("model.ckpt-0.index", names)
        self.assertIn("model.ckpt-5.index", names)

    def test_saving_listeners_are_called(self):
        calls = []

        class Listener(el.CheckpointSaverListener):
            def after_save(self, session, global_step_value):
                calls.append(global_step_value)

        estimator = self._estimator(save_checkpoints_steps=2)
        estimator.train(testing.train_input_fn(), steps=4, saving_listeners=[Listener()])
        self.assertEqual(calls, [0, 2, 4])

    def test_a_callers_saver_hook_gets_each_listener_once_over_train_calls(self):
        # adanet passes the same saver hook and listeners to one train() per iteration.
        estimator = self._estimator(save_checkpoints_steps=2)
        saver_hook = tf.compat.v1.train.CheckpointSaverHook(estimator.model_dir,
                                                            save_steps=10)
        listener = el.CheckpointSaverListener()
        for _ in range(3):
            estimator.train(testing.train_input_fn(), steps=1, hooks=[saver_hook],
                            saving_listeners=[listener])
        self.assertEqual(saver_hook._listeners, [listener])  # pylint: disable=protected-access

    def test_saving_listeners_need_a_checkpoint_saver(self):
        estimator = el.Estimator(
            testing.linear_model_fn,
            config=el.RunConfig(model_dir=self.get_temp_dir(), save_checkpoints_steps=None,
                                save_checkpoints_secs=None))
        with self.assertRaisesRegex(ValueError, "There should be a CheckpointSaverHook"):
            estimator.train(testing.train_input_fn(), steps=1,
                            saving_listeners=[el.CheckpointSaverListener()])

    def test_hooks_see_every_step_and_may_fetch_by_name(self):
        seen = []

        def model_fn(features, labels, mode):
            spec = testing.linear_model_fn(features, labels, mode)
            tf.identity(spec.loss, name="cross_entropy")
            return spec

        class Hook(el.SessionRunHook):
            def before_run(self, run_context):
                return el.SessionRunArgs(
                    [tf.compat.v1.train.get_global_step(), "cross_entropy:0"])

            def after_run(self, run_context, run_values):
                step, loss = run_values.results
                seen.append((int(step), float(loss)))

        el.Estimator(model_fn, model_dir=self.get_temp_dir()).train(
            testing.train_input_fn(), steps=4, hooks=[Hook()])
        # The global step variable is fetched in the same run as the train_op that
        # increments it, with no order between them (as in the original): each run
        # sees its step before or after the increment, never another.
        self.assertLen(seen, 4)
        for run, (step, _) in enumerate(seen):
            self.assertIn(step, (run, run + 1))
        self.assertTrue(all(loss > 0 for _, loss in seen))

        logged = []
        with self.assertLogs("tensorflow", level="INFO") as captured:
            el.Estimator(model_fn, model_dir=self.get_temp_dir()).train(
                testing.train_input_fn(), steps=2,
                hooks=[el.LoggingTensorHook(["cross_entropy"], every_n_iter=1)])
        logged = [m for m in _messages(captured) if m.startswith("cross_entropy = ")]
        self.assertLen(logged, 2)

    def test_nan_loss_raises(self):
        def nan_model_fn(features, labels, mode):
            loss = tf.reduce_mean(features["x"]) * np.nan + tf.cast(tf.reduce_sum(labels), tf.float32)
            step = tf.compat.v1.train.get_global_step()
            return el.EstimatorSpec(mode, loss=loss, train_op=step.assign_add(1))

        estimator = el.Estimator(nan_model_fn, model_dir=self.get_temp_dir())
        with self.assertRaises(el.NanLossDuringTrainingError):
            estimator.train(testing.train_input_fn(), steps=2)

    def test_seeded_runs_repeat(self):
        values = []
        for _ in range(2):
            estimator = el.Estimator(
                testing.linear_model_fn,
                config=el.RunConfig(model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()), tf_random_seed=7))
            estimator.train(testing.train_input_fn(), steps=2)
            values.append(estimator.get_variable_value("dense/kernel"))
        self.assertAllEqual(values[0], values[1])


class GlobalStepReadOrderTest(tf.test.TestCase):
    """Deliberate difference 22: the model_fn is built under a control dependency on
    the global-step read the hooks use, so every run reads the step before the
    train_op increments it. The original 2.15 left the order to the executor: the
    hooks' `step = N` could read N + 1 (seen once in CI as `step = 51` for 50)."""

    def test_model_fn_ops_wait_for_the_global_step_read(self):
        built = {}

        def model_fn(features, labels, mode):
            built["probe"] = tf.identity(features["x"], name="probe")
            built["read"] = tf.compat.v1.get_collection("global_step_read_op_cache")
            return testing.linear_model_fn(features, labels, mode)

        estimator = el.Estimator(model_fn, model_dir=tempfile.mkdtemp())
        estimator.train(testing.train_input_fn(), steps=1)
        self.assertLen(built["read"], 1)
        self.assertEqual(built["probe"].op.control_inputs, [built["read"][0].op])


class EvaluateAndPredictTest(tf.test.TestCase):

    def test_evaluate_without_checkpoint_initializes(self):
        estimator = el.Estimator(testing.linear_model_fn, model_dir=self.get_temp_dir())
        with self.assertLogs("tensorflow", level="INFO") as captured:
            results = estimator.evaluate(testing.eval_input_fn(), steps=2)
        self.assertEqual(results["global_step"], 0)
        self.assertIn(f"Could not find trained model in model_dir: {estimator.model_dir}, "
                      "running initialization to evaluate.", _messages(captured))
        self.assertIn("Evaluation [2/2]", _messages(captured))

    def test_named_evaluation_writes_to_its_own_dir(self):
        estimator = el.Estimator(testing.linear_model_fn, model_dir=self.get_temp_dir())
        estimator.train(testing.train_input_fn(), steps=2)
        estimator.evaluate(testing.eval_input_fn(), name="holdout")
        self.assertEqual(estimator.eval_dir("holdout"),
                         os.path.join(estimator.model_dir, "eval_holdout"))
        self.assertIn("accuracy", testing.event_tags(estimator.eval_dir("holdout")))

    def test_reserved_metric_names_are_refused(self):
        def model_fn(features, labels, mode):
            spec = testing.linear_model_fn(features, labels, mode)
            return spec._replace(eval_metric_ops={"loss": tf.compat.v1.metrics.mean(spec.loss)})

        estimator = el.Estimator(model_fn, model_dir=self.get_temp_dir())
        with self.assertRaisesRegex(ValueError, 'Metric with name "loss" is not allowed'):
            estimator.evaluate(testing.eval_input_fn())

    def test_predict_keys_must_match(self):
        estimator = el.Estimator(testing.linear_model_fn, model_dir=self.get_temp_dir())
        with self.assertRaisesRegex(ValueError, "Expected to run at least one output"):
            next(estimator.predict(testing.eval_input_fn(), predict_keys=["nope"]))

    def test_predict_yields_rows_of_a_tensor_prediction(self):
        def model_fn(features, mode):
            return el.EstimatorSpec(mode, predictions=features["x"] * 2.0)

        estimator = el.Estimator(model_fn, model_dir=self.get_temp_dir())
        rows = list(estimator.predict(testing.eval_input_fn(n=3)))
        x, _ = testing.separable_data(3)
        self.assertAllClose(rows, x * 2.0)

    def test_export_without_checkpoint_is_an_error(self):
        estimator = el.Estimator(testing.linear_model_fn, model_dir=self.get_temp_dir())
        receiver_fn = el.export.build_raw_serving_input_receiver_fn({"x": tf.zeros([1, 4])})
        with self.assertRaisesRegex(ValueError, "Couldn't find trained model at"):
            estimator.export_saved_model(self.get_temp_dir(), receiver_fn)


if __name__ == "__main__":
    tf.test.main()
