"""Model dirs written by the original tf.estimator (TF 2.15) resume here.

The fixtures under tests/data were made by tests/data/make_tf215_fixtures.py in a
separate TF 2.15 + tensorflow-estimator 2.15 environment (see tests/data/README.md).
"""

import json
import os
import shutil
import tempfile

import numpy as np
import tensorflow as tf
import tf_keras

import estimator_lib as el
from tests.estimator_lib import testing

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")


def _fixture(name):
    with open(os.path.join(_DATA, name + ".json")) as f:
        record = json.load(f)
    # Both fixtures were made from the same data, stored once with the custom one.
    with open(os.path.join(_DATA, "tf215_custom_model_dir.json")) as f:
        data = json.load(f)["data"]
    x = np.asarray(data["x"], np.float32)
    y = np.asarray(data["y"], np.int32)
    return record, x, y


def _copy(name, parent):
    target = os.path.join(parent, name)
    shutil.copytree(os.path.join(_DATA, name), target)
    return target


class LegacyCheckpointTest(tf.test.TestCase):

    def test_custom_model_dir_resumes_with_its_values(self):
        record, x, y = _fixture("tf215_custom_model_dir")
        model_dir = _copy("tf215_custom_model_dir", tempfile.mkdtemp(dir=self.get_temp_dir()))
        estimator = el.Estimator(testing.linear_model_fn, model_dir=model_dir)
        self.assertEqual(estimator.get_variable_names(), record["variable_names"])
        for name, value in record["variables"].items():
            self.assertAllClose(estimator.get_variable_value(name),
                                np.asarray(value["value"] if isinstance(value, dict) else value))

        def eval_input_fn():
            return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(16)

        results = estimator.evaluate(eval_input_fn)
        for key, value in record["evaluate"]["values"].items():
            self.assertAllClose(results[key], value, rtol=1e-5)
        predictions = list(estimator.predict(
            lambda: tf.data.Dataset.from_tensor_slices({"x": x[:3]}).batch(16)))
        for ours, theirs in zip(predictions, record["predict_first_3"]):
            self.assertAllClose(ours["probabilities"], theirs["probabilities"]["value"],
                                rtol=1e-5)

        def train_input_fn():
            return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(16)

        estimator.train(train_input_fn, steps=5)
        self.assertEqual(estimator.get_variable_value("global_step"), record["global_step"] + 5)
        # And what we wrote still loads in tf.compat.v1 tools.
        reader = tf.compat.v1.train.NewCheckpointReader(estimator.latest_checkpoint())
        self.assertIn("dense/kernel/Adagrad", reader.get_variable_to_shape_map())
        with tf.Graph().as_default():
            saver = tf.compat.v1.train.import_meta_graph(estimator.latest_checkpoint() + ".meta")
            with tf.compat.v1.Session() as session:
                saver.restore(session, estimator.latest_checkpoint())

    def test_keras_model_dir_resumes(self):
        record, x, y = _fixture("tf215_keras_model_dir")
        model_dir = _copy("tf215_keras_model_dir", tempfile.mkdtemp(dir=self.get_temp_dir()))
        tf_keras.backend.clear_session()
        model = tf_keras.Sequential([
            tf_keras.layers.Dense(8, input_shape=(4,), activation="relu"),
            tf_keras.layers.Dense(2)])
        model.compile("adam", tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"])
        self.assertEqual(model.input_names, record["keras_input_names"])
        estimator = el.model_to_estimator(model, model_dir=model_dir)
        self.assertEqual(sorted(estimator.get_variable_names()), sorted(record["variable_names"]))
        key = record["keras_input_names"][0]

        def eval_input_fn():
            return tf.data.Dataset.from_tensor_slices(({key: x}, y)).batch(16)

        results = estimator.evaluate(eval_input_fn)
        for name in ("accuracy", "loss"):
            self.assertAllClose(results[name], record["evaluate"]["values"][name], rtol=1e-5)

        def train_input_fn():
            return tf.data.Dataset.from_tensor_slices(({key: x}, y)).repeat().batch(16)

        estimator.train(train_input_fn, steps=3)
        step_key = "estimator_global_step/.ATTRIBUTES/VARIABLE_VALUE"
        self.assertEqual(estimator.get_variable_value(step_key),
                         record["global_step_from_estimator_global_step_key"] + 3)


if __name__ == "__main__":
    tf.test.main()
