"""Model dirs written by the original canned estimators resume here with the same values."""

import os

from absl.testing import parameterized
import numpy as np
import tensorflow as tf

from tests.estimator_lib.canned import fixtures


class OriginalModelDirTest(tf.test.TestCase, parameterized.TestCase):

    @parameterized.parameters(*fixtures.NAMES)
    def test_resumes_with_the_originals_values(self, name):
        rec = fixtures.record(name)
        model_dir = os.path.join(self.get_temp_dir(), name)
        est = fixtures.build(name, model_dir, copy_fixture=True)
        regression = fixtures.is_regression(name)
        self.assertEqual(sorted(rec["variable_names"]), sorted(est.get_variable_names()))

        ev = est.evaluate(fixtures.input_fn(regression, repeat=False))
        self.assertEqual(sorted(rec["evaluate"]), sorted(ev))
        for key, value in rec["evaluate"].items():
            self.assertAllClose(value, ev[key], rtol=1e-5, atol=1e-6, msg=key)

        pred = next(iter(est.predict(fixtures.input_fn(regression, repeat=False))))
        for key, value in rec["prediction"].items():
            self.assertAllClose(value, pred[key], rtol=1e-5, atol=1e-6, msg=key)

        # Trains further from the original's step, and the variable set stays the same.
        est.train(fixtures.input_fn(regression, repeat=True), steps=2)
        self.assertEqual(rec["steps"] + 2, est.get_variable_value("global_step"))
        self.assertEqual(sorted(rec["variable_names"]), sorted(est.get_variable_names()))
        after = est.evaluate(fixtures.input_fn(regression, repeat=False))
        self.assertTrue(np.isfinite(after["loss"]))

    @parameterized.parameters(*fixtures.NAMES)
    def test_fresh_model_has_the_originals_variable_names(self, name):
        est = fixtures.build(name, os.path.join(self.get_temp_dir(), "fresh_" + name),
                             copy_fixture=False)
        est.train(fixtures.input_fn(fixtures.is_regression(name), repeat=True), steps=1)
        self.assertEqual(sorted(fixtures.record(name)["variable_names"]),
                         sorted(est.get_variable_names()))


if __name__ == "__main__":
    tf.test.main()
