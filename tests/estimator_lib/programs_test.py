"""Public Estimator programs run with `tf.estimator` replaced by `estimator_lib`.

- the TF1 program of the official "Migrate from Estimator" guide (custom model_fn
  with tf.compat.v1.layers, train to exhaustion, evaluate);
- the seed program: the Fashion-MNIST CNN compiled with a TF1 Adam optimizer,
  model_to_estimator, RunConfig(train_distribute=MirroredStrategy(...)), an input_fn
  of from_tensor_slices -> shuffle -> repeat -> batch -> prefetch, a TimeHistory
  SessionRunHook timing every step, train then evaluate — on 1 and 2 devices.
"""

import tempfile
import time

import numpy as np
import pytest
import tensorflow as tf
import tensorflow.compat.v1 as tf1
from absl.testing import parameterized

import estimator_lib as estimator  # was: tf1.estimator / tf.estimator

pytestmark = pytest.mark.timeout(300)


class MigrationGuideProgramTest(tf.test.TestCase):

    def test_tf1_custom_model_fn_program(self):
        features = [[1., 1.5], [2., 2.5], [3., 3.5]]
        labels = [[0.3], [0.5], [0.7]]
        eval_features = [[4., 4.5], [5., 5.5], [6., 6.5]]
        eval_labels = [[0.8], [0.9], [1.]]

        def _input_fn():
            return tf1.data.Dataset.from_tensor_slices((features, labels)).batch(1)

        def _eval_input_fn():
            return tf1.data.Dataset.from_tensor_slices((eval_features, eval_labels)).batch(1)

        def _model_fn(features, labels, mode):
            logits = tf1.layers.Dense(1)(features)
            loss = tf1.losses.mean_squared_error(labels=labels, predictions=logits)
            optimizer = tf1.train.AdagradOptimizer(0.05)
            train_op = optimizer.minimize(loss, global_step=tf1.train.get_global_step())
            return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

        est = estimator.Estimator(model_fn=_model_fn,
                                  model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()))
        est.train(_input_fn)
        results = est.evaluate(_eval_input_fn)
        self.assertEqual(results["global_step"], 3)
        self.assertEqual(sorted(results), ["global_step", "loss"])


class MirroredStrategyGuideProgramTest(tf.test.TestCase):
    """The TF1 program of the "Migrate single-worker multiple-GPU training" guide."""

    def test_mirrored_strategy_train_and_evaluate(self):
        features = [[1., 1.5], [2., 2.5], [3., 3.5]]
        labels = [[0.3], [0.5], [0.7]]
        eval_features = [[4., 4.5], [5., 5.5], [6., 6.5]]
        eval_labels = [[0.8], [0.9], [1.]]

        def _input_fn():
            return tf1.data.Dataset.from_tensor_slices((features, labels)).batch(1)

        def _eval_input_fn():
            return tf1.data.Dataset.from_tensor_slices((eval_features, eval_labels)).batch(1)

        def _model_fn(features, labels, mode):
            logits = tf1.layers.Dense(1)(features)
            loss = tf1.losses.mean_squared_error(labels=labels, predictions=logits)
            optimizer = tf1.train.AdagradOptimizer(0.05)
            train_op = optimizer.minimize(loss, global_step=tf1.train.get_global_step())
            return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

        strategy = tf1.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
        config = estimator.RunConfig(train_distribute=strategy, eval_distribute=strategy,
                                     model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()))
        est = estimator.Estimator(model_fn=_model_fn, config=config)
        train_spec = estimator.TrainSpec(input_fn=_input_fn)
        eval_spec = estimator.EvalSpec(input_fn=_eval_input_fn)
        metrics, _ = estimator.train_and_evaluate(est, train_spec, eval_spec)
        # 3 examples, 1 per replica per step, 2 replicas: one full step; the last
        # example, which only one replica would get, ends the input (no hang), as in
        # the original (tensorflow issue 26222).
        self.assertEqual(metrics["global_step"], 1)
        self.assertIn("loss", metrics)


class EarlyStoppingGuideProgramTest(parameterized.TestCase, tf.test.TestCase):
    """The TF1 early-stopping program; also under MirroredStrategy (tensorflow#51525)."""

    @parameterized.parameters(False, True)
    def test_stop_if_no_decrease_hook(self, mirrored):
        rng = np.random.RandomState(0)
        x = rng.randn(64, 2).astype(np.float32)
        y = x.sum(axis=1, keepdims=True)

        def _input_fn():
            return tf1.data.Dataset.from_tensor_slices((x, y)).repeat().batch(8)

        def _eval_input_fn():
            return tf1.data.Dataset.from_tensor_slices((x, y)).batch(8)

        def _model_fn(features, labels, mode):
            logits = tf1.layers.Dense(1)(features)
            loss = tf1.losses.mean_squared_error(labels=labels, predictions=logits)
            train_op = tf1.train.GradientDescentOptimizer(0.1).minimize(
                loss, global_step=tf1.train.get_global_step())
            return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

        strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"]) if mirrored else None
        config = estimator.RunConfig(save_checkpoints_steps=10, train_distribute=strategy,
                                     model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()))
        est = estimator.Estimator(model_fn=_model_fn, config=config)
        # The guide's defaults (run_every_secs=60) raised under any strategy in the original.
        hook = estimator.experimental.stop_if_no_decrease_hook(
            est, metric_name="loss", max_steps_without_decrease=1, min_steps=0,
            run_every_secs=None, run_every_steps=10)
        estimator.experimental.stop_if_no_decrease_hook(est, "loss", 100)  # Defaults accepted.
        train_spec = estimator.TrainSpec(input_fn=_input_fn, max_steps=2000, hooks=[hook])
        eval_spec = estimator.EvalSpec(input_fn=_eval_input_fn, steps=None, throttle_secs=0)
        metrics, _ = estimator.train_and_evaluate(est, train_spec, eval_spec)
        self.assertLess(metrics["global_step"], 2000)  # Stopped early, once loss plateaued.


class KerasModelToEstimatorTutorialTest(tf.test.TestCase):
    """The public keras_model_to_estimator tutorial, with iris-shaped data inline."""

    def test_tutorial_program(self):
        tf.keras.backend.clear_session()
        rng = np.random.RandomState(0)
        labels = np.arange(150) % 3
        features = (rng.randn(150, 4) * 0.3 + labels[:, None]).astype(np.float32)

        model = tf.keras.models.Sequential([
            tf.keras.layers.Dense(16, activation="relu", input_shape=(4,)),
            tf.keras.layers.Dropout(0.2),
            tf.keras.layers.Dense(3)
        ])
        model.compile(loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      optimizer="adam")

        def input_fn():
            dataset = tf.data.Dataset.from_tensor_slices((features, labels))
            dataset = dataset.map(lambda features, labels: ({"dense_input": features}, labels))
            dataset = dataset.batch(32).repeat()
            return dataset

        keras_estimator = estimator.model_to_estimator(
            keras_model=model, model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()))
        keras_estimator.train(input_fn=input_fn, steps=50)
        eval_result = keras_estimator.evaluate(input_fn=input_fn, steps=10)
        self.assertEqual(sorted(eval_result), ["global_step", "loss"])
        self.assertEqual(eval_result["global_step"], 50)


class TimeHistory(estimator.SessionRunHook):
    """The seed program's timing hook, verbatim in spirit."""

    def begin(self):
        self.times = []

    def before_run(self, run_context):
        self.iter_time_start = time.time()

    def after_run(self, run_context, run_values):
        self.times.append(time.time() - self.iter_time_start)


def _seed_cnn():
    model = tf.keras.models.Sequential([
        tf.keras.layers.Conv2D(32, (3, 3), activation="relu", input_shape=(28, 28, 1)),
        tf.keras.layers.MaxPooling2D((2, 2)),
        tf.keras.layers.Conv2D(64, (3, 3), activation="relu"),
        tf.keras.layers.MaxPooling2D((2, 2)),
        tf.keras.layers.Conv2D(64, (3, 3), activation="relu"),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(64, activation="relu"),
        tf.keras.layers.Dense(10, activation="softmax")])
    model.compile(loss="categorical_crossentropy",
                  optimizer=tf.compat.v1.train.AdamOptimizer(learning_rate=0.001),
                  metrics=["accuracy"])
    return model


class SeedProgramTest(parameterized.TestCase, tf.test.TestCase):

    @parameterized.parameters(1, 2)
    def test_seed_program(self, num_devices):
        tf.keras.backend.clear_session()
        rng = np.random.RandomState(0)
        labels_int = np.arange(128) % 10
        # A learnable signal: class k lights up row band k.
        images = rng.rand(128, 28, 28, 1).astype(np.float32) * 0.2
        for i, k in enumerate(labels_int):
            images[i, 2 * k + 4:2 * k + 6, :, 0] += 0.8
        labels = np.eye(10, dtype=np.float32)[labels_int]
        batch_size, epochs = 16, 6

        def input_fn(images, labels, epochs, batch_size):
            dataset = tf.data.Dataset.from_tensor_slices((images, labels))
            return dataset.shuffle(5000).repeat(epochs).batch(batch_size).prefetch(2)

        model = _seed_cnn()
        strategy = tf.distribute.MirroredStrategy(
            [f"/cpu:{i}" for i in range(num_devices)])
        config = estimator.RunConfig(train_distribute=strategy,
                                     model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()))
        est = estimator.model_to_estimator(model, config=config)
        # Keras names the input after the first layer: feed features by that name.
        input_name = model.input_names[0]

        def train_input_fn():
            dataset = input_fn(images, labels, epochs, batch_size)
            return dataset.map(lambda x, y: ({input_name: x}, y))

        time_hist = TimeHistory()
        est.train(train_input_fn, hooks=[time_hist])
        steps = 128 * epochs // (batch_size * num_devices)
        self.assertLen(time_hist.times, steps)
        results = est.evaluate(lambda: tf.data.Dataset.from_tensor_slices(
            ({input_name: images}, labels)).batch(32))
        self.assertEqual(results["global_step"], steps)
        self.assertGreater(results["accuracy"], 0.5)  # Chance is 0.1.
        print(f"{num_devices} device(s): {128 * epochs / sum(time_hist.times):.0f} img/s")


if __name__ == "__main__":
    tf.test.main()
