"""Picks the classification head the canned classifiers use for n_classes."""

from typing import Optional, Sequence

import tensorflow as tf

from estimator_lib.head.binary_class_head import BinaryClassHead
from estimator_lib.head.multi_class_head import MultiClassHead
# The original module's test helpers, at its path (head tests import them).
from estimator_lib.head.test_helpers import (  # noqa: F401
    _DEFAULT_SERVING_KEY, _assert_no_hooks, _assert_simple_summaries, _initialize_variables)


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
