"""The hooks that count the steps of a steps_per_run loop (estimator_lib/steps_loop.py).

A run of the loop makes up to `steps_per_run` steps. TensorFlow's hooks assume
one step per run (the step they read before a run, plus one); these read the
global step after the run's loop, fetched with the run, so stopping,
checkpoints and summaries happen at the steps they are due, with no extra run.
"""

from typing import List

import tensorflow as tf

from estimator_lib.training import checkpoints


class StopAtLastStepHook(tf.compat.v1.train.SessionRunHook):
    """Feeds the loop the last step of `stop_hooks`, and stops once it is reached.

    The StopAtStepHooks compute their last step when the session is created
    (`steps` from the global step then, or `max_steps`); the loop never takes the
    global step past the smallest. The step after each run is fetched with it, so
    training stops on the run that reaches it, with no extra run.

    Args:
        step_after_run: The global step's value once a run ends (a tensor).
        last_step: The step the loop stops at (a tensor fed each run).
        stop_hooks: The `StopAtStepHook`s whose last steps bound the loop.
    """

    def __init__(self, step_after_run: tf.Tensor, last_step: tf.Tensor, stop_hooks: List):
        self._step_after_run = step_after_run
        self._last_step_feed = last_step
        self._stop_hooks = stop_hooks
        self._last_step = None

    def before_run(self, run_context):
        """Feeds the loop the stop hooks' smallest last step; fetches the step after the run.

        Args:
            run_context: The `SessionRunContext` of the run (unused).

        Returns:
            `SessionRunArgs` fetching the step after the run, feeding the last step.

        Raises:
            RuntimeError: If a stop hook has no last step once the session exists.
        """
        del run_context
        last_steps = [_last_step_of(hook) for hook in self._stop_hooks]
        self._last_step = min(last_steps) if last_steps else None
        feed = {self._last_step_feed: self._last_step} if last_steps else None
        return tf.compat.v1.train.SessionRunArgs(self._step_after_run, feed_dict=feed)

    def after_run(self, run_context, run_values):
        """Requests a stop once the run has reached the last step.

        Args:
            run_context: The `SessionRunContext` of the run.
            run_values: The run's `SessionRunValues` (the step after the run).
        """
        if self._last_step is not None and run_values.results >= self._last_step:
            run_context.request_stop()


def _last_step_of(hook) -> int:
    # StopAtStepHook settles `_last_step` in after_create_session, before any run.
    last_step = getattr(hook, "_last_step", None)
    if last_step is None:
        raise RuntimeError(
            f"{type(hook).__name__} has no last step after the session was created; the "
            "steps_per_run loop cannot stop where it would. Use steps_per_run=1.")
    return int(last_step)


class LoopCheckpointSaverHook(checkpoints.EstimatorCheckpointSaverHook):
    """CheckpointSaverHook reading the step each run ends at (no extra session run).

    Args:
        step_after_run: The global step's value once a run ends (a tensor).
        *args: `EstimatorCheckpointSaverHook`'s arguments.
        **kwargs: `SummarySaverHook`'s keyword arguments.
    """

    def __init__(self, step_after_run, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._step_after_run = step_after_run

    def before_run(self, run_context):
        """Fetches the global step the run's loop ends at.

        Args:
            run_context: The `SessionRunContext` of the run.

        Returns:
            `SessionRunArgs` fetching the step after the run.
        """
        return tf.compat.v1.train.SessionRunArgs(self._step_after_run)

    def after_run(self, run_context, run_values):
        """Saves at the step the run ended at when the timer is due there (no second read).

        Requests a stop when a listener's `after_save` returns True.

        Args:
            run_context: The `SessionRunContext` of the run.
            run_values: The run's `SessionRunValues` (the step after the run).
        """
        step = int(run_values.results)
        if self._timer.should_trigger_for_step(step):
            self._timer.update_last_triggered_step(step)
            if self._save(run_context.session, step):
                run_context.request_stop()


class LoopSummarySaverHook(tf.compat.v1.train.SummarySaverHook):
    """SummarySaverHook for runs of several steps: summaries at the step a run ends at.

    Args:
        step_after_run: The global step's value once a run ends (a tensor).
        steps_per_run: Training steps per session run.
        **kwargs: `SummarySaverHook`'s keyword arguments.
    """

    def __init__(self, step_after_run: tf.Tensor, steps_per_run: int, **kwargs):
        super().__init__(**kwargs)
        self._step_after_run = step_after_run
        self._steps_per_run = steps_per_run

    def before_run(self, run_context):
        """The base hook's fetches, with the step the run's loop ends at added.

        Args:
            run_context: The `SessionRunContext` of the run.

        Returns:
            `SessionRunArgs` with `step_after_run` among its fetches.
        """
        args = super().before_run(run_context)
        args.fetches["step_after_run"] = self._step_after_run
        return args

    def after_run(self, run_context, run_values):
        """Writes the run's summaries at the step it ended at (the base hook: the step before + 1).

        Args:
            run_context: The `SessionRunContext` of the run (unused).
            run_values: The run's `SessionRunValues` (summaries and the step after the run).
        """
        del run_context
        if not self._summary_writer:
            return
        step = int(run_values.results["step_after_run"])
        if self._next_step is None:
            self._summary_writer.add_session_log(
                tf.compat.v1.SessionLog(status=tf.compat.v1.SessionLog.START), step)
        if self._request_summary:
            self._timer.update_last_triggered_step(step)
            for summary in run_values.results.get("summary", []):
                self._summary_writer.add_summary(summary, step)
        # Where the next run will end: the base hook asks for a summary when that
        # step is due (it adds one per run, made for one step per run).
        self._next_step = step + self._steps_per_run

