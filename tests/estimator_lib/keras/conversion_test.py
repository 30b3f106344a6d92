"""model_to_estimator (reference 1.14 and the section-7 probe)."""

import os
import tempfile

import numpy as np
import tensorflow as tf
import tf_keras

import estimator_lib as el
from tests.estimator_lib import testing


def _sequential():
    model = tf_keras.Sequential([
        tf_keras.layers.Dense(8, input_shape=(4,), activation="relu"),
        tf_keras.layers.Dense(2)])
    model.compile(tf_keras.optimizers.legacy.Adam(0.05),
                  tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    return model


def _input_fn(key="dense_input", epochs=1, n=64):
    x, y = testing.separable_data(n)

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({key: x}, y)).repeat(epochs).batch(16)

    return input_fn


class ModelToEstimatorTest(tf.test.TestCase):

    def setUp(self):
        super().setUp()
        tf_keras.backend.clear_session()  # Layer names start again at `dense`.
        self.model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())

    def test_the_keras_backend_session_is_left_alone(self):
        # docs/estimator.md, deliberate difference 27: the original set a session with
        # the Estimator's session config as the backend's global one.
        from unittest import mock  # pylint: disable=import-outside-toplevel
        from tf_keras.src import backend  # pylint: disable=import-outside-toplevel
        config = el.RunConfig(session_config=tf.compat.v1.ConfigProto(
            gpu_options=tf.compat.v1.GPUOptions(per_process_gpu_memory_fraction=0.3)))
        with mock.patch.object(backend, "set_session") as set_session, \
                mock.patch.object(tf.compat.v1.keras.backend, "set_session") as v1_set:
            estimator = el.model_to_estimator(keras_model=_sequential(),
                                              model_dir=self.model_dir, config=config)
            estimator.train(_input_fn(), steps=1)
        set_session.assert_not_called()
        v1_set.assert_not_called()

    def test_reference_probe(self):
        model = tf_keras.Sequential([
            tf_keras.layers.Dense(8, input_shape=(4,)), tf_keras.layers.Dense(2)])
        model.compile("adam", tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"])
        self.assertEqual((model.input_names, model.output_names), (["dense_input"], ["dense_1"]))
        with self.assertLogs("tensorflow", level="WARNING") as captured:
            estimator = el.model_to_estimator(model, model_dir=self.model_dir)
        self.assertTrue(any("Automatically converting your optimizer to "
                            "tf.keras.optimizers.legacy.Optimizer" in r.getMessage()
                            for r in captured.records))
        estimator.train(_input_fn(epochs=2))
        results = estimator.evaluate(_input_fn())
        self.assertEqual(sorted(results), ["accuracy", "global_step", "loss"])
        self.assertEqual(results["global_step"], 8)
        self.assertEqual(sorted(next(estimator.predict(_input_fn()))), ["dense_1"])
        self.assertEqual(sorted(os.listdir(os.path.join(self.model_dir, "keras"))), [
            "checkpoint", "keras_model.ckpt.data-00000-of-00001", "keras_model.ckpt.index"])
        names = estimator.get_variable_names()
        self.assertIn("estimator_global_step/.ATTRIBUTES/VARIABLE_VALUE", names)
        self.assertIn("layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE", names)
        self.assertNotIn("global_step", names)

    def test_saver_format_uses_name_based_keys(self):
        estimator = el.model_to_estimator(_sequential(), model_dir=self.model_dir,
                                          checkpoint_format="saver")
        estimator.train(_input_fn(), steps=2)
        names = estimator.get_variable_names()
        for expected in ("dense/kernel", "dense_1/bias", "global_step",
                         "training/Adam/dense/kernel/m"):
            self.assertIn(expected, names)
        self.assertIn("keras_model.ckpt.meta", os.listdir(os.path.join(self.model_dir, "keras")))

    def test_initial_keras_weights_are_carried_and_predictions_match_keras(self):
        model = _sequential()
        config = model.get_config()
        weights = [np.full_like(w, 0.1 * (i + 1)) for i, w in enumerate(model.get_weights())]
        model.set_weights(weights)
        estimator = el.model_to_estimator(model, model_dir=self.model_dir,
                                          checkpoint_format="saver")
        predictions = [p["dense_1"] for p in estimator.predict(_input_fn(n=4))]
        # A fresh Keras model with the same weights predicts the same.
        reference = tf_keras.Sequential.from_config(config)
        reference.set_weights(weights)
        x, _ = testing.separable_data(4)
        self.assertAllClose(predictions, reference.predict(x, verbose=0), atol=1e-5)

    def test_the_same_model_converts_twice(self):
        model = _sequential()
        x, _ = testing.separable_data(2)
        expected = model.predict(x, verbose=0)
        for _ in range(2):
            estimator = el.model_to_estimator(
                model, model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()),
                checkpoint_format="saver")
            self.assertAllClose([p["dense_1"] for p in estimator.predict(_input_fn(n=2))],
                                expected, atol=1e-5)

    def test_learns_and_accuracy_rises(self):
        estimator = el.model_to_estimator(_sequential(), model_dir=self.model_dir)
        before = estimator.evaluate(_input_fn(n=256))["accuracy"]
        estimator.train(_input_fn(epochs=10, n=256))
        after = estimator.evaluate(_input_fn(n=256))["accuracy"]
        self.assertGreater(after, 0.9)
        self.assertGreater(after, before)

    def test_tf1_optimizer_in_compile(self):
        model = tf_keras.Sequential([tf_keras.layers.Dense(2, input_shape=(4,))])
        model.compile(tf.compat.v1.train.AdamOptimizer(learning_rate=0.001),
                      "sparse_categorical_crossentropy", metrics=["accuracy"])
        estimator = el.model_to_estimator(model, model_dir=self.model_dir)
        estimator.train(_input_fn(), steps=3)
        self.assertEqual(estimator.evaluate(_input_fn(), steps=1)["global_step"], 3)

    def test_functional_multi_input_multi_output(self):
        a = tf_keras.Input((2,), name="a")
        b = tf_keras.Input((2,), name="b")
        hidden = tf_keras.layers.Dense(4, activation="relu")(tf_keras.layers.concatenate([a, b]))
        out_class = tf_keras.layers.Dense(2, name="cls")(hidden)
        out_reg = tf_keras.layers.Dense(1, name="reg")(hidden)
        model = tf_keras.Model([a, b], [out_class, out_reg])
        model.compile(tf_keras.optimizers.legacy.SGD(0.1),
                      loss=[tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                            "mse"],
                      metrics={"cls": ["accuracy"], "reg": ["mae"]})
        x, y = testing.separable_data(32)

        def input_fn():
            features = {"a": x[:, :2], "b": x[:, 2:], "unused": x}
            labels = {"cls": y, "reg": x[:, :1]}
            return tf.data.Dataset.from_tensor_slices((features, labels)).batch(8)

        estimator = el.model_to_estimator(model, model_dir=self.model_dir)
        estimator.train(input_fn)
        results = estimator.evaluate(input_fn)
        self.assertEqual(sorted(results),
                         ["cls_accuracy", "global_step", "loss", "reg_mae"])
        self.assertEqual(sorted(next(estimator.predict(input_fn))), ["cls", "reg"])

    def test_metric_names_map(self):
        estimator = el.model_to_estimator(_sequential(), model_dir=self.model_dir,
                                          metric_names_map={"accuracy": "acc_renamed"})
        self.assertIn("acc_renamed", estimator.evaluate(_input_fn(), steps=1))
        model = _sequential()
        bad = el.model_to_estimator(model, model_dir=self.model_dir + "_2",
                                    metric_names_map={"nope": "x"})
        with self.assertRaisesRegex(ValueError, "Invalid `metric_names_map`"):
            bad.evaluate(_input_fn(key=model.input_names[0]), steps=1)

    def test_missing_feature_key_lists_expected_and_missing(self):
        estimator = el.model_to_estimator(_sequential(), model_dir=self.model_dir)
        with self.assertRaisesRegex(KeyError, r"Expected keys: \{'dense_input'\}[\s\S]*"
                                              r"Difference: \{'dense_input'\}"):
            estimator.train(_input_fn(key="x"), steps=1)

    def test_export_serving_default_answers(self):
        estimator = el.model_to_estimator(_sequential(), model_dir=self.model_dir)
        estimator.train(_input_fn(), steps=2)
        export_dir = estimator.export_saved_model(
            os.path.join(self.model_dir, "export"),
            el.export.build_raw_serving_input_receiver_fn(
                {"dense_input": tf.zeros([1, 4])}))
        loaded = tf.saved_model.load(export_dir.decode())
        x, _ = testing.separable_data(3)
        served = loaded.signatures["serving_default"](dense_input=tf.constant(x))
        expected = [p["dense_1"] for p in estimator.predict(_input_fn(n=3))]
        self.assertAllClose(served["dense_1"], expected, atol=1e-5)

    def test_keras_model_path_hdf5(self):
        model = _sequential()
        path = os.path.join(self.get_temp_dir(), "model.h5")
        model.save(path)
        estimator = el.model_to_estimator(keras_model_path=path, model_dir=self.model_dir)
        estimator.train(_input_fn(), steps=1)
        self.assertIsNotNone(estimator.latest_checkpoint())

    def test_errors(self):
        with self.assertRaisesRegex(ValueError, "Either `keras_model` or `keras_model_path`"):
            el.model_to_estimator()
        uncompiled = tf_keras.Sequential([tf_keras.layers.Dense(2, input_shape=(4,))])
        with self.assertRaisesRegex(ValueError, "has not been compiled yet"):
            el.model_to_estimator(uncompiled)
        with self.assertRaisesRegex(ValueError, "Unknown checkpoint format"):
            el.model_to_estimator(_sequential(), checkpoint_format="h5")
        scale = tf.constant(2.0)  # An eager tensor: the loss cannot be rebuilt in a graph.
        eager_loss = tf_keras.Sequential([tf_keras.layers.Dense(2, input_shape=(4,))])
        eager_loss.compile("sgd", lambda y, p: tf.reduce_mean(tf.square(y - p)) * scale)
        with self.assertRaisesRegex(ValueError, "could not rebuild the compiled model.*"
                                                "cannot capture eager tensors"):
            el.model_to_estimator(eager_loss)
        import keras  # pylint: disable=import-outside-toplevel
        keras3 = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])
        keras3.compile("adam", "mse")
        with self.assertRaisesRegex(ValueError, "Keras 3 object.*TF_USE_LEGACY_KERAS"):
            el.model_to_estimator(keras3)


if __name__ == "__main__":
    tf.test.main()
