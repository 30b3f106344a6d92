"""A TF2.x-era program: tf.keras.estimator.model_to_estimator, train_and_evaluate,
and hooks and an exporter from a library that subclasses tf.estimator classes at
import time (legacy_hooks.py, beside this file).

    python -m estimator_lib.run keras_estimator_program.py MODEL_DIR
"""
import sys

import numpy as np
import tensorflow as tf

import legacy_hooks


def main(model_dir):
  rng = np.random.RandomState(0)
  x = rng.randn(32, 4).astype(np.float32)
  y = (x[:, 0] + x[:, 1] > 0).astype(np.int32)

  model = tf.keras.Sequential([
      tf.keras.layers.Dense(8, activation="relu", input_shape=(4,)),
      tf.keras.layers.Dense(2)])
  model.compile(
      optimizer="adam",
      loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
      metrics=["accuracy"])
  estimator = tf.keras.estimator.model_to_estimator(
      keras_model=model, model_dir=model_dir)
  input_name = model.input_names[0]

  def train_input_fn():
    return tf.data.Dataset.from_tensor_slices(
        ({input_name: x}, y)).repeat().batch(8)

  def eval_input_fn():
    return tf.data.Dataset.from_tensor_slices(({input_name: x}, y)).batch(8)

  timing = legacy_hooks.ExamplesPerSecondHook(batch_size=8, every_n_steps=2)
  counting = legacy_hooks.StepCountingHook()
  train_spec = tf.estimator.TrainSpec(
      train_input_fn, max_steps=6, hooks=[timing, counting])
  eval_spec = tf.estimator.EvalSpec(
      eval_input_fn, steps=None, exporters=[legacy_hooks.MarkerExporter()])
  metrics, _ = tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)
  print("final metrics: global_step=%d accuracy=%.3f" % (
      metrics["global_step"], metrics["accuracy"]))
  assert isinstance(estimator, tf.estimator.Estimator)
  assert counting.runs == 6, counting.runs


if __name__ == "__main__":
  main(sys.argv[1])
