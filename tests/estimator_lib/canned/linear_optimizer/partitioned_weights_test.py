"""partitioned_weights: ids located in div-partitioned parts, gathered and updated."""

import tensorflow as tf

from estimator_lib.canned.linear_optimizer import partitioned_weights


class PartitionedWeightsTest(tf.test.TestCase):

    def test_gather_and_scatter_add_follow_div_partitioning(self):
        with tf.Graph().as_default(), self.session() as sess:
            # 5 rows in 2 parts: rows 0-2 and 3-4, as fixed_size_partitioner splits them.
            with tf.compat.v1.variable_scope(
                    "w", partitioner=tf.compat.v1.fixed_size_partitioner(2)):
                weights = tf.compat.v1.get_variable("weights", shape=[5, 1])
            self.assertTrue(partitioned_weights.is_partitioned(weights))
            self.assertEqual([3, 2], [p.shape[0] for p in weights])
            sess.run(tf.compat.v1.global_variables_initializer())
            first, second = list(weights)
            sess.run([first.assign([[0.], [1.], [2.]]), second.assign([[3.], [4.]])])
            ids = partitioned_weights.DivPartitionedIds(weights, tf.constant([4, 0, 2],
                                                                             tf.int64))
            self.assertAllClose([[4.], [0.], [2.]], sess.run(ids.gather(weights)))
            sess.run(ids.scatter_add(weights, tf.constant([[10.], [20.], [30.]])))
            self.assertAllClose([[20.], [1.], [32.], [3.], [14.]],
                                sess.run(partitioned_weights.as_tensors([weights])[0]))
            sess.run(partitioned_weights.split_assign_add(weights, tf.ones([5, 1])))
            self.assertAllClose([21., 2., 33., 4., 15.],
                                sess.run(tf.concat(list(weights), 0))[:, 0])

    def test_a_plain_variable_is_its_own_only_part(self):
        with tf.Graph().as_default():
            v = tf.Variable([1.0])
            self.assertFalse(partitioned_weights.is_partitioned(v))
            self.assertEqual([v], list(partitioned_weights.parts(v)))


if __name__ == "__main__":
    tf.test.main()
