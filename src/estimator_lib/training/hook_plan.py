"""Which hooks a training run has, in which order, on the chief and on the other tasks.

`plan()` is the one place the hooks of `Estimator.train` are assembled. It builds
hook objects and reads the config; it runs nothing, changes no hook it is given and
adds nothing to the graph except the step tensor a steps-per-run loop logs. The one
effect, the saving listeners attached to the saver hook the plan names, is the
caller's: `attach_saving_listeners(plan, listeners)`. The order is the original
Estimator's (MonitoredTrainingSession's): on the task that writes model_dir, the
chief-only hooks first (checkpoint saver, the model_fn's chief hooks, step counter,
summary saver), then the hooks every task runs (input initialisers, the caller's
hooks, the stop hook, NaN check, loss logging, the model_fn's training hooks).
"""

import dataclasses
from typing import List, Optional, Sequence, Tuple

import tensorflow as tf

from estimator_lib.core.model_fn import EstimatorSpec
from estimator_lib.core.run_config import RunConfig
from estimator_lib.tf_internals import hooks as tf_hooks
from estimator_lib.training import checkpoints
from estimator_lib.training import steps_loop_hooks
from estimator_lib.training.steps_loop import TrainLoop

logging = tf.compat.v1.logging

_SAVER_HOOK_TYPES = (tf.compat.v1.train.CheckpointSaverHook, checkpoints.EstimatorCheckpointSaverHook)


@dataclasses.dataclass(frozen=True)
class HookPlan:
    """The ordered hooks of one training run.

    Attributes:
        chief: What the task that writes model_dir (the chief, or the only task) runs.
        worker: What every other task runs.
        listeners_hook: The checkpoint saver hook the saving listeners go to (the
            caller's own, or the plan's), or None when no listener was given.
    """
    chief: Tuple[tf.compat.v1.train.SessionRunHook, ...]
    worker: Tuple[tf.compat.v1.train.SessionRunHook, ...]
    listeners_hook: Optional[tf.compat.v1.train.SessionRunHook] = None

    def for_task(self, writes: bool) -> List[tf.compat.v1.train.SessionRunHook]:
        """The hooks a task runs.

        Args:
            writes: Whether the task writes model_dir (the chief, or the only task).

        Returns:
            A new list: `chief` when `writes`, else `worker`.
        """
        return list(self.chief if writes else self.worker)

    def describe(self) -> str:
        """One line for the logs: each list's hook class names, in order."""
        def names(hooks):
            return ", ".join(type(h).__name__ for h in hooks) or "none"
        return f"chief: [{names(self.chief)}]; worker: [{names(self.worker)}]"


def plan(*, config: RunConfig, spec: EstimatorSpec, step: tf.Tensor,
         input_hooks: Sequence, user_hooks: Sequence, steps: Optional[int],
         max_steps: Optional[int], saving_listeners: Sequence,
         loop: Optional[TrainLoop] = None) -> HookPlan:
    """The hooks of a training run, as the original Estimator assembled them.

    Args:
        config: The RunConfig: checkpoint, summary and logging cadences, model_dir.
        spec: The TRAIN EstimatorSpec (loss, training hooks, chief hooks, scaffold).
        step: The global-step tensor the logging hook reports.
        input_hooks: The input's hooks (iterator initialisers), run first.
        user_hooks: The `hooks` given to train().
        steps, max_steps: train()'s stop condition; a StopAtStepHook when either is set.
        saving_listeners: CheckpointSaverListeners for the checkpoint saver hook.
        loop: The steps_loop.TrainLoop when steps_per_run > 1, else None.

    Returns:
        The HookPlan; logged at DEBUG. The listeners are not attached yet:
        `attach_saving_listeners`.

    Raises:
        ValueError: If `saving_listeners` are given but no hook saves checkpoints.
    """
    worker: List = list(input_hooks) + list(user_hooks)
    if steps is not None or max_steps is not None:
        worker.append(tf.compat.v1.train.StopAtStepHook(steps, max_steps))
    worker.append(tf.compat.v1.train.NanTensorHook(spec.loss))
    if config.log_step_count_steps is not None:
        worker.append(_logging_hook(spec, step, loop, config.log_step_count_steps))
    worker.extend(spec.training_hooks)
    if loop is not None:
        stop_hooks = [h for h in worker + list(spec.training_chief_hooks)
                      if isinstance(h, tf.compat.v1.train.StopAtStepHook)]
        worker.append(steps_loop_hooks.StopAtLastStepHook(
            loop.step_after_run, loop.last_step, stop_hooks))

    chief: List = []
    saver_hooks = [h for h in worker + list(spec.training_chief_hooks)
                   if isinstance(h, _SAVER_HOOK_TYPES)]
    if (config.save_checkpoints_secs or config.save_checkpoints_steps) and not saver_hooks:
        saver_args = dict(save_secs=config.save_checkpoints_secs,
                          save_steps=config.save_checkpoints_steps, scaffold=spec.scaffold,
                          save_graph_def=config.checkpoint_save_graph_def)
        chief.append(
            checkpoints.EstimatorCheckpointSaverHook(config.model_dir, **saver_args)
            if loop is None else  # One that sees the step each run ends at.
            steps_loop_hooks.LoopCheckpointSaverHook(loop.step_after_run, config.model_dir,
                                                     **saver_args))
        saver_hooks = chief[:1]
    if saving_listeners:
        if not saver_hooks:
            raise ValueError(
                "There should be a CheckpointSaverHook to use saving_listeners. Please set "
                "one of the RunConfig.save_checkpoints_steps or "
                "RunConfig.save_checkpoints_secs.")
    chief.extend(spec.training_chief_hooks)
    chief.extend(_counting_hooks(config, spec, loop))
    result = HookPlan(chief=tuple(chief + worker), worker=tuple(worker),
                      listeners_hook=saver_hooks[0] if saving_listeners else None)
    logging.debug("Training hooks: %s", result.describe())
    return result


def attach_saving_listeners(plan: HookPlan, saving_listeners: Sequence) -> None:
    """Adds `saving_listeners` to the saver hook `plan` names (the effect `plan()`
    leaves to its caller; nothing without listeners)."""
    if saving_listeners:
        tf_hooks.add_saver_listeners(plan.listeners_hook, saving_listeners)


def _logging_hook(spec: EstimatorSpec, step: tf.Tensor, loop: Optional[TrainLoop],
                  every_n_steps: int) -> tf.compat.v1.train.LoggingTensorHook:
    """Logs the loss and its step about every `every_n_steps` steps.

    With a loop, the last loss of a run, with the step it was computed at (a tensor
    made here, the one thing `plan` adds to the graph), every `runs_for` runs.
    """
    if loop is None:
        return tf.compat.v1.train.LoggingTensorHook({"loss": spec.loss, "step": step},
                                                    every_n_iter=every_n_steps)
    with tf.name_scope("steps_loop/"):
        loss_step = tf.subtract(loop.step_after_run, 1, name="step_of_last_loss")
    return tf.compat.v1.train.LoggingTensorHook(
        {"loss": spec.loss, "step": loss_step}, every_n_iter=loop.runs_for(every_n_steps))


def _counting_hooks(config: RunConfig, spec: EstimatorSpec,
                    loop: Optional[TrainLoop]) -> List:
    """The step counter and summary saver MonitoredTrainingSession adds on the chief.

    A loop's runs make several steps: its versions count steps, not runs.
    """
    hooks = []
    if config.log_step_count_steps and config.log_step_count_steps > 0:
        counter = tf.compat.v1.train.StepCounterHook(
            output_dir=config.model_dir, every_n_steps=config.log_step_count_steps)
        if loop is not None:
            # It counts steps from the global step; this tells it when to look.
            counter._set_steps_per_run(loop.steps_per_run)  # pylint: disable=protected-access
        hooks.append(counter)
    if config.save_summary_steps and config.save_summary_steps > 0:
        if loop is None:
            hooks.append(tf.compat.v1.train.SummarySaverHook(
                scaffold=spec.scaffold, save_steps=config.save_summary_steps,
                output_dir=config.model_dir))
        else:
            hooks.append(steps_loop_hooks.LoopSummarySaverHook(
                loop.step_after_run, loop.steps_per_run, save_steps=config.save_summary_steps,
                output_dir=config.model_dir, scaffold=spec.scaffold))
    return hooks
