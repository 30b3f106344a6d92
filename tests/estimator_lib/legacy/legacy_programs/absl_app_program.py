"""A TF1-era absl program: flags, tf.compat.v1.estimator.inputs.numpy_input_fn, a
v1 Estimator with LoggingTensorHook, evaluate, and the deprecated export_savedmodel.

    python -m estimator_lib.run absl_app_program.py --model_dir=DIR [--train_steps=N]
        [--export_dir=DIR]
"""
from absl import app
from absl import flags
import numpy as np
import tensorflow as tf

FLAGS = flags.FLAGS

flags.DEFINE_string("model_dir", None, "Where checkpoints are written.")
flags.DEFINE_integer("train_steps", 4, "Training steps.")
flags.DEFINE_integer("batch_size", 8, "Batch size.")
flags.DEFINE_string("export_dir", None, "Where to export a SavedModel, if set.")


def model_fn(features, labels, mode, params):
  logits = tf.compat.v1.layers.dense(features["x"], 2)
  predictions = {"classes": tf.argmax(logits, 1)}
  if mode == tf.estimator.ModeKeys.PREDICT:
    return tf.compat.v1.estimator.EstimatorSpec(
        mode, predictions=predictions,
        export_outputs={"classes": tf.estimator.export.PredictOutput(predictions)})
  loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
  train_op = tf.compat.v1.train.GradientDescentOptimizer(
      params["learning_rate"]).minimize(
          loss, global_step=tf.compat.v1.train.get_global_step())
  logging_hook = tf.compat.v1.train.LoggingTensorHook(
      {"logged_loss": loss}, every_n_iter=1)
  return tf.compat.v1.estimator.EstimatorSpec(
      mode, loss=loss, train_op=train_op, training_hooks=[logging_hook],
      eval_metric_ops={"accuracy": tf.compat.v1.metrics.accuracy(
          labels, predictions["classes"])})


def main(argv):
  del argv  # Unused.
  tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)
  rng = np.random.RandomState(0)
  x = rng.randn(32, 4).astype(np.float32)
  y = (x[:, 0] > 0).astype(np.int32)

  estimator = tf.compat.v1.estimator.Estimator(
      model_fn=model_fn, model_dir=FLAGS.model_dir,
      params={"learning_rate": 0.5})
  train_input_fn = tf.compat.v1.estimator.inputs.numpy_input_fn(
      x={"x": x}, y=y, batch_size=FLAGS.batch_size, num_epochs=None,
      shuffle=True)
  estimator.train(input_fn=train_input_fn, steps=FLAGS.train_steps)

  eval_input_fn = tf.compat.v1.estimator.inputs.numpy_input_fn(
      x={"x": x}, y=y, num_epochs=1, shuffle=False)
  results = estimator.evaluate(input_fn=eval_input_fn)
  print("eval results: global_step=%d" % results["global_step"])

  if FLAGS.export_dir:
    def serving_input_fn():
      inputs = {"x": tf.compat.v1.placeholder(tf.float32, [None, 4])}
      return tf.compat.v1.estimator.export.ServingInputReceiver(inputs, inputs)

    path = estimator.export_savedmodel(FLAGS.export_dir, serving_input_fn)
    print("exported to %s" % path.decode())


if __name__ == "__main__":
  flags.mark_flag_as_required("model_dir")
  app.run(main)
