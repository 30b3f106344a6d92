"""model_to_estimator: saved models, custom objects, export outputs, sample weights, subclasses."""

import os
import tempfile

import numpy as np
import tensorflow as tf
import tf_keras

import estimator_lib as el
from tests.estimator_lib import testing


class Scale(tf_keras.layers.Layer):
    """A custom layer: loading a model that uses it needs `custom_objects`."""

    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def call(self, inputs):
        return inputs * self.factor

    def get_config(self):
        return dict(super().get_config(), factor=self.factor)


class Subclassed(tf_keras.Model):

    def __init__(self, units=2, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.dense = tf_keras.layers.Dense(units)

    def call(self, inputs):
        return self.dense(inputs)

    def get_config(self):
        return {"units": self.units}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _compile(model):
    model.compile(tf_keras.optimizers.legacy.SGD(0.1),
                  tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    return model


def _input_fn(key, n=32, sample_weights=None):
    x, y = testing.separable_data(n)

    def input_fn():
        features = {key: x}
        if sample_weights is not None:
            features = {"features": features, "sample_weights": sample_weights}
        return tf.data.Dataset.from_tensor_slices((features, y)).batch(8)

    return input_fn


class ModelToEstimatorMoreTest(tf.test.TestCase):

    def setUp(self):
        super().setUp()
        tf_keras.backend.clear_session()
        self.model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())

    def test_keras_saved_model_path_with_custom_objects(self):
        model = _compile(tf_keras.Sequential([
            tf_keras.layers.Dense(2, input_shape=(4,)), Scale(3.0)]))
        path = os.path.join(self.get_temp_dir(), "saved_keras")
        model.save(path, save_format="tf")
        x, _ = testing.separable_data(3)
        expected = model.predict(x, verbose=0)
        estimator = el.model_to_estimator(keras_model_path=path, model_dir=self.model_dir,
                                          custom_objects={"Scale": Scale})
        key = "dense_input"
        predictions = [p for p in estimator.predict(_input_fn(key, n=3))]
        self.assertAllClose([list(p.values())[0] for p in predictions], expected, atol=1e-5)

    def test_export_outputs(self):
        model = _compile(tf_keras.Sequential([tf_keras.layers.Dense(2, input_shape=(4,))]))
        output = model.output_names[0]
        estimator = el.model_to_estimator(
            model, model_dir=self.model_dir,
            export_outputs={output: el.export.PredictOutput})
        estimator.train(_input_fn(model.input_names[0]), steps=1)
        export_dir = estimator.export_saved_model(
            os.path.join(self.model_dir, "export"),
            el.export.build_raw_serving_input_receiver_fn(
                {model.input_names[0]: tf.zeros([1, 4])}))
        loaded = tf.saved_model.load(export_dir.decode())
        self.assertIn(output, loaded.signatures)
        with self.assertRaisesRegex(ValueError, "`export_outputs` keys must be the model's "
                                                "output names"):
            el.model_to_estimator(model, export_outputs={"nope": el.export.PredictOutput})

    def test_sample_weights_zero_weights_do_not_train(self):
        model = _compile(tf_keras.Sequential([tf_keras.layers.Dense(2, input_shape=(4,))]))
        initial = [w.copy() for w in model.get_weights()]
        estimator = el.model_to_estimator(model, model_dir=self.model_dir,
                                          checkpoint_format="saver")
        zeros = np.zeros(32, np.float32)
        estimator.train(_input_fn(model.input_names[0], sample_weights=zeros), steps=2)
        self.assertAllClose(estimator.get_variable_value("dense/kernel"), initial[0])
        estimator.train(_input_fn(model.input_names[0],
                                  sample_weights=np.ones(32, np.float32)), steps=2)
        self.assertNotAllClose(estimator.get_variable_value("dense/kernel"), initial[0])

    def test_subclassed_model(self):
        model = _compile(Subclassed())
        with self.assertRaisesRegex(ValueError, "checkpoint_format='saver'"):
            el.model_to_estimator(model, model_dir=self.model_dir)
        model(np.zeros((1, 4), np.float32))  # Built: its weights cannot be carried over.
        with self.assertLogs("tensorflow", level="WARNING") as captured:
            estimator = el.model_to_estimator(model, model_dir=self.model_dir,
                                              checkpoint_format="saver")
        self.assertTrue(any("freshly initialized" in r.getMessage() for r in captured.records))

        def input_fn():
            x, y = testing.separable_data(32)
            return tf.data.Dataset.from_tensor_slices((x, y)).batch(8)

        estimator.train(input_fn, steps=2)
        self.assertIn("accuracy", estimator.evaluate(input_fn))


if __name__ == "__main__":
    tf.test.main()
