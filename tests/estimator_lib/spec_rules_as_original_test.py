"""EstimatorSpec rules, argument checks and eval summaries where the original's tests
found differences (issue 15)."""

import os
import tempfile

import numpy as np
import tensorflow as tf

import estimator_lib as el
from tests.estimator_lib import testing


def _estimator(test, model_fn=testing.linear_model_fn):
    return el.Estimator(model_fn, model_dir=tempfile.mkdtemp(dir=test.get_temp_dir()))


class EstimatorSpecRulesTest(tf.test.TestCase):

    def test_a_one_element_loss_of_unknown_shape_is_reshaped(self):
        with tf.Graph().as_default():
            loss = tf.compat.v1.placeholder(tf.float32, [None, 1])
            spec = el.EstimatorSpec(el.ModeKeys.EVAL, loss=loss)
            self.assertEqual(spec.loss.shape, [])
            with self.assertRaisesRegex(ValueError, "Loss must be scalar"):
                el.EstimatorSpec(el.ModeKeys.EVAL, loss=tf.zeros([2, 1]))

    def test_mode_none_is_kept_and_the_estimator_trains(self):
        def model_fn(features):
            step = tf.compat.v1.train.get_global_step()
            return el.EstimatorSpec(mode=None, loss=tf.reduce_sum(features["x"]) * 0.0,
                                    train_op=tf.compat.v1.assign_add(step, 1))

        x, _ = testing.separable_data(32)
        est = _estimator(self, model_fn)
        est.train(lambda: tf.data.Dataset.from_tensor_slices({"x": x}).repeat().batch(8),
                  steps=2)
        self.assertEqual(est.get_variable_value("global_step"), 2)

    def test_sparse_predictions_and_losses_are_type_errors(self):
        with tf.Graph().as_default():
            sparse = tf.SparseTensor([[0, 0]], [1.0], [1, 1])
            with self.assertRaisesRegex(TypeError, r"predictions\[sparse\] must be Tensor"):
                el.EstimatorSpec(el.ModeKeys.PREDICT, predictions={"sparse": sparse})
            with self.assertRaisesRegex(TypeError, "loss must be Tensor"):
                el.EstimatorSpec(el.ModeKeys.EVAL, loss=sparse)


class ArgumentChecksTest(tf.test.TestCase):

    def test_saving_listeners_are_checked_before_training(self):
        est = _estimator(self)
        with self.assertRaisesRegex(TypeError, "must be a list of CheckpointSaverListener"):
            est.train(testing.train_input_fn(), steps=1, saving_listeners=["not one"])
        self.assertIsNone(est.latest_checkpoint())

    def test_train_and_evaluate_needs_an_estimator(self):
        with self.assertRaisesRegex(TypeError, "`estimator` must have type"):
            el.train_and_evaluate(object(), el.TrainSpec(testing.train_input_fn()),
                                  el.EvalSpec(testing.eval_input_fn()))


class EvalSummariesTest(tf.test.TestCase):

    def test_summary_proto_and_tensor_metrics_reach_the_eval_events(self):
        def model_fn(features, labels, mode):
            spec = testing.linear_model_fn(features, labels, mode)
            if mode != el.ModeKeys.EVAL:
                return spec
            image = tf.compat.v1.summary.image("img", tf.zeros([1, 2, 2, 1]))
            metrics = dict(spec.eval_metric_ops,
                           image=(image, tf.no_op()),
                           vector=(tf.constant([1.0, 2.0]), tf.no_op()))
            return spec._replace(eval_metric_ops=metrics)

        est = _estimator(self, model_fn)
        est.train(testing.train_input_fn(), steps=1)
        est.evaluate(testing.eval_input_fn(), steps=1)
        tags = {}
        for path in tf.io.gfile.glob(os.path.join(est.eval_dir(), "events*")):
            for event in tf.compat.v1.train.summary_iterator(path):
                for value in event.summary.value:
                    tags[value.tag] = value
        self.assertIn("image/0", tags)  # each value of the Summary, tagged <key>/<i>
        self.assertAllEqual(tf.make_ndarray(tags["vector"].tensor), np.array([1.0, 2.0]))


if __name__ == "__main__":
    tf.test.main()
