"""The original's private helpers behave as the original's where its own tests use them."""

import os
import tempfile
from unittest import mock

import numpy as np
import tensorflow as tf

from estimator_lib import compat


def _model_fn(features, labels, mode):
    logits = tf.compat.v1.layers.dense(features["x"], 1)
    loss = tf.reduce_mean(tf.square(logits - labels))
    return tf.estimator.EstimatorSpec(
        mode, loss=loss, train_op=tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
            loss, tf.compat.v1.train.get_global_step()))


def _input_fn():
    x = np.ones([4, 1], np.float32)
    return tf.data.Dataset.from_tensor_slices(({"x": x}, x)).repeat().batch(2)


class PrivateBehaviourTest(tf.test.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls._was_installed = compat.is_installed()
        compat.install()

    @classmethod
    def tearDownClass(cls):
        if not cls._was_installed:
            compat.uninstall()
        super().tearDownClass()

    def test_make_early_stopping_hook_refuses_what_is_not_an_estimator(self):
        from tensorflow_estimator.python.estimator import early_stopping  # pylint: disable=import-outside-toplevel
        with self.assertRaisesRegex(TypeError, "must have type `tf.estimator.Estimator`"):
            early_stopping.make_early_stopping_hook(object(), lambda: True)

    def test_read_eval_metrics_skips_the_rest_of_a_corrupt_file(self):
        from tensorflow_estimator.python.estimator import early_stopping  # pylint: disable=import-outside-toplevel
        eval_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        with tf.Graph().as_default(), tf.compat.v1.summary.FileWriter(eval_dir) as writer:
            for step in (1, 2):
                writer.add_summary(tf.compat.v1.Summary(value=[tf.compat.v1.Summary.Value(
                    tag="loss", simple_value=float(step))]), step)
        real = tf.compat.v1.train.summary_iterator

        def corrupt_after_one(path):
            for event in real(path):
                if event.HasField("summary"):
                    yield event
                    raise tf.errors.DataLossError(None, None, "corrupt")
                yield event

        with mock.patch.object(tf.compat.v1.train, "summary_iterator", corrupt_after_one):
            self.assertEqual(dict(early_stopping.read_eval_metrics(eval_dir)),
                             {1: {"loss": 1.0}})

    def test_parse_input_fn_result_hook_is_the_dataset_initializer_hook(self):
        from tensorflow_estimator.python.estimator import util  # pylint: disable=import-outside-toplevel
        with tf.Graph().as_default():
            _, _, hooks = util.parse_input_fn_result(_input_fn())
        self.assertIsInstance(hooks[0], util._DatasetInitializerHook)  # pylint: disable=protected-access

    def test_load_global_step_from_checkpoint_dir(self):
        from tensorflow_estimator.python.estimator import estimator as estimator_lib  # pylint: disable=import-outside-toplevel
        model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        load = estimator_lib._load_global_step_from_checkpoint_dir  # pylint: disable=protected-access
        self.assertEqual(load(os.path.join(model_dir, "missing")), 0)
        tf.estimator.Estimator(_model_fn, model_dir=model_dir).train(_input_fn, steps=3)
        self.assertEqual(load(model_dir), 3)


if __name__ == "__main__":
    tf.test.main()
