"""model_to_estimator under a tf_keras mixed-precision policy, on two replicas; XLA.

Two logical CPU devices (tests/conftest.py); on CPU, bfloat16 is the realistic
16-bit type, float16 runs too (slowly) and exercises the loss-scale optimizer.
XLA auto-clustering under MirroredStrategy is checked end to end through the
train binary (tests/estimator_lib/bin/cli_test.py): on CPU it must be switched on
before TensorFlow starts, which a test process cannot do.
"""

import tempfile

import numpy as np
import pytest
import tensorflow as tf
import tf_keras
from absl.testing import parameterized

import estimator_lib as el
from tests.estimator_lib import testing

pytestmark = pytest.mark.timeout(180)


def _strategy():
    return tf.distribute.MirroredStrategy(["CPU:0", "CPU:1"])


def _optimizer(name):
    if name == "tf1_adam":
        return tf.compat.v1.train.AdamOptimizer(0.01)
    if name == "keras_adam":  # Keras wraps it in a LossScaleOptimizer under mixed_float16.
        return tf_keras.optimizers.legacy.Adam(0.01)
    if name == "loss_scale_adam":
        return tf_keras.mixed_precision.LossScaleOptimizer(tf_keras.optimizers.legacy.Adam(0.01))
    if name == "tf1_sgd":
        return tf.compat.v1.train.GradientDescentOptimizer(0.5)
    return tf_keras.optimizers.legacy.SGD(0.5)


def _input_fn(x, y, batch):
    return lambda: tf.data.Dataset.from_tensor_slices(({"dense_input": x}, y)).batch(batch)


class MixedPrecisionTest(parameterized.TestCase, tf.test.TestCase):

    def setUp(self):
        super().setUp()
        tf_keras.backend.clear_session()  # Layer names start again at `dense`.

    def tearDown(self):
        tf_keras.mixed_precision.set_global_policy("float32")
        super().tearDown()

    def _model(self, policy, optimizer):
        tf_keras.mixed_precision.set_global_policy(policy)
        model = tf_keras.Sequential([  # Seeded: the same initial weights in every run.
            tf_keras.layers.Dense(8, input_shape=(4,), activation="relu",
                                  kernel_initializer=tf_keras.initializers.GlorotUniform(1)),
            tf_keras.layers.Dense(2, kernel_initializer=tf_keras.initializers.GlorotUniform(2))])
        model.compile(_optimizer(optimizer),
                      tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        return model

    @parameterized.parameters(
        ("mixed_bfloat16", "tf1_adam", "checkpoint"),
        ("mixed_bfloat16", "keras_adam", "saver"),
        ("mixed_float16", "keras_adam", "checkpoint"),
        ("mixed_float16", "loss_scale_adam", "saver"),
    )
    def test_trains_on_two_replicas_with_float32_variables(self, policy, optimizer,
                                                          checkpoint_format):
        model = self._model(policy, optimizer)
        config = el.RunConfig(model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()),
                              train_distribute=_strategy())
        estimator = el.model_to_estimator(model, config=config,
                                          checkpoint_format=checkpoint_format)
        x, y = testing.separable_data(32)
        estimator.train(_input_fn(x, y, 8))  # 32 examples, 16 a step: 2 steps.
        self.assertEqual(estimator.get_variable_value(
            "global_step" if checkpoint_format == "saver" else
            "estimator_global_step/.ATTRIBUTES/VARIABLE_VALUE"), 2)
        checkpoint = tf.train.load_checkpoint(estimator.model_dir)
        dtypes = checkpoint.get_variable_to_dtype_map()
        kernels = [name for name in dtypes if "kernel" in name and "replica" not in name]
        self.assertNotEmpty(kernels)
        for name in kernels:  # Weights and optimizer slots alike.
            self.assertEqual(dtypes[name], tf.float32, name)
        self.assertTrue(np.isfinite(estimator.evaluate(_input_fn(x, y, 8))["loss"]))
        # The layers compute in the policy's dtype: the (unwrapped) output is 16-bit.
        output = next(estimator.predict(_input_fn(x, y, 8)))["dense_1"]
        self.assertEqual(output.dtype.name, policy[len("mixed_"):])

    @parameterized.parameters("keras_sgd", "tf1_sgd")
    def test_two_replicas_equal_one_with_the_same_global_batch(self, optimizer):
        x, y = testing.separable_data(64)
        kernels = []
        for strategy, batch in ((None, 16), (_strategy(), 8)):
            tf_keras.backend.clear_session()
            model = self._model("mixed_bfloat16", optimizer)
            config = el.RunConfig(model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()),
                                  train_distribute=strategy)
            estimator = el.model_to_estimator(model, config=config, checkpoint_format="saver")
            estimator.train(_input_fn(x, y, batch), steps=2)
            kernels.append(estimator.get_variable_value("dense_1/kernel"))
        self.assertAllClose(kernels[0], kernels[1], rtol=2e-2, atol=2e-2)

    def test_jit_compile_is_not_applied_and_the_warning_says_how_to_get_xla(self):
        model = self._model("float32", "keras_adam")
        model.compile(model.optimizer, model.loss, jit_compile=True)
        with self.assertLogs("tensorflow", level="WARNING") as captured:
            el.model_to_estimator(model, model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()))
        self.assertTrue(any("does not apply compile(jit_compile=True)" in r.getMessage() and
                            "global_jit_level" in r.getMessage() for r in captured.records))


if __name__ == "__main__":
    tf.test.main()
