"""Serving/supervised input receivers and call_logit_fn, as the original accepted them."""

import os
import tempfile

import numpy as np
import tensorflow as tf

import estimator_lib as el
from estimator_lib import experimental
from tests.estimator_lib import testing


class _LabeledTensor:
    """Like tf.contrib's LabeledTensor: a `.tensor`, convertible to a Tensor."""

    def __init__(self, tensor):
        self.tensor = tensor


tf.register_tensor_conversion_function(
    _LabeledTensor, lambda value, dtype=None, name=None, as_ref=False: value.tensor)


class ServingInputReceiverTest(tf.test.TestCase):

    def test_int_feature_keys_and_convertible_features_are_accepted(self):
        with tf.Graph().as_default():
            receiver = el.export.ServingInputReceiver(
                {42: tf.constant([1]), "b": _LabeledTensor(tf.constant([2]))},
                {"examples": tf.constant(["x"])})
        self.assertEqual(sorted(receiver.features, key=str), [42, "b"])

    def test_errors_name_the_entry_as_the_original(self):
        with tf.Graph().as_default():
            receivers = {"examples": tf.constant(["x"])}
            with self.assertRaisesRegex(ValueError, "features must be defined"):
                el.export.ServingInputReceiver(None, receivers)
            with self.assertRaisesRegex(ValueError, "feature keys must be strings or ints"):
                el.export.ServingInputReceiver({4.2: tf.constant([1])}, receivers)
            with self.assertRaisesRegex(ValueError, "feature f1 must be a Tensor"):
                el.export.ServingInputReceiver({"f1": [1]}, receivers)
            with self.assertRaisesRegex(ValueError, "receiver_tensor keys must be strings"):
                el.export.ServingInputReceiver(tf.constant([1]), {1: tf.constant(["x"])})
            with self.assertRaisesRegex(ValueError, "feature must be a Tensor"):
                el.export.TensorServingInputReceiver({"a": tf.constant([1])}, receivers)


class BuildRawSupervisedInputReceiverFnTest(tf.test.TestCase):

    def test_train_and_eval_meta_graphs_are_exported(self):
        x, y = testing.separable_data(32)
        model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        est = el.Estimator(testing.linear_model_fn, model_dir=model_dir)
        est.train(testing.train_input_fn(), steps=1)
        receiver_fn = experimental.build_raw_supervised_input_receiver_fn(
            {"x": tf.constant(x)}, tf.constant(y))
        export_dir = est.experimental_export_all_saved_models(
            os.path.join(model_dir, "export"),
            {el.ModeKeys.TRAIN: receiver_fn, el.ModeKeys.EVAL: receiver_fn})
        self.assertTrue(tf.io.gfile.exists(
            os.path.join(tf.compat.as_str(export_dir), "saved_model.pb")))

    def test_overlapping_keys_are_refused(self):
        with self.assertRaisesRegex(ValueError, "distinct keys"):
            experimental.build_raw_supervised_input_receiver_fn(
                {"a": tf.constant([1])}, {"a": tf.constant([1])})


class UnsupervisedInputReceiverTest(tf.test.TestCase):

    def test_a_serving_receiver_without_alternatives(self):
        from estimator_lib.export import receivers  # pylint: disable=import-outside-toplevel
        with tf.Graph().as_default():
            x = tf.compat.v1.placeholder(tf.float32, [None, 2])
            receiver = receivers.UnsupervisedInputReceiver(x, {"x": x})
        self.assertIsInstance(receiver, receivers.ServingInputReceiver)
        self.assertEqual({"feature": x}, receiver.features)
        self.assertIsNone(receiver.receiver_tensors_alternatives)
        with self.assertRaisesRegex(ValueError, "receiver_tensors must be defined"):
            receivers.UnsupervisedInputReceiver(x, None)


class CallLogitFnTest(tf.test.TestCase):

    def test_passes_the_arguments_the_logit_fn_names(self):
        def logit_fn(features, mode, params):
            return features["x"] * params["scale"] + (1.0 if mode == "train" else 0.0)

        with tf.Graph().as_default(), tf.compat.v1.Session() as session:
            logits = experimental.call_logit_fn(
                logit_fn, {"x": tf.constant([1.0])}, "train", {"scale": 2.0}, None)
            self.assertAllClose(session.run(logits), [3.0])

    def test_other_results_are_refused(self):
        with self.assertRaisesRegex(ValueError, "logit_fn should return a Tensor"):
            experimental.call_logit_fn(lambda features: np.zeros(1), {}, "train", None, None)


if __name__ == "__main__":
    tf.test.main()
