"""A hook library as third-party TF1/TF2.x code wrote them, subclassing at import time.

In the style of tensorflow/models official/utils/logs/hooks.py (the
ExamplesPerSecondHook that aime-team/tf2-benchmarks#3 reports failing on TF 2.16
with AttributeError at `class ...(tf.estimator.SessionRunHook)`), and of
tensorflow_hub's exporter (`tf_v1.estimator.Exporter`). Nothing here knows about
estimator_lib: it imports only after `estimator_lib.compat.install()`.
"""
import os

import tensorflow as tf
from tensorflow_estimator.python.estimator.hooks import session_run_hook

tf_v1 = tf.compat.v1


class ExamplesPerSecondHook(tf.estimator.SessionRunHook):
  """Prints examples/sec every N steps, from the global step."""

  def __init__(self, batch_size, every_n_steps=1, warm_steps=0):
    self._timer = tf_v1.train.SecondOrStepTimer(every_steps=every_n_steps)
    self._batch_size = batch_size
    self._warm_steps = warm_steps
    self._step_train_time = 0
    self._total_steps = 0
    self.current_examples_per_sec_list = []

  def begin(self):
    self._global_step_tensor = tf_v1.train.get_global_step()
    if self._global_step_tensor is None:
      raise RuntimeError(
          "Global step should be created to use StepCounterHook.")

  def before_run(self, run_context):  # pylint: disable=unused-argument
    return tf.estimator.SessionRunArgs(self._global_step_tensor)

  def after_run(self, run_context, run_values):  # pylint: disable=unused-argument
    global_step = run_values.results
    if self._timer.should_trigger_for_step(
        global_step) and global_step > self._warm_steps:
      elapsed_time, elapsed_steps = self._timer.update_last_triggered_step(
          global_step)
      if elapsed_time is not None:
        self._step_train_time += elapsed_time
        self._total_steps += elapsed_steps
        current_examples_per_sec = self._batch_size * (
            elapsed_steps / elapsed_time)
        self.current_examples_per_sec_list.append(current_examples_per_sec)
        print("examples/sec: %g (global step %d)" % (current_examples_per_sec,
                                                     global_step))


class StepCountingHook(session_run_hook.SessionRunHook):
  """Counts the session runs it sees (subclasses the tensorflow_estimator path)."""

  def begin(self):
    self.runs = 0

  def after_run(self, run_context, run_values):
    self.runs += 1

  def end(self, session):
    print("StepCountingHook saw %d runs" % self.runs)


class MarkerExporter(tf_v1.estimator.Exporter):
  """Writes a marker file instead of a SavedModel, as custom exporters did."""

  def __init__(self, name="marker"):
    self._name = name

  @property
  def name(self):
    return self._name

  def export(self, estimator, export_path, checkpoint_path, eval_result,
             is_the_final_export):
    tf.io.gfile.makedirs(export_path)
    marker = os.path.join(export_path, "exported_step_%d" % eval_result["global_step"])
    with tf.io.gfile.GFile(marker, "w") as f:
      f.write(checkpoint_path)
    return marker
