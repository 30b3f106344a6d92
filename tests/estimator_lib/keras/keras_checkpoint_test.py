"""model_to_estimator's first checkpoint, model_dir/keras/keras_model.ckpt (reference 1.14).

The Estimator warm-starts from every Keras weight in it, trainable or not. The
original warm-started TRAINABLE_VARIABLES only, so BatchNormalization's moving
statistics (and any weight made with `trainable=False`) began at their initial
values and a pretrained model predicted differently from `keras_model.predict`.
A frozen layer's kernel was carried all the same: `layer.trainable = False` leaves
its variables' own `trainable` flag, hence the TRAINABLE_VARIABLES collection, as
they were.
"""

import json
import os
import shutil
import tempfile

import numpy as np
import tensorflow as tf
import tf_keras
from absl.testing import parameterized

import estimator_lib as el

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                     "data")


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


_X = np.random.RandomState(0).normal(2.0, 3.0, (16, 4)).astype(np.float32)
_Y = (_X.sum(axis=1) > 8).astype(np.int32)


def _pretrained(frozen=True):
    """Dense (frozen) -> BatchNormalization -> Dense, with non-default weights."""
    inputs = tf_keras.Input((4,), name="x")
    frozen_dense = tf_keras.layers.Dense(8, name="frozen")
    norm = tf_keras.layers.BatchNormalization(name="norm")
    outputs = tf_keras.layers.Dense(2, name="logits")(norm(frozen_dense(inputs)))
    model = tf_keras.Model(inputs, outputs)
    rng = np.random.RandomState(1)
    model.set_weights([rng.uniform(0.5, 2.0, w.shape).astype(np.float32)
                       for w in model.get_weights()])  # Moving statistics included.
    if frozen:
        frozen_dense.trainable = False
        norm.trainable = False  # Fine-tuning: BN in inference mode, statistics kept.
    model.compile(tf_keras.optimizers.legacy.SGD(0.1),
                  tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def _input_fn(labels=True):
    def input_fn():
        features = {"x": _X}
        return tf.data.Dataset.from_tensor_slices(
            (features, _Y) if labels else features).batch(8)

    return input_fn


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

    @parameterized.product(checkpoint_format=["checkpoint", "saver"], mirrored=[False, True])
    def test_files_are_the_originals_one_data_file(self, checkpoint_format, mirrored):
        # Regression: the first checkpoint was written sharded (data-0000{0,1}-of-00002);
        # tools look for the original's single data file (tests/data/tf215_keras_model_dir).
        strategy = tf.distribute.MirroredStrategy(["CPU:0", "CPU:1"]) if mirrored else None
        config = el.RunConfig(model_dir=self.model_dir, train_distribute=strategy)
        est = el.model_to_estimator(_reference_model(), config=config,
                                    checkpoint_format=checkpoint_format)
        expected = {"checkpoint", "keras_model.ckpt.index",
                    "keras_model.ckpt.data-00000-of-00001"}
        if checkpoint_format == "saver":
            expected.add("keras_model.ckpt.meta")
        self.assertEqual(set(os.listdir(os.path.join(self.model_dir, "keras"))), expected)
        original = os.path.join(_DATA, "tf215_keras_model_dir", "keras")
        self.assertContainsSubset(set(os.listdir(original)), expected)
        est.train(lambda: tf.data.Dataset.from_tensor_slices(
            ({"dense_input": _X}, _Y)).repeat().batch(4), steps=1)
        self.assertEqual(set(os.listdir(os.path.join(self.model_dir, "keras"))), expected)

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


class WarmStartTest(parameterized.TestCase, tf.test.TestCase):

    def setUp(self):
        super().setUp()
        tf_keras.backend.clear_session()
        self.model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())

    @parameterized.parameters("checkpoint", "saver")
    def test_predictions_match_keras_with_batch_norm_statistics(self, checkpoint_format):
        model = _pretrained(frozen=False)
        expected = model.predict(_X, verbose=0)
        estimator = el.model_to_estimator(model, model_dir=self.model_dir,
                                          checkpoint_format=checkpoint_format)
        with self.assertLogs("tensorflow", level="INFO") as captured:
            predictions = [p["logits"] for p in estimator.predict(_input_fn(labels=False))]
        self.assertAllClose(predictions, expected, atol=1e-5)
        messages = [record.getMessage() for record in captured.records]
        self.assertIn("Warm-started 8 variables.", messages)  # The original: 6.
        self.assertNotIn("Warm-starting variables only in TRAINABLE_VARIABLES.", messages)

    def test_a_reused_keras_checkpoint_carries_every_weight_too(self):
        model = _pretrained(frozen=False)
        expected = model.predict(_X, verbose=0)
        el.model_to_estimator(model, model_dir=self.model_dir)
        estimator = el.model_to_estimator(model, model_dir=self.model_dir)
        self.assertAllClose([p["logits"] for p in estimator.predict(_input_fn(labels=False))],
                            expected, atol=1e-5)

    def test_predict_first_then_evaluate_on_a_model_dir_with_a_checkpoint(self):
        el.model_to_estimator(_pretrained(), model_dir=self.model_dir).train(_input_fn(),
                                                                             steps=1)
        shutil.rmtree(os.path.join(self.model_dir, "keras"))  # As a model_dir of our own.
        estimator = el.model_to_estimator(_pretrained(), model_dir=self.model_dir)
        self.assertIsNone(estimator._warm_start_settings)  # Its own checkpoint is restored.
        self.assertLen(list(estimator.predict(_input_fn(labels=False))), len(_X))
        # The first clone was not compiled; the compiled one still finds the loss.
        self.assertIn("loss", estimator.evaluate(_input_fn()))

    @parameterized.named_parameters(("one_device", False), ("mirrored", True))
    def test_fine_tuning_keeps_frozen_kernel_and_moving_statistics(self, mirrored):
        model = _pretrained()
        frozen = {name: model.get_layer(layer).get_weights()[index]
                  for name, layer, index in (("frozen/kernel", "frozen", 0),
                                             ("norm/moving_mean", "norm", 2),
                                             ("norm/moving_variance", "norm", 3))}
        trained = model.get_layer("logits").get_weights()[0]
        strategy = tf.distribute.MirroredStrategy(["CPU:0", "CPU:1"]) if mirrored else None
        config = el.RunConfig(model_dir=self.model_dir, train_distribute=strategy)
        estimator = el.model_to_estimator(model, config=config, checkpoint_format="saver")
        estimator.train(_input_fn(), steps=2)
        for name, value in frozen.items():
            self.assertAllClose(estimator.get_variable_value(name), value, atol=1e-6,
                                msg=name)
        # The trainable layer did train, from the Keras weights.
        self.assertNotAllClose(estimator.get_variable_value("logits/kernel"), trained)


if __name__ == "__main__":
    tf.test.main()
