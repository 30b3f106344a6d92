"""input_fn results: large numpy arrays fed, one-shot iterators, the predict warning."""

import os
import tempfile
from unittest import mock

import numpy as np
import tensorflow as tf

import estimator_lib as el
from estimator_lib.graph import inputs
from estimator_lib.tf_internals import patches as tf_patches
from tests.estimator_lib import testing

_ROWS = 40000  # 40000 x 8 float32 = 1.28 MB: over tf_patches.LARGE_ARRAY_BYTES.


def _large_data():
    rng = np.random.RandomState(0)
    x = rng.randn(_ROWS, 4).astype(np.float32)
    x = np.concatenate([x, np.zeros((_ROWS, 4), np.float32)], axis=1)
    y = (x[:, 0] + x[:, 1] > 0).astype(np.int32)
    return x, y


def _model_fn(features, labels, mode):
    return testing.linear_model_fn({"x": features["x"][:, :4]}, labels, mode)


def _graph_bytes(model_dir):
    return os.path.getsize(os.path.join(model_dir, "graph.pbtxt"))


class OneShotIteratorOverLargeArraysTest(tf.test.TestCase):
    """cloudml-samples' Keras trainers: from_tensor_slices(numpy) + make_one_shot_iterator."""

    def test_trains_evaluates_and_predicts_with_the_arrays_fed(self):
        x, y = _large_data()

        def input_fn():
            dataset = tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(32)
            return tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()

        def eval_input_fn():
            dataset = tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(20000)
            return tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()

        model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        est = el.Estimator(_model_fn, model_dir=model_dir)
        est.train(input_fn, steps=3)
        self.assertEqual(est.get_variable_value("global_step"), 3)
        # Fed, not frozen: graph.pbtxt holds no 1.28 MB constant.
        self.assertLess(_graph_bytes(model_dir), x.nbytes)
        results = est.evaluate(eval_input_fn)
        self.assertEqual(results["global_step"], 3)

        def predict_input_fn():
            dataset = tf.data.Dataset.from_tensor_slices({"x": x}).batch(10000)
            return tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()

        with mock.patch.object(tf.compat.v1.logging, "warning") as warning:
            predictions = list(est.predict(predict_input_fn))
        self.assertLen(predictions, _ROWS)
        self.assertNotIn("yields forever", str(warning.call_args_list))

    def test_small_arrays_keep_the_one_shot_iterator(self):
        x, y = testing.separable_data(64)
        with tf.Graph().as_default():
            with tf_patches.large_arrays_fed() as feeds:
                dataset = tf.data.Dataset.from_tensor_slices(({"x": x}, y))
                tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()
        self.assertEqual(dict(feeds), {})
        self.assertEqual(feeds.initializers, [])

    def test_a_large_array_inside_a_function_stays_a_constant(self):
        # A placeholder cannot live in a function body: arrays converted there are kept.
        x, _ = _large_data()
        with tf.Graph().as_default() as graph:
            with tf_patches.large_arrays_fed() as feeds:
                dataset = tf.data.Dataset.range(2).map(lambda i: tf.constant(x)[i])
                get_next = tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()
            self.assertEqual(dict(feeds), {})
            with tf.compat.v1.Session(graph=graph) as session:
                self.assertAllEqual(session.run(get_next), x[0])

    def test_plain_tensors_of_a_large_array_are_fed_on_every_run(self):
        x, y = _large_data()
        model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        est = el.Estimator(_model_fn, model_dir=model_dir)
        est.train(lambda: ({"x": tf.constant(x)[:32]}, tf.constant(y)[:32]), steps=2)
        self.assertEqual(est.get_variable_value("global_step"), 2)
        self.assertLess(_graph_bytes(model_dir), x.nbytes)


class ReadsADatasetOrQueueTest(tf.test.TestCase):

    def test_a_get_next_or_a_dataset_counts_plain_tensors_do_not(self):
        with tf.Graph().as_default():
            dataset = tf.data.Dataset.range(3)
            self.assertTrue(inputs.reads_a_dataset_or_queue(dataset))
            get_next = tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()
            self.assertTrue(inputs.reads_a_dataset_or_queue({"x": get_next}))
            self.assertFalse(inputs.reads_a_dataset_or_queue({"x": tf.constant(1)}))


if __name__ == "__main__":
    tf.test.main()
