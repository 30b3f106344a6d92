"""The original `training.py`'s private constants, checks and small classes, by their names
and signatures.

compat.install() puts each at `tensorflow_estimator.python.estimator.training`
(legacy/original_tree.py). train_and_evaluate itself runs in engine/train_eval.py; the
original's `_TrainingExecutor` and `_NewCheckpointListenerForEvaluate` are not
re-provided (docs/estimator.md, "Private names").
"""

import collections
import json
import time

import tensorflow as tf

from estimator_lib.core import environment
from estimator_lib.core.tf_config import TaskType
from estimator_lib.engine import train_eval

_MAX_DELAY_SECS = 60
_DELAY_SECS_PER_WORKER = 5
_TF_CONFIG_ENV = "TF_CONFIG"
_ENVIRONMENT_KEY = "environment"
_ENVIRONMENT_GOOGLE_VALUE = "google"
_TRAINER_JOBS = (TaskType.CHIEF, TaskType.MASTER, TaskType.WORKER)

_validate_exporters = train_eval._validate_exporters  # pylint: disable=protected-access


def _validate_input_fn(input_fn):
    """TypeError unless `input_fn` is callable."""
    if not callable(input_fn):
        raise TypeError(f"`input_fn` must be callable, given: {input_fn}")


def _validate_hooks(hooks):
    """The hooks as a tuple; TypeError for one that is not a SessionRunHook."""
    hooks = tuple(hooks or [])
    for hook in hooks:
        if not isinstance(hook, tf.compat.v1.train.SessionRunHook):
            raise TypeError(f"All hooks must be `SessionRunHook` instances, given: {hook}")
    return hooks


def _validate_saving_listeners(saving_listeners):
    """The listeners as a tuple; TypeError for one that is not a CheckpointSaverListener."""
    saving_listeners = tuple(saving_listeners or [])
    for listener in saving_listeners:
        if not isinstance(listener, tf.compat.v1.train.CheckpointSaverListener):
            raise TypeError("All saving_listeners must be `CheckpointSaverListener` "
                            f"instances, given: {listener}")
    return saving_listeners


def _is_google_env():
    """Whether TF_CONFIG's `environment` is `google` (a warning when TF_CONFIG is empty)."""
    tf_config = json.loads(environment.tf_config_text() or "{}")
    if not tf_config:
        tf.compat.v1.logging.warning(
            "TF_CONFIG should not be empty in distributed environment.")
    return tf_config.get(_ENVIRONMENT_KEY) == _ENVIRONMENT_GOOGLE_VALUE


def _assert_eval_spec(eval_spec):
    """TypeError unless `eval_spec` is an EvalSpec."""
    if not isinstance(eval_spec, train_eval.EvalSpec):
        raise TypeError("`eval_spec` must have type `tf.estimator.EvalSpec`. "
                        f"Got: {type(eval_spec)}")


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
    """What the original's continuous evaluator called around each evaluation."""

    def before_eval(self):
        """Returns False to skip this evaluation and stop evaluating."""
        return True

    def after_eval(self, eval_result):
        """Returns False to stop evaluating after `eval_result` (an `_EvalResult`)."""
        del eval_result
        return True
