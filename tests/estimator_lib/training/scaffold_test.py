"""A model_fn's Scaffold (saver, init_op) used as the original used it."""

import os

import numpy as np
import tensorflow as tf

import estimator_lib as el


def _input_fn():
    x = np.random.RandomState(0).randn(32, 4).astype(np.float32)
    return tf.compat.v1.data.Dataset.from_tensor_slices(
        ({"x": x}, (x[:, 0] > 0).astype(np.int32))).repeat().batch(8)


def _model_fn(kind):
    def model_fn(features, labels, mode):
        logits = tf.compat.v1.layers.dense(features["x"], 2)
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.5).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step())
        if kind == "saver":
            scaffold = tf.compat.v1.train.Scaffold(
                saver=tf.compat.v1.train.Saver(sharded=True, max_to_keep=3))
        else:
            kernel = [v for v in tf.compat.v1.global_variables() if "kernel" in v.name][0]
            with tf.control_dependencies([tf.compat.v1.global_variables_initializer()]):
                init_op = tf.compat.v1.assign(kernel, tf.ones_like(kernel) * 7.0)
            scaffold = tf.compat.v1.train.Scaffold(init_op=init_op)
        return el.EstimatorSpec(mode, loss=loss, train_op=train_op, scaffold=scaffold,
                                eval_metric_ops={"acc": tf.compat.v1.metrics.accuracy(
                                    labels, tf.argmax(logits, 1))})
    return model_fn


class ScaffoldTest(tf.test.TestCase):

    def test_the_scaffold_saver_keeps_checkpoints_as_the_original(self):
        model_dir = self.get_temp_dir() + "/saver"
        estimator = el.Estimator(_model_fn("saver"), model_dir=model_dir,
                                 config=el.RunConfig(save_checkpoints_steps=10))
        estimator.train(_input_fn, max_steps=20)

        def kept():
            return sorted(int(f.split("-")[1].split(".")[0]) for f in os.listdir(model_dir)
                          if f.startswith("model.ckpt-") and f.endswith(".index"))
        self.assertEqual(kept(), [0, 10, 20])
        metrics = estimator.evaluate(_input_fn, steps=2,
                                     checkpoint_path=model_dir + "/model.ckpt-10")
        self.assertEqual(metrics["global_step"], 10)
        # A second train() counts the checkpoints already there: max_to_keep=3.
        estimator.train(_input_fn, max_steps=25)
        self.assertEqual(kept(), [10, 20, 25])

    def test_the_scaffold_init_op_initialises(self):
        model_dir = self.get_temp_dir() + "/init_op"
        estimator = el.Estimator(_model_fn("init_op"), model_dir=model_dir,
                                 config=el.RunConfig(save_checkpoints_steps=10))
        estimator.train(_input_fn, max_steps=1)
        self.assertAllEqual(tf.train.load_variable(model_dir + "/model.ckpt-0", "dense/kernel"),
                            np.full([4, 2], 7.0))

    def test_canned_key_modules_import_from_the_old_paths(self):
        from estimator_lib import compat  # pylint: disable=import-outside-toplevel
        compat.install()
        self.addCleanup(compat.uninstall)
        from tensorflow.python.estimator.canned import head  # noqa: F401  pylint: disable=all
        from tensorflow.python.estimator.canned import metric_keys  # pylint: disable=all
        from tensorflow.python.estimator.canned import prediction_keys  # pylint: disable=all
        self.assertEqual(metric_keys.MetricKeys.AUC, "auc")
        self.assertEqual(prediction_keys.PredictionKeys.LOGITS, "logits")


if __name__ == "__main__":
    tf.test.main()
