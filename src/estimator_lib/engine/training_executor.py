"""train_and_evaluate's executor: one object that runs this task's part, as the original's.

The original's `training._TrainingExecutor` is private, yet libraries and the original's
own tests drive it: they build it, call its `run_<task type>` methods, replace them on an
instance, or subclass it. So train_and_evaluate runs through it here too
(engine/train_eval.py), with the original's methods, arguments and messages:

* `run()` runs `run_local` without a cluster, else `run_<task type>` (an instance's or a
  subclass's method is obeyed; distribute/job_shape.py checks the task type);
* `run_chief`, `run_worker`, `run_master` start this task's server
  (distribute/parameter_servers.py), wait the worker's start-up delay and train;
  `run_master` also evaluates each new checkpoint as it is saved;
* `run_evaluator` evaluates each new checkpoint until the training's `max_steps`;
* `run_ps` serves the variables. Deliberate difference (docs/estimator.md, "ps tasks
  end"): the original's ps task joined its server forever; here it returns when the
  chief and the workers have finished.

What the executor calls around each evaluation (`_ContinuousEvalListener`), its results
(`_EvalResult`, `_EvalStatus`) and the listener that evaluates on checkpoint saves
(`_NewCheckpointListenerForEvaluate`) are the original's too.
"""

import collections
import json
import os
import time

import tensorflow as tf
from tensorflow.python.training import basic_session_run_hooks

from estimator_lib.core import environment
from estimator_lib.core.tf_config import TaskType
from estimator_lib.distribute import job_shape
from estimator_lib.distribute import parameter_servers
from estimator_lib.engine.train_specs import EvalSpec, TrainSpec, _assert_eval_spec, _validate_hooks

logging = tf.compat.v1.logging

_MAX_DELAY_SECS = parameter_servers.MAX_DELAY_SECS
_DELAY_SECS_PER_WORKER = parameter_servers.DELAY_SECS_PER_WORKER
_TF_CONFIG_ENV = "TF_CONFIG"
_ENVIRONMENT_KEY = "environment"
_ENVIRONMENT_GOOGLE_VALUE = "google"
_TRAINER_JOBS = (TaskType.CHIEF, TaskType.MASTER, TaskType.WORKER)
_WARNING_EVERY_SECS = 600


def _is_google_env():
    """Whether TF_CONFIG's `environment` is `google` (a warning when TF_CONFIG is empty)."""
    tf_config = json.loads(environment.tf_config_text() or "{}")
    if not tf_config:
        logging.warning("TF_CONFIG should not be empty in distributed environment.")
    return tf_config.get(_ENVIRONMENT_KEY) == _ENVIRONMENT_GOOGLE_VALUE


class _StopAtSecsHook(tf.compat.v1.train.SessionRunHook):
    """Requests a stop once `stop_after_secs` have passed since `begin`."""

    def __init__(self, stop_after_secs):
        self._stop_after_secs = stop_after_secs
        self._start_time = None

    def begin(self):
        """Starts the clock."""
        self._start_time = time.time()

    def after_run(self, run_context, run_values):
        """Requests a stop when the time is up."""
        del run_values
        if time.time() - self._start_time >= self._stop_after_secs:
            run_context.request_stop()


class _EvalStatus:
    """The status of one continuous-evaluation event."""

    EVALUATED = "evaluated"
    MISSING_CHECKPOINT = "missing checkpoint"
    NO_NEW_CHECKPOINT = "no new checkpoint"


class _EvalResult(collections.namedtuple("EvalResult",
                                         ["status", "metrics", "checkpoint_path"])):
    """The result of one evaluation event, checked: metrics and checkpoint only when EVALUATED.

    Raises:
        ValueError: For metrics or a checkpoint without EVALUATED, or an EVALUATED result
            without metrics, a global_step among them, or a checkpoint path.
        TypeError: For metrics that are not a dict.
    """

    def __new__(cls, status, metrics=None, checkpoint_path=None):
        evaluated = _EvalStatus.EVALUATED
        if status != evaluated:
            if metrics:
                raise ValueError(f"metrics must be `None` if status is not {evaluated}; got "
                                 f"status {status}, metrics {metrics}")
            if checkpoint_path:
                raise ValueError(f"checkpoint must be `None` if status is not {evaluated}; "
                                 f"got status {status}, checkpoint_path {checkpoint_path}")
            return super().__new__(cls, status, metrics, checkpoint_path)
        if not metrics:
            raise ValueError("Internal error: `Estimator.evaluate` should never return "
                             "empty metrics.")
        if not isinstance(metrics, dict):
            raise TypeError(f"`Estimator.evaluate` should return dict. Given {type(metrics)}.")
        if tf.compat.v1.GraphKeys.GLOBAL_STEP not in metrics:
            raise ValueError("Internal error: `Estimator.evaluate` result should have "
                             f"`global_step` in result. Given {metrics}")
        if not checkpoint_path:
            raise ValueError("Internal error: `checkpoint_path` should never be empty.")
        return super().__new__(cls, status, metrics, checkpoint_path)


class _ContinuousEvalListener:
    """What the executor calls around each evaluation: a subclass can stop it."""

    def before_eval(self):
        """Returns False to skip this evaluation and stop evaluating."""
        return True

    def after_eval(self, eval_result):
        """Returns False to stop evaluating after `eval_result` (an `_EvalResult`)."""
        del eval_result
        return True


class _NewCheckpointListenerForEvaluate(tf.compat.v1.train.CheckpointSaverListener):
    """Evaluates after checkpoint saves (not the first), at most every `eval_throttle_secs`,
    and at the end of training unless its last checkpoint was evaluated."""

    def __init__(self, evaluator, eval_throttle_secs, continuous_eval_listener):
        self._evaluator = evaluator
        self._eval_throttle_secs = eval_throttle_secs
        self._continuous_eval_listener = continuous_eval_listener
        self.eval_result, self.export_results = None, None
        self._timer = None
        self._is_first_run = True

    def begin(self):
        """Starts the throttle's timer."""
        # Looked up at each call: programs and tests replace it in that module.
        self._timer = basic_session_run_hooks.SecondOrStepTimer(
            every_secs=self._eval_throttle_secs)
        self._is_first_run = True

    def after_save(self, session, global_step_value):
        """Evaluates this checkpoint unless throttled; True stops training."""
        del session
        if self._is_first_run:  # The checkpoint of the untrained model.
            self._is_first_run = False
            return None
        if not self._continuous_eval_listener.before_eval():
            logging.info("Exiting training and evaluation loop, as requested by "
                         "_ContinuousEvalListener.before_eval.")
            return True
        if self._timer.should_trigger_for_step(global_step_value):
            self._evaluate(global_step_value)
            if not self._continuous_eval_listener.after_eval(self.eval_result):
                logging.info("Exiting evaluation, as requested by "
                             "_ContinuousEvalListener.after_eval.")
                return True
        else:
            logging.info("Skip the current checkpoint eval due to throttle secs "
                         f"({self._eval_throttle_secs} secs).")
        return None

    def end(self, session, global_step_value):
        """Evaluates the last checkpoint unless it was evaluated."""
        del session
        if global_step_value != self._timer.last_triggered_step():
            if self._continuous_eval_listener.before_eval():
                self._evaluate(global_step_value)
                self._continuous_eval_listener.after_eval(self.eval_result)

    def _evaluate(self, global_step_value):
        self._timer.update_last_triggered_step(global_step_value)
        self.eval_result, self.export_results = self._evaluator.evaluate_and_export()
        if self.eval_result.status != _EvalStatus.EVALUATED:
            raise RuntimeError("There was no new checkpoint after the training. "
                               f"Eval status: {self.eval_result.status}")


class _Evaluator:
    """Evaluates the newest checkpoint once, then runs the exporters on the metrics."""

    def __init__(self, estimator, eval_spec, max_training_steps):
        _assert_eval_spec(eval_spec)
        self._estimator = estimator
        self._eval_spec = eval_spec
        self._is_final_export_triggered = False
        self._previous_ckpt_path = None
        self._last_warning_time = 0
        self._max_training_steps = max_training_steps

    @property
    def is_final_export_triggered(self):
        """Whether an evaluation reached the training's max_steps (the final export)."""
        return self._is_final_export_triggered

    def evaluate_and_export(self):
        """Returns (an `_EvalResult`, the exporters' results)."""
        latest_ckpt_path = self._estimator.latest_checkpoint()
        if not latest_ckpt_path:
            self._log_err_msg("Estimator is not trained yet. Will start an evaluation when a "
                              "checkpoint is ready.")
            return _EvalResult(status=_EvalStatus.MISSING_CHECKPOINT), []
        if latest_ckpt_path == self._previous_ckpt_path:
            self._log_err_msg(
                "No new checkpoint ready for evaluation. Skip the current evaluation pass as "
                "evaluation results are expected to be same for the same checkpoint.")
            return _EvalResult(status=_EvalStatus.NO_NEW_CHECKPOINT), []
        spec = self._eval_spec
        metrics = self._estimator.evaluate(
            input_fn=spec.input_fn, steps=spec.steps, name=spec.name,
            checkpoint_path=latest_ckpt_path, hooks=spec.hooks)
        eval_result = _EvalResult(status=_EvalStatus.EVALUATED, metrics=metrics,
                                  checkpoint_path=latest_ckpt_path)
        is_the_final_export = bool(
            self._max_training_steps
            and eval_result.metrics[tf.compat.v1.GraphKeys.GLOBAL_STEP]
            >= self._max_training_steps)
        export_results = self._export_eval_result(eval_result, is_the_final_export)
        if is_the_final_export:
            logging.debug("Calling exporter with the `is_the_final_export=True`.")
            self._is_final_export_triggered = True
        self._last_warning_time = 0
        self._previous_ckpt_path = latest_ckpt_path
        return eval_result, export_results

    def _log_err_msg(self, message):
        """Logs `message` as a warning at most every 10 minutes."""
        now = time.time()
        if now - self._last_warning_time > _WARNING_EVERY_SECS:
            logging.warning(message)
            self._last_warning_time = now

    def _export_eval_result(self, eval_result, is_the_final_export):
        """Runs each exporter of the EvalSpec on `eval_result`, under model_dir/export."""
        base = os.path.join(tf.compat.as_str_any(self._estimator.model_dir), "export")
        return [exporter.export(estimator=self._estimator,
                                export_path=os.path.join(base, tf.compat.as_str_any(
                                    exporter.name)),
                                checkpoint_path=eval_result.checkpoint_path,
                                eval_result=eval_result.metrics,
                                is_the_final_export=is_the_final_export)
                for exporter in self._eval_spec.exporters]


class _TrainingExecutor:
    """Runs this task's part of train_and_evaluate (the module doc)."""

    _Evaluator = _Evaluator

    def __init__(self, estimator, train_spec, eval_spec, train_hooks=None,
                 continuous_eval_listener=None):
        from estimator_lib.engine.estimator import Estimator  # pylint: disable=import-outside-toplevel
        if not isinstance(estimator, Estimator):
            raise TypeError("`estimator` must have type `tf.estimator.Estimator`. "
                            f"Got: {type(estimator)}")
        if not isinstance(train_spec, TrainSpec):
            raise TypeError("`train_spec` must have type `tf.estimator.TrainSpec`. "
                            f"Got: {type(train_spec)}")
        if eval_spec and not isinstance(eval_spec, EvalSpec):
            raise TypeError("`eval_spec` must be either `None` or have type "
                            f"`tf.estimator.EvalSpec`. Got: {type(eval_spec)}")
        if continuous_eval_listener and not isinstance(continuous_eval_listener,
                                                       _ContinuousEvalListener):
            raise TypeError("`continuous_eval_listener` must have type "
                            "`_ContinuousEvalListener`.")
        self._estimator = estimator
        self._train_spec = train_spec
        self._eval_spec = eval_spec
        self._train_hooks = _validate_hooks(train_hooks)
        self._continuous_eval_listener = continuous_eval_listener or _ContinuousEvalListener()

    @property
    def estimator(self):
        """The Estimator it trains and evaluates."""
        return self._estimator

    def run(self):
        """Runs `run_local` without a cluster, else `run_<task type>` of the config.

        Returns:
            run_local's `(metrics, export_results)`; None in a cluster.

        Raises:
            ValueError: If the config's task type is missing, `local`, or has no
                `run_<task type>` method here.
        """
        task = job_shape.executor_task(self._estimator.config)
        if task == "local":
            logging.info("Running training and evaluation locally (non-distributed).")
            return self.run_local()
        available = [name for name in dir(self) if name.startswith("run_")
                     and name != "run_local" and callable(getattr(self, name))]
        if "run_" + task not in available:
            raise ValueError(f"Task type {task} is not supported. Supported task types are "
                             f"{[name[len('run_'):] for name in available]}")
        getattr(self, "run_" + task)()
        return None

    def run_chief(self):
        """Trains as the chief: starts the server, trains with the TrainSpec's listeners."""
        return self._start_distributed_training(
            saving_listeners=self._train_spec.saving_listeners)

    def run_worker(self):
        """Trains as a worker: starts the server, waits the start-up delay, trains."""
        return self._start_distributed_training()

    def run_master(self):
        """Trains as the master, evaluating and exporting new checkpoints as they come."""
        _assert_eval_spec(self._eval_spec)
        evaluator = self._Evaluator(self._estimator, self._eval_spec,
                                    self._train_spec.max_steps)
        listener = _NewCheckpointListenerForEvaluate(
            evaluator, self._eval_spec.throttle_secs, _ContinuousEvalListener())
        self._start_distributed_training(
            saving_listeners=tuple(self._train_spec.saving_listeners) + (listener,))

    def run_evaluator(self):
        """Evaluates each new checkpoint until the training's max_steps is reached."""
        return self._start_continuous_evaluation()

    def run_ps(self):
        """Serves the variables until the chief and the workers have finished."""
        config = self._estimator.config
        server = self._start_std_server(config)
        parameter_servers.serve(config, server=server)

    def run_local(self):
        """Trains, evaluating after each checkpoint save; returns the last evaluation's
        `(metrics, export_results)`, `(None, None)` when training did not run."""
        _assert_eval_spec(self._eval_spec)
        config = self._estimator.config
        logging.info(
            "Start train and evaluate loop. The evaluate will happen after every checkpoint. "
            "Checkpoint frequency is determined based on RunConfig arguments: "
            f"save_checkpoints_steps {config.save_checkpoints_steps} or "
            f"save_checkpoints_secs {config.save_checkpoints_secs}.")
        evaluator = self._Evaluator(self._estimator, self._eval_spec,
                                    self._train_spec.max_steps)
        listener = _NewCheckpointListenerForEvaluate(
            evaluator, self._eval_spec.throttle_secs, self._continuous_eval_listener)
        self._estimator.train(
            input_fn=self._train_spec.input_fn, max_steps=self._train_spec.max_steps,
            hooks=list(self._train_spec.hooks) + list(self._train_hooks),
            saving_listeners=tuple(self._train_spec.saving_listeners) + (listener,))
        eval_result = listener.eval_result or _EvalResult(
            status=_EvalStatus.MISSING_CHECKPOINT)
        return eval_result.metrics, listener.export_results

    def _start_std_server(self, config):
        """Starts this task's server and returns it; None in a one-node cluster."""
        return parameter_servers.start_std_server(config)

    def _start_distributed_training(self, saving_listeners=None):
        """Starts the server (outside Google's environment), waits the worker's delay,
        and trains."""
        config = self._estimator.config
        if not _is_google_env():
            self._start_std_server(config)
        delay = parameter_servers.worker_delay_secs(config)
        if delay > 0:
            logging.info("Waiting %d secs before starting training.", delay)
            time.sleep(delay)
        self._estimator.train(
            input_fn=self._train_spec.input_fn, max_steps=self._train_spec.max_steps,
            hooks=list(self._train_spec.hooks) + list(self._train_hooks),
            saving_listeners=saving_listeners)

    def _start_continuous_evaluation(self):
        """Evaluates (after the EvalSpec's start delay) until a result reaches max_steps or
        the continuous-eval listener stops it."""
        _assert_eval_spec(self._eval_spec)
        start_delay_secs = self._eval_spec.start_delay_secs
        if start_delay_secs:
            logging.info("Waiting %f secs before starting eval.", start_delay_secs)
            time.sleep(start_delay_secs)
        latest = None
        evaluator = self._Evaluator(self._estimator, self._eval_spec,
                                    self._train_spec.max_steps)
        should_early_stop = False
        while not should_early_stop:
            if latest and latest.status == _EvalStatus.EVALUATED:
                global_step = latest.metrics.get(tf.compat.v1.GraphKeys.GLOBAL_STEP)
                max_steps = self._train_spec.max_steps
                if global_step and max_steps and global_step >= max_steps:
                    logging.info("Exiting evaluation, global_step=%s >= train max_steps=%s",
                                 global_step, max_steps)
                    return
            latest, should_early_stop = self._execute_evaluator_once(
                evaluator, self._continuous_eval_listener, self._eval_spec.throttle_secs)

    def _execute_evaluator_once(self, evaluator, continuous_eval_listener, throttle_secs):
        """One evaluation, then the throttle's wait; returns (result, should_early_stop)."""
        _assert_eval_spec(self._eval_spec)
        start = time.time()
        if not continuous_eval_listener.before_eval():
            logging.info("Exiting evaluation, as requested by "
                         "_ContinuousEvalListener.before_eval.")
            return None, True
        eval_result, _ = evaluator.evaluate_and_export()
        if not self._continuous_eval_listener.after_eval(eval_result):
            logging.info("Exiting evaluation, as requested by "
                         "_ContinuousEvalListener.after_eval.")
            return eval_result, True
        difference = throttle_secs - (time.time() - start)
        if difference > 0:
            logging.info("Waiting %f secs before starting next eval run.", difference)
            time.sleep(difference)
        elif throttle_secs == 0 and eval_result.status != _EvalStatus.EVALUATED:
            logging.warning(
                "EvalSpec.throttle_secs is set as 0. This might overload the job before "
                "finding (next) new checkpoint. Please consider to increase it.")
        return eval_result, False
