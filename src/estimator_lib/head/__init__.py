"""Heads of the canned estimators: loss, predictions, metrics and export outputs over logits.

The `tf.estimator.*Head` classes of the original (tensorflow-estimator 2.15):

    head = estimator_lib.head.BinaryClassHead(weight_column="w")
    spec = head.create_estimator_spec(features, mode, logits, labels=labels,
                                      optimizer=optimizer,
                                      trainable_variables=variables)

For the v1 canned estimators (`tf.compat.v1.estimator.DNNClassifier`, ...), whose
heads reduce the loss with SUM and write `average_loss` in TRAIN too:

    make_v1_head(n_classes, weight_column=None, label_vocabulary=None,
                 loss_reduction=tf.compat.v1.losses.Reduction.SUM,
                 loss_fn=None, thresholds=None, name=None) -> V1Head
    make_v1_regression_head(weight_column=None, label_dimension=1,
                            loss_reduction=tf.compat.v1.losses.Reduction.SUM,
                            loss_fn=None, inverse_link_fn=None, name=None) -> V1Head
    V1Head.create_estimator_spec(features, mode, logits, labels=None,
                                 optimizer=None, train_op_fn=None,
                                 regularization_losses=None)
    V1Head.create_loss(features, mode, logits, labels) -> LossSpec
"""

from estimator_lib.head.base_head import Head
from estimator_lib.head.binary_class_head import BinaryClassHead
from estimator_lib.head.head_utils import binary_or_multi_class_head
from estimator_lib.head.metric_keys import MetricKeys
from estimator_lib.head.multi_class_head import MultiClassHead
from estimator_lib.head.multi_head import MultiHead
from estimator_lib.head.multi_label_head import MultiLabelHead
from estimator_lib.head.parsing import classifier_parse_example_spec
from estimator_lib.head.parsing import regressor_parse_example_spec
from estimator_lib.head.prediction_keys import PredictionKeys
from estimator_lib.head.regression_head import LogisticRegressionHead
from estimator_lib.head.regression_head import PoissonRegressionHead
from estimator_lib.head.regression_head import RegressionHead
from estimator_lib.head.v1_head import LossSpec
from estimator_lib.head.v1_head import V1Head
from estimator_lib.head.v1_heads import BinaryLogisticHeadV1
from estimator_lib.head.v1_heads import MultiClassHeadV1
from estimator_lib.head.v1_heads import RegressionHeadV1
from estimator_lib.head.v1_heads import make_v1_head
from estimator_lib.head.v1_heads import make_v1_regression_head

# What the reference's head page shows (and `import *` gives).
__all__ = [
    "Head",
    "BinaryClassHead",
    "binary_or_multi_class_head",
    "MetricKeys",
    "MultiClassHead",
    "MultiHead",
    "MultiLabelHead",
    "classifier_parse_example_spec",
    "regressor_parse_example_spec",
    "PredictionKeys",
    "LogisticRegressionHead",
    "PoissonRegressionHead",
    "RegressionHead",
    "LossSpec",
    "V1Head",
    "BinaryLogisticHeadV1",
    "MultiClassHeadV1",
    "RegressionHeadV1",
    "make_v1_head",
    "make_v1_regression_head",
]
