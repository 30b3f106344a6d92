"""MultiLabelHead against numbers from tensorflow-estimator 2.15 (see testing.py)."""

import numpy as np
import tensorflow as tf

from estimator_lib.head import MultiLabelHead
from tests.estimator_lib.head import testing
from tests.estimator_lib.head.testing import LOGITS_3
from tests.estimator_lib.head.testing import ModeKeys
from tests.estimator_lib.head.testing import WEIGHTS

_MULTI_HOT = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 1], [0, 0, 1]], np.int64)

# tensorflow-estimator 2.15, MultiLabelHead(3, weight_column='w', thresholds=[0.4],
# classes_for_class_based_metrics=[0, 2]).
_EVAL = {
    "accuracy/positive_threshold_0.4": 0.5384615659713745,
    "auc": 0.8903743028640747,
    "auc/class0": 1.0,
    "auc/class2": 0.7222222089767456,
    "auc_precision_recall": 0.9112930297851562,
    "auc_precision_recall/class0": 1.0,
    "auc_precision_recall/class2": 0.9015194177627563,
    "average_loss": 0.5032670497894287,
    "precision/positive_threshold_0.4": 0.4838709533214569,
    "probability_mean/class0": 0.4006054103374481,
    "probability_mean/class2": 0.7810014486312866,
    "recall/positive_threshold_0.4": 0.8823529481887817,
}


class MultiLabelHeadTest(tf.test.TestCase):

    def test_eval_matches_original(self):
        head = MultiLabelHead(3, weight_column="w", thresholds=[0.4],
                              classes_for_class_based_metrics=[0, 2])
        _, out = testing.run_spec(head, ModeKeys.EVAL, LOGITS_3, _MULTI_HOT, WEIGHTS)
        self.assertAllClose(0.817808985710144, out["loss"])  # tensorflow-estimator 2.15
        self.assertAllClose(_EVAL, out["metrics"])

    def test_sparse_labels_equal_multi_hot(self):
        sparse = tf.compat.v1.SparseTensorValue(
            indices=[[0, 0], [0, 1], [1, 0], [2, 0], [2, 1], [2, 2], [3, 0]],
            values=np.array([0, 2, 1, 0, 1, 2, 2], np.int64), dense_shape=[4, 3])
        _, dense = testing.run_spec(MultiLabelHead(3), ModeKeys.EVAL, LOGITS_3, _MULTI_HOT)
        _, from_sparse = testing.run_spec(MultiLabelHead(3), ModeKeys.EVAL, LOGITS_3, sparse)
        self.assertAllClose(dense["loss"], from_sparse["loss"])

    def test_vocabulary_names_class_metrics(self):
        head = MultiLabelHead(3, label_vocabulary=["a", "b", "c"],
                              classes_for_class_based_metrics=["c"])
        spec, _ = testing.run_spec(head, ModeKeys.EVAL, LOGITS_3, _MULTI_HOT)
        self.assertIn("auc/c", spec.eval_metric_ops)
        self.assertIn("probability_mean/c", spec.eval_metric_ops)

    def test_predictions_and_export_outputs(self):
        spec, out = testing.run_spec(MultiLabelHead(3), ModeKeys.PREDICT, LOGITS_3)
        self.assertAllEqual([[b"0", b"1", b"2"]] * 4, out["predictions"]["classes"])
        self.assertAllClose(tf.sigmoid(LOGITS_3), out["predictions"]["probabilities"])
        self.assertCountEqual(["serving_default", "classification", "predict"],
                              spec.export_outputs)

    def test_bad_arguments_and_labels(self):
        with self.assertRaisesRegex(ValueError, "n_classes must be > 1"):
            MultiLabelHead(1)
        with self.assertRaisesRegex(ValueError, r"thresholds must be in \(0, 1\)"):
            MultiLabelHead(3, thresholds=[0.])
        with self.assertRaisesRegex(ValueError, r"must be in range \[0, 2\]"):
            MultiLabelHead(3, classes_for_class_based_metrics=[3])
        with self.assertRaisesOpError("labels must be an integer indicator Tensor"):
            testing.run_spec(MultiLabelHead(3), ModeKeys.EVAL, LOGITS_3, _MULTI_HOT * 2)


if __name__ == "__main__":
    tf.test.main()
