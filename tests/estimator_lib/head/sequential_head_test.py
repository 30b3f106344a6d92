"""SequentialHeadWrapper: a static head over the unpadded steps of each sequence."""

import tensorflow as tf

from estimator_lib.head import BinaryClassHead
from estimator_lib.head import MultiClassHead
from estimator_lib.head import MultiHead
from estimator_lib.head import sequential_head
from estimator_lib.core.model_fn import ModeKeys


def _run(tensors):
    with tf.compat.v1.Session() as sess:
        sess.run([tf.compat.v1.global_variables_initializer(),
                  tf.compat.v1.local_variables_initializer()])
        return sess.run(tensors)


class FlattenTest(tf.test.TestCase):

    def test_dense_tensor_keeps_the_masked_steps(self):
        with tf.Graph().as_default():
            mask = tf.constant([[1, 1, 0], [1, 0, 0]])
            flat = sequential_head._flatten_tensor(
                tf.constant([[1., 2., 3.], [4., 5., 6.]]), mask, tf.constant(3))
            self.assertAllEqual([[1.], [2.], [4.]], _run(flat))

    def test_sparse_tensor_gives_its_values_in_index_order(self):
        with tf.Graph().as_default():
            sparse = tf.SparseTensor(indices=[[1, 0], [0, 1], [0, 0]], values=[4., 2., 1.],
                                     dense_shape=[2, 3])
            flat = sequential_head._flatten_tensor(sparse, tf.constant([[1, 1, 0], [1, 0, 0]]),
                                                   tf.constant(3))
            self.assertAllEqual([[1.], [2.], [4.]], _run(flat))

    def test_length_other_than_the_mask_fails_at_run_time(self):
        with tf.Graph().as_default():
            flat = sequential_head._flatten_tensor(
                tf.constant([[1., 2.], [3., 4.]]), tf.constant([[1, 1], [1, 0]]), tf.constant(4))
            with self.assertRaisesRegex(tf.errors.InvalidArgumentError,
                                        "Tensor shape is incompatible with provided mask"):
                _run(flat)

    def test_one_dimensional_tensor_is_refused(self):
        with tf.Graph().as_default():
            with self.assertRaisesRegex(ValueError, "at least 2 dimensions, got 1"):
                sequential_head._flatten_tensor(tf.constant([1., 2.]), tf.constant([[1, 1]]),
                                                tf.constant(2))

    def test_missing_mask_names_the_keys_found(self):
        head = sequential_head.SequentialHeadWrapper(BinaryClassHead(), "mask")
        with tf.Graph().as_default():
            with self.assertRaisesRegex(ValueError, r"`mask` .* Found keys: \['x'\]"):
                head.loss(logits=tf.zeros([1, 2, 1]), labels=tf.zeros([1, 2]),
                          features={"x": tf.zeros([1, 2])})


class SequentialHeadWrapperTest(tf.test.TestCase):

    def _features(self):
        return {"mask": tf.constant([[1, 1], [1, 0]]),
                "w": tf.constant([[0.5, 0.2], [0.3, 9.0]])}

    def test_loss_is_the_static_heads_over_the_real_steps(self):
        # Per step: sparse softmax cross-entropy of [[2, 3, 4], [5, -.5, 0]], [[-1, 2, .5]]
        # against labels 0, 1, 2: 2.4076, 5.5115, 1.7408; weighted .5, .2, .3, over 3.
        head = sequential_head.SequentialHeadWrapper(
            MultiClassHead(3, weight_column="w"), "mask", "w")
        with tf.Graph().as_default():
            loss = head.loss(
                logits=tf.constant([[[2., 3., 4.], [5., -.5, 0.]], [[-1., 2., .5], [9., 9., 9.]]]),
                labels=tf.constant([[0, 1], [2, 0]]), features=self._features())
            self.assertAllClose((0.5 * 2.40761 + 0.2 * 5.51152 + 0.3 * 1.74076) / 3,
                                _run(loss), rtol=1e-4)

    def test_eval_metrics_count_the_real_steps_only(self):
        head = sequential_head.SequentialHeadWrapper(BinaryClassHead(), "mask")
        with tf.Graph().as_default():
            spec = head.create_estimator_spec(
                features=self._features(), mode=ModeKeys.EVAL,
                logits=tf.constant([[[3.], [-3.]], [[3.], [-3.]]]),
                labels=tf.constant([[1, 0], [0, 1]]))
            with tf.compat.v1.Session() as sess:
                sess.run(tf.compat.v1.local_variables_initializer())
                sess.run([update for _, update in spec.eval_metric_ops.values()])
                accuracy = sess.run(spec.eval_metric_ops["accuracy"][0])
        self.assertAllClose(2. / 3., accuracy)  # The padded step (label 1, logit -3) is out.

    def test_predictions_keep_the_sequence_and_add_the_mask(self):
        head = sequential_head.SequentialHeadWrapper(BinaryClassHead(), "mask")
        with tf.Graph().as_default():
            features = self._features()
            spec = head.create_estimator_spec(features=features, mode=ModeKeys.PREDICT,
                                              logits=tf.constant([[[0.3], [-0.4]], [[0.2], [0.2]]]))
            self.assertIn("mask", spec.predictions)
            self.assertNotIn("mask", spec.export_outputs["predict"].outputs)
            out = _run(spec.predictions)
        self.assertAllEqual([[1, 1], [1, 0]], out["mask"])
        self.assertAllClose([[[0.574443], [0.401312]], [[0.549834], [0.549834]]], out["logistic"])

    def test_properties_come_from_the_static_head(self):
        head = sequential_head.SequentialHeadWrapper(
            BinaryClassHead(name="h", loss_reduction=tf.losses.Reduction.SUM), "m")
        self.assertEqual("h_sequential", head.name)
        self.assertEqual(1, head.logits_dimension)
        self.assertEqual(tf.losses.Reduction.SUM, head.loss_reduction)
        self.assertEqual("m", head.input_sequence_mask_key)
        self.assertIsNone(sequential_head.SequentialHeadWrapper(BinaryClassHead()).name)
        self.assertIsInstance(head, sequential_head._SequentialHead)

    def test_bad_arguments(self):
        with self.assertRaisesRegex(TypeError, "`sequence_mask` column must be a string"):
            sequential_head.SequentialHeadWrapper(BinaryClassHead(), sequence_length_mask=1)
        with self.assertRaisesRegex(TypeError, "`feature_columns` must be either a string"):
            sequential_head.SequentialHeadWrapper(BinaryClassHead(), "m", feature_columns=1)
        with self.assertRaisesRegex(TypeError, "Column must a string"):
            sequential_head.SequentialHeadWrapper(BinaryClassHead(), "m", feature_columns=[1])
        with self.assertRaisesRegex(ValueError, "`MultiHead` is not supported"):
            sequential_head.SequentialHeadWrapper(MultiHead([BinaryClassHead(name="a")]))

    def test_feature_column_missing_from_features(self):
        head = sequential_head.SequentialHeadWrapper(BinaryClassHead(), "mask", "weights")
        with tf.Graph().as_default():
            with self.assertRaisesRegex(ValueError, "`weights` column expected"):
                head.loss(logits=tf.zeros([2, 2, 1]), labels=tf.zeros([2, 2], tf.int64),
                          features=self._features())


if __name__ == "__main__":
    tf.test.main()
