"""Picks the classification head the canned classifiers use for n_classes."""

from typing import Optional, Sequence

import tensorflow as tf

from estimator_lib.head.binary_class_head import BinaryClassHead
from estimator_lib.head.multi_class_head import MultiClassHead


def binary_or_multi_class_head(n_classes: int, weight_column,
                               label_vocabulary: Optional[Sequence[str]],
                               loss_reduction: str = tf.losses.Reduction.SUM_OVER_BATCH_SIZE):
    """BinaryClassHead when n_classes is 2, else MultiClassHead(n_classes).

    Args:
        n_classes: The number of classes.
        weight_column: A feature key, or a `NumericColumn`, of the example weights; or None.
        label_vocabulary: The class names in class-id order, or None.
        loss_reduction: How the per-example losses are reduced over the batch.

    Returns:
        A `BinaryClassHead` or `MultiClassHead`.

    Raises:
        ValueError: As the heads do, e.g. for n_classes < 2 or a bad vocabulary.
    """
    if n_classes == 2:
        return BinaryClassHead(weight_column=weight_column, label_vocabulary=label_vocabulary,
                               loss_reduction=loss_reduction)
    return MultiClassHead(n_classes, weight_column=weight_column,
                          label_vocabulary=label_vocabulary, loss_reduction=loss_reduction)
