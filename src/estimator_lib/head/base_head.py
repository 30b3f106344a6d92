"""The `Head` interface, and the EstimatorSpec assembly the canned heads share.

A head sits on top of a model's logits: given them it computes predictions, the
loss, evaluation metrics, export outputs and the train op, so that one model_fn
serves regression, binary, multi-class and multi-label problems alike.

The helper names of the original `head/base_head.py` (check_*, validate_*,
call_loss_fn, all_classes, ...) are importable from here too.
"""

import abc
from typing import Callable, Dict, Mapping, Optional, Sequence

import tensorflow as tf
import tf_keras

from estimator_lib.core.model_fn import ModeKeys
from estimator_lib.core.tpu_spec import TPUEstimatorSpecBase
from estimator_lib.head.arguments import call_loss_fn  # noqa: F401
from estimator_lib.head.arguments import check_prediction_keys  # noqa: F401
from estimator_lib.head.arguments import validate_loss_fn_args  # noqa: F401
from estimator_lib.head.arguments import validate_loss_reduction  # noqa: F401
from estimator_lib.head.arguments import validate_n_classes  # noqa: F401
from estimator_lib.head.arguments import validate_trainable_variables  # noqa: F401
from estimator_lib.head.arguments import validate_update_ops  # noqa: F401
from estimator_lib.head.arguments import validate_v2_optimizer  # noqa: F401
from estimator_lib.head import checks
from estimator_lib.head.checks import check_dense_labels_match_logits_and_reshape  # noqa: F401
from estimator_lib.head.checks import check_label_range  # noqa: F401
from estimator_lib.head.checks import check_logits_final_dim
from estimator_lib.head.checks import get_weights_and_check_match_logits  # noqa: F401
from estimator_lib.head import fixed_keys
from estimator_lib.head.outputs import all_class_ids  # noqa: F401
from estimator_lib.head.outputs import all_classes  # noqa: F401
from estimator_lib.head.outputs import classification_output  # noqa: F401
from estimator_lib.head.outputs import CLASSIFY_SERVING_KEY  # noqa: F401
from estimator_lib.head.outputs import DEFAULT_SERVING_KEY  # noqa: F401
from estimator_lib.head.outputs import PREDICT_SERVING_KEY  # noqa: F401
from estimator_lib.head.outputs import REGRESS_SERVING_KEY  # noqa: F401
from estimator_lib.head.metric_keys import MetricKeys
from estimator_lib.head.train_op import create_estimator_spec_summary
from estimator_lib.head.train_op import create_estimator_spec_train_op

# The original module's message templates (libraries format them for errors of their own).
# pylint: disable=protected-access
_LABEL_NONE_ERR_MSG = checks.LABEL_NONE_ERR_MSG
_MISMATCHED_LABEL_DIM_ERR_MSG = checks._MISMATCHED_LABEL_DIM_ERR_MSG
_LABEL_SHAPE_ERR_MSG = checks._LABEL_SHAPE_ERR_MSG
# pylint: enable=protected-access
_SPARSE_LABEL_ERR_MSG = (
    "SparseTensor labels are not supported. Labels must be a Tensor of shape "
    "[D0, D1, ..., DN, {}], e.g. [batch_size, {}].Suggested Fix (1): Check the label "
    "feature in your data. Each example must contain {} value(s). If not, your choice of "
    "label was probably incorrect. Suggested Fix (2): In your input_fn, use "
    "tf.sparse_tensor_to_dense() to turn labels into a Tensor.")
_VALIDATION_ERROR_MSG = "{} should be a list or a tuple. Given type: {}."


class Head(abc.ABC):
    """Interface for the head (top) of a model.

    Subclasses implement the properties and `loss`, `predictions`, `metrics`,
    `update_metrics`, and override `create_estimator_spec` (or, as in the
    original, `_create_tpu_estimator_spec`, whose result's `as_estimator_spec()`
    is returned).

    As in the original, the train op steps the optimizer, not the global step: set the
    optimizer's `iterations` to the global step (as the example does), or training
    with `steps=N` never reaches N.

    Examples:
        A head in a model_fn, trained and evaluated: the model makes the logits, the
        head the loss, metrics, predictions and train op:

        >>> import tempfile
        >>> import numpy as np
        >>> import tensorflow as tf
        >>> import estimator_lib
        >>> head = estimator_lib.BinaryClassHead()
        >>> def model_fn(features, labels, mode):
        ...     w = tf.compat.v1.get_variable("w", [1, head.logits_dimension])
        ...     logits = tf.matmul(features["x"], w)
        ...     optimizer = tf.keras.optimizers.legacy.Adagrad(0.1)
        ...     # The train op steps the optimizer: its iterations are the global step.
        ...     optimizer.iterations = tf.compat.v1.train.get_or_create_global_step()
        ...     return head.create_estimator_spec(
        ...         features=features, mode=mode, labels=labels, logits=logits,
        ...         optimizer=optimizer, trainable_variables=[w])
        >>> def input_fn():
        ...     x = np.array([[0.0], [1.0], [2.0], [3.0]], np.float32)
        ...     y = np.array([[0], [0], [1], [1]])
        ...     return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(4)
        >>> est = estimator_lib.Estimator(model_fn, model_dir=tempfile.mkdtemp())
        >>> metrics = est.train(input_fn, steps=2).evaluate(input_fn, steps=1)
        >>> isinstance(head, estimator_lib.Head), int(metrics["global_step"]), "auc" in metrics
        (True, 2, True)
    """

    @property
    @abc.abstractmethod
    def name(self) -> Optional[str]:
        """The head's name: suffix of its metric and summary keys, and its name scope."""

    @property
    @abc.abstractmethod
    def logits_dimension(self) -> int:
        """Size of the logits' last dimension: [D0, ... DN, logits_dimension]."""

    @property
    @abc.abstractmethod
    def loss_reduction(self) -> str:
        """The `tf.losses.Reduction` applied to the per-example training loss."""

    @abc.abstractmethod
    def loss(self, labels, logits, features=None, mode=None, regularization_losses=None):
        """Returns the scalar training loss, regularization losses added.

        Args:
            labels: The labels tensor, its shape matching the logits' but the last dimension
                (for `MultiHead`, a dict of head name to labels).
            logits: The logits tensor, shaped `[D0, ... DN, logits_dimension]` (for `MultiHead`,
                a dict of head name to logits, or their concatenation).
            features: The dict of feature tensors; the example weights are read from it.
            mode: The `ModeKeys` mode; the loss does not depend on it.
            regularization_losses: Regularization loss tensors added to the loss (and reported
                as the `regularization_loss` metric), or None.

        Returns:
            A scalar tensor: the per-example losses weighted and reduced by the head's
            `loss_reduction`, plus the regularization losses.
        """

    @abc.abstractmethod
    def predictions(self, logits, keys=None):
        """Returns a dict of prediction tensors (all valid keys when `keys` is None)."""

    @abc.abstractmethod
    def metrics(self, regularization_losses=None):
        """Returns a dict of fresh Keras metric objects keyed by metric key."""

    @abc.abstractmethod
    def update_metrics(self, eval_metrics, features, logits, labels, mode=None,
                       regularization_losses=None):
        """Updates `eval_metrics` with one batch and returns them.

        Args:
            eval_metrics: The dict of metric objects that `metrics()` returned.
            features: The dict of feature tensors; the example weights are read from it.
            logits: The logits tensor, shaped `[D0, ... DN, logits_dimension]` (for `MultiHead`,
                a dict of head name to logits, or their concatenation).
            labels: The labels tensor, its shape matching the logits' but the last dimension
                (for `MultiHead`, a dict of head name to labels).
            mode: The `ModeKeys` mode; the loss does not depend on it.
            regularization_losses: Regularization loss tensors added to the loss (and reported
                as the `regularization_loss` metric), or None.

        Returns:
            `eval_metrics`, each metric updated with this batch.
        """

    def _summary_key(self, key: str) -> str:
        return f"{key}/{self.name}" if self.name else key

    def create_estimator_spec(self, features, mode, logits, labels=None, optimizer=None,
                              trainable_variables=None, train_op_fn=None, update_ops=None,
                              regularization_losses=None):
        """Returns an `EstimatorSpec` for `mode`, for a model_fn to return.

        Args:
            features: Dict of feature tensors (the example weights are read from it).
            mode: A `ModeKeys` value.
            logits: Tensor [D0, ... DN, logits_dimension].
            labels: Labels tensor (or dict, for MultiHead); needed in TRAIN and EVAL.
            optimizer: A Keras optimizer; train_op = optimizer.get_updates(loss,
                trainable_variables)[0]. Exclusive with `train_op_fn`.
                Deliberate difference 15: one without `get_updates` is a ValueError.
            trainable_variables: List or tuple of the variables `optimizer` updates.
            train_op_fn: Function loss -> train op, used when `optimizer` is None.
            update_ops: List or tuple of ops grouped into the train op.
            regularization_losses: Scalar losses added to the training loss.

        Raises:
            NotImplementedError: If the subclass overrides neither this nor
                `_create_tpu_estimator_spec`.
        """
        try:
            spec = self._create_tpu_estimator_spec(
                features=features, mode=mode, logits=logits, labels=labels,
                optimizer=optimizer, trainable_variables=trainable_variables,
                train_op_fn=train_op_fn, update_ops=update_ops,
                regularization_losses=regularization_losses)
        except NotImplementedError:
            raise NotImplementedError(
                "Subclasses of Head must implement `create_estimator_spec()` or "
                "_create_tpu_estimator_spec().") from None
        return spec.as_estimator_spec() if hasattr(spec, "as_estimator_spec") else spec

    def _create_tpu_estimator_spec(self, features, mode, logits, labels=None,
                                   optimizer=None, trainable_variables=None,
                                   train_op_fn=None, update_ops=None,
                                   regularization_losses=None):
        raise NotImplementedError("TPUEstimatorSpec not available for this model head.")


class SingleHead(Head):
    """What the single-task heads (binary, multi-class, multi-label, regression) share.

    A subclass sets `_name`, `_loss_reduction` and `_export_outputs(predictions)`,
    and turns a batch into its loss with `_processed_labels(logits, labels)` and
    `_unweighted_loss_and_weights(logits, processed_labels, features)`.
    """

    @property
    def name(self):
        """The name given at construction, or None."""
        return self._name

    def _metric_key(self, name: str) -> str:
        # The key fixed at construction, as the original's (head/fixed_keys.py).
        return fixed_keys.key(self, name)

    @property
    def loss_reduction(self):
        """The `tf.losses.Reduction` given at construction."""
        return self._loss_reduction

    def _labels_loss_and_weights(self, logits, labels, features):
        """(checked logits, processed labels, unweighted loss, weights) of one batch."""
        logits = check_logits_final_dim(logits, self.logits_dimension)
        processed_labels = self._processed_labels(logits, labels)
        unweighted_loss, weights = self._unweighted_loss_and_weights(
            logits, processed_labels, features)
        return logits, processed_labels, unweighted_loss, weights

    def loss(self, labels, logits, features=None, mode=None, regularization_losses=None):
        """Returns the regularized training loss (a scalar).

        Args:
            labels: The labels tensor, its shape matching the logits' but the last dimension
                (for `MultiHead`, a dict of head name to labels).
            logits: The logits tensor, shaped `[D0, ... DN, logits_dimension]` (for `MultiHead`,
                a dict of head name to logits, or their concatenation).
            features: The dict of feature tensors; the example weights are read from it.
            mode: The `ModeKeys` mode; the loss does not depend on it.
            regularization_losses: Regularization loss tensors added to the loss (and reported
                as the `regularization_loss` metric), or None.

        Returns:
            A scalar tensor: the per-example losses weighted and reduced by the head's
            `loss_reduction`, plus the regularization losses.
        """
        del mode  # The loss is the same in every mode.
        with tf.name_scope("losses"):
            _, _, unweighted_loss, weights = self._labels_loss_and_weights(
                logits, labels, features)
            training_loss = reduce_loss(unweighted_loss, weights, self._loss_reduction)
            return add_regularization(training_loss, regularization_losses)

    def _add_regularization_metric(self, eval_metrics, regularization_losses) -> None:
        """Adds the regularization_loss Mean to `eval_metrics` when there are such losses."""
        if regularization_losses is not None:
            eval_metrics[self._metric_key(MetricKeys.LOSS_REGULARIZATION)] = (
                tf.keras.metrics.Mean(name=MetricKeys.LOSS_REGULARIZATION))

    def _update_regularization_metric(self, eval_metrics, regularization_losses) -> None:
        if regularization_losses is not None:
            eval_metrics[self._metric_key(MetricKeys.LOSS_REGULARIZATION)].update_state(
                values=tf.math.add_n(regularization_losses))

    def _create_tpu_estimator_spec(self, features, mode, logits, labels=None, optimizer=None,
                                   trainable_variables=None, train_op_fn=None,
                                   update_ops=None, regularization_losses=None):
        """Returns the `model_fn._TPUEstimatorSpec` for `mode`; see `Head`.

        `create_estimator_spec` converts it (`as_estimator_spec()`), as the original's
        did, so a subclass overriding this method alone is seen. Export outputs: those
        of the subclass's `_export_outputs`.

        Args:
            features: The dict of feature tensors; the example weights are read from it.
            mode: The `ModeKeys` mode; the loss does not depend on it.
            logits: The logits tensor, shaped `[D0, ... DN, logits_dimension]`.
            labels: The labels tensor, its shape matching the logits' but the last dimension.
            optimizer: A Keras optimizer that builds the train op from the loss; exclusive with
                `train_op_fn`.
            trainable_variables: The variables `optimizer` updates.
            train_op_fn: A function from the loss to the train op, used when `optimizer` is
                None.
            update_ops: Ops the train op must run with (e.g. batch-norm updates), or None.
            regularization_losses: Regularization loss tensors added to the loss (and reported
                as the `regularization_loss` metric), or None.

        Returns:
            A `TPUEstimatorSpecBase` for `mode`: the loss and train op in TRAIN, the loss and
            `(update_metrics, tensors)` in EVAL, the predictions and export outputs in
            PREDICT.

        Raises:
            ValueError: If `labels` is missing in TRAIN or EVAL, the logits or labels have the
                wrong shape, or neither (or both) of `optimizer` and `train_op_fn` is given in
                TRAIN.
        """
        return make_estimator_spec(
            self, features=features, mode=mode, logits=logits, labels=labels,
            optimizer=optimizer, trainable_variables=trainable_variables,
            train_op_fn=train_op_fn, update_ops=update_ops,
            regularization_losses=regularization_losses,
            export_outputs_fn=self._export_outputs)


def add_regularization(training_loss: tf.Tensor,
                       regularization_losses: Optional[Sequence]) -> tf.Tensor:
    """`training_loss` plus the sum of `regularization_losses` (if any)."""
    if regularization_losses is None:
        return training_loss
    return training_loss + tf.math.add_n(regularization_losses)


def reduce_loss(unweighted_loss: tf.Tensor, weights, reduction: str) -> tf.Tensor:
    """Weights and reduces a per-example loss the way Keras losses do.

    SUM_OVER_BATCH_SIZE divides the weighted sum by the number of loss elements
    (not by the sum of the weights), as the original heads did.

    Args:
        unweighted_loss: The per-example loss, `[D0, ... DN, d]`.
        weights: The example weights (a tensor broadcastable to the values, or 1.).
        reduction: The `tf.losses.Reduction` to apply.

    Returns:
        The reduced loss: a scalar, or the weighted per-example loss for NONE.
    """
    return tf_keras.__internal__.losses.compute_weighted_loss(
        unweighted_loss, sample_weight=weights, reduction=reduction)


def update_metric_with_broadcast_weights(eval_metric, values, weights) -> None:
    """Updates a Mean metric with `values`, the weights broadcast to their shape.

    Args:
        eval_metric: The `tf.keras.metrics.Mean` to update.
        values: The values to add to the mean.
        weights: The example weights (a tensor broadcastable to the values, or 1.).
    """
    values = tf.cast(values, tf.float32)
    if weights is not None:
        weights = tf.compat.v2.__internal__.ops.broadcast_weights(weights, values)
    eval_metric.update_state(values=values, sample_weight=weights)


def create_eval_metrics_tuple(fn: Callable, kwargs: Mapping):
    """(metric_fn, tensor kwargs): `fn` with its non-tensor arguments bound."""
    tensors = {k: v for k, v in kwargs.items() if tf.is_tensor(v)}
    others = {k: v for k, v in kwargs.items() if not tf.is_tensor(v)}

    def _fn(**tensor_kwargs):
        return fn(**dict(others, **tensor_kwargs))

    return _fn, tensors


def make_estimator_spec(head: Head, *, features, mode, logits, labels,
                        optimizer, trainable_variables, train_op_fn, update_ops,
                        regularization_losses,
                        export_outputs_fn: Callable[[Dict], Dict]):
    """The `model_fn._TPUEstimatorSpec` of a single head, for each mode.

    PREDICT: predictions and `export_outputs_fn(predictions)`. EVAL: the loss, and
    `head.update_metrics` of fresh `head.metrics` as `eval_metrics` (called when the
    spec is converted, outside the head's name scope, as the original). TRAIN: the
    loss, the train op and the loss summaries.

    Args:
        head: The head whose spec it is.
        features: The dict of feature tensors.
        mode: The `ModeKeys` mode.
        logits: The logits tensor.
        labels: The labels tensor.
        optimizer: A Keras optimizer building the train op; exclusive with `train_op_fn`.
        trainable_variables: The variables `optimizer` updates.
        train_op_fn: A function from the loss to the train op, used when `optimizer` is None.
        update_ops: Ops the train op must run with, or None.
        regularization_losses: Regularization loss tensors added to the loss, or None.
        export_outputs_fn: Builds the PREDICT export outputs from the predictions dict.

    Returns:
        The `TPUEstimatorSpecBase` for `mode`.

    Raises:
        ValueError: If `labels` is missing in TRAIN or EVAL, or the train op cannot be built.
    """
    with tf.compat.v1.name_scope(head.name, "head"):
        predictions = head.predictions(logits)
        if mode == ModeKeys.PREDICT:
            return TPUEstimatorSpecBase(
                mode=ModeKeys.PREDICT, predictions=predictions,
                export_outputs=export_outputs_fn(predictions))
        loss = head.loss(logits=logits, labels=labels, features=features, mode=mode,
                         regularization_losses=regularization_losses)
        if mode == ModeKeys.EVAL:
            eval_metrics = head.metrics(regularization_losses=regularization_losses)
            return TPUEstimatorSpecBase(
                mode=ModeKeys.EVAL, predictions=predictions, loss=loss,
                eval_metrics=create_eval_metrics_tuple(head.update_metrics, {
                    "eval_metrics": eval_metrics, "features": features, "logits": logits,
                    "labels": labels, "regularization_losses": regularization_losses}))
        train_op = create_estimator_spec_train_op(
            head_name=head.name, optimizer=optimizer, train_op_fn=train_op_fn,
            update_ops=update_ops, trainable_variables=trainable_variables,
            regularized_training_loss=loss, loss_reduction=head.loss_reduction)
    summary_key = head._summary_key  # pylint: disable=protected-access
    create_estimator_spec_summary(loss, regularization_losses, summary_key)
    return TPUEstimatorSpecBase(
        mode=ModeKeys.TRAIN, predictions=predictions, loss=loss, train_op=train_op)
