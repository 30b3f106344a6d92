"""MultiHead: losses, metric keys and export outputs of two named heads."""

import numpy as np
import tensorflow as tf

from estimator_lib.head import BinaryClassHead
from estimator_lib.head import MultiClassHead
from estimator_lib.head import MultiHead
from tests.estimator_lib.head import testing
from tests.estimator_lib.head.testing import CLASS_IDS
from tests.estimator_lib.head.testing import LABELS_01
from tests.estimator_lib.head.testing import LOGITS_1
from tests.estimator_lib.head.testing import LOGITS_3
from tests.estimator_lib.head.testing import ModeKeys

_LABELS = {"bin": LABELS_01, "mc": CLASS_IDS}
# Single-head losses from tensorflow-estimator 2.15 (binary_class/multi_class tests).
_BIN_LOSS, _MC_LOSS = 1.1157134771347046, 1.6562728881835938


def _multi_head(weights=None):
    return MultiHead([BinaryClassHead(name="bin"), MultiClassHead(3, name="mc")],
                     head_weights=weights)


class MultiHeadTest(tf.test.TestCase):

    def test_loss_is_weighted_sum_and_logits_tensor_is_split(self):
        logits = np.concatenate([LOGITS_1, LOGITS_3], axis=-1)
        _, out = testing.run_spec(_multi_head([1., 2.]), ModeKeys.TRAIN, logits, _LABELS,
                                  train_op_fn=testing.loss_as_string)
        self.assertAllClose(_BIN_LOSS + 2 * _MC_LOSS, out["loss"])
        self.assertIn("loss", out["summaries"])
        self.assertIn("loss/bin", out["summaries"])

    def test_eval_metric_keys_are_suffixed_by_head(self):
        logits = {"bin": LOGITS_1, "mc": LOGITS_3}
        graph = tf.Graph()
        with graph.as_default():
            spec = _multi_head().create_estimator_spec(
                features={}, mode=ModeKeys.EVAL,
                logits={k: tf.constant(v) for k, v in logits.items()},
                labels={k: tf.constant(v) for k, v in _LABELS.items()})
            with tf.compat.v1.Session() as sess:
                sess.run(tf.compat.v1.local_variables_initializer())
                sess.run([update for _, update in spec.eval_metric_ops.values()])
                values = {k: sess.run(v) for k, (v, _) in spec.eval_metric_ops.items()}
        self.assertAllClose(_BIN_LOSS, values["loss/bin"])
        self.assertAllClose(_MC_LOSS, values["loss/mc"])
        self.assertAllClose(0.5, values["accuracy/mc"])
        self.assertIn("auc/bin", values)

    def test_predictions_and_export_outputs(self):
        logits = np.concatenate([LOGITS_1, LOGITS_3], axis=-1)
        spec, out = testing.run_spec(_multi_head(), ModeKeys.PREDICT, logits)
        self.assertAllEqual([[0], [1], [0], [2]], out["predictions"][("mc", "class_ids")])
        self.assertCountEqual(
            ["serving_default", "predict", "bin", "bin/classification", "bin/regression",
             "bin/predict", "mc", "mc/classification", "mc/predict"], spec.export_outputs)
        self.assertIn("mc/probabilities", spec.export_outputs["predict"].outputs)

    def test_bad_arguments(self):
        with self.assertRaisesRegex(ValueError, "Must specify heads"):
            MultiHead([])
        with self.assertRaisesRegex(ValueError, "must have name specified"):
            MultiHead([BinaryClassHead()])
        with self.assertRaisesRegex(ValueError, "same size"):
            _multi_head([1.])
        with self.assertRaisesRegex(ValueError, "Could not split logits"):
            testing.run_spec(_multi_head(), ModeKeys.PREDICT, LOGITS_3)
        with self.assertRaisesRegex(ValueError, r"labels has missing values.*mc"):
            testing.run_spec(_multi_head(), ModeKeys.EVAL,
                             np.concatenate([LOGITS_1, LOGITS_3], axis=-1),
                             {"bin": LABELS_01})
        with self.assertRaisesRegex(ValueError, "loss_reduction must be the same"):
            _ = MultiHead([BinaryClassHead(name="a"),
                           BinaryClassHead(name="b", loss_reduction="sum")]).loss_reduction


if __name__ == "__main__":
    tf.test.main()
