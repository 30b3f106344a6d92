"""EstimatorSpec validation, ModeKeys identity and model_fn argument rules (reference 1.3-1.5)."""

import functools

import tensorflow as tf

import estimator_lib as el
from estimator_lib.core import model_fn as model_fn_lib


class ModeKeysTest(tf.test.TestCase):

    def test_values_and_identity(self):
        self.assertEqual((el.ModeKeys.TRAIN, el.ModeKeys.EVAL, el.ModeKeys.PREDICT),
                         ("train", "eval", "infer"))
        mode = "".join(["tr", "ain"])  # An equal string that is not the constant.
        self.assertIs(model_fn_lib.canonical_mode(mode), el.ModeKeys.TRAIN)
        with self.assertRaisesRegex(ValueError, "mode` must be one of"):
            model_fn_lib.canonical_mode("training")


class EstimatorSpecTest(tf.test.TestCase):

    def test_train_needs_loss_and_train_op(self):
        with tf.Graph().as_default():
            loss = tf.constant(1.0)
            with self.assertRaisesRegex(ValueError, "Missing loss"):
                el.EstimatorSpec(el.ModeKeys.TRAIN, train_op=tf.no_op())
            with self.assertRaisesRegex(ValueError, "Missing train_op"):
                el.EstimatorSpec(el.ModeKeys.TRAIN, loss=loss)
            spec = el.EstimatorSpec(el.ModeKeys.TRAIN, loss=loss, train_op=tf.no_op())
            self.assertEqual(spec.predictions, {})
            self.assertEqual(spec.eval_metric_ops, {})
            self.assertIsInstance(spec.scaffold, tf.compat.v1.train.Scaffold)

    def test_predict_needs_predictions_and_gets_default_export_output(self):
        with tf.Graph().as_default():
            with self.assertRaisesRegex(ValueError, "Missing predictions"):
                el.EstimatorSpec(el.ModeKeys.PREDICT)
            spec = el.EstimatorSpec(el.ModeKeys.PREDICT, predictions={"y": tf.constant([1.0])})
            self.assertEqual(list(spec.export_outputs), ["serving_default"])
            self.assertIsInstance(spec.export_outputs["serving_default"], el.export.PredictOutput)

    def test_loss_of_shape_one_becomes_scalar_and_others_are_refused(self):
        with tf.Graph().as_default():
            spec = el.EstimatorSpec(el.ModeKeys.EVAL, loss=tf.constant([2.0]))
            self.assertEqual(spec.loss.shape.rank, 0)
            with self.assertRaisesRegex(ValueError, "Loss must be scalar"):
                el.EstimatorSpec(el.ModeKeys.EVAL, loss=tf.constant([1.0, 2.0]))

    def test_tensors_from_another_graph_are_refused(self):
        with tf.Graph().as_default():
            foreign = tf.constant(1.0)
        with tf.Graph().as_default():
            with self.assertRaisesRegex(ValueError, "must be from the default graph"):
                el.EstimatorSpec(el.ModeKeys.EVAL, loss=foreign)

    def test_hooks_must_be_session_run_hooks(self):
        with tf.Graph().as_default():
            with self.assertRaisesRegex(TypeError, "All hooks must be SessionRunHook instances.*training_hooks"):
                el.EstimatorSpec(el.ModeKeys.TRAIN, loss=tf.constant(1.0), train_op=tf.no_op(),
                                 training_hooks=[object()])

    def test_metric_values_must_be_pairs(self):
        with tf.Graph().as_default():
            with self.assertRaisesRegex(TypeError, "eval_metric_ops must be"):
                el.EstimatorSpec(el.ModeKeys.EVAL, loss=tf.constant(1.0),
                                 eval_metric_ops={"m": tf.constant(1.0)})

    def test_replace_keeps_mode(self):
        with tf.Graph().as_default():
            spec = el.EstimatorSpec(el.ModeKeys.EVAL, loss=tf.constant(1.0))
            with self.assertRaisesRegex(ValueError, "mode of EstimatorSpec cannot be changed"):
                spec._replace(mode=el.ModeKeys.TRAIN)
            self.assertIsNotNone(spec._replace(predictions={"p": spec.loss}).predictions["p"])


class VerifyModelFnArgsTest(tf.test.TestCase):

    def test_rules(self):
        def good(features, labels, mode, params, config):
            del features, labels, mode, params, config

        model_fn_lib.verify_model_fn_args(good, params={"a": 1})
        with self.assertRaisesRegex(ValueError, "must include `features` argument"):
            model_fn_lib.verify_model_fn_args(lambda labels: None, None)
        with self.assertRaisesRegex(ValueError, r"not expected args: \['extra'\]"):
            model_fn_lib.verify_model_fn_args(lambda features, extra: None, None)
        with self.assertRaisesRegex(ValueError, "does not include params argument"):
            model_fn_lib.verify_model_fn_args(lambda features: None, {"a": 1})

    def test_partials_are_inspected(self):
        def fn(features, labels, mode, extra_setting):
            del features, labels, mode, extra_setting

        model_fn_lib.verify_model_fn_args(functools.partial(fn, extra_setting=1), None)


if __name__ == "__main__":
    tf.test.main()
