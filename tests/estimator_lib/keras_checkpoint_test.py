"""model_to_estimator's first checkpoint, model_dir/keras/keras_model.ckpt (reference 1.14)."""

import json
import os
import tempfile

import numpy as np
import tensorflow as tf
import tf_keras
from absl.testing import parameterized

import estimator_lib as el

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")


def _reference_model():
    """The reference run's model (tests/data/README.md), compiled the same way."""
    model = tf_keras.Sequential([
        tf_keras.layers.Dense(8, input_shape=(4,), activation="relu"),
        tf_keras.layers.Dense(2)])
    model.compile("adam", tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    return model


def _reference_keys(checkpoint_format):
    if checkpoint_format == "checkpoint":  # The original's own keras/ checkpoint.
        return tf.train.list_variables(os.path.join(_DATA, "tf215_keras_model_dir", "keras"))
    with open(os.path.join(_DATA, "reference_logs", "summary.json")) as f:
        probe = json.load(f)["probes"]["model_to_estimator_saver"]
    return probe["keras_subdir_variable_names"]


class FirstCheckpointTest(tf.test.TestCase, parameterized.TestCase):

    def setUp(self):
        super().setUp()
        tf_keras.backend.clear_session()  # Layer names start again at `dense`.
        self.model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())

    @parameterized.parameters("checkpoint", "saver")
    def test_keys_are_the_originals_optimizer_slots_included(self, checkpoint_format):
        el.model_to_estimator(_reference_model(), model_dir=self.model_dir,
                              checkpoint_format=checkpoint_format)
        keys = tf.train.list_variables(os.path.join(self.model_dir, "keras"))
        expected = _reference_keys(checkpoint_format)
        if checkpoint_format == "checkpoint":
            self.assertEqual([(name, list(shape)) for name, shape in keys],
                             [(name, list(shape)) for name, shape in expected])
        else:
            self.assertEqual([name for name, _ in keys], expected)
        self.assertEqual(
            "keras_model.ckpt.meta" in os.listdir(os.path.join(self.model_dir, "keras")),
            checkpoint_format == "saver")

    def test_holds_every_keras_weight_and_zero_optimizer_state(self):
        inputs = tf_keras.Input((4,), name="x")
        hidden = tf_keras.layers.BatchNormalization()(tf_keras.layers.Dense(8)(inputs))
        model = tf_keras.Model(inputs, tf_keras.layers.Dense(2)(hidden))
        model.compile(tf_keras.optimizers.legacy.Adam(), "mse")
        model.set_weights([np.full(w.shape, i + 1.0, np.float32)
                           for i, w in enumerate(model.get_weights())])
        el.model_to_estimator(model, model_dir=self.model_dir, checkpoint_format="saver")
        reader = tf.train.load_checkpoint(os.path.join(self.model_dir, "keras"))
        for weight in model.weights:  # Non-trainable ones (moving mean/variance) too.
            self.assertAllEqual(reader.get_tensor(weight.name[:-len(":0")]), weight.numpy())
        self.assertAllEqual(reader.get_tensor("training/Adam/dense/kernel/m"),
                            np.zeros((4, 8)))
        self.assertEqual(reader.get_tensor("global_step"), 0)

    def test_written_once_then_reused(self):
        model = _reference_model()
        el.model_to_estimator(model, model_dir=self.model_dir)
        path = os.path.join(self.model_dir, "keras", "keras_model.ckpt.index")
        written = os.stat(path).st_mtime_ns
        estimator = el.model_to_estimator(model, model_dir=self.model_dir)
        self.assertEqual(os.stat(path).st_mtime_ns, written)
        self.assertEqual(estimator._warm_start_settings.ckpt_to_initialize_from,
                         os.path.join(self.model_dir, "keras", "keras_model.ckpt"))


if __name__ == "__main__":
    tf.test.main()
