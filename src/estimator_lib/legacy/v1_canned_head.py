"""The original's `canned/head.py`: the v1 canned heads under their private names.

Libraries built heads of their own on these (`head._Head`, `head._regression_head`);
compat.install() puts this module at `tensorflow_estimator.python.estimator.canned.head`
(legacy/original_tree.py).
"""

import tensorflow as tf

from estimator_lib.head import v1_head
from estimator_lib.head import v1_heads

LossSpec = v1_head.LossSpec
_Head = v1_head.V1Head
_regression_head = v1_heads.make_v1_regression_head
_binary_logistic_or_multi_class_head = v1_heads.make_v1_head
_BinaryLogisticHeadWithSigmoidCrossEntropyLoss = v1_heads.BinaryLogisticHeadV1
_MultiClassHeadWithSoftmaxCrossEntropyLoss = v1_heads.MultiClassHeadV1
_RegressionHeadWithMeanSquaredErrorLoss = v1_heads.RegressionHeadV1


def _binary_logistic_head_with_sigmoid_cross_entropy_loss(**kwargs):
    return v1_heads.make_v1_head(2, **kwargs)


def _multi_class_head_with_softmax_cross_entropy_loss(n_classes, **kwargs):
    v1_head.validate_v1_loss_reduction(
        kwargs.get("loss_reduction", tf.compat.v1.losses.Reduction.SUM))
    return v1_heads.MultiClassHeadV1(n_classes, **kwargs)
