"""model_to_estimator where the original's own tests found differences."""

import os
import tempfile

import numpy as np
import tensorflow as tf
import tf_keras
from absl.testing import parameterized

import estimator_lib as el

_X = np.random.RandomState(0).rand(16, 4).astype(np.float32)
_Y = (_X.sum(axis=1) > 2).astype(np.float32).reshape(-1, 1)


def _model():
    inputs = tf_keras.Input((4,), name="x")
    outputs = tf_keras.layers.Dense(1, activation="sigmoid", name="out")(inputs)
    model = tf_keras.Model(inputs, outputs)
    model.compile(tf_keras.optimizers.legacy.SGD(0.1), "binary_crossentropy",
                  metrics=["binary_accuracy"])
    return model


def _step(est):
    return int(est.latest_checkpoint().rsplit("-", 1)[1])


def _input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": _X}, _Y)).repeat().batch(8)


class ConversionAsOriginalTest(parameterized.TestCase, tf.test.TestCase):

    def setUp(self):
        super().setUp()
        tf_keras.backend.clear_session()
        self.model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())

    @parameterized.parameters(False, True)
    def test_a_model_built_in_graph_mode_keeps_its_weights(self, mirrored):
        # TF1 style: the Keras model lives in a graph (no eager execution); its weights
        # are read through the Keras session (before: "numpy() is only available when
        # eager execution is enabled").
        with tf.Graph().as_default():
            model = _model()
            kernel = tf_keras.backend.get_value(model.layers[-1].kernel)
            strategy = (tf.distribute.MirroredStrategy(["CPU:0", "CPU:1"]) if mirrored
                        else None)
            est = el.model_to_estimator(
                model, config=el.RunConfig(model_dir=self.model_dir,
                                           train_distribute=strategy))
            self.assertAllClose(tf.train.load_variable(
                os.path.join(self.model_dir, "keras", "keras_model.ckpt"),
                "layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE"), kernel)
            est.train(_input_fn, steps=2)
        self.assertEqual(_step(est), 2)

    def test_export_outputs_come_with_the_default_serving_signature(self):
        est = el.model_to_estimator(_model(), model_dir=self.model_dir,
                                    export_outputs={"out": el.export.RegressionOutput})
        est.train(_input_fn, steps=1)
        receiver_fn = el.export.build_parsing_serving_input_receiver_fn(
            {"x": tf.io.FixedLenFeature([4], tf.float32)})
        export_dir = est.export_saved_model(os.path.join(self.model_dir, "export"),
                                            receiver_fn)
        loaded = tf.saved_model.load(tf.compat.as_str(export_dir))
        self.assertCountEqual(loaded.signatures, ["serving_default", "out"])

    def test_an_input_fn_may_return_numpy_arrays(self):
        est = el.model_to_estimator(_model(), model_dir=self.model_dir)
        est.train(lambda: ({"x": _X}, _Y), steps=1)
        self.assertEqual(_step(est), 1)

    def test_a_model_compiled_with_two_optimizers(self):
        linear = tf_keras.experimental.LinearModel(units=1)
        dnn = tf_keras.Sequential([tf_keras.layers.Dense(1)])
        model = tf_keras.experimental.WideDeepModel(linear, dnn)
        model.compile([tf_keras.optimizers.SGD(0.1), tf_keras.optimizers.Adam(0.1)], "mse")
        est = el.model_to_estimator(model, model_dir=self.model_dir,
                                    checkpoint_format="saver")
        est.train(lambda: tf.data.Dataset.from_tensor_slices((_X, _Y)).repeat().batch(8),
                  steps=2)
        # Each optimizer steps the global step, as the original (its iterations).
        self.assertGreaterEqual(_step(est), 2)

    def test_metric_names_map_errors_name_the_missing_metrics(self):
        with self.assertRaisesRegex(ValueError, r"\['binary_accuracy'\] do not exist"):
            est = el.model_to_estimator(_model(), model_dir=self.model_dir,
                                        metric_names_map={"acc": "acc"})
            est.evaluate(_input_fn, steps=1)


if __name__ == "__main__":
    tf.test.main()
