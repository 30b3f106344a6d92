"""TrainSpec, EvalSpec and train_and_evaluate."""

import collections
import os
import time
from typing import Callable, Optional

import tensorflow as tf

from estimator_lib.distribute import job_shape
from estimator_lib.distribute import parameter_servers
from estimator_lib.export import exporters as exporter_lib
from estimator_lib.core.model_fn import check_hooks

logging = tf.compat.v1.logging

_HOOKS_LEAD = "All hooks must be `SessionRunHook` instances"


class TrainSpec(collections.namedtuple("TrainSpec", ["input_fn", "max_steps", "hooks",
                                                     "saving_listeners"])):
    """The training half of `train_and_evaluate`: input, step limit, hooks, listeners.

    Args:
        input_fn: Returns the training input, as for `Estimator.train`.
        max_steps: The global step to stop training at; None trains until the input
            ends (with a repeating dataset: forever).
        hooks: `SessionRunHook`s run in the training loop.
        saving_listeners: `CheckpointSaverListener`s called around each checkpoint
            save (local runs only, as the original).

    Raises:
        TypeError: If `input_fn` is not callable, or a hook or listener has the wrong
            type.
        ValueError: If `max_steps` is not positive.

    Examples:
        >>> spec = TrainSpec(input_fn=lambda: None, max_steps=1000)
        >>> spec.max_steps, spec.hooks, spec.saving_listeners
        (1000, (), ())
        >>> TrainSpec(input_fn=lambda: None, max_steps=0)
        Traceback (most recent call last):
        ...
        ValueError: Must specify max_steps > 0, given: 0
    """

    def __new__(cls, input_fn: Callable, max_steps: Optional[int] = None, hooks=None,
                saving_listeners=None):
        if not callable(input_fn):
            raise TypeError(f"`input_fn` must be callable, given: {input_fn!r}")
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        return super().__new__(
            cls, input_fn=input_fn, max_steps=max_steps,
            hooks=check_hooks(hooks, "hooks", lead=_HOOKS_LEAD),
            saving_listeners=check_hooks(
                saving_listeners, "saving_listeners",
                tf.compat.v1.train.CheckpointSaverListener,
                lead="All saving_listeners must be `CheckpointSaverListener` instances"))


class EvalSpec(collections.namedtuple("EvalSpec", [
        "input_fn", "steps", "name", "hooks", "exporters", "start_delay_secs",
        "throttle_secs"])):
    """The evaluation half of `train_and_evaluate`: input, steps, exporters, cadence.

    Args:
        input_fn: Returns the evaluation input, as for `Estimator.evaluate`.
        steps: How many batches each evaluation reads; None reads until the input ends.
        name: Names the evaluation (its summaries go to `eval_<name>`).
        hooks: `SessionRunHook`s run in each evaluation.
        exporters: An `Exporter` or a list of them (with distinct names), run after
            each evaluation with its metrics.
        start_delay_secs: In a distributed job, how long the evaluator waits before
            its first evaluation.
        throttle_secs: The least time between two evaluations: a new checkpoint is
            evaluated only if this long has passed since the last evaluation began.

    Raises:
        TypeError: If `input_fn` is not callable, `name` is not a string, or a hook or
            exporter has the wrong type.
        ValueError: If `steps` is not positive, a delay is negative, or two exporters
            share a name.

    Examples:
        >>> spec = EvalSpec(input_fn=lambda: None)
        >>> spec.steps, spec.name, spec.start_delay_secs, spec.throttle_secs, spec.exporters
        (100, None, 120, 600, ())
        >>> EvalSpec(input_fn=lambda: None, throttle_secs=-1)
        Traceback (most recent call last):
        ...
        ValueError: Must specify throttle_secs >= 0, given: -1
    """

    def __new__(cls, input_fn: Callable, steps: Optional[int] = 100,
                name: Optional[str] = None, hooks=None, exporters=None,
                start_delay_secs: float = 120, throttle_secs: float = 600):
        if not callable(input_fn):
            raise TypeError(f"`input_fn` must be callable, given: {input_fn!r}")
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"`name` must be string, given: {name!r}")
        if start_delay_secs < 0:
            raise ValueError(f"Must specify start_delay_secs >= 0, given: {start_delay_secs}")
        if throttle_secs < 0:
            raise ValueError(f"Must specify throttle_secs >= 0, given: {throttle_secs}")
        return super().__new__(
            cls, input_fn=input_fn, steps=steps, name=name,
            hooks=check_hooks(hooks, "hooks", lead=_HOOKS_LEAD),
            exporters=_validate_exporters(exporters), start_delay_secs=start_delay_secs,
            throttle_secs=throttle_secs)


def _validate_exporters(exporters):
    if exporters is None:
        return ()
    if isinstance(exporters, exporter_lib.Exporter):
        exporters = [exporters]
    try:
        exporters = list(exporters)
    except TypeError:
        raise TypeError(f"`exporters` must be an Exporter, an iterable of Exporter, or "
                        f"`None`, found {exporters!r}.") from None
    names = set()
    for exporter in exporters:
        if not isinstance(exporter, exporter_lib.Exporter):
            raise TypeError(f"`exporters` must be an Exporter, an iterable of Exporter, or "
                            f"`None`, found {exporter!r}.")
        if exporter.name is None or (isinstance(exporter.name, str)
                                     and not exporter.name.strip()):
            raise ValueError("An Exporter cannot have a name that is `None` or empty.")
        if not isinstance(exporter.name, str):
            raise ValueError(f"An Exporter must have a string name. Given: {exporter.name!r}")
        if exporter.name in names:
            raise ValueError(f"`exporters` must have unique names. Such a name cannot be "
                             f"`None`. {exporter.name} already exists.")
        names.add(exporter.name)
    return tuple(exporters)


class _Evaluator:
    """Evaluates a checkpoint and runs the exporters on the result."""

    def __init__(self, estimator, eval_spec, max_training_steps):
        self._estimator = estimator
        self._eval_spec = eval_spec
        self._max_training_steps = max_training_steps
        self._previous_checkpoint = None
        self.last_metrics = None
        self.export_results = []

    def evaluate_and_export(self, checkpoint_path=None):
        """Returns the metrics, or None when there was no new checkpoint."""
        checkpoint_path = checkpoint_path or self._estimator.latest_checkpoint()
        if not checkpoint_path:
            logging.warning("Estimator is not trained yet. Will start an evaluation when a "
                            "checkpoint is ready.")
            return None
        if checkpoint_path == self._previous_checkpoint:
            logging.info("Skipping evaluation due to same checkpoint %s as before.",
                         checkpoint_path)
            return None
        spec = self._eval_spec
        metrics = self._estimator.evaluate(spec.input_fn, steps=spec.steps, name=spec.name,
                                           checkpoint_path=checkpoint_path, hooks=spec.hooks)
        is_final = bool(self._max_training_steps
                        and metrics["global_step"] >= self._max_training_steps)
        base = os.path.join(tf.compat.as_str_any(self._estimator.model_dir), "export")
        self.export_results = [
            exporter.export(estimator=self._estimator,
                            export_path=os.path.join(base, exporter.name),
                            checkpoint_path=checkpoint_path, eval_result=metrics,
                            is_the_final_export=is_final)
            for exporter in spec.exporters]
        self._previous_checkpoint = checkpoint_path
        self.last_metrics = metrics
        return metrics


class _EvaluateOnCheckpoint(tf.compat.v1.train.CheckpointSaverListener):
    """Evaluates after checkpoint saves, at most every `throttle_secs`, and at the end."""

    def __init__(self, evaluator, throttle_secs):
        self._evaluator = evaluator
        self._throttle_secs = throttle_secs
        self._timer = None
        self._first = True

    def begin(self):
        self._timer = tf.compat.v1.train.SecondOrStepTimer(every_secs=self._throttle_secs)
        self._first = True

    def after_save(self, session, global_step_value):
        del session
        if self._first:  # The checkpoint written when the session starts.
            self._first = False
            return False
        if self._timer.should_trigger_for_step(global_step_value):
            self._timer.update_last_triggered_step(global_step_value)
            self._evaluator.evaluate_and_export()
        else:
            logging.info("Skip the current checkpoint eval due to throttle secs (%s secs).",
                         self._throttle_secs)
        return False

    def end(self, session, global_step_value):
        del session
        if global_step_value != self._timer.last_triggered_step():
            self._evaluator.evaluate_and_export()


def train_and_evaluate(estimator, train_spec: TrainSpec, eval_spec: EvalSpec):
    """Trains and evaluates: locally, or in the role TF_CONFIG gives this task.

    Locally (no cluster), trains with `train_spec` and evaluates after checkpoint
    saves (at most every `eval_spec.throttle_secs`) and once at the end, running the
    exporters after each evaluation. In a cluster, each task plays its part: the
    chief and workers train, parameter servers serve variables, and the `evaluator`
    evaluates each new checkpoint until `train_spec.max_steps` is reached.

    In a cluster it differs from the original on purpose (docs/estimator.md):

    - Deliberate difference 8: a chief-only hook's step read no longer hangs workers.
    - Deliberate difference 11: distributed sessions close in the background.
    - Deliberate difference 12: start-up waits are bounded (docs/multi_worker.md).

    Args:
        estimator: The `Estimator` to train and evaluate.
        train_spec: A `TrainSpec`: the training input, step limit and hooks.
        eval_spec: An `EvalSpec`: the evaluation input, steps, exporters and cadence.

    Returns:
        Locally, the pair `(metrics, export_results)` of the last evaluation: its
        metrics dict and the list of what each exporter returned. None in the roles
        of a distributed job.

    Raises:
        TypeError: If an argument is not an `Estimator`, `TrainSpec` or `EvalSpec`.
        ValueError: If the config's cluster gives this task no known role.

    Examples:
        Locally (no TF_CONFIG): trains to step 2, then evaluates one batch:

        >>> import tempfile
        >>> import numpy as np
        >>> import tensorflow as tf
        >>> import estimator_lib
        >>> def model_fn(features, labels, mode):
        ...     w = tf.compat.v1.get_variable("w", [1, 1])
        ...     loss = tf.reduce_mean(tf.square(tf.matmul(features["x"], w) - labels))
        ...     train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        ...         loss, global_step=tf.compat.v1.train.get_global_step())
        ...     return estimator_lib.EstimatorSpec(mode, loss=loss, train_op=train_op)
        >>> def input_fn():
        ...     x = np.array([[1.0], [2.0]], np.float32)
        ...     return tf.data.Dataset.from_tensor_slices(({"x": x}, 2 * x)).repeat().batch(2)
        >>> est = estimator_lib.Estimator(model_fn, model_dir=tempfile.mkdtemp())
        >>> metrics, exports = estimator_lib.train_and_evaluate(
        ...     est, estimator_lib.TrainSpec(input_fn, max_steps=2),
        ...     estimator_lib.EvalSpec(input_fn, steps=1, throttle_secs=0))
        >>> int(metrics["global_step"]), sorted(metrics), exports
        (2, ['global_step', 'loss'], [])
    """
    from estimator_lib.engine.estimator import Estimator  # pylint: disable=import-outside-toplevel
    if not isinstance(estimator, Estimator):
        raise TypeError("`estimator` must have type `tf.estimator.Estimator`. Got: "
                        f"{type(estimator)}")
    if not isinstance(train_spec, TrainSpec):
        raise TypeError(f"`train_spec` must have type `TrainSpec`. Got: {type(train_spec)}")
    if not isinstance(eval_spec, EvalSpec):
        raise TypeError(f"`eval_spec` must have type `EvalSpec`. Got: {type(eval_spec)}")
    config = estimator.config
    logging.info("Not using Distribute Coordinator.")  # As the original, which had one.
    role = job_shape.role_of(config)
    part = role.part_in_train_and_evaluate()
    if part == job_shape.EVALUATOR:
        return _run_evaluator(estimator, train_spec, eval_spec)
    if part == job_shape.TRAINER:
        return _run_distributed_worker(estimator, train_spec, eval_spec)
    if part in (job_shape.PARAMETER_SERVER_TRAINER, job_shape.PARAMETER_SERVER_HOST):
        return _run_parameter_server_task(estimator, train_spec, eval_spec, part, role)
    logging.info("Running training and evaluation locally (non-distributed).")
    logging.info(
        "Start train and evaluate loop. The evaluate will happen after every checkpoint. "
        "Checkpoint frequency is determined based on RunConfig arguments: "
        "save_checkpoints_steps %s or save_checkpoints_secs %s.",
        config.save_checkpoints_steps, config.save_checkpoints_secs)
    evaluator = _Evaluator(estimator, eval_spec, train_spec.max_steps)
    listener = _EvaluateOnCheckpoint(evaluator, eval_spec.throttle_secs)
    estimator.train(train_spec.input_fn, max_steps=train_spec.max_steps,
                    hooks=list(train_spec.hooks),
                    saving_listeners=list(train_spec.saving_listeners) + [listener])
    if evaluator.last_metrics is None:
        # Training was skipped (max_steps reached earlier): evaluate what is there.
        evaluator.evaluate_and_export()
    return evaluator.last_metrics, evaluator.export_results


def _run_evaluator(estimator, train_spec, eval_spec):
    """The `evaluator` task: evaluates each new checkpoint until max_steps is reached."""
    time.sleep(eval_spec.start_delay_secs)
    evaluator = _Evaluator(estimator, eval_spec, train_spec.max_steps)
    while True:
        start = time.time()
        metrics = evaluator.evaluate_and_export()
        if metrics is not None and train_spec.max_steps and \
                metrics["global_step"] >= train_spec.max_steps:
            logging.info("Exiting evaluation, global_step=%s >= train max_steps=%s",
                         metrics["global_step"], train_spec.max_steps)
            return None
        time.sleep(max(0.0, eval_spec.throttle_secs - (time.time() - start)) or 1.0)


def _run_distributed_worker(estimator, train_spec, eval_spec):
    del eval_spec  # The evaluator task evaluates.
    estimator.train(train_spec.input_fn, max_steps=train_spec.max_steps,
                    hooks=list(train_spec.hooks),
                    saving_listeners=list(train_spec.saving_listeners))
    return None


def _run_parameter_server_task(estimator, train_spec, eval_spec, part, role):
    """One task of parameter-server training, as the original's run_<task type>.

    ps: serves until the chief and workers finish; chief, master and worker: start the
    server, (worker i: wait its delay), train, (master: evaluating new checkpoints), and
    tell the ps tasks they are done (distribute/parameter_servers.py).
    """
    config = estimator.config
    if part == job_shape.PARAMETER_SERVER_HOST:
        parameter_servers.serve(config)
        return None
    parameter_servers.start_server(config)  # Before the delay: the others connect to it.
    delay = parameter_servers.worker_delay_secs(config)
    if delay > 0:
        logging.info("Waiting %d secs before starting training.", delay)
        time.sleep(delay)
    listeners = list(train_spec.saving_listeners)
    evaluator = None
    if role.evaluates_while_training:  # The original evaluated on the master.
        evaluator = _Evaluator(estimator, eval_spec, train_spec.max_steps)
        listeners.append(_EvaluateOnCheckpoint(evaluator, eval_spec.throttle_secs))
    estimator.train(train_spec.input_fn, max_steps=train_spec.max_steps,
                    hooks=list(train_spec.hooks), saving_listeners=listeners)
    parameter_servers.signal_done(config)
    return None
