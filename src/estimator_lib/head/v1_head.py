"""The heads of the v1 canned estimators (`tf.compat.v1.estimator.DNNClassifier`, ...).

They differ from the `tf.estimator.*Head` classes: the loss is reduced by a
`tf.compat.v1.losses.Reduction` (SUM by default) through
`tf.compat.v1.losses.compute_weighted_loss` (so it also lands in the LOSSES
collection), metrics are `tf.compat.v1.metrics` (value, update_op) pairs, an
`optimizer` is a `tf.compat.v1.train.Optimizer` minimized with the global step,
the graph's UPDATE_OPS are grouped into the train op, and TRAIN writes an
`average_loss` summary when the reduction is SUM.

This module holds what the three v1 heads share; `v1_heads.py` holds the heads.
"""

import abc
import collections
from typing import Callable, Dict, Optional

import tensorflow as tf
from tensorflow.python.util import function_utils

from estimator_lib.core.model_fn import ModeKeys
from estimator_lib.core.tpu_spec import TPUEstimatorSpecBase
from estimator_lib.head import checks
from estimator_lib.head.base_head import create_eval_metrics_tuple
from estimator_lib.head.metric_keys import MetricKeys


LossSpec = collections.namedtuple(
    "LossSpec", ["training_loss", "unreduced_loss", "weights", "processed_labels"])


def summary_key(head_name: Optional[str], key: str) -> str:
    """`key/head_name`, or `key` for a head without a name.

    Examples:
        >>> summary_key("head1", "loss")
        'loss/head1'
        >>> summary_key(None, "loss")
        'loss'
    """
    return f"{key}/{head_name}" if head_name else key


def validate_v1_loss_reduction(loss_reduction: str) -> None:
    """Checks a `tf.compat.v1.losses.Reduction` other than NONE.

    Raises:
        ValueError: Naming the value and the valid choices.
    """
    reduction = tf.compat.v1.losses.Reduction
    valid = [r for r in reduction.all() if r != reduction.NONE]
    if loss_reduction not in valid:
        raise ValueError(f"Invalid loss_reduction: {loss_reduction}. Valid: {valid}.")


def validate_v1_loss_fn_args(loss_fn: Callable) -> None:
    """Checks `loss_fn` takes labels and logits, and optionally features.

    Raises:
        ValueError: If a required argument is missing or an unknown one is present.
    """
    args = function_utils.fn_args(loss_fn)
    for required in ("labels", "logits"):
        if required not in args:
            raise ValueError(
                f"loss_fn must contain argument: {required}. Given arguments: {args}")
    unexpected = [arg for arg in args if arg not in ("labels", "logits", "features")]
    if unexpected:
        raise ValueError(f"loss_fn has unexpected args: {unexpected}")


def weighted_mean(values: tf.Tensor, weights, name: str):
    """tf.compat.v1.metrics.mean of float `values`, weights broadcast to them.

    Args:
        values: The float values to average.
        weights: The example weights (a tensor broadcastable to the values, or 1.).
        name: The metric's name.

    Returns:
        The pair `(value op, update op)`.
    """
    with tf.compat.v1.name_scope(name) as scope:
        values = tf.cast(values, tf.float32)
        if weights is not None:
            weights = tf.compat.v2.__internal__.ops.broadcast_weights(weights, values)
        return tf.compat.v1.metrics.mean(values, weights=weights, name=scope)


def weighted_auc(labels, predictions, weights, curve: str, name: str):
    """tf.compat.v1.metrics.auc with the weights broadcast to `predictions`.

    Args:
        labels: The labels tensor.
        predictions: The predicted values.
        weights: The example weights (a tensor broadcastable to the values, or 1.).
        curve: 'ROC' or 'PR'.
        name: The metric's name.

    Returns:
        The pair `(value op, update op)`.
    """
    with tf.compat.v1.name_scope(name) as scope:
        predictions = tf.cast(predictions, tf.float32)
        if weights is not None:
            weights = tf.compat.v2.__internal__.ops.broadcast_weights(weights, predictions)
        return tf.compat.v1.metrics.auc(labels=labels, predictions=predictions,
                                        weights=weights, curve=curve, name=scope)


def _append_update_ops(train_op):
    update_ops = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)
    return tf.group(train_op, *update_ops) if update_ops else train_op


class V1Head:
    """The original's v1 head contract (`tensorflow.python.estimator.canned.head._Head`).

    As the original's, a plain class: its `abc.abstractmethod` marks are documentation
    only (a subclass that leaves a method out still constructs, and the method raises
    NotImplementedError when called). `create_estimator_spec` calls the subclass's
    `_create_tpu_estimator_spec` and converts its result, as the original's did.
    """

    @property
    @abc.abstractmethod
    def name(self) -> Optional[str]:
        """The head's name, or None."""
        raise NotImplementedError("Calling an abstract method.")

    @property
    @abc.abstractmethod
    def logits_dimension(self) -> int:
        """Size of the logits' last dimension."""
        raise NotImplementedError("Calling an abstract method.")

    @abc.abstractmethod
    def create_loss(self, features, mode, logits, labels):
        """Returns the LossSpec of one batch.

        Args:
            features: The dict of feature tensors.
            mode: The `ModeKeys` mode.
            logits: The logits tensor.
            labels: The labels tensor.

        Returns:
            A `LossSpec`: the training loss, the unreduced loss, the weights and the processed
            labels.
        """
        raise NotImplementedError("Calling an abstract method.")

    def create_estimator_spec(self, features, mode, logits, labels=None, optimizer=None,
                              train_op_fn=None, regularization_losses=None):
        """The EstimatorSpec of `_create_tpu_estimator_spec(...)`.

        Args:
            features: The dict of feature tensors.
            mode: The `ModeKeys` mode.
            logits: The logits tensor.
            labels: The labels tensor.
            optimizer: A Keras optimizer building the train op; exclusive with `train_op_fn`.
            train_op_fn: A function from the loss to the train op, used when `optimizer` is
                None.
            regularization_losses: Regularization loss tensors added to the loss, or None.

        Returns:
            The `EstimatorSpec` for `mode`.

        Raises:
            NotImplementedError: If the subclass defines neither this method nor
                `_create_tpu_estimator_spec`.
        """
        try:
            tpu_spec = self._create_tpu_estimator_spec(
                features, mode, logits, labels, optimizer, train_op_fn,
                regularization_losses)
            return tpu_spec.as_estimator_spec()
        except NotImplementedError:
            raise NotImplementedError(  # The original's words, then which class.
                "Subclasses of _Head must implement `create_estimator_spec()` or "
                f"_create_tpu_estimator_spec(). {type(self).__name__} implements "
                "neither.") from None

    def _create_tpu_estimator_spec(self, features, mode, logits, labels=None,
                                   optimizer=None, train_op_fn=None,
                                   regularization_losses=None):
        """A TPUEstimatorSpec; subclasses that build their spec this way override it."""
        raise NotImplementedError("TPUEstimatorSpec not available for this model head.")


class CannedV1Head(V1Head):
    """Common `_create_tpu_estimator_spec` of the three v1 canned heads.

    Subclasses define `logits_dimension`, `create_loss`, `_predictions`,
    `_export_outputs`, `_eval_metric_ops` (with the original's arguments) and
    `_metric_inputs` (those arguments, from one batch).

    Args:
        weight_column: A feature key, or a `NumericColumn`, of the example weights; or None.
        loss_reduction: How the per-example losses are reduced over the batch.
        loss_fn: The custom loss function, `loss_fn(labels, logits[, features])`.
        name: The metric's name.
    """

    def __init__(self, weight_column, loss_reduction: str, loss_fn: Optional[Callable],
                 name: Optional[str]):
        self._weight_column = weight_column
        self._loss_reduction = loss_reduction
        self._loss_fn = loss_fn
        self._name = name

    @property
    def name(self) -> Optional[str]:
        """The head's name (suffixes its metric and summary keys), or None."""
        return self._name

    @property
    def loss_reduction(self) -> str:
        """How the per-example losses are reduced over the batch."""
        return self._loss_reduction

    def _predictions(self, logits: tf.Tensor) -> Dict[str, tf.Tensor]:
        """All predictions, from checked logits."""
        raise NotImplementedError("Calling an abstract method.")

    def _export_outputs(self, predictions: Dict) -> Dict:
        """The PREDICT export outputs."""
        raise NotImplementedError("Calling an abstract method.")

    def _eval_metric_ops(self, **kwargs) -> Dict:
        """The EVAL (value, update_op) metrics, from the tensors `_metric_inputs` names."""
        raise NotImplementedError("Calling an abstract method.")

    def _metric_inputs(self, predictions: Dict, labels, loss_spec: LossSpec,
                       regularization_loss) -> Dict:
        """The keyword arguments of this head's `_eval_metric_ops`, as the original's."""
        raise NotImplementedError("Calling an abstract method.")

    def _weights(self, features, logits, allow_per_logit_weights=False):
        return checks.get_weights_and_check_match_logits(
            features=features, weight_column=self._weight_column, logits=logits,
            allow_per_logit_weights=allow_per_logit_weights)

    def _reduce(self, unweighted_loss, weights):
        return tf.compat.v1.losses.compute_weighted_loss(
            unweighted_loss, weights=weights, reduction=self._loss_reduction)

    def _create_tpu_estimator_spec(self, features, mode, logits, labels=None,
                                   optimizer=None, train_op_fn=None,
                                   regularization_losses=None):
        """Returns the `model_fn._TPUEstimatorSpec` for `mode`, as the original's heads.

        `create_estimator_spec` converts it (`as_estimator_spec()`), so a subclass
        overriding this method alone is seen. In EVAL, `_eval_metric_ops` is called
        with the original's keyword arguments when the spec is converted.

        Args:
            features: Dict of feature tensors (the example weights are read from it).
            mode: A `ModeKeys` value.
            logits: Tensor [D0, ... DN, logits_dimension].
            labels: Labels tensor; needed in TRAIN and EVAL.
            optimizer: A `tf.compat.v1.train.Optimizer`; train_op =
                optimizer.minimize(loss, global_step). Exclusive with `train_op_fn`.
            train_op_fn: Function loss -> train op, used when `optimizer` is None.
            regularization_losses: Scalar losses added to the training loss.

        Returns:
            A `TPUEstimatorSpecBase` (the original's `model_fn._TPUEstimatorSpec`).

        Raises:
            ValueError: In TRAIN, if both or neither of optimizer and train_op_fn.
        """
        with tf.compat.v1.name_scope(self._name, "head"):
            logits = checks.check_logits_final_dim(logits, self.logits_dimension)
            with tf.compat.v1.name_scope(None, "predictions", (logits,)):
                predictions = self._predictions(logits)
            if mode == ModeKeys.PREDICT:
                return TPUEstimatorSpecBase(
                    mode=ModeKeys.PREDICT, predictions=predictions,
                    export_outputs=self._export_outputs(predictions))
            loss_spec = self.create_loss(features=features, mode=mode, logits=logits,
                                         labels=labels)
            regularization_loss = None
            loss = loss_spec.training_loss
            if regularization_losses:
                regularization_loss = tf.math.add_n(regularization_losses)
                loss = tf.math.add_n([loss, regularization_loss])
            if mode == ModeKeys.EVAL:
                return TPUEstimatorSpecBase(
                    mode=ModeKeys.EVAL, predictions=predictions, loss=loss,
                    eval_metrics=create_eval_metrics_tuple(
                        self._eval_metric_ops, self._metric_inputs(
                            predictions, labels, loss_spec, regularization_loss)))
            train_op = self._train_op(loss, optimizer, train_op_fn)
            mean_loss = None
            if self._loss_reduction == tf.compat.v1.losses.Reduction.SUM:
                weight_sum = tf.reduce_sum(
                    loss_spec.weights * tf.ones_like(loss_spec.unreduced_loss))
                mean_loss = loss_spec.training_loss / weight_sum
        with tf.compat.v1.name_scope(""):
            tf.compat.v1.summary.scalar(summary_key(self._name, MetricKeys.LOSS), loss)
            if mean_loss is not None:
                tf.compat.v1.summary.scalar(
                    summary_key(self._name, MetricKeys.LOSS_MEAN), mean_loss)
            if regularization_loss is not None:
                tf.compat.v1.summary.scalar(
                    summary_key(self._name, MetricKeys.LOSS_REGULARIZATION),
                    regularization_loss)
        return TPUEstimatorSpecBase(
            mode=ModeKeys.TRAIN, predictions=predictions, loss=loss, train_op=train_op)

    @staticmethod
    def _train_op(loss, optimizer, train_op_fn):
        if optimizer is not None:
            if train_op_fn is not None:
                raise ValueError("train_op_fn and optimizer cannot both be set.")
            train_op = optimizer.minimize(
                loss, global_step=tf.compat.v1.train.get_global_step())
        elif train_op_fn is not None:
            train_op = train_op_fn(loss)
        else:
            raise ValueError("train_op_fn and optimizer cannot both be None.")
        return _append_update_ops(train_op)
