"""Shape and range checks on the logits, labels and weights a head receives.

Each check raises `ValueError` when the problem is visible in the static shapes
(always so when executing eagerly) and otherwise adds a run-time assertion, so
that graphs with unknown batch sizes still fail with the same message.
"""

from typing import Any, Mapping, Optional

import tensorflow as tf
from tensorflow.python.feature_column import feature_column_lib
from tensorflow.python.feature_column.feature_column import _LazyBuilder
from tensorflow.python.feature_column.feature_column import _NumericColumn

LABEL_NONE_ERR_MSG = (
    "You must provide a labels Tensor. Given: None. "
    "Suggested troubleshooting steps: Check that your data contains your label "
    "feature. Check that your input_fn properly parses and returns labels.")

_SPARSE_LABEL_ERR_MSG = (
    "SparseTensor labels are not supported. Labels must be a Tensor of shape "
    "[D0, D1, ..., DN, {0}], e.g. [batch_size, {0}]. Suggested Fix (1): Check the "
    "label feature in your data: each example must contain {0} value(s). "
    "Suggested Fix (2): In your input_fn, use tf.sparse.to_dense() to turn labels "
    "into a Tensor.")

_MISMATCHED_LABEL_DIM_ERR_MSG = (
    "Mismatched label shape. Expected labels dimension={}.  Received {}. "
    "Suggested Fix: If your classifier expects one-hot encoding label, check "
    "your n_classes argument to the estimator and/or the shape of your label. "
    "Otherwise, check the shape of your label.")

_LABEL_SHAPE_ERR_MSG = (
    "labels shape must be [D0, D1, ... DN, {}]. Suggested Fix: check your "
    "n_classes argument to the head and/or the shape of your label.")

_LOGITS_SHAPE_ERR_MSG = "logits shape must be [D0, D1, ... DN, logits_dimension]"


def _static_shape(tensor: tf.Tensor) -> Optional[tuple]:
    """The fully known static shape as a tuple, else None."""
    if tensor.shape.rank is None or not tensor.shape.is_fully_defined():
        return None
    return tuple(tensor.shape.as_list())


def check_logits_final_dim(logits: Any, expected_logits_dimension: int) -> tf.Tensor:
    """Casts `logits` to float32 and checks its shape is [D0, ... DN, logits_dimension].

    Raises:
        ValueError: If the rank is below 2 (eager) or the static last dimension is
            not `expected_logits_dimension`.
    """
    with tf.name_scope("logits"):
        logits = tf.cast(logits, tf.float32)
        if tf.executing_eagerly():
            shape = tuple(logits.shape.as_list())
            if len(shape) < 2:
                raise ValueError(
                    f"logits must have rank at least 2.  Received rank {len(shape)}, "
                    f"shape {shape}")
            if isinstance(expected_logits_dimension, int) and (
                    shape[-1] != expected_logits_dimension):
                raise ValueError(f"{_LOGITS_SHAPE_ERR_MSG}, got {shape}.")
            return logits
        logits_shape = tf.compat.v1.shape(logits)
        assert_rank = tf.compat.v1.debugging.assert_rank_at_least(
            logits, 2, data=[logits_shape], message=_LOGITS_SHAPE_ERR_MSG)
        with tf.control_dependencies([assert_rank]):
            static = logits.shape
            if static.rank is not None and static[-1] is not None:
                if isinstance(expected_logits_dimension, int) and (
                        static[-1] != expected_logits_dimension):
                    raise ValueError(f"{_LOGITS_SHAPE_ERR_MSG}, got {static}.")
                return logits
            assert_dim = tf.compat.v1.debugging.assert_equal(
                expected_logits_dimension, logits_shape[-1], data=[logits_shape],
                message=_LOGITS_SHAPE_ERR_MSG)
            with tf.control_dependencies([assert_dim]):
                return tf.identity(logits)


def check_dense_labels_match_logits_and_reshape(
        labels: Any, logits: tf.Tensor, expected_labels_dimension: int) -> tf.Tensor:
    """Checks that labels are [D0, ... DN, expected_labels_dimension] like `logits`.

    Labels of shape [D0, ... DN] are expanded to [D0, ... DN, 1].

    Args:
        labels: The labels tensor.
        logits: The logits tensor.
        expected_labels_dimension: The last dimension labels must have.

    Returns:
        The labels, `[D0, ... DN, expected_labels_dimension]`.

    Raises:
        ValueError: If `labels` is None or sparse, or its static shape does not fit.
    """
    if labels is None:
        raise ValueError(LABEL_NONE_ERR_MSG)
    with tf.name_scope("labels"):
        labels = tf.compat.v1.convert_to_tensor_or_sparse_tensor(labels)
        if isinstance(labels, tf.SparseTensor):
            raise ValueError(_SPARSE_LABEL_ERR_MSG.format(expected_labels_dimension))
        if (labels.shape.rank is not None and logits.shape.rank is not None
                and labels.shape.rank == logits.shape.rank - 1):
            labels = tf.expand_dims(labels, -1)
        if tf.executing_eagerly():
            return _check_labels_eagerly(labels, logits, expected_labels_dimension)
        assert_rank = tf.compat.v1.debugging.assert_rank_at_least(
            labels, 2, message=_LABEL_SHAPE_ERR_MSG.format(expected_labels_dimension))
        with tf.control_dependencies([assert_rank]):
            static = labels.shape
            if static.rank is not None and static[-1] is not None and (
                    static[-1] != expected_labels_dimension):
                raise ValueError(_MISMATCHED_LABEL_DIM_ERR_MSG.format(
                    expected_labels_dimension, static[-1]))
            expected_shape = tf.concat(
                [tf.compat.v1.shape(logits)[:-1], [expected_labels_dimension]], axis=0)
            labels_shape = tf.compat.v1.shape(labels)
            assert_shape = tf.compat.v1.debugging.assert_equal(
                expected_shape, labels_shape,
                message=_LABEL_SHAPE_ERR_MSG.format(expected_labels_dimension),
                data=["expected_labels_shape: ", expected_shape,
                      "labels_shape: ", labels_shape])
            with tf.control_dependencies([assert_shape]):
                return tf.identity(labels)


def _check_labels_eagerly(labels, logits, expected_labels_dimension):
    labels_shape = tuple(labels.shape.as_list())
    if len(labels_shape) < 2:
        raise ValueError(
            f"labels must have rank at least 2.  Received rank {len(labels_shape)}, "
            f"shape {labels_shape}")
    if labels_shape[-1] != expected_labels_dimension:
        raise ValueError(_MISMATCHED_LABEL_DIM_ERR_MSG.format(
            expected_labels_dimension, labels_shape[-1]))
    expected_shape = tuple(logits.shape.as_list())[:-1] + (expected_labels_dimension,)
    if expected_shape != labels_shape:
        raise ValueError(
            f"{_LABEL_SHAPE_ERR_MSG.format(expected_labels_dimension)}, "
            f"expected_labels_shape: {expected_shape}. labels_shape: {labels_shape}.")
    return labels


def _weights_tensor(features: Mapping, weight_column) -> tf.Tensor:
    if isinstance(weight_column, str):
        weight_column = tf.feature_column.numeric_column(key=weight_column, shape=(1,))
    if not isinstance(weight_column, (feature_column_lib.NumericColumn, _NumericColumn)):
        raise TypeError(
            "Weight column must be either a string or NumericColumn. "
            f"Given type: {type(weight_column)}.")
    # The v1 column API reads (and transforms) the raw feature, as the original did.
    builder = _LazyBuilder(features)
    weights = weight_column._get_dense_tensor(builder)  # pylint: disable=protected-access
    if not (weights.dtype.is_floating or weights.dtype.is_integer):
        raise ValueError(
            f"Weight column should be castable to float. Given dtype: {weights.dtype}")
    return tf.cast(weights, tf.float32, name="weights")


def get_weights_and_check_match_logits(features: Mapping, weight_column, logits: tf.Tensor,
                                       allow_per_logit_weights: bool = False):
    """Reads the example weights from `features` and checks their shape against `logits`.

    Weights may be [D0, ... DN] (expanded to [D0, ... DN, 1]), [D0, ... DN, 1], or,
    with `allow_per_logit_weights`, [D0, ... DN, logits_dimension].

    Args:
        features: The dict of feature tensors.
        weight_column: A feature key, or a `NumericColumn`, of the example weights; or None.
        logits: The logits tensor.
        allow_per_logit_weights: Whether weights may have one value per logit.

    Returns:
        The float32 weights, or the Python float 1. when `weight_column` is None.

    Raises:
        TypeError: If `weight_column` is neither a string nor a NumericColumn.
        ValueError: If the weights are not numeric, or their static shape does not fit.
    """
    if allow_per_logit_weights:
        err_msg = ("weights shape must be [D0, D1, ... DN], [D0, D1, ... DN, 1] or "
                   "[D0, D1, ... DN, logits_dimension]")
    else:
        err_msg = "weights shape must be [D0, D1, ... DN] or [D0, D1, ... DN, 1]"
    if weight_column is None:
        return 1.
    with tf.name_scope("weights"):
        weights = _weights_tensor(features, weight_column)
        per_example = (weights.shape.rank is not None and logits.shape.rank is not None
                       and weights.shape.rank == logits.shape.rank - 1)
        if tf.executing_eagerly():
            weights_shape = tuple(weights.shape.as_list())
            logits_shape = tuple(logits.shape.as_list())
            allowed = [logits_shape[:-1]] if per_example else [logits_shape[:-1] + (1,)]
            if allow_per_logit_weights and not per_example:
                allowed.append(logits_shape)
            if weights_shape not in allowed:
                raise ValueError(
                    f"{err_msg}, logits_shape: {logits_shape}. weights_shape: {weights_shape}.")
            return tf.expand_dims(weights, -1) if per_example else weights
        weights_shape = tf.compat.v1.shape(weights, name="weights_shape")
        logits_shape = tf.compat.v1.shape(logits, name="logits_shape")
        data = ["logits_shape: ", logits_shape, "weights_shape: ", weights_shape]
        if per_example:
            check = tf.compat.v1.debugging.assert_equal(
                logits_shape[:-1], weights_shape, message=err_msg, data=data)
            with tf.control_dependencies([check]):
                return tf.expand_dims(weights, -1)
        per_example_shape = tf.concat([logits_shape[:-1], [1]], axis=0)
        if allow_per_logit_weights:
            fits = tf.reduce_any([
                tf.reduce_all(tf.equal(logits_shape, weights_shape)),
                tf.reduce_all(tf.equal(per_example_shape, weights_shape))])
            check = tf.debugging.Assert(fits, data=[err_msg] + data)
        else:
            check = tf.compat.v1.debugging.assert_equal(
                per_example_shape, weights_shape, message=err_msg, data=data)
        with tf.control_dependencies([check]):
            return tf.identity(weights)


def check_label_range(labels: tf.Tensor, n_classes: int,
                      message: Optional[str] = None) -> tf.Tensor:
    """Checks that every label lies in [0, n_classes).

    Args:
        labels: The labels tensor.
        n_classes: The number of classes.
        message: The error message; None for a default one.

    Returns:
        The labels, with a range assertion when in a graph.

    Raises:
        ValueError: When executing eagerly and a label is out of range.
    """
    with tf.name_scope("check_label_range"):
        if tf.executing_eagerly():
            if not tf.reduce_all(labels <= n_classes - 1):
                raise ValueError(message or f"Labels must be <= {n_classes} - 1")
            if not tf.reduce_all(labels >= 0):
                raise ValueError(message or "Labels must be >= 0")
            return labels
        assert_less = tf.compat.v1.debugging.assert_less_equal(
            labels, tf.convert_to_tensor(n_classes - 1, dtype=labels.dtype),
            message=message or "Labels must be <= n_classes - 1")
        assert_non_negative = tf.compat.v1.debugging.assert_non_negative(
            labels, message=message or "Labels must be >= 0")
        with tf.control_dependencies((assert_less, assert_non_negative)):
            return tf.identity(labels)
