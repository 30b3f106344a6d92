"""Warm start from a checkpoint, a model_dir, or a SavedModel (reference 1.17)."""

import os
import tempfile

import numpy as np
import tensorflow as tf

import estimator_lib as el
from tests.estimator_lib import testing


class WarmStartTest(tf.test.TestCase):

    def _trained(self, steps=3):
        estimator = el.Estimator(testing.linear_model_fn,
                                 model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()))
        estimator.train(testing.train_input_fn(), steps=steps)
        return estimator

    def test_from_model_dir_when_no_checkpoint(self):
        source = self._trained()
        target = el.Estimator(testing.linear_model_fn,
                              model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()),
                              warm_start_from=source.model_dir)
        target.train(testing.train_input_fn(), steps=1)
        # Warm-started weights moved one Adagrad step from the source's, not from scratch.
        self.assertAllClose(target.get_variable_value("dense/kernel"),
                            source.get_variable_value("dense/kernel"), atol=0.2)
        self.assertEqual(target.get_variable_value("global_step"), 1)

    def test_settings_select_variables(self):
        source = self._trained()
        settings = el.WarmStartSettings(source.model_dir, vars_to_warm_start="dense/bias")
        target = el.Estimator(testing.linear_model_fn,
                              model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()),
                              warm_start_from=settings)
        results = target.evaluate(testing.eval_input_fn(), steps=1)
        self.assertEqual(results["global_step"], 0)

    def test_list_entries_that_match_nothing_are_named(self):
        source = self._trained()
        settings = el.WarmStartSettings(
            source.model_dir, vars_to_warm_start=["dense/kernel", "dense/no_such_weight"])
        target = el.Estimator(testing.linear_model_fn,
                              model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()),
                              warm_start_from=settings)
        with self.assertLogs(level="WARNING") as logs:
            target.evaluate(testing.eval_input_fn(), steps=1)
        warnings = [line for line in logs.output if "vars_to_warm_start" in line]
        self.assertLen(warnings, 1)
        self.assertIn("1 of the 2 entries", warnings[0])
        self.assertIn("dense/no_such_weight", warnings[0])

    def test_evaluate_and_predict_use_the_warm_start_without_a_checkpoint(self):
        source = self._trained(steps=20)
        target = el.Estimator(testing.linear_model_fn,
                              model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()),
                              warm_start_from=source.model_dir)
        self.assertAllClose(target.evaluate(testing.eval_input_fn())["accuracy"],
                            source.evaluate(testing.eval_input_fn())["accuracy"])
        ours = [p["probabilities"] for p in target.predict(testing.eval_input_fn(n=4))]
        theirs = [p["probabilities"] for p in source.predict(testing.eval_input_fn(n=4))]
        self.assertAllClose(ours, theirs)

    def test_from_saved_model(self):
        source = self._trained()
        export_dir = source.export_saved_model(
            os.path.join(self.get_temp_dir(), "export"),
            el.export.build_raw_serving_input_receiver_fn({"x": tf.zeros([1, 4])}))
        with self.assertLogs("tensorflow", level="INFO") as captured:
            target = el.Estimator(testing.linear_model_fn,
                                  model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()),
                                  warm_start_from=export_dir)
        self.assertIn("Warm-starting from a SavedModel",
                      [r.getMessage() for r in captured.records])
        kernel = [p for p in target.predict(testing.eval_input_fn(n=2))]
        expected = [p for p in source.predict(testing.eval_input_fn(n=2))]
        self.assertAllClose(kernel[0]["probabilities"], expected[0]["probabilities"])

    def test_not_applied_when_model_dir_has_a_checkpoint(self):
        source = self._trained()
        target = self._trained(steps=2)
        before = target.get_variable_value("dense/kernel")
        resumed = el.Estimator(testing.linear_model_fn, model_dir=target.model_dir,
                               warm_start_from=source.model_dir)
        self.assertAllClose(
            [p["probabilities"] for p in resumed.predict(testing.eval_input_fn(n=2))],
            [p["probabilities"] for p in target.predict(testing.eval_input_fn(n=2))])
        self.assertAllEqual(before, resumed.get_variable_value("dense/kernel"))
        self.assertFalse(np.allclose(before, source.get_variable_value("dense/kernel")))

    def test_bad_warm_start_argument(self):
        with self.assertRaisesRegex(ValueError, "`warm_start_from` must be a string path or a "
                                                "WarmStartSettings. Received: int"):
            el.Estimator(testing.linear_model_fn, warm_start_from=3)


if __name__ == "__main__":
    tf.test.main()
