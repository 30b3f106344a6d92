"""Training under MirroredStrategy on two logical CPU devices (set up in conftest.py).

Every test here is bounded by a timeout: a hang is a failure, never a stuck suite.
"""

import tempfile
from unittest import mock

import numpy as np
import pytest
import tensorflow as tf
import tf_keras
from absl.testing import parameterized

import estimator_lib as el
from estimator_lib.distribute import strategies
from tests.estimator_lib import testing

pytestmark = pytest.mark.timeout(180)


def _strategy():
    return tf.distribute.MirroredStrategy(["CPU:0", "CPU:1"])


class MirroredTrainingTest(parameterized.TestCase, tf.test.TestCase):

    def _model_dir(self):
        return tempfile.mkdtemp(dir=self.get_temp_dir())

    def test_model_fn_runs_once_per_replica_and_batches_are_per_replica(self):
        calls = []

        def model_fn(features, labels, mode):
            calls.append(tf.distribute.get_replica_context().replica_id_in_sync_group)
            return testing.linear_model_fn(features, labels, mode)

        config = el.RunConfig(model_dir=self._model_dir(), train_distribute=_strategy())
        estimator = el.Estimator(model_fn, config=config)
        # 64 examples, batch 8 per replica, 2 replicas: 16 examples a step, 4 steps.
        estimator.train(testing.eval_input_fn(batch_size=8, n=64))
        self.assertLen(calls, 2)
        self.assertEqual(estimator.get_variable_value("global_step"), 4)

    @parameterized.parameters(16, 7)  # Per-replica batches that do and don't split evenly.
    def test_custom_model_fn_learns(self, batch_size):
        config = el.RunConfig(model_dir=self._model_dir(), train_distribute=_strategy(),
                              tf_random_seed=1)
        estimator = el.Estimator(testing.linear_model_fn, config=config)
        estimator.train(testing.train_input_fn(batch_size=batch_size, n=256), steps=40)
        self.assertGreater(estimator.evaluate(testing.eval_input_fn(n=256))["accuracy"], 0.85)

    def test_hooks_and_scaffold_of_replica_zero_are_used(self):
        begun = []

        class Hook(el.SessionRunHook):
            def begin(self):
                begun.append(1)

        def model_fn(features, labels, mode):
            spec = testing.linear_model_fn(features, labels, mode)
            return spec._replace(training_hooks=[Hook()])

        config = el.RunConfig(model_dir=self._model_dir(), train_distribute=_strategy())
        el.Estimator(model_fn, config=config).train(testing.train_input_fn(), steps=2)
        self.assertEqual(begun, [1])

    def test_model_to_estimator_seed_style_learns_on_every_replica(self):
        tf_keras.backend.clear_session()
        model = tf_keras.Sequential([
            tf_keras.layers.Dense(8, input_shape=(4,), activation="relu"),
            tf_keras.layers.Dense(2, activation="softmax")])
        model.compile(tf.compat.v1.train.AdamOptimizer(learning_rate=0.05),
                      "sparse_categorical_crossentropy", metrics=["accuracy"])
        config = el.RunConfig(model_dir=self._model_dir(), train_distribute=_strategy(),
                              tf_random_seed=1)
        estimator = el.model_to_estimator(model, config=config)
        x, y = testing.separable_data(256)
        key = model.input_names[0]

        def input_fn():
            return tf.data.Dataset.from_tensor_slices(({key: x}, y)).shuffle(256).repeat(4).batch(16)

        estimator.train(input_fn)
        self.assertEqual(estimator.get_variable_value(
            "estimator_global_step/.ATTRIBUTES/VARIABLE_VALUE"), 32)
        results = estimator.evaluate(
            lambda: tf.data.Dataset.from_tensor_slices(({key: x}, y)).batch(64))
        self.assertGreater(results["accuracy"], 0.9)

    def test_devices_the_session_cannot_have_are_an_error_not_a_hang(self):
        # TensorFlow may refuse such a strategy itself once its runtime is up; either
        # way training must fail at once with a message naming the devices.
        with self.assertRaisesRegex((ValueError, tf.errors.InvalidArgumentError),
                                    r"CPU:5|CPU devices \[0, 5\]"):
            strategy = tf.distribute.MirroredStrategy(["CPU:0", "CPU:5"])
            config = el.RunConfig(model_dir=self._model_dir(), train_distribute=strategy)
            el.Estimator(testing.linear_model_fn, config=config).train(
                testing.train_input_fn(), steps=1)

    def test_session_config_check_names_the_missing_devices(self):
        fake = mock.Mock()
        fake.extended._update_config_proto = lambda config: config
        fake.extended.worker_devices = ["/job:localhost/replica:0/task:0/device:CPU:0",
                                        "/job:localhost/replica:0/task:0/device:CPU:5"]
        with self.assertRaisesRegex(ValueError, r"names CPU devices \[0, 5\], but this process "
                                                r"has 2 CPU device"):
            strategies.session_config_for(fake, tf.compat.v1.ConfigProto())
        fake.extended.worker_devices = ["/job:localhost/replica:0/task:0/device:CPU:0",
                                        "/job:localhost/replica:0/task:0/device:CPU:1"]
        config = strategies.session_config_for(fake, tf.compat.v1.ConfigProto())
        self.assertEqual(config.device_count["CPU"], 2)

    def test_same_result_on_one_and_two_replicas_with_the_same_global_batch(self):
        x, y = testing.separable_data(64)
        kernels = []
        for strategy, batch in ((None, 16), (_strategy(), 8)):
            config = el.RunConfig(model_dir=self._model_dir(), train_distribute=strategy,
                                  tf_random_seed=3)

            def model_fn(features, labels, mode):
                logits = tf.compat.v1.layers.dense(
                    features["x"], 2, kernel_initializer=tf.compat.v1.zeros_initializer())
                loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
                train_op = tf.compat.v1.train.GradientDescentOptimizer(0.5).minimize(
                    loss, global_step=tf.compat.v1.train.get_global_step())
                return el.EstimatorSpec(mode, loss=loss, train_op=train_op)

            estimator = el.Estimator(model_fn, config=config)
            estimator.train(lambda b=batch: tf.data.Dataset.from_tensor_slices(
                ({"x": x}, y)).batch(b), steps=2)
            kernels.append(estimator.get_variable_value("dense/kernel"))
        # Mean-reduced gradients over 2 x 8 examples equal those over 16 examples.
        self.assertAllClose(kernels[0], kernels[1], atol=1e-5)
        self.assertFalse(np.allclose(kernels[0], 0))


if __name__ == "__main__":
    tf.test.main()


class MirroredEvaluationTest(tf.test.TestCase):

    def test_eval_distribute_gives_the_single_device_metrics(self):
        model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        el.Estimator(testing.linear_model_fn, model_dir=model_dir).train(
            testing.train_input_fn(), steps=5)
        single = el.Estimator(testing.linear_model_fn, model_dir=model_dir).evaluate(
            testing.eval_input_fn(batch_size=8, n=64))
        config = el.RunConfig(model_dir=model_dir, eval_distribute=_strategy())
        mirrored = el.Estimator(testing.linear_model_fn, config=config).evaluate(
            testing.eval_input_fn(batch_size=8, n=64))
        self.assertEqual(sorted(mirrored), ["accuracy", "global_step", "loss"])
        self.assertEqual(mirrored["global_step"], 5)
        self.assertAllClose(mirrored["accuracy"], single["accuracy"])
        self.assertAllClose(mirrored["loss"], single["loss"], rtol=1e-5)

    def test_model_to_estimator_with_train_and_eval_distribute(self):
        tf_keras.backend.clear_session()
        model = tf_keras.Sequential([tf_keras.layers.Dense(2, input_shape=(4,))])
        model.compile(tf_keras.optimizers.legacy.SGD(0.1),
                      tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"])
        config = el.RunConfig(model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()),
                              train_distribute=_strategy(), eval_distribute=_strategy())
        estimator = el.model_to_estimator(model, config=config)
        x, y = testing.separable_data(64)
        key = model.input_names[0]

        def input_fn():
            return tf.data.Dataset.from_tensor_slices(({key: x}, y)).batch(8)

        estimator.train(input_fn)
        distributed = estimator.evaluate(input_fn)
        local = el.model_to_estimator(
            model, config=config.replace(train_distribute=None, eval_distribute=None)
        ).evaluate(input_fn)
        self.assertAllClose(distributed["accuracy"], local["accuracy"])
        self.assertAllClose(distributed["loss"], local["loss"], rtol=1e-5)


class KerasLossScalingTest(parameterized.TestCase, tf.test.TestCase):
    """A Keras loss is divided by the replica count once, whichever optimizer applies it."""

    @parameterized.parameters("keras_sgd", "tf1_gradient_descent")
    def test_two_replicas_equal_one_with_the_same_global_batch(self, optimizer):
        x, y = testing.separable_data(64)
        kernels = []
        for strategy, batch in ((None, 16), (_strategy(), 8)):
            tf_keras.backend.clear_session()
            model = tf_keras.Sequential([tf_keras.layers.Dense(
                2, input_shape=(4,), kernel_initializer="zeros")])
            model.compile(tf_keras.optimizers.legacy.SGD(0.5) if optimizer == "keras_sgd"
                          else tf.compat.v1.train.GradientDescentOptimizer(0.5),
                          tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True))
            config = el.RunConfig(model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()),
                                  train_distribute=strategy)
            estimator = el.model_to_estimator(model, config=config, checkpoint_format="saver")
            key = model.input_names[0]
            estimator.train(lambda b=batch: tf.data.Dataset.from_tensor_slices(
                ({key: x}, y)).batch(b), steps=2)
            kernels.append(estimator.get_variable_value("dense/kernel"))
        self.assertAllClose(kernels[0], kernels[1], atol=1e-6)


class OneDeviceTest(tf.test.TestCase):

    def test_one_device_strategy_trains_and_evaluates(self):
        strategy = tf.distribute.OneDeviceStrategy("/cpu:1")
        # Seeded: unseeded, 20 steps from a random start fell short of 0.7 once in a while.
        config = el.RunConfig(model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()),
                              train_distribute=strategy, eval_distribute=strategy,
                              tf_random_seed=1)
        estimator = el.Estimator(testing.linear_model_fn, config=config)
        estimator.train(testing.train_input_fn(), steps=20)
        results = estimator.evaluate(testing.eval_input_fn())
        self.assertEqual(results["global_step"], 20)
        self.assertGreater(results["accuracy"], 0.7)
