"""MultiClassHead against numbers from tensorflow-estimator 2.15 (see testing.py)."""

import numpy as np
import tensorflow as tf

from estimator_lib.head import MultiClassHead
from tests.estimator_lib.head import testing
from tests.estimator_lib.head.testing import CLASS_IDS
from tests.estimator_lib.head.testing import LOGITS_3
from tests.estimator_lib.head.testing import ModeKeys
from tests.estimator_lib.head.testing import WEIGHTS

_ABC = np.array([["a"], ["b"], ["c"], ["b"]])


class MultiClassHeadTest(tf.test.TestCase):

    def test_eval_matches_original(self):
        _, out = testing.run_spec(MultiClassHead(3), ModeKeys.EVAL, LOGITS_3, CLASS_IDS)
        # tensorflow-estimator 2.15:
        self.assertAllClose(1.6562728881835938, out["loss"])
        self.assertAllClose({"accuracy": 0.5, "average_loss": 1.6562728881835938},
                            out["metrics"])

    def test_weighted_vocabulary_named_eval_matches_original(self):
        head = MultiClassHead(3, weight_column="w", label_vocabulary=["a", "b", "c"], name="m")
        _, out = testing.run_spec(head, ModeKeys.EVAL, LOGITS_3, _ABC, WEIGHTS)
        # tensorflow-estimator 2.15:
        self.assertAllClose(4.065217971801758, out["loss"])
        self.assertAllClose({"accuracy/m": 0.4615384638309479,
                             "average_loss/m": 2.5016725063323975}, out["metrics"])

    def test_predictions_and_export_outputs(self):
        head = MultiClassHead(3, label_vocabulary=["a", "b", "c"])
        spec, out = testing.run_spec(head, ModeKeys.PREDICT, LOGITS_3)
        preds = out["predictions"]
        self.assertAllEqual([[0], [1], [0], [2]], preds["class_ids"])
        self.assertAllEqual([[b"a"], [b"b"], [b"a"], [b"c"]], preds["classes"])
        self.assertAllEqual([[0, 1, 2]] * 4, preds["all_class_ids"])
        self.assertAllClose([0.7053846, 0.2594965, 0.0351190], preds["probabilities"][0])
        self.assertCountEqual(["serving_default", "classification", "predict"],
                              spec.export_outputs)

    def test_train_with_regularization_summaries(self):
        _, out = testing.run_spec(MultiClassHead(3), ModeKeys.TRAIN, LOGITS_3, CLASS_IDS,
                                  train_op_fn=testing.loss_as_string,
                                  regularization_losses=[0.5])
        self.assertAllClose(1.6562728881835938 + 0.5, out["loss"])
        self.assertAllClose({"loss": 2.1562729, "regularization_loss": 0.5},
                            out["summaries"])

    def test_bad_arguments(self):
        with self.assertRaisesRegex(ValueError, "n_classes must be > 2: 2"):
            MultiClassHead(2)
        with self.assertRaisesRegex(ValueError, "n_classes cannot be None"):
            MultiClassHead(None)
        with self.assertRaisesRegex(ValueError, 'does not have "n_classes" items'):
            MultiClassHead(3, label_vocabulary=["a", "b"])
        with self.assertRaisesRegex(ValueError, "Invalid loss_reduction: mean"):
            MultiClassHead(3, loss_reduction="mean")

    def test_bad_labels(self):
        with self.assertRaisesRegex(ValueError, "Labels dtype should be integer"):
            testing.run_spec(MultiClassHead(3), ModeKeys.EVAL, LOGITS_3, _ABC)
        with self.assertRaisesRegex(ValueError, "should be string if there is a vocabulary"):
            testing.run_spec(MultiClassHead(3, label_vocabulary=["a", "b", "c"]),
                             ModeKeys.EVAL, LOGITS_3, CLASS_IDS)
        with self.assertRaisesOpError("Labels must be <= n_classes - 1"):
            testing.run_spec(MultiClassHead(3), ModeKeys.EVAL, LOGITS_3,
                             np.array([[0], [3], [1], [1]], np.int64))
        with self.assertRaisesOpError("Labels must be >= 0"):
            testing.run_spec(MultiClassHead(3, label_vocabulary=["a", "b", "c"]),
                             ModeKeys.EVAL, LOGITS_3, np.array([["a"], ["z"], ["b"], ["c"]]))
        with self.assertRaisesRegex(ValueError, "logits shape must be"):
            testing.run_spec(MultiClassHead(4), ModeKeys.EVAL, LOGITS_3, CLASS_IDS)


if __name__ == "__main__":
    tf.test.main()
