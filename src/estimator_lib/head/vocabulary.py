"""Label vocabulary lookups (string label <-> class id) for classification heads.

In a graph the tables are made on each call, so that they live in the graph that
uses them (the Estimator builds a new graph for train, evaluate and predict);
when executing eagerly one table per head is kept.
"""

from typing import Optional, Sequence

import tensorflow as tf
from tensorflow.python.ops import lookup_ops


def check_label_vocabulary(label_vocabulary, n_classes: Optional[int] = None) -> None:
    """Checks `label_vocabulary` is None or a list/tuple (of `n_classes` items).

    Raises:
        ValueError: If it is another type, or has the wrong length.
    """
    if label_vocabulary is None:
        return
    if not isinstance(label_vocabulary, (list, tuple)):
        raise ValueError(
            "label_vocabulary should be a list or a tuple. "
            f"Given type: {type(label_vocabulary)}")
    if n_classes is not None and len(label_vocabulary) != n_classes:
        raise ValueError(
            '"label_vocabulary" does not have "n_classes" items. '
            f"len(label_vocabulary)={len(label_vocabulary)}, n_classes={n_classes}, "
            f"label_vocabulary={label_vocabulary}")


class Vocabulary:
    """Maps string labels to ids and ids back to strings for one head."""

    def __init__(self, label_vocabulary: Sequence[str]):
        self._vocabulary = tuple(label_vocabulary)
        self._eager_tables = {}

    def _table(self, kind: str):
        if tf.executing_eagerly() and kind in self._eager_tables:
            return self._eager_tables[kind]
        if kind == "id":
            table = lookup_ops.index_table_from_tensor(
                vocabulary_list=self._vocabulary, name="class_id_lookup")
        else:
            table = lookup_ops.index_to_string_table_from_tensor(
                vocabulary_list=self._vocabulary, name="class_string_lookup")
        if tf.executing_eagerly():
            self._eager_tables[kind] = table
        return table

    def ids(self, labels: tf.Tensor) -> tf.Tensor:
        """int64 class ids of string `labels`; -1 for a string not in the vocabulary."""
        return self._table("id").lookup(labels)

    def strings(self, class_ids: tf.Tensor) -> tf.Tensor:
        """The vocabulary strings of int64 `class_ids`."""
        return self._table("string").lookup(class_ids)


class LabelVocabularyOf:
    """A head's `_vocabulary`: the Vocabulary of its `_label_vocabulary` as read now
    (None without one), so a vocabulary replaced on a built head is obeyed, as the
    original's heads, which read `_label_vocabulary` at each call. One Vocabulary is
    kept per head and vocabulary, for its eager tables."""

    def __get__(self, head, owner=None):
        if head is None:
            return self
        labels = head._label_vocabulary  # pylint: disable=protected-access
        if not labels:
            return None
        kept = vars(head).get("_vocabulary_kept")
        if kept is None or kept._vocabulary != tuple(labels):  # pylint: disable=protected-access
            kept = vars(head)["_vocabulary_kept"] = Vocabulary(labels)
        return kept

