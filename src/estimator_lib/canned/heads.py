"""The heads the canned classifiers and regressors build, from `estimator_lib.head`.

v2 classes take the `tf.estimator.*Head` classes (loss reduced with
SUM_OVER_BATCH_SIZE by default); v1 classes the v1-semantics heads of
`make_v1_head` / `make_v1_regression_head` (SUM by default).
"""

import tensorflow as tf


def _head_lib():
    # Imported when an estimator is built, so the canned modules import on
    # their own (and the two packages can evolve apart).
    from estimator_lib import head  # pylint: disable=g-import-not-at-top
    return head


def _check_n_classes(n_classes) -> None:
    if isinstance(n_classes, bool) or not isinstance(n_classes, int) or n_classes < 2:
        raise ValueError(
            f"n_classes must be > 1 for classification: {n_classes}. Use "
            "`n_classes=2` (the default) for binary labels.")


def classifier_head_v2(n_classes, *, weight_column, label_vocabulary,
                       loss_reduction=tf.losses.Reduction.SUM_OVER_BATCH_SIZE):
    """BinaryClassHead for 2 classes, MultiClassHead above.

    Args:
        n_classes: How many classes (2 gives a binary head).
        weight_column: A feature key, or numeric column, of the example weights; or None.
        label_vocabulary: The string labels in class-id order, or None.
        loss_reduction: How the per-example losses are reduced over the batch.

    Returns:
        A `BinaryClassHead` or `MultiClassHead`.
    """
    _check_n_classes(n_classes)
    head = _head_lib()
    if n_classes == 2:
        return head.BinaryClassHead(weight_column=weight_column,
                                    label_vocabulary=label_vocabulary,
                                    loss_reduction=loss_reduction)
    return head.MultiClassHead(n_classes, weight_column=weight_column,
                               label_vocabulary=label_vocabulary,
                               loss_reduction=loss_reduction)


def regression_head_v2(*, label_dimension, weight_column,
                       loss_reduction=tf.losses.Reduction.SUM_OVER_BATCH_SIZE):
    """The v2 canned regressors' head: a `RegressionHead`.

    Args:
        label_dimension: How many regression targets each example has.
        weight_column: A feature key, or numeric column, of the example weights; or None.
        loss_reduction: How the per-example losses are reduced over the batch.

    Returns:
        A `RegressionHead`.
    """
    return _head_lib().RegressionHead(label_dimension=label_dimension,
                                      weight_column=weight_column,
                                      loss_reduction=loss_reduction)


def classifier_head_v1(n_classes, *, weight_column, label_vocabulary,
                       loss_reduction=tf.compat.v1.losses.Reduction.SUM):
    """The v1 canned classifiers' head: binary logistic for 2 classes, multi-class above.

    Args:
        n_classes: How many classes (2 gives a binary head).
        weight_column: A feature key, or numeric column, of the example weights; or None.
        label_vocabulary: The string labels in class-id order, or None.
        loss_reduction: How the per-example losses are reduced over the batch.

    Returns:
        A v1 head.

    Raises:
        ValueError: If `n_classes` is not an int above 1.
    """
    _check_n_classes(n_classes)
    return _head_lib().make_v1_head(n_classes, weight_column=weight_column,
                                    label_vocabulary=label_vocabulary,
                                    loss_reduction=loss_reduction)


def regression_head_v1(*, label_dimension, weight_column,
                       loss_reduction=tf.compat.v1.losses.Reduction.SUM):
    """The v1 canned regressors' head.

    Args:
        label_dimension: How many regression targets each example has.
        weight_column: A feature key, or numeric column, of the example weights; or None.
        loss_reduction: How the per-example losses are reduced over the batch.

    Returns:
        A v1 regression head.
    """
    return _head_lib().make_v1_regression_head(weight_column=weight_column,
                                               label_dimension=label_dimension,
                                               loss_reduction=loss_reduction)
