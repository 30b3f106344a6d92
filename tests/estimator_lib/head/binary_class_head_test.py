"""BinaryClassHead against numbers from tensorflow-estimator 2.15 (see testing.py)."""

import numpy as np
import tensorflow as tf

import estimator_lib
from estimator_lib.head import BinaryClassHead
from estimator_lib.head import base_head
from tests.estimator_lib.head import testing
from tests.estimator_lib.head.testing import LABELS_01
from tests.estimator_lib.head.testing import LOGITS_1
from tests.estimator_lib.head.testing import ModeKeys
from tests.estimator_lib.head.testing import WEIGHTS

# tensorflow-estimator 2.15, BinaryClassHead(weight_column='w', thresholds=[0.3, 0.7]).
_WEIGHTED_EVAL = {
    "accuracy": 0.4615384638309479,
    "accuracy/positive_threshold_0.3": 0.4615384638309479,
    "accuracy/positive_threshold_0.7": 0.5384615659713745,
    "accuracy_baseline": 0.6153846383094788,
    "auc": 0.25,
    "auc_precision_recall": 0.613100528717041,
    "average_loss": 1.5978848934173584,
    "label/mean": 0.6153846383094788,
    "precision": 0.6666666865348816,
    "precision/positive_threshold_0.3": 0.6666666865348816,
    "precision/positive_threshold_0.7": 1.0,
    "prediction/mean": 0.2880288064479828,
    "recall": 0.25,
    "recall/positive_threshold_0.3": 0.25,
    "recall/positive_threshold_0.7": 0.25,
    "loss": 2.5965628623962402,
}


class BinaryClassHeadTest(tf.test.TestCase):

    def test_train_loss_is_mean_over_batch_and_summarised(self):
        _, out = testing.run_spec(BinaryClassHead(), ModeKeys.TRAIN, LOGITS_1, LABELS_01,
                                  train_op_fn=testing.loss_as_string)
        self.assertAllClose(1.1157134771347046, out["loss"])  # tensorflow-estimator 2.15
        self.assertEqual(b"1.116", out["train_op"])
        self.assertEqual(["loss"], list(out["summaries"]))

    def test_weighted_eval_metrics_match_original(self):
        head = BinaryClassHead(weight_column="w", thresholds=[0.3, 0.7])
        _, out = testing.run_spec(head, ModeKeys.EVAL, LOGITS_1, LABELS_01, WEIGHTS)
        expected = dict(_WEIGHTED_EVAL)
        self.assertAllClose(expected.pop("loss"), out["loss"])
        self.assertAllClose(expected, out["metrics"])

    def test_sum_reduction_and_name_suffix_keys(self):
        head = BinaryClassHead(weight_column="w", loss_reduction="sum", name="h")
        _, out = testing.run_spec(head, ModeKeys.TRAIN, LOGITS_1, LABELS_01, WEIGHTS,
                                  train_op_fn=testing.loss_as_string)
        self.assertAllClose(10.386251449584961, out["loss"])  # tensorflow-estimator 2.15
        self.assertEqual(["loss/h"], list(out["summaries"]))
        spec, _ = testing.run_spec(head, ModeKeys.EVAL, LOGITS_1, LABELS_01, WEIGHTS)
        self.assertIn("accuracy_baseline/h", spec.eval_metric_ops)
        self.assertIn("label/mean/h", spec.eval_metric_ops)

    def test_vocabulary_predictions_and_export_outputs(self):
        head = BinaryClassHead(label_vocabulary=["no", "yes"])
        spec, out = testing.run_spec(head, ModeKeys.PREDICT, LOGITS_1)
        preds = out["predictions"]
        self.assertAllEqual([[b"yes"], [b"no"], [b"yes"], [b"no"]], preds["classes"])
        self.assertAllEqual([[1], [0], [1], [0]], preds["class_ids"])
        self.assertAllEqual([[b"no", b"yes"]] * 4, preds["all_classes"])
        self.assertAllClose([[0.8807971], [0.2689414], [0.6224593], [0.0474259]],
                            preds["logistic"])
        self.assertCountEqual(
            ["serving_default", "classification", "regression", "predict"],
            spec.export_outputs)
        self.assertIsInstance(spec.export_outputs["regression"],
                              estimator_lib.export.RegressionOutput)
        self.assertIs(spec.export_outputs["serving_default"],
                      spec.export_outputs["classification"])

    def test_vocabulary_eval_matches_original(self):
        head = BinaryClassHead(label_vocabulary=["no", "yes"])
        labels = np.array([["yes"], ["no"], ["no"], ["no"]])
        _, out = testing.run_spec(head, ModeKeys.EVAL, LOGITS_1, labels)
        self.assertAllClose(0.36571353673934937, out["loss"])  # tensorflow-estimator 2.15
        self.assertAllClose(0.75, out["metrics"]["accuracy_baseline"])
        self.assertAllClose(0.5, out["metrics"]["precision"])

    def test_keras_optimizer_updates_trainable_variables(self):
        graph = tf.Graph()
        with graph.as_default():
            bias = tf.Variable([0.], name="bias")
            optimizer = tf.keras.optimizers.legacy.SGD(1.0)
            spec = BinaryClassHead().create_estimator_spec(
                features={}, mode=ModeKeys.TRAIN, logits=tf.constant(LOGITS_1) + bias,
                labels=tf.constant(LABELS_01), optimizer=optimizer,
                trainable_variables=[bias])
            with tf.compat.v1.Session() as sess:
                sess.run(tf.compat.v1.global_variables_initializer())
                sess.run(spec.train_op)
                self.assertNotAllClose([0.], sess.run(bias))
                self.assertEqual(1, sess.run(optimizer.iterations))

    def test_optimizer_and_train_op_fn_are_exclusive(self):
        with self.assertRaisesRegex(ValueError, "cannot both be set"):
            testing.run_spec(BinaryClassHead(), ModeKeys.TRAIN, LOGITS_1, LABELS_01,
                             optimizer=tf.keras.optimizers.legacy.SGD(),
                             trainable_variables=[], train_op_fn=testing.loss_as_string)
        with self.assertRaisesRegex(ValueError, "cannot both be None"):
            testing.run_spec(BinaryClassHead(), ModeKeys.TRAIN, LOGITS_1, LABELS_01)

    def test_v1_optimizer_is_rejected_with_advice(self):
        with self.assertRaisesRegex(ValueError, "not a tf.keras.optimizers.Optimizer"):
            testing.run_spec(BinaryClassHead(), ModeKeys.TRAIN, LOGITS_1, LABELS_01,
                             optimizer=tf.compat.v1.train.GradientDescentOptimizer(0.1),
                             trainable_variables=[])

    def test_keras_optimizer_without_get_updates_names_the_legacy_one(self):
        with self.assertRaisesRegex(ValueError, "tf.keras.optimizers.legacy"):
            testing.run_spec(BinaryClassHead(), ModeKeys.TRAIN, LOGITS_1, LABELS_01,
                             optimizer=tf.keras.optimizers.SGD(0.1), trainable_variables=[])

    def test_bad_arguments(self):
        with self.assertRaisesRegex(ValueError, r"thresholds not in \(0, 1\)"):
            BinaryClassHead(thresholds=[0.5, 1.0])
        with self.assertRaisesRegex(ValueError, "Invalid loss_reduction: none"):
            BinaryClassHead(loss_reduction="none")
        with self.assertRaisesRegex(ValueError, "label_vocabulary should be a list"):
            BinaryClassHead(label_vocabulary="no,yes")
        with self.assertRaisesRegex(ValueError, "loss_fn must contain argument: labels"):
            BinaryClassHead(loss_fn=lambda logits: logits)

    def test_bad_labels(self):
        with self.assertRaisesRegex(ValueError, "no label_vocabulary"):
            testing.run_spec(BinaryClassHead(), ModeKeys.EVAL, LOGITS_1,
                             np.array([["a"], ["b"], ["a"], ["b"]]))
        with self.assertRaisesRegex(ValueError, "Mismatched label shape"):
            testing.run_spec(BinaryClassHead(), ModeKeys.EVAL, LOGITS_1,
                             np.zeros((4, 2), np.float32))
        with self.assertRaisesRegex(ValueError, "You must provide a labels Tensor"):
            testing.run_spec(BinaryClassHead(), ModeKeys.EVAL, LOGITS_1, None)
        with self.assertRaisesOpError("Labels must be <= n_classes - 1"):
            testing.run_spec(BinaryClassHead(), ModeKeys.EVAL, LOGITS_1,
                             np.array([[2.], [0.], [0.], [1.]], np.float32))

    def test_helpers_are_reachable_from_base_head(self):
        self.assertEqual("serving_default", base_head.DEFAULT_SERVING_KEY)
        self.assertTrue(callable(base_head.check_dense_labels_match_logits_and_reshape))


if __name__ == "__main__":
    tf.test.main()
