"""Checks on the arguments heads are built and called with, and the custom loss call."""

from typing import Callable, Iterable, Mapping, Optional

import tensorflow as tf
from tensorflow.python.util import function_utils

_LOSS_FN_ARGS = ("labels", "logits", "features", "loss_reduction")


def validate_loss_fn_args(loss_fn: Callable) -> None:
    """Checks `loss_fn` takes labels and logits, and optionally features, loss_reduction.

    Raises:
        ValueError: If a required argument is missing or an unknown one is present.
    """
    args = function_utils.fn_args(loss_fn)
    for required in ("labels", "logits"):
        if required not in args:
            raise ValueError(
                f"loss_fn must contain argument: {required}. Given arguments: {args}")
    unexpected = [arg for arg in args if arg not in _LOSS_FN_ARGS]
    if unexpected:
        raise ValueError(
            f"loss_fn has unexpected args: {unexpected}. It may take only "
            f"{list(_LOSS_FN_ARGS)}.")


def validate_loss_reduction(loss_reduction: str) -> None:
    """Checks `loss_reduction` is a `tf.losses.Reduction` other than NONE.

    Raises:
        ValueError: Naming the value and the valid choices.
    """
    valid = [r for r in tf.losses.Reduction.all() if r != tf.losses.Reduction.NONE]
    if loss_reduction not in valid:
        raise ValueError(
            f"Invalid loss_reduction: {loss_reduction}. See `tf.losses.Reduction` for "
            f"valid options: {valid}.")


def validate_n_classes(n_classes):
    """Checks a multi-class head's `n_classes` is above 2 (2 classes: BinaryClassHead).

    Raises:
        ValueError: If `n_classes` is a Python int <= 2.
    """
    if isinstance(n_classes, int) and n_classes <= 2:
        raise ValueError(
            f"n_classes must be > 2: {n_classes}. Use BinaryClassHead for 2 classes.")
    return n_classes


def validate_update_ops(update_ops=None) -> None:
    """Checks `update_ops` is None, a list or a tuple.

    Raises:
        ValueError: If it is of another type.
    """
    if update_ops is not None and not isinstance(update_ops, (list, tuple)):
        raise ValueError(
            f"update_ops should be a list or a tuple. Given type: {type(update_ops)}.")


def validate_v2_optimizer(optimizer) -> None:
    """Checks `optimizer` is a Keras optimizer (current or legacy).

    Raises:
        ValueError: If it is anything else, e.g. a `tf.compat.v1.train` optimizer.
    """
    kinds = (tf.keras.optimizers.Optimizer, tf.keras.optimizers.legacy.Optimizer)
    if not isinstance(optimizer, kinds):
        raise ValueError(
            "The given optimizer is not a tf.keras.optimizers.Optimizer instance. "
            f"Received optimizer of type {type(optimizer)}. A tf.compat.v1.train "
            "optimizer works through `train_op_fn` instead.")


def validate_trainable_variables(trainable_variables=None) -> None:
    """Checks the variables an optimizer is to update: a list or a tuple.

    Raises:
        ValueError: If they are None or of another type.
    """
    if trainable_variables is None:
        raise ValueError(
            f"trainable_variables cannot be None. Given {trainable_variables}")
    if not isinstance(trainable_variables, (list, tuple)):
        raise ValueError(
            "trainable_variables should be a list or a tuple. "
            f"Given type: {type(trainable_variables)}.")


def check_prediction_keys(pred_keys: Iterable[str], valid_keys: Iterable[str]) -> None:
    """Checks every key asked for is one the head predicts.

    Raises:
        ValueError: Naming the first unknown key and the valid ones.
    """
    valid_keys = list(valid_keys)
    for key in pred_keys:
        if key not in valid_keys:
            raise ValueError(
                f"Prediction key must be in PredictionKeys, given: {key}."
                f"Valid prediction keys include {valid_keys}.")


def call_loss_fn(loss_fn: Callable, labels: tf.Tensor, logits: tf.Tensor,
                 features: Optional[Mapping], expected_loss_dim: int = 1) -> tf.Tensor:
    """Calls a custom `loss_fn` and checks it returned [D0, ... DN, expected_loss_dim].

    Args:
        loss_fn: The custom loss function, `loss_fn(labels, logits[, features])`.
        labels: The labels tensor.
        logits: The logits tensor.
        features: The dict of feature tensors.
        expected_loss_dim: The last dimension the loss must have.

    Returns:
        The loss tensor, `[D0, ... DN, expected_loss_dim]`.

    Raises:
        ValueError: When executing eagerly and the loss has another shape (in a
            graph, a run-time assertion with the same message).
    """
    kwargs = {}
    if "features" in function_utils.fn_args(loss_fn):
        kwargs["features"] = features
    message = f"loss_fn must return Tensor of shape [D0, D1, ... DN, {expected_loss_dim}]. "
    with tf.name_scope("call_loss_fn"):
        unweighted_loss = loss_fn(labels=labels, logits=logits, **kwargs)
        if tf.executing_eagerly():
            loss_shape = tuple(unweighted_loss.shape.as_list())
            logits_shape = tuple(logits.shape.as_list())
            if loss_shape != logits_shape[:-1] + (expected_loss_dim,):
                raise ValueError(message, "logits_shape: ", logits_shape,
                                 "loss_shape: ", loss_shape)
            return unweighted_loss
        logits_shape = tf.compat.v1.shape(logits, name="logits_shape")
        expected = tf.concat([logits_shape[:-1], [expected_loss_dim]], axis=0,
                             name="expected_loss_shape")
        loss_shape = tf.compat.v1.shape(unweighted_loss, name="loss_shape")
        # Shapes of different ranks compare unequal (instead of broadcasting, or failing
        # to broadcast, the two shape vectors).
        same_shape = tf.logical_and(
            tf.equal(tf.size(loss_shape), tf.size(expected)),
            tf.reduce_all(tf.raw_ops.Equal(x=loss_shape, y=expected,
                                           incompatible_shape_error=False)))
        check = tf.debugging.Assert(
            same_shape,
            data=[message, "logits_shape: ", logits_shape, "loss_shape: ", loss_shape],
            name="check_loss_shape")
        with tf.control_dependencies([check]):
            return tf.identity(unweighted_loss)


def requested_prediction_keys(keys: Optional[Iterable[str]],
                              valid_keys: Iterable[str]) -> Iterable[str]:
    """`keys`, checked against `valid_keys`; all of `valid_keys` when `keys` is empty.

    Raises:
        ValueError: If a key is not in `valid_keys`.
    """
    if keys:
        check_prediction_keys(keys, valid_keys)
        return keys
    return valid_keys
