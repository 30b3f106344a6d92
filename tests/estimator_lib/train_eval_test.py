"""train_and_evaluate, exporters and early stopping (reference 1.9, 1.10, 1.13)."""

import os
import tempfile

import pytest
import tensorflow as tf

import estimator_lib as el
from estimator_lib.export import exporters
from tests.estimator_lib import testing

pytestmark = pytest.mark.timeout(300)


def _receiver_fn():
    return el.export.build_raw_serving_input_receiver_fn({"x": tf.zeros([1, 4])})()


class TrainAndEvaluateTest(tf.test.TestCase):

    def _estimator(self, **config):
        return el.Estimator(testing.linear_model_fn, config=el.RunConfig(
            model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()), **config))

    def test_reference_probe(self):
        estimator = self._estimator(save_checkpoints_steps=50)
        evaluated = []

        class Recorder(el.SessionRunHook):
            def end(self, session):
                evaluated.append(session.run(tf.compat.v1.train.get_global_step()))

        train_spec = el.TrainSpec(testing.train_input_fn(), max_steps=200)
        eval_spec = el.EvalSpec(
            testing.eval_input_fn(), steps=None, throttle_secs=0, hooks=[Recorder()],
            exporters=[el.LatestExporter("latest", _receiver_fn, exports_to_keep=2)])
        with self.assertLogs("tensorflow", level="INFO") as captured:
            metrics, exports = el.train_and_evaluate(estimator, train_spec, eval_spec)
        messages = [r.getMessage() for r in captured.records]
        self.assertIn("Running training and evaluation locally (non-distributed).", messages)
        self.assertEqual(evaluated, [50, 100, 150, 200])  # The step-0 checkpoint is skipped.
        self.assertEqual(metrics["global_step"], 200)
        self.assertEqual(sorted(metrics), ["accuracy", "global_step", "loss"])
        self.assertLen(exports, 1)
        self.assertStartsWith(exports[0].decode(),
                              os.path.join(estimator.model_dir, "export", "latest"))
        kept = os.listdir(os.path.join(estimator.model_dir, "export", "latest"))
        self.assertLen(kept, 2)

    def test_throttle_skips_evaluations_and_a_final_one_runs(self):
        estimator = self._estimator(save_checkpoints_steps=5)
        train_spec = el.TrainSpec(testing.train_input_fn(), max_steps=20)
        eval_spec = el.EvalSpec(testing.eval_input_fn(), steps=1, throttle_secs=3600,
                                exporters=el.FinalExporter("final", _receiver_fn))
        with self.assertLogs("tensorflow", level="INFO") as captured:
            metrics, exports = el.train_and_evaluate(estimator, train_spec, eval_spec)
        messages = [r.getMessage() for r in captured.records]
        self.assertIn("Skip the current checkpoint eval due to throttle secs (3600 secs).",
                      messages)
        self.assertEqual(metrics["global_step"], 20)
        self.assertIn("Performing the final export in the end of training.", messages)
        self.assertLen(exports, 1)

    def test_spec_validation(self):
        with self.assertRaisesRegex(ValueError, "Must specify max_steps > 0, given: 0"):
            el.TrainSpec(testing.train_input_fn(), max_steps=0)
        with self.assertRaisesRegex(TypeError, "input_fn"):
            el.EvalSpec("not callable")
        with self.assertRaisesRegex(ValueError, "must have unique names"):
            el.EvalSpec(testing.eval_input_fn(), exporters=[
                el.LatestExporter("a", _receiver_fn), el.FinalExporter("a", _receiver_fn)])
        with self.assertRaisesRegex(ValueError, "exports_to_keep"):
            el.LatestExporter("a", _receiver_fn, exports_to_keep=0)
        with self.assertRaisesRegex(TypeError, "`train_spec` must have type `tf.estimator.TrainSpec`"):
            el.train_and_evaluate(self._estimator(), None, el.EvalSpec(testing.eval_input_fn()))

    def test_best_exporter_exports_only_improvements(self):
        estimator = self._estimator(save_checkpoints_steps=10)
        best = el.BestExporter(serving_input_receiver_fn=_receiver_fn, exports_to_keep=5)
        el.train_and_evaluate(
            estimator, el.TrainSpec(testing.train_input_fn(), max_steps=30),
            el.EvalSpec(testing.eval_input_fn(), steps=None, throttle_secs=0,
                        exporters=[best]))
        exported = os.listdir(os.path.join(estimator.model_dir, "export", "best_exporter"))
        self.assertBetween(len(exported), 1, 3)
        with self.assertRaisesRegex(ValueError, "no loss is found"):
            exporters._loss_smaller({}, {"loss": 1.0})  # pylint: disable=protected-access


class EarlyStoppingTest(tf.test.TestCase):

    def test_read_eval_metrics(self):
        estimator = el.Estimator(testing.linear_model_fn,
                                 model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()))
        estimator.train(testing.train_input_fn(), steps=3)
        estimator.evaluate(testing.eval_input_fn())
        results = el.experimental.read_eval_metrics(estimator.eval_dir())
        self.assertEqual(list(results), [3])
        self.assertEqual(sorted(results[3]), ["accuracy", "loss"])

    def _early_stopped_run(self, strategy):
        config = el.RunConfig(model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()),
                              save_checkpoints_steps=5, train_distribute=strategy)
        estimator = el.Estimator(testing.linear_model_fn, config=config)
        # Default run_every_secs=60, which the original refused under any strategy
        # (tensorflow issue 51525); here a step cadence is also accepted.
        el.experimental.stop_if_no_decrease_hook(estimator, "loss", 100)
        hook = el.experimental.stop_if_lower_hook(estimator, "loss", 10.0,
                                                  run_every_secs=None, run_every_steps=5)
        evaluator = el.experimental.InMemoryEvaluatorHook(
            estimator, testing.eval_input_fn(), every_n_iter=5)
        estimator.train(testing.train_input_fn(), max_steps=1000, hooks=[evaluator, hook])
        return estimator

    def test_early_stopping_without_strategy(self):
        estimator = self._early_stopped_run(None)
        self.assertLess(estimator.get_variable_value("global_step"), 20)

    def test_early_stopping_under_mirrored_strategy(self):
        estimator = self._early_stopped_run(
            tf.distribute.MirroredStrategy(["CPU:0", "CPU:1"]))
        self.assertLess(estimator.get_variable_value("global_step"), 20)
        self.assertNotEmpty(el.experimental.read_eval_metrics(estimator.eval_dir()))

    def test_stop_at_checkpoint_step_hook_on_the_chief(self):
        estimator = el.Estimator(testing.linear_model_fn,
                                 model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()))
        hook = el.experimental.make_stop_at_checkpoint_step_hook(estimator, 7)
        estimator.train(testing.train_input_fn(), hooks=[hook])
        self.assertEqual(estimator.get_variable_value("global_step"), 7)

    def test_both_cadences_are_refused(self):
        estimator = el.Estimator(testing.linear_model_fn, model_dir=self.get_temp_dir())
        with self.assertRaisesRegex(ValueError, "Only one of `run_every_secs` and "
                                                "`run_every_steps`"):
            el.experimental.make_early_stopping_hook(estimator, lambda: False, 60, 5)

    def test_a_non_estimator_is_refused_first_as_the_original(self):
        # The original checked the estimator's type before the cadences.
        with self.assertRaisesRegex(TypeError, "`estimator` must have type"):
            el.experimental.make_early_stopping_hook(None, lambda: False, 60, 5)


if __name__ == "__main__":
    tf.test.main()
