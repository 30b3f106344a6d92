"""v1 canned heads against numbers from tensorflow-estimator 2.15 (canned/head.py)."""

import numpy as np
import tensorflow as tf

from estimator_lib.head import make_v1_head
from estimator_lib.head import make_v1_regression_head
from tests.estimator_lib.head import testing
from tests.estimator_lib.head.testing import CLASS_IDS
from tests.estimator_lib.head.testing import LABELS_01
from tests.estimator_lib.head.testing import LOGITS_1
from tests.estimator_lib.head.testing import LOGITS_2
from tests.estimator_lib.head.testing import LOGITS_3
from tests.estimator_lib.head.testing import ModeKeys
from tests.estimator_lib.head.testing import TARGETS_2
from tests.estimator_lib.head.testing import WEIGHTS

# tensorflow-estimator 2.15: _binary_logistic_head_with_sigmoid_cross_entropy_loss(
#     weight_column='w', thresholds=[0.3], name='b').
_BINARY_EVAL = {
    "accuracy/b": 0.4615384638309479,
    "accuracy/positive_threshold_0.3/b": 0.4615384638309479,
    "accuracy_baseline/b": 0.6153846383094788,
    "auc/b": 0.25000008940696716,
    "auc_precision_recall/b": 0.5879120230674744,
    "average_loss/b": 1.5978848934173584,
    "label/mean/b": 0.6153846383094788,
    "precision/b": 0.6666666865348816,
    "precision/positive_threshold_0.3/b": 0.6666666269302368,
    "prediction/mean/b": 0.2880288064479828,
    "recall/b": 0.25,
    "recall/positive_threshold_0.3/b": 0.25,
}


class V1HeadsTest(tf.test.TestCase):

    def test_binary_sum_loss_train_summaries(self):
        head = make_v1_head(2, weight_column="w", thresholds=[0.3], name="b")
        _, out = testing.run_spec(head, ModeKeys.TRAIN, LOGITS_1, LABELS_01, WEIGHTS,
                                  train_op_fn=testing.loss_as_string)
        # tensorflow-estimator 2.15:
        self.assertAllClose(10.386251449584961, out["loss"])
        self.assertAllClose({"loss/b": 10.386251449584961,
                             "average_loss/b": 1.5978848934173584}, out["summaries"])

    def test_binary_eval_matches_original(self):
        head = make_v1_head(2, weight_column="w", thresholds=[0.3], name="b")
        _, out = testing.run_spec(head, ModeKeys.EVAL, LOGITS_1, LABELS_01, WEIGHTS)
        self.assertAllClose(_BINARY_EVAL, out["metrics"])

    def test_weighted_mean_reduction_has_no_average_loss_summary(self):
        head = make_v1_head(2, weight_column="w", loss_reduction="weighted_mean")
        _, out = testing.run_spec(head, ModeKeys.TRAIN, LOGITS_1, LABELS_01, WEIGHTS,
                                  train_op_fn=testing.loss_as_string)
        self.assertAllClose({"loss": 1.5978848934173584}, out["summaries"])

    def test_multi_class_train_and_eval(self):
        head = make_v1_head(3, weight_column="w")
        _, out = testing.run_spec(head, ModeKeys.TRAIN, LOGITS_3, CLASS_IDS, WEIGHTS,
                                  train_op_fn=testing.loss_as_string)
        # tensorflow-estimator 2.15:
        self.assertAllClose({"loss": 16.26087188720703, "average_loss": 2.5016727447509766},
                            out["summaries"])
        _, out = testing.run_spec(head, ModeKeys.EVAL, LOGITS_3, CLASS_IDS, WEIGHTS)
        self.assertAllClose({"accuracy": 0.4615384638309479,
                             "average_loss": 2.5016725063323975}, out["metrics"])

    def test_multi_class_vocabulary_predictions(self):
        head = make_v1_head(3, label_vocabulary=["a", "b", "c"])
        spec, out = testing.run_spec(head, ModeKeys.PREDICT, LOGITS_3)
        self.assertAllEqual([[b"a"], [b"b"], [b"a"], [b"c"]], out["predictions"]["classes"])
        self.assertCountEqual(["serving_default", "classification", "predict"],
                              spec.export_outputs)

    def test_regression_train_and_eval(self):
        head = make_v1_regression_head(weight_column="w", label_dimension=2)
        _, out = testing.run_spec(head, ModeKeys.TRAIN, LOGITS_2, TARGETS_2, WEIGHTS,
                                  train_op_fn=testing.loss_as_string)
        # tensorflow-estimator 2.15:
        self.assertAllClose({"loss": 9.5, "average_loss": 0.7307692170143127},
                            out["summaries"])
        _, out = testing.run_spec(head, ModeKeys.EVAL, LOGITS_2, TARGETS_2, WEIGHTS)
        self.assertAllClose({"average_loss": 0.7307692170143127,
                             "label/mean": 0.5769230723381042,
                             "prediction/mean": 0.3076923191547394}, out["metrics"])

    def test_v1_optimizer_increments_global_step(self):
        graph = tf.Graph()
        with graph.as_default():
            global_step = tf.compat.v1.train.get_or_create_global_step()
            bias = tf.Variable([0.], name="bias")
            spec = make_v1_head(2).create_estimator_spec(
                features={}, mode=ModeKeys.TRAIN, logits=tf.constant(LOGITS_1) + bias,
                labels=tf.constant(LABELS_01),
                optimizer=tf.compat.v1.train.GradientDescentOptimizer(0.1))
            with tf.compat.v1.Session() as sess:
                sess.run(tf.compat.v1.global_variables_initializer())
                sess.run(spec.train_op)
                self.assertEqual(1, sess.run(global_step))

    def test_eval_metric_ops_takes_the_originals_keywords(self):
        # A library's head extends the v1 head's metrics by calling _eval_metric_ops with
        # the original's keywords; the EVAL spec is made with its result.
        calls = []

        class Extended(type(make_v1_head(3))):
            def _eval_metric_ops(self, labels, class_ids, weights, unreduced_loss,
                                 regularization_loss):
                calls.append(labels.shape.as_list())
                ops = super()._eval_metric_ops(
                    labels=labels, class_ids=class_ids, weights=weights,
                    unreduced_loss=unreduced_loss, regularization_loss=regularization_loss)
                ops["extra"] = tf.compat.v1.metrics.mean(unreduced_loss)
                return ops

        with tf.Graph().as_default():
            spec = Extended(3).create_estimator_spec(
                features={}, mode=ModeKeys.EVAL, logits=tf.constant(LOGITS_3[:2]),
                labels=tf.constant([[0], [2]]))
        self.assertEqual(calls, [[2, 1]])
        self.assertIn("extra", spec.eval_metric_ops)
        self.assertIn("accuracy", spec.eval_metric_ops)

    def test_bad_arguments(self):
        with self.assertRaisesRegex(ValueError, "n_classes must be > 2"):
            make_v1_head(1)
        with self.assertRaisesRegex(TypeError, "label_vocabulary should be a list or tuple"):
            make_v1_head(2, label_vocabulary="ab")
        with self.assertRaisesRegex(ValueError, "Invalid loss_reduction: none"):
            make_v1_regression_head(loss_reduction="none")
        with self.assertRaisesRegex(ValueError, "loss_fn has unexpected args"):
            make_v1_head(3, loss_fn=lambda labels, logits, loss_reduction: labels)
        with self.assertRaisesOpError("Labels must be <= n_classes - 1"):
            testing.run_spec(make_v1_head(3), ModeKeys.EVAL, LOGITS_3,
                             np.array([[0], [5], [1], [1]], np.int64))


class V1HeadContractTest(tf.test.TestCase):

    def test_a_head_implementing_neither_spec_method_gets_the_originals_words(self):
        from estimator_lib.head.v1_head import V1Head  # pylint: disable=import-outside-toplevel

        class InvalidHead(V1Head):
            name = "invalid"
            logits_dimension = 1

        with self.assertRaisesRegex(NotImplementedError, "TPUEstimatorSpec not available"):
            InvalidHead()._create_tpu_estimator_spec(features=None, mode=None, logits=None)
        with self.assertRaisesRegex(
                NotImplementedError,
                r"^Subclasses of _Head must implement `create_estimator_spec\(\)` or "
                r"_create_tpu_estimator_spec\(\)\. InvalidHead implements neither\.$"):
            InvalidHead().create_estimator_spec(features=None, mode=None, logits=None)


if __name__ == "__main__":
    tf.test.main()
