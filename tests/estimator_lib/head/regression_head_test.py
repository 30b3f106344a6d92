"""Regression heads against numbers from tensorflow-estimator 2.15 (see testing.py)."""

import numpy as np
import tensorflow as tf

from estimator_lib.head import LogisticRegressionHead
from estimator_lib.head import PoissonRegressionHead
from estimator_lib.head import RegressionHead
from tests.estimator_lib.head import testing
from tests.estimator_lib.head.testing import LOGITS_1
from tests.estimator_lib.head.testing import LOGITS_2
from tests.estimator_lib.head.testing import ModeKeys
from tests.estimator_lib.head.testing import TARGETS_2
from tests.estimator_lib.head.testing import WEIGHTS


class RegressionHeadTest(tf.test.TestCase):

    def test_train_loss_and_summary(self):
        _, out = testing.run_spec(RegressionHead(label_dimension=2), ModeKeys.TRAIN,
                                  LOGITS_2, TARGETS_2, train_op_fn=testing.loss_as_string)
        self.assertAllClose(0.625, out["loss"])  # tensorflow-estimator 2.15
        self.assertEqual(["loss"], list(out["summaries"]))

    def test_weighted_eval_matches_original(self):
        head = RegressionHead(label_dimension=2, weight_column="w", name="r")
        _, out = testing.run_spec(head, ModeKeys.EVAL, LOGITS_2, TARGETS_2, WEIGHTS)
        # tensorflow-estimator 2.15:
        self.assertAllClose(1.1875, out["loss"])
        self.assertAllClose({"average_loss/r": 0.7307692170143127,
                             "label/mean/r": 0.5769230723381042,
                             "prediction/mean/r": 0.3076923191547394}, out["metrics"])

    def test_predict_exports_regression(self):
        spec, out = testing.run_spec(RegressionHead(label_dimension=2), ModeKeys.PREDICT,
                                     LOGITS_2)
        self.assertEqual(["predictions"], list(out["predictions"]))
        self.assertCountEqual(["serving_default", "regression", "predict"], spec.export_outputs)

    def test_poisson_predictions_and_metrics(self):
        targets = np.abs(TARGETS_2)
        _, out = testing.run_spec(PoissonRegressionHead(label_dimension=2), ModeKeys.EVAL,
                                  LOGITS_2, targets)
        self.assertAllClose(np.exp(LOGITS_2), out["predictions"]["predictions"])
        self.assertAllClose(LOGITS_2, out["predictions"]["logits"])
        # prediction/mean from tensorflow-estimator 2.15 on the same logits:
        self.assertAllClose(4.720596790313721, out["metrics"]["prediction/mean"])
        expected = tf.nn.log_poisson_loss(targets, LOGITS_2, compute_full_loss=True)
        self.assertAllClose(np.mean(expected), out["loss"])

    def test_logistic_regression_matches_original(self):
        labels = np.array([[1.], [0.], [0.3], [0.9]], np.float32)
        _, out = testing.run_spec(LogisticRegressionHead(), ModeKeys.EVAL, LOGITS_1, labels)
        # tensorflow-estimator 2.15:
        self.assertAllClose(1.0032134056091309, out["loss"])
        self.assertAllClose({"average_loss": 1.0032134056091309,
                             "label/mean": 0.5499999523162842,
                             "prediction/mean": 0.4549059569835663}, out["metrics"])
        with self.assertRaisesOpError(r"Labels must be in range \[0, 1\]"):
            testing.run_spec(LogisticRegressionHead(), ModeKeys.EVAL, LOGITS_1, labels * 2)

    def test_custom_loss_fn_shape_is_checked(self):
        head = RegressionHead(loss_fn=lambda labels, logits: tf.reduce_sum(labels - logits))
        with self.assertRaisesOpError("loss_fn must return Tensor of shape"):
            testing.run_spec(head, ModeKeys.EVAL, LOGITS_1, LOGITS_1)
        head = RegressionHead(loss_fn=lambda labels, logits: (labels - logits)[:2])
        with self.assertRaisesOpError("loss_fn must return Tensor of shape"):
            testing.run_spec(head, ModeKeys.EVAL, LOGITS_1, LOGITS_1)

    def test_bad_arguments_and_labels(self):
        with self.assertRaisesRegex(ValueError, "Invalid label_dimension 0"):
            RegressionHead(label_dimension=0)
        with self.assertRaisesRegex(ValueError, "loss_fn has unexpected args"):
            RegressionHead(loss_fn=lambda labels, logits, extra: labels)
        with self.assertRaisesRegex(ValueError, "Mismatched label shape"):
            testing.run_spec(RegressionHead(label_dimension=2), ModeKeys.EVAL, LOGITS_2,
                             np.zeros((4, 3), np.float32))
        with self.assertRaisesRegex(ValueError, "must be numeric"):
            testing.run_spec(RegressionHead(), ModeKeys.EVAL, LOGITS_1,
                             np.array([["1"], ["2"], ["3"], ["4"]]))


if __name__ == "__main__":
    tf.test.main()
