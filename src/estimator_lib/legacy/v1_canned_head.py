"""The original's `canned/head.py`: the v1 canned heads and their helpers, by their private names.

Libraries built heads of their own on these (`head._Head`, `head._regression_head`)
and import the helpers (`head._DEFAULT_SERVING_KEY`, `head._summary_key`,
`head._classification_output`, ...); compat.install() puts this module at
`tensorflow_estimator.python.estimator.canned.head` (legacy/original_tree.py). Each
name has the original's signature and behaviour; most are ours under another name.
"""

import tensorflow as tf

from estimator_lib.head import arguments
from estimator_lib.head import base_head
from estimator_lib.head import checks
from estimator_lib.head import outputs
from estimator_lib.head import v1_head
from estimator_lib.head import v1_heads

_SUM = tf.compat.v1.losses.Reduction.SUM

# The serving signature keys of the heads' export outputs.
_DEFAULT_SERVING_KEY = outputs.DEFAULT_SERVING_KEY
_CLASSIFY_SERVING_KEY = outputs.CLASSIFY_SERVING_KEY
_REGRESS_SERVING_KEY = outputs.REGRESS_SERVING_KEY
_PREDICT_SERVING_KEY = outputs.PREDICT_SERVING_KEY

LossSpec = v1_head.LossSpec
_Head = v1_head.V1Head
_BinaryLogisticHeadWithSigmoidCrossEntropyLoss = v1_heads.BinaryLogisticHeadV1
_MultiClassHeadWithSoftmaxCrossEntropyLoss = v1_heads.MultiClassHeadV1
_RegressionHeadWithMeanSquaredErrorLoss = v1_heads.RegressionHeadV1

# Helpers the heads share, with the original's parameter names.
_all_class_ids = outputs.all_class_ids
_all_classes = outputs.all_classes
_classification_output = outputs.classification_output
_append_update_ops = v1_head._append_update_ops  # pylint: disable=protected-access
_check_logits_final_dim = checks.check_logits_final_dim
_check_dense_labels_match_logits_and_reshape = (
    checks.check_dense_labels_match_logits_and_reshape)
_get_weights_and_check_match_logits = checks.get_weights_and_check_match_logits
_create_eval_metrics_tuple = base_head.create_eval_metrics_tuple
_call_loss_fn = arguments.call_loss_fn
_validate_n_classes = arguments.validate_n_classes


def _summary_key(head_name, val):
    """`val/head_name`, or `val` for a head without a name."""
    return v1_head.summary_key(head_name, val)


def _validate_loss_fn_args(loss_fn):
    """Checks `loss_fn` takes labels and logits, and optionally features (ValueError)."""
    v1_head.validate_v1_loss_fn_args(loss_fn)


def _assert_range(labels, n_classes, message=None):
    """The labels, checked (in the graph) to lie in [0, n_classes)."""
    with tf.compat.v1.name_scope(None, "assert_range", (labels,)):
        below = tf.compat.v1.debugging.assert_less_equal(
            labels, tf.convert_to_tensor(n_classes - 1, dtype=labels.dtype),
            message=message or "Labels must <= n_classes - 1")
        non_negative = tf.compat.v1.debugging.assert_non_negative(
            labels, message=message or "Labels must >= 0")
        with tf.control_dependencies((below, non_negative)):
            return tf.identity(labels)


def _indicator_labels_mean(labels, weights=None, name=None):
    """tf.compat.v1.metrics.mean of the labels as floats, weights broadcast to them."""
    return v1_head.weighted_mean(labels, weights, name or "labels_mean")


def _predictions_mean(predictions, weights=None, name=None):
    """tf.compat.v1.metrics.mean of the predictions as floats, weights broadcast to them."""
    return v1_head.weighted_mean(predictions, weights, name or "predictions_mean")


def _auc(labels, predictions, weights=None, curve="ROC", name=None):
    """tf.compat.v1.metrics.auc of float predictions, weights broadcast to them."""
    return v1_head.weighted_auc(labels, predictions, weights, curve, name or "auc")


def _accuracy_baseline(labels_mean):
    """The accuracy of always predicting the majority class: max(mean, 1 - mean).

    Args:
        labels_mean: The (value, update_op) pair of the labels' mean.

    Returns:
        A (value, update_op) pair.
    """
    with tf.compat.v1.name_scope(None, "accuracy_baseline", labels_mean):
        value, update_op = labels_mean
        return (tf.math.maximum(value, 1. - value, name="value"),
                tf.math.maximum(update_op, 1 - update_op, name="update_op"))


def _accuracy_at_threshold(labels, predictions, weights, threshold, name=None):
    """tf.compat.v1.metrics.accuracy of `predictions >= threshold` against the labels."""
    with tf.compat.v1.name_scope(name, f"accuracy_at_{threshold}",
                                 (predictions, labels, weights, threshold)) as scope:
        above = tf.cast(tf.math.greater_equal(predictions, threshold), tf.float32)
        return tf.compat.v1.metrics.accuracy(labels=labels, predictions=above,
                                             weights=weights, name=scope)


def _at_threshold(metric, default_name, labels, predictions, weights, threshold, name):
    with tf.compat.v1.name_scope(name, f"{default_name}_at_{threshold}",
                                 (predictions, labels, weights, threshold)) as scope:
        value, update_op = metric(labels=labels, predictions=predictions,
                                  thresholds=(threshold,), weights=weights, name=scope)
        return tf.compat.v1.squeeze(value), tf.compat.v1.squeeze(update_op)


def _precision_at_threshold(labels, predictions, weights, threshold, name=None):
    """tf.compat.v1.metrics.precision_at_thresholds at one threshold, as scalars."""
    return _at_threshold(tf.compat.v1.metrics.precision_at_thresholds, "precision",
                         labels, predictions, weights, threshold, name)


def _recall_at_threshold(labels, predictions, weights, threshold, name=None):
    """tf.compat.v1.metrics.recall_at_thresholds at one threshold, as scalars."""
    return _at_threshold(tf.compat.v1.metrics.recall_at_thresholds, "recall",
                         labels, predictions, weights, threshold, name)


def _regression_head(weight_column=None, label_dimension=1, loss_reduction=_SUM,
                     loss_fn=None, inverse_link_fn=None, name=None):
    """The v1 regression head (`_RegressionHeadWithMeanSquaredErrorLoss`)."""
    return v1_heads.make_v1_regression_head(
        weight_column=weight_column, label_dimension=label_dimension,
        loss_reduction=loss_reduction, loss_fn=loss_fn, inverse_link_fn=inverse_link_fn,
        name=name)


def _binary_logistic_head_with_sigmoid_cross_entropy_loss(
        weight_column=None, thresholds=None, label_vocabulary=None, loss_reduction=_SUM,
        loss_fn=None, name=None):
    """The v1 binary head (`_BinaryLogisticHeadWithSigmoidCrossEntropyLoss`)."""
    return v1_heads.make_v1_head(
        2, weight_column=weight_column, label_vocabulary=label_vocabulary,
        loss_reduction=loss_reduction, loss_fn=loss_fn, thresholds=thresholds, name=name)


def _multi_class_head_with_softmax_cross_entropy_loss(
        n_classes, weight_column=None, label_vocabulary=None, loss_reduction=_SUM,
        loss_fn=None, name=None):
    """The v1 multi-class head (`_MultiClassHeadWithSoftmaxCrossEntropyLoss`).

    Raises:
        ValueError: For a label_vocabulary not a list or tuple, a loss_reduction of
            NONE or unknown, or a loss_fn with other arguments than the original's.
    """
    if label_vocabulary is not None and not isinstance(label_vocabulary, (list, tuple)):
        raise ValueError("label_vocabulary should be a list or a tuple. "
                         f"Given type: {type(label_vocabulary)}")
    v1_head.validate_v1_loss_reduction(loss_reduction)
    if loss_fn:
        v1_head.validate_v1_loss_fn_args(loss_fn)
    return v1_heads.MultiClassHeadV1(n_classes, weight_column, label_vocabulary,
                                     loss_reduction, loss_fn, name)


def _binary_logistic_or_multi_class_head(n_classes, weight_column, label_vocabulary,
                                         loss_reduction):
    """The v1 binary head for n_classes == 2, else the multi-class head."""
    return v1_heads.make_v1_head(n_classes, weight_column=weight_column,
                                 label_vocabulary=label_vocabulary,
                                 loss_reduction=loss_reduction)
