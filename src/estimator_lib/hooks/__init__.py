"""SessionRunHooks: the protocol and the built-in hooks, under their tf.estimator names.

TensorFlow 2.21 still ships all of these in `tf.compat.v1.train`; the Estimator's
names were aliases of them, so legacy hooks that subclass either keep working.
Their pages show TensorFlow's own docstrings (the classes are TensorFlow's, re-exported
as they are); the examples below show each of them at work with an Estimator.

Examples:
    A hook of your own: `before_run` asks for a tensor with `SessionRunArgs`,
    `after_run` reads it from `SessionRunValues` and stops the loop through the
    `SessionRunContext` (a one-weight model, loss (w - 1)^2, gradient descent at
    the fed-or-default learning rate `lr`):

    >>> import os
    >>> import tempfile
    >>> import tensorflow as tf
    >>> import estimator_lib
    >>> from estimator_lib import hooks
    >>> final_ops = []
    >>> def model_fn(features, labels, mode):
    ...     w = tf.compat.v1.get_variable("w", [], initializer=tf.compat.v1.zeros_initializer())
    ...     loss = tf.square(w - features["x"][0], name="loss")
    ...     lr = tf.compat.v1.placeholder_with_default(0.1, [], name="lr")
    ...     step = tf.compat.v1.train.get_or_create_global_step()
    ...     train_op = tf.compat.v1.train.GradientDescentOptimizer(lr).minimize(loss, step)
    ...     final_ops.append(hooks.FinalOpsHook({"w": w}))
    ...     summary = hooks.SummarySaverHook(save_steps=1, output_dir=os.path.join(
    ...         model_dir, "w"), summary_op=tf.compat.v1.summary.scalar("w", w))
    ...     # ProfilerHook opens its writer as it is built: build it in the graph.
    ...     profiler = hooks.ProfilerHook(save_steps=2, output_dir=model_dir)
    ...     return estimator_lib.EstimatorSpec(mode, loss=loss, train_op=train_op,
    ...         training_hooks=[hooks.NanTensorHook(loss), final_ops[-1], summary, profiler])
    >>> def input_fn():
    ...     return tf.data.Dataset.from_tensors(({"x": [1.0]}, [1.0])).repeat()
    >>> class LossRecorder(hooks.SessionRunHook):
    ...     def __init__(self, stop_after=None):
    ...         self.losses, self.stop_after = [], stop_after
    ...     def before_run(self, run_context):
    ...         return hooks.SessionRunArgs({"loss": "loss:0"})
    ...     def after_run(self, run_context, run_values):
    ...         self.losses.append(round(float(run_values.results["loss"]), 4))
    ...         if len(self.losses) == self.stop_after:
    ...             run_context.request_stop()
    >>> model_dir = tempfile.mkdtemp()
    >>> est = estimator_lib.Estimator(model_fn, model_dir=model_dir)
    >>> recorder = LossRecorder(stop_after=3)
    >>> est = est.train(input_fn, hooks=[recorder])
    >>> recorder.losses, round(float(final_ops[-1].final_ops_values["w"]), 4)
    ([1.0, 0.64, 0.4096], 0.488)

    A hook can be tried without a session: build what the loop would pass it, a
    `SessionRunContext` and the `SessionRunValues` of a run:

    >>> hook = LossRecorder(stop_after=1)
    >>> context = hooks.SessionRunContext(original_args=hooks.SessionRunArgs([]), session=None)
    >>> hook.after_run(context, hooks.SessionRunValues(results={"loss": 0.25}, options=None,
    ...                                                 run_metadata=None))
    >>> hook.losses, context.stop_requested
    ([0.25], True)

    The built-in hooks: two more steps with the learning rate fed as 0 (so the loss
    stays), the loss logged, steps/sec counted and a checkpoint at every step, with a
    `CheckpointSaverListener` told of each save; model_fn's `ProfilerHook` wrote a
    timeline every two steps:

    >>> class Saved(hooks.CheckpointSaverListener):
    ...     def __init__(self):
    ...         self.steps = []
    ...     def after_save(self, session, global_step_value):
    ...         self.steps.append(int(global_step_value))
    >>> recorder, saved = LossRecorder(), Saved()
    >>> est = est.train(input_fn, hooks=[
    ...     recorder,
    ...     hooks.StopAtStepHook(last_step=5),
    ...     hooks.FeedFnHook(lambda: {"lr:0": 0.0}),
    ...     hooks.LoggingTensorHook({"loss": "loss:0"}, every_n_iter=1),
    ...     hooks.StepCounterHook(every_n_steps=1, output_dir=model_dir),
    ...     hooks.GlobalStepWaiterHook(wait_until_step=0),
    ...     hooks.CheckpointSaverHook(model_dir, save_steps=1, listeners=[saved])])
    >>> recorder.losses, saved.steps, int(est.get_variable_value("global_step"))
    ([0.2621, 0.2621], [3, 4, 5], 5)
    >>> sorted(name for name in os.listdir(model_dir) if name.startswith("timeline"))
    ['timeline-2.json', 'timeline-5.json']

    A `NanTensorHook` stops training on a NaN loss with `NanLossDuringTrainingError`:

    >>> def nan_model_fn(features, labels, mode):
    ...     step = tf.compat.v1.train.get_or_create_global_step()
    ...     loss = tf.constant(float("nan"))
    ...     return estimator_lib.EstimatorSpec(mode, loss=loss, train_op=step.assign_add(1),
    ...                                        training_hooks=[hooks.NanTensorHook(loss)])
    >>> try:
    ...     estimator_lib.Estimator(nan_model_fn, model_dir=tempfile.mkdtemp()).train(
    ...         input_fn, steps=1)
    ... except hooks.NanLossDuringTrainingError as error:
    ...     print(error)
    NaN loss during training.

    A `SecondOrStepTimer` (what the hooks above use for `every_n_*`) on its own:

    >>> timer = hooks.SecondOrStepTimer(every_steps=2)
    >>> fired = []
    >>> for step in range(6):
    ...     if timer.should_trigger_for_step(step):
    ...         _ = timer.update_last_triggered_step(step)
    ...         fired.append(step)
    >>> fired
    [0, 2, 4]
"""

import tensorflow as tf


_train = tf.compat.v1.train

SessionRunHook = _train.SessionRunHook
SessionRunArgs = _train.SessionRunArgs
SessionRunContext = _train.SessionRunContext
SessionRunValues = _train.SessionRunValues

LoggingTensorHook = _train.LoggingTensorHook
StopAtStepHook = _train.StopAtStepHook
CheckpointSaverHook = _train.CheckpointSaverHook
CheckpointSaverListener = _train.CheckpointSaverListener
StepCounterHook = _train.StepCounterHook
NanTensorHook = _train.NanTensorHook
NanLossDuringTrainingError = _train.NanLossDuringTrainingError
SummarySaverHook = _train.SummarySaverHook
GlobalStepWaiterHook = _train.GlobalStepWaiterHook
FinalOpsHook = _train.FinalOpsHook
FeedFnHook = _train.FeedFnHook
ProfilerHook = _train.ProfilerHook
SecondOrStepTimer = _train.SecondOrStepTimer

__all__ = [
    "SessionRunHook", "SessionRunArgs", "SessionRunContext", "SessionRunValues",
    "LoggingTensorHook", "StopAtStepHook", "CheckpointSaverHook", "CheckpointSaverListener",
    "StepCounterHook", "NanTensorHook", "NanLossDuringTrainingError", "SummarySaverHook",
    "GlobalStepWaiterHook", "FinalOpsHook", "FeedFnHook", "ProfilerHook", "SecondOrStepTimer",
]

# Throughput, input-stall and profiling hooks (issue 6).
from estimator_lib.hooks.input_stall import InputStallHook  # noqa: E402
from estimator_lib.hooks.profiler import ProfileStepsHook  # noqa: E402
from estimator_lib.hooks.throughput import ExamplesPerSecondHook  # noqa: E402
from estimator_lib.hooks.global_batch import GlobalBatch  # noqa: E402
from estimator_lib.hooks.throughput import TimeHistory  # noqa: E402
from estimator_lib.hooks.global_batch import global_batch_size  # noqa: E402
from estimator_lib.hooks.global_batch import make_global_batch  # noqa: E402

__all__ += [
    "InputStallHook", "ProfileStepsHook", "ExamplesPerSecondHook", "GlobalBatch", "TimeHistory",
    "global_batch_size", "make_global_batch",
]
