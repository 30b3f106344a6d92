"""ShardedMutableDenseHashTable: lookups across shards, sizes, export, checkpoint names."""

import tensorflow as tf

from estimator_lib.canned.linear_optimizer.sharded_mutable_dense_hashtable import (
    ShardedMutableDenseHashTable)


def _table(num_shards, value_dtype=tf.int64, default=-1, empty=0, deleted=-1):
    return ShardedMutableDenseHashTable(tf.int64, value_dtype, default, empty, deleted,
                                        num_shards=num_shards)


class ShardedMutableDenseHashTableTest(tf.test.TestCase):

    def test_lookup_finds_inserted_keys_in_any_number_of_shards(self):
        for num_shards in (1, 3):
            with tf.Graph().as_default(), self.session() as sess:
                table = _table(num_shards)
                sess.run(table.insert(tf.constant([11, 12, 13], tf.int64),
                                      tf.constant([0, 1, 2], tf.int64)))
                found = table.lookup(tf.constant([13, 14, 11], tf.int64))
                self.assertEqual([3], found.shape.as_list())
                self.assertAllEqual([2, -1, 0], sess.run(found))
                self.assertEqual(3, sess.run(table.size()))

    def test_vector_keys_shard_by_their_first_element(self):
        with tf.Graph().as_default(), self.session() as sess:
            table = _table(2, tf.float32, [-0.1, 0.2], [0, 1], [1, 0])
            keys = tf.constant([[11, 12], [13, 14], [16, 15]], tf.int64)
            sess.run(table.insert(keys, tf.constant([[1., 2.], [3., 4.], [5., 6.]])))
            self.assertAllClose([[5., 6.], [-0.1, 0.2], [1., 2.]], sess.run(table.lookup(
                tf.constant([[16, 15], [11, 14], [11, 12]], tf.int64))))
            key_parts, _ = table.export_sharded()
            odd = {tuple(k) for k in sess.run(key_parts[1]).tolist()}
            self.assertTrue({(11, 12), (13, 14)} <= odd)
            self.assertNotIn((16, 15), odd)

    def test_checkpoint_names_are_the_originals(self):
        with tf.Graph().as_default():
            table = _table(2)
            names = sorted(s.name for s in tf.compat.v1.get_collection(
                tf.compat.v1.GraphKeys.SAVEABLE_OBJECTS))
            self.assertEqual(["ShardedMutableHashTable-1-of-2",
                              "ShardedMutableHashTable-2-of-2"], names)
            self.assertEqual(2, len(table.table_shards))

    def test_bad_keys_are_refused(self):
        with tf.Graph().as_default():
            table = _table(2)
            with self.assertRaisesRegex(TypeError, "Keys must be dtype"):
                table.lookup(tf.constant([1], tf.int32))
            with self.assertRaisesRegex(ValueError, "vector or matrix"):
                table.insert(tf.constant(1, tf.int64), tf.constant(1, tf.int64))


if __name__ == "__main__":
    tf.test.main()
