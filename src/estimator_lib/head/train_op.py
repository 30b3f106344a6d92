"""The training op and training summaries of a head's TRAIN EstimatorSpec."""

from typing import Callable, Optional, Sequence

import tensorflow as tf

from estimator_lib.head import arguments
from estimator_lib.head.metric_keys import MetricKeys


def _keras_updates(optimizer, loss: tf.Tensor, trainable_variables):
    if not hasattr(optimizer, "get_updates"):
        raise ValueError(
            f"{type(optimizer).__name__} cannot build a graph-mode train op: it has no "
            "get_updates(). Pass its tf.keras.optimizers.legacy counterpart (e.g. "
            "tf.keras.optimizers.legacy.Adagrad), or build the op in `train_op_fn`.")
    return optimizer.get_updates(loss, list(trainable_variables))[0]


def create_estimator_spec_train_op(
        head_name: Optional[str], optimizer=None, trainable_variables=None,
        train_op_fn: Optional[Callable] = None, update_ops: Optional[Sequence] = None,
        regularized_training_loss: Optional[tf.Tensor] = None,
        loss_reduction: str = tf.losses.Reduction.SUM_OVER_BATCH_SIZE):
    """Builds the train op from a Keras `optimizer` or from `train_op_fn`.

    Exactly one of `optimizer` and `train_op_fn` is given. With an optimizer, the op
    is `optimizer.get_updates(loss, trainable_variables)[0]` (the optimizer's
    `iterations` advance, not the global step, unless the caller made them the
    same variable); `train_op_fn(loss)` is called as is. `update_ops` are grouped in.

    Args:
        head_name: The head's name, for the name scope; or None.
        optimizer: A Keras optimizer building the train op; exclusive with `train_op_fn`.
        trainable_variables: The variables `optimizer` updates.
        train_op_fn: A function from the loss to the train op, used when `optimizer` is None.
        update_ops: Ops the train op must run with, or None.
        regularized_training_loss: The scalar training loss, regularization included.
        loss_reduction: How the per-example losses are reduced over the batch.

    Returns:
        The train op.

    Raises:
        ValueError: If both or neither of `optimizer` and `train_op_fn` are given, or
            the optimizer, `trainable_variables` or `update_ops` are of the wrong type.
    """
    del head_name  # Kept for the original signature.
    arguments.validate_update_ops(update_ops)
    with tf.compat.v1.name_scope(""):  # Ops land under `training/`, not the head's scope.
        with tf.compat.v1.name_scope("training"):
            if optimizer is not None:
                if train_op_fn is not None:
                    raise ValueError("train_op_fn and optimizer cannot both be set.")
                arguments.validate_v2_optimizer(optimizer)
                arguments.validate_trainable_variables(trainable_variables)
                loss = regularized_training_loss
                if loss_reduction == tf.losses.Reduction.SUM_OVER_BATCH_SIZE:
                    # Gradients of the per-replica mean are summed across replicas.
                    replicas = tf.distribute.get_strategy().num_replicas_in_sync
                    if replicas > 1:
                        loss = loss * (1. / replicas)
                train_op = _keras_updates(optimizer, loss, trainable_variables)
            elif train_op_fn is not None:
                train_op = train_op_fn(regularized_training_loss)
            else:
                raise ValueError("train_op_fn and optimizer cannot both be None.")
            if update_ops is not None:
                train_op = tf.group(train_op, *update_ops)
            return train_op


def create_estimator_spec_summary(regularized_training_loss: tf.Tensor,
                                  regularization_losses: Optional[Sequence] = None,
                                  summary_key_fn: Optional[Callable[[str], str]] = None):
    """Writes the `loss` (and `regularization_loss`) scalar summaries of a TRAIN step.

    Args:
        regularized_training_loss: The scalar training loss, regularization included.
        regularization_losses: Regularization loss tensors added to the loss, or None.
        summary_key_fn: Maps a summary name to its key (the head's name suffix); None for none.
    """
    def key(name):
        return summary_key_fn(name) if summary_key_fn else name

    with tf.compat.v1.name_scope(""):
        tf.compat.v1.summary.scalar(key(MetricKeys.LOSS), regularized_training_loss)
        if regularization_losses is not None:
            tf.compat.v1.summary.scalar(key(MetricKeys.LOSS_REGULARIZATION),
                                        tf.math.add_n(regularization_losses))
