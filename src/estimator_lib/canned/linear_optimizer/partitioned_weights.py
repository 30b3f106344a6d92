"""Weights split along their first axis into parts: gather rows, scatter row updates.

The SDCA solver reads and updates a sparse feature's weight rows by feature id. When
that feature's weights are partitioned (a `PartitionedVariable` or a list of parts
from a partitioner), ids map to parts by "div" partitioning, the layout TensorFlow's
fixed-size and min-max partitioners produce: the first `total % n` parts hold
`total // n + 1` rows, the others `total // n`.
"""

from typing import List, Sequence

import tensorflow as tf
# PartitionedVariable, what get_variable returns under a partitioner, has no public
# name to test against; the SDCA weights may be one.
# pylint: disable=g-direct-tensorflow-import
from tensorflow.python.ops import variables as tf_variables
# pylint: enable=g-direct-tensorflow-import


def is_partitioned(weights) -> bool:
    """Whether `weights` is a list of parts or a PartitionedVariable."""
    return isinstance(weights, (list, tf_variables.PartitionedVariable))


def parts(weights) -> Sequence:
    """The parts of partitioned `weights`, else `[weights]`."""
    return weights if is_partitioned(weights) else [weights]


def as_tensors(values: Sequence) -> List[tf.Tensor]:
    """Each item as one tensor; partitioned weights are concatenated along axis 0."""
    return [tf.convert_to_tensor(tf.concat(list(v), axis=0) if is_partitioned(v) else v)
            for v in values]


def _first_dimension(weights, ids_dtype) -> tf.Tensor:
    """The rows of all parts together: a constant when every part's shape is known."""
    static = [tf.compat.dimension_value(w.shape[0]) for w in weights]
    if all(size is not None for size in static):
        return tf.constant(sum(static), ids_dtype)
    sizes = []
    for w, size in zip(weights, static):
        if size is not None:
            sizes.append(size)
        else:
            with tf.compat.v1.colocate_with(w):
                sizes.append(tf.compat.v1.shape(w)[0])
    return tf.math.reduce_sum(tf.cast(tf.stack(sizes), ids_dtype))


class DivPartitionedIds:
    """Feature ids of the whole weight matrix, located in `weights`' parts.

    Args:
        weights: The parts (a list or a PartitionedVariable).
        ids: 1-D int64 ids into the rows of the whole matrix.
    """

    def __init__(self, weights, ids: tf.Tensor):
        self.num_partitions = len(weights)
        flat_ids = tf.reshape(ids, [-1])
        total = _first_dimension(weights, flat_ids.dtype)
        per_part = total // self.num_partitions
        extras = total % self.num_partitions
        # Parts below `extras` hold one row more: an id's part is whichever formula is
        # larger, its row within the part follows.
        part_of = tf.math.maximum(flat_ids // (per_part + 1), (flat_ids - extras) // per_part)
        rows = tf.where(part_of < extras, flat_ids % (per_part + 1),
                        (flat_ids - extras) % per_part)
        self.part_of = tf.cast(part_of, tf.int32)
        self.rows_by_part = tf.dynamic_partition(rows, self.part_of, self.num_partitions)
        self._positions = tf.dynamic_partition(
            tf.range(tf.compat.v1.shape(rows)[0]), self.part_of, self.num_partitions)

    def gather(self, weights) -> tf.Tensor:
        """The rows of `weights` at the ids, in the ids' order."""
        gathered = []
        for w, rows in zip(weights, self.rows_by_part):
            with tf.compat.v1.colocate_with(w):
                gathered.append(tf.compat.v1.gather(w, rows))
        return tf.dynamic_stitch(self._positions, gathered)

    def scatter_add(self, weights, updates: tf.Tensor) -> List[tf.Operation]:
        """Adds `updates` (one row per id) to the rows of `weights` at the ids."""
        update_parts = tf.dynamic_partition(updates, self.part_of, self.num_partitions)
        ops = []
        for w, rows, update in zip(weights, self.rows_by_part, update_parts):
            with tf.compat.v1.colocate_with(w):
                ops.append(tf.compat.v1.scatter_add(w, rows, update))
        return ops


def split_assign_add(weights, update: tf.Tensor) -> List[tf.Operation]:
    """Adds a whole-matrix `update` to partitioned `weights`, part by part."""
    sizes = [w.shape.as_list()[0] for w in weights]
    return [tf.compat.v1.assign_add(w, piece)
            for w, piece in zip(weights, tf.split(update, num_or_size_splits=sizes))]
