"""SdcaModel: converges to the regularized optimum, shrinks with L1, keeps the original's names."""

from absl.testing import parameterized
import numpy as np
import tensorflow as tf

from estimator_lib.canned.linear_optimizer import sdca_ops


def _examples(labels, weights=None):
    """One sparse feature per example (example i has feature i, value 1)."""
    n = len(labels)
    return dict(
        sparse_features=[sdca_ops.SparseFeatureColumn(list(range(n)), list(range(n)),
                                                      [1.0] * n)],
        dense_features=[], example_labels=labels,
        example_weights=weights or [1.0] * n, example_ids=[str(i) for i in range(n)])


def _options(loss_type, l1=0.0, l2=1.0, **kwargs):
    return dict(loss_type=loss_type, symmetric_l1_regularization=l1,
                symmetric_l2_regularization=l2, **kwargs)


def _train(sess, model, steps):
    train_op = model.update_weights(model.minimize())
    sess.run(tf.compat.v1.global_variables_initializer())
    for _ in range(steps):
        sess.run(train_op)


class SdcaModelTest(tf.test.TestCase, parameterized.TestCase):

    @parameterized.parameters(None, 1, 3)
    def test_squared_loss_reaches_the_ridge_solution(self, num_table_shards):
        labels = [-10.0, 14.0]
        l2 = 1.0
        with tf.Graph().as_default(), self.session() as sess:
            weights = tf.compat.v1.Variable(tf.zeros([2]), name="w")
            examples = _examples(labels)
            model = sdca_ops.SdcaModel(
                examples, dict(sparse_features_weights=[weights], dense_features_weights=[]),
                _options("squared_loss", l2=l2, num_table_shards=num_table_shards))
            _train(sess, model, 20)
            # min_w [sum_i (y_i - w_i)^2 / 2 + l2 * |w|^2 / 2] / sum(example weights),
            # here one coordinate per example.
            expected = np.array(labels) / (1.0 + l2)
            self.assertAllClose(expected, sess.run(model.predictions(examples)), atol=1e-3)
            self.assertAllClose(0.0, sess.run(model.approximate_duality_gap()), atol=1e-3)
            unregularized = np.mean((np.array(labels) - expected) ** 2) / 2
            self.assertAllClose(unregularized, sess.run(model.unregularized_loss(examples)),
                                rtol=1e-3)
            self.assertAllClose(unregularized + l2 * np.sum(expected ** 2) / 2 / 2,
                                sess.run(model.regularized_loss(examples)), rtol=1e-3)

    def test_logistic_loss_separates_and_l1_shrinks(self):
        with tf.Graph().as_default(), self.session() as sess:
            weights = tf.compat.v1.Variable(tf.zeros([2]), name="w")
            bias = tf.compat.v1.Variable(tf.zeros([1]), name="b")
            examples = dict(_examples([0.0, 1.0]),
                            dense_features=[tf.ones([2, 1])])
            variables = dict(sparse_features_weights=[weights], dense_features_weights=[bias])
            model = sdca_ops.SdcaModel(examples, variables,
                                       _options("logistic_loss", l1=0.05, l2=0.5))
            _train(sess, model, 30)
            probabilities = sess.run(model.predictions(examples))
            self.assertLess(probabilities[0], 0.4)
            self.assertGreater(probabilities[1], 0.6)
            # The weights are their unshrunk slots moved l1 / l2 towards zero.
            slot, = [v for v in tf.compat.v1.global_variables()
                     if v.op.name == "w_unshrunk"]
            slot = sess.run(slot)
            shrunk = np.sign(slot) * np.maximum(0.0, np.abs(slot) - 0.1)
            self.assertAllClose(shrunk, sess.run(weights))
            self.assertGreater(np.abs(slot - shrunk).min(), 0.09)

    def test_slots_and_table_have_the_originals_names(self):
        with tf.Graph().as_default():
            with tf.compat.v1.variable_scope("linear"):
                weights = tf.compat.v1.get_variable("w", [2], initializer=tf.zeros_initializer())
            sdca_ops.SdcaModel(
                _examples([0.0, 1.0]),
                dict(sparse_features_weights=[weights], dense_features_weights=[]),
                _options("logistic_loss"))
            self.assertIn("linear/w_unshrunk",
                          [v.op.name for v in tf.compat.v1.global_variables()])
            self.assertEqual(["ShardedMutableHashTable-1-of-1"], [
                s.name for s in tf.compat.v1.get_collection(
                    tf.compat.v1.GraphKeys.SAVEABLE_OBJECTS)])

    def test_bad_options_are_refused(self):
        with tf.Graph().as_default():
            variables = dict(sparse_features_weights=[tf.Variable([0.0, 0.0])],
                             dense_features_weights=[])
            for options, message in (
                    (_options("hubert_loss"), "Unsupported loss_type"),
                    (_options("squared_loss", l2=0.0), "l2_regularization should be positive"),
                    (_options("squared_loss", l1=-1.0), "l1_regularization should be non-")):
                with self.assertRaisesRegex(ValueError, message):
                    sdca_ops.SdcaModel(_examples([1.0, 2.0]), variables, options)
            with self.assertRaisesRegex(ValueError, "dense_features must be a list"):
                sdca_ops.SdcaModel(dict(_examples([1.0]), dense_features=()), variables,
                                   _options("squared_loss"))


if __name__ == "__main__":
    tf.test.main()
