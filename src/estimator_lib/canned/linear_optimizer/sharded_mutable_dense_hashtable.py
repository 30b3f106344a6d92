"""A mutable dense hash table split into shards by key: SDCA's per-example state.

Each shard is a `tf.lookup.experimental.DenseHashTable` named `<name>-<i>-of-<n>`,
saved in checkpoints under that name (`<name>-<i>-of-<n>-keys` / `-values`), as the
original's tables were. A key goes to shard `|key| mod n` (for vector keys, of their
first element).
"""

from typing import List, Tuple

import tensorflow as tf


class ShardedMutableDenseHashTable:
    """`num_shards` dense hash tables behind one lookup / insert / size interface.

    Args:
        key_dtype: The keys' dtype.
        value_dtype: The values' dtype.
        default_value: What `lookup` returns for a missing key (its shape is the
            value shape).
        empty_key: A key never inserted (marks empty buckets).
        deleted_key: Another key never inserted (marks deleted buckets).
        num_shards: How many tables.
        checkpoint: Whether the tables are saved and restored with the model.
        name: The tables' name prefix and name scope.
    """

    def __init__(self, key_dtype, value_dtype, default_value, empty_key, deleted_key,
                 num_shards: int = 1, checkpoint: bool = True,
                 name: str = "ShardedMutableHashTable"):
        self._key_dtype = key_dtype
        self._value_dtype = value_dtype
        with tf.compat.v1.name_scope(name, "sharded_mutable_hash_table") as scope:
            self._table_name = scope
            self._table_shards = [
                tf.lookup.experimental.DenseHashTable(
                    key_dtype=key_dtype, value_dtype=value_dtype,
                    default_value=default_value, empty_key=empty_key,
                    deleted_key=deleted_key, checkpoint=checkpoint,
                    name=f"{name}-{i + 1}-of-{num_shards}")
                for i in range(num_shards)]

    @property
    def name(self) -> str:
        """The name scope the tables were created in."""
        return self._table_name

    @property
    def table_shards(self) -> List[tf.lookup.experimental.DenseHashTable]:
        """The `DenseHashTable`s a key is sharded over, in shard order."""
        return self._table_shards

    @property
    def _num_shards(self) -> int:
        return len(self._table_shards)

    def size(self, name=None) -> tf.Tensor:
        """The number of keys over all shards."""
        with tf.compat.v1.name_scope(name, "sharded_mutable_hash_table_size"):
            return tf.math.add_n([shard.size() for shard in self._table_shards])

    def _shard_indices(self, keys: tf.Tensor) -> tf.Tensor:
        if keys.shape.ndims > 1:
            keys = tf.reshape(tf.slice(keys, [0, 0], [-1, 1]), [-1])
        return tf.cast(tf.math.floormod(tf.math.abs(keys), self._num_shards), tf.int32)

    def _check_keys(self, keys: tf.Tensor) -> None:  # pylint: disable=no-self-use
        if keys.shape.ndims not in (1, 2):
            raise ValueError(f"Expected a vector or matrix for keys, got {keys.shape}.")

    def lookup(self, keys: tf.Tensor, name=None) -> tf.Tensor:
        """The values of `keys` (the default value where missing), in the keys' order.

        Raises:
            TypeError: If `keys` are not of the table's key dtype.
            ValueError: If `keys` are neither a vector nor a matrix.
        """
        if keys.dtype.base_dtype != self._key_dtype:
            raise TypeError(f"Signature mismatch. Keys must be dtype {self._key_dtype}, "
                            f"got {keys.dtype}.")
        self._check_keys(keys)
        if self._num_shards == 1:
            return self._table_shards[0].lookup(keys, name=name)
        shard_of = self._shard_indices(keys)
        key_parts = tf.dynamic_partition(keys, shard_of, self._num_shards)
        value_parts = [shard.lookup(part, name=name)
                       for shard, part in zip(self._table_shards, key_parts)]
        # Put each shard's answers back at their keys' positions.
        positions = tf.dynamic_partition(
            tf.range(tf.compat.v1.shape(keys)[0]), shard_of, self._num_shards)
        return tf.dynamic_stitch(positions, value_parts)

    def insert(self, keys: tf.Tensor, values: tf.Tensor, name=None) -> tf.Operation:
        """Sets `values` for `keys` (one row of values per key).

        Args:
            keys: The int64 keys, `[n, 2]` fingerprints.
            values: The float rows to store, `[n, value size]`.
            name: The op's name, or None.

        Returns:
            The op that inserts them.
        """
        self._check_keys(keys)
        if self._num_shards == 1:
            return self._table_shards[0].insert(keys, values, name=name)
        shard_of = self._shard_indices(keys)
        key_parts = tf.dynamic_partition(keys, shard_of, self._num_shards)
        value_parts = tf.dynamic_partition(values, shard_of, self._num_shards)
        return tf.group(*[shard.insert(k, v, name=name) for shard, k, v in
                          zip(self._table_shards, key_parts, value_parts)])

    def export_sharded(self, name=None) -> Tuple[List[tf.Tensor], List[tf.Tensor]]:
        """([keys of each shard], [values of each shard]), empty buckets included."""
        exported = [shard.export(name=name) for shard in self._table_shards]
        return [keys for keys, _ in exported], [values for _, values in exported]


# The original module's name for the class (code importing its module path uses it).
_ShardedMutableDenseHashTable = ShardedMutableDenseHashTable
