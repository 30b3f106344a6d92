"""Early stopping from evaluation results, and in-training evaluation hooks.

Unlike the original (tensorflow issue 51525), the hooks work with any
train_distribute: with MirroredStrategy all replicas live in one session, so the
chief's decision stops them together.
"""

import collections
import time
from typing import Callable, Dict, Optional

import tensorflow as tf
from tensorflow.python.training import training_util

from estimator_lib.distribute import job_shape
from estimator_lib.graph import restore
from estimator_lib.hooks.early_stopping_helpers import _summaries
from estimator_lib.hooks import stop_variable
# At this module's path too, where the original's name list puts it (experimental.py).
from estimator_lib.hooks.in_memory_evaluator import InMemoryEvaluatorHook  # noqa: F401

logging = tf.compat.v1.logging


def read_eval_metrics(eval_dir: str) -> "collections.OrderedDict[int, Dict[str, float]]":
    """Returns {global_step: {metric: value}} from the event files in `eval_dir`, by step.

    The rest of a corrupt event file is skipped with a warning, as the original's.
    """
    results = collections.defaultdict(dict)
    for event in _summaries(eval_dir):
        for value in event.summary.value:
            if value.HasField("simple_value"):
                results[event.step][value.tag] = value.simple_value
    return collections.OrderedDict(sorted(results.items()))


class _StepReadingHook(tf.compat.v1.train.SessionRunHook):
    """A hook that reads the global step on every run (`after_run` sees it as results)."""

    _global_step = None

    def begin(self):
        self._global_step = tf.compat.v1.train.get_global_step()

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self._global_step)


class _StopOnPredicateHook(_StepReadingHook):
    """Calls `should_stop_fn` every N secs or steps; stops training when it says so.

    Also sets the original's `signal_early_stopping/STOP` variable (stop_variable.py).
    """

    def __init__(self, should_stop_fn, run_every_secs=60, run_every_steps=None, *,
                 model_dir=None):
        if not callable(should_stop_fn):
            raise TypeError(f"`should_stop_fn` must be callable. Received: {should_stop_fn!r}.")
        self._should_stop_fn = should_stop_fn
        self._timer = tf.compat.v1.train.SecondOrStepTimer(every_secs=run_every_secs,
                                                           every_steps=run_every_steps)
        self._model_dir = model_dir
        self._stop_var = self._stop_op = None

    def begin(self):
        super().begin()
        self._stop_var = stop_variable.get_or_create(self._model_dir)
        self._stop_op = stop_variable.assign_stopped(self._stop_var)

    def after_run(self, run_context, run_values):
        step = run_values.results + 1
        if self._timer.should_trigger_for_step(step):
            self._timer.update_last_triggered_step(step)
            if self._should_stop_fn():
                logging.info("Requesting early stopping at global step %d", step)
                run_context.session.run(self._stop_op)
                run_context.request_stop()


class _MultiWorkerEarlyStoppingHook(tf.compat.v1.train.SessionRunHook):
    """Every N steps each worker votes; a sum all-reduce stops them all at one step.

    Workers of a MultiWorkerMirroredStrategy step together, so one that stopped
    alone would leave the others waiting in their next all-reduce forever. The
    votes' sum is kept in the original's `signal_early_stopping/STOP`.
    """

    def __init__(self, should_stop_fn, run_every_steps=None, *, strategy=None, model_dir=None):
        if not callable(should_stop_fn):
            raise TypeError(f"`should_stop_fn` must be callable. Received: {should_stop_fn!r}.")
        self._should_stop_fn = should_stop_fn
        self._every = run_every_steps
        self._strategy = strategy
        self._model_dir = model_dir
        self._step = self._vote = self._votes = None
        self._stop_value = self._stop_op = None

    def _get_or_create_stop_var_with_aggregation(self):
        return stop_variable.get_or_create(self._model_dir)

    def begin(self):
        self._strategy = self._strategy or tf.distribute.get_strategy()
        # pylint: disable-next=protected-access
        self._step = training_util._get_or_create_global_step_read()
        self._vote = tf.compat.v1.placeholder(tf.float32, [], name="early_stopping_vote")
        with self._strategy.scope():
            per_replica = self._strategy.extended.call_for_each_replica(
                lambda: tf.identity(self._vote))
            self._votes = self._strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica,
                                                axis=None)
            variable = self._get_or_create_stop_var_with_aggregation()
            self._stop_value = tf.compat.v1.placeholder(tf.int32, [], name="early_stopping_votes")
            # Every worker assigns the same all-reduced sum to its own copies: no collective.
            self._stop_op = tf.compat.v1.assign(variable, self._stop_value).op

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self._step)

    def after_run(self, run_context, run_values):
        step = run_values.results + 1
        if step % self._every:
            return
        vote = 1.0 if self._should_stop_fn() else 0.0
        votes = run_context.session.run(self._votes, feed_dict={self._vote: vote})
        if votes > 0:
            logging.info("Requesting early stopping at global step %d (all workers).", step)
            run_context.session.run(self._stop_op, feed_dict={self._stop_value: int(votes)})
            run_context.request_stop()


def make_early_stopping_hook(estimator, should_stop_fn: Callable[[], bool],
                             run_every_secs: Optional[float] = 60,
                             run_every_steps: Optional[int] = None):
    """Makes a hook that stops training when `should_stop_fn()` returns True.

    Works with any train_distribute. Across several workers
    (MultiWorkerMirroredStrategy with TF_CONFIG) the decision must be taken at the
    same step everywhere, so it needs `run_every_secs=None, run_every_steps=N`.

    As the original's, the hook makes the variable `signal_early_stopping/STOP` and
    sets it when it stops.

    Deliberate difference 23: it resumes a model_dir trained without such a hook.

    Args:
        estimator: The `Estimator` being trained (its config and `model_dir` are read).
        should_stop_fn: A function of no arguments returning True when training should stop.
        run_every_secs: Call `should_stop_fn` at most this often, in seconds; None to use
            `run_every_steps`.
        run_every_steps: Call `should_stop_fn` every this many steps; only when `run_every_secs`
            is None.

    Returns:
        A `SessionRunHook` to pass to `train()` (or a `TrainSpec`'s hooks).

    Raises:
        TypeError: If `estimator` is not an Estimator, or `should_stop_fn` not callable.
        ValueError: If both `run_every_secs` and `run_every_steps` are set, or a multi-worker
            job is given a time cadence.

    Examples:
        A `should_stop_fn` that says stop at its third call, asked every step: training
        for 100 steps stops at step 3:

        >>> import tempfile
        >>> import tensorflow as tf
        >>> import estimator_lib
        >>> def model_fn(features, labels, mode):
        ...     w = tf.compat.v1.get_variable("w", [], initializer=tf.compat.v1.zeros_initializer())
        ...     loss = tf.square(w - features["x"][0])
        ...     step = tf.compat.v1.train.get_or_create_global_step()
        ...     train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, step)
        ...     return estimator_lib.EstimatorSpec(mode, loss=loss, train_op=train_op)
        >>> def input_fn():
        ...     return tf.data.Dataset.from_tensors(({"x": [1.0]}, [1.0])).repeat()
        >>> est = estimator_lib.Estimator(model_fn, model_dir=tempfile.mkdtemp())
        >>> calls = []
        >>> def should_stop_fn():
        ...     calls.append(1)
        ...     return len(calls) == 3
        >>> hook = estimator_lib.experimental.make_early_stopping_hook(
        ...     est, should_stop_fn, run_every_secs=None, run_every_steps=1)
        >>> int(est.train(input_fn, steps=100, hooks=[hook]).get_variable_value("global_step"))
        3
    """
    # The Estimator's own layer is above this one: an estimator is told by what it has.
    if not (hasattr(type(estimator), "train") and hasattr(estimator, "config")
            and hasattr(estimator, "eval_dir")):
        raise TypeError("`estimator` must have type `tf.estimator.Estimator`. "
                        f"Got: {type(estimator)}")
    if not callable(should_stop_fn):
        raise TypeError(f"`should_stop_fn` must be callable. Received: {should_stop_fn!r}.")
    if run_every_secs is not None and run_every_steps is not None:
        raise ValueError(
            "Only one of `run_every_secs` and `run_every_steps` may be set. Received: "
            f"run_every_secs={run_every_secs}, run_every_steps={run_every_steps}.")
    role = job_shape.role_of(estimator.config)
    if role.mode == job_shape.MULTI_WORKER:
        if run_every_steps is None:
            raise ValueError(
                "Under MultiWorkerMirroredStrategy every worker must decide to stop at the "
                "same step, which a time cadence cannot give. Pass run_every_secs=None and "
                f"run_every_steps=N. Received: run_every_secs={run_every_secs}.")
        return _MultiWorkerEarlyStoppingHook(should_stop_fn, run_every_steps,
                                             strategy=role.strategy,
                                             model_dir=estimator.model_dir)
    return _StopOnPredicateHook(should_stop_fn, run_every_secs, run_every_steps,
                                model_dir=estimator.model_dir)


def _metric_series(eval_dir, metric_name, min_steps):
    """(step, value) of `metric_name` in each evaluation from `min_steps` on, by step."""
    for step, metrics in read_eval_metrics(eval_dir).items():
        if step < min_steps:
            continue
        if metric_name not in metrics:
            raise ValueError(
                f"metric_name {metric_name!r} not found in eval results at step {step}; "
                f"found {sorted(metrics)}.")
        yield step, metrics[metric_name]


def _stop_if_threshold_crossed_hook(estimator, metric_name, threshold, higher_is_better,
                                    eval_dir, min_steps, run_every_secs, run_every_steps):
    higher = higher_is_better
    eval_dir = eval_dir or estimator.eval_dir()
    word = "higher" if higher else "lower"

    def should_stop():
        for step, value in _metric_series(eval_dir, metric_name, min_steps):
            if (value > threshold) if higher else (value < threshold):
                logging.info('At step %s, metric "%s" has value %s which is %s than the '
                             "threshold of %s, so stopping.", step, metric_name, value, word,
                             threshold)
                return True
        return False

    return make_early_stopping_hook(estimator, should_stop, run_every_secs, run_every_steps)


def stop_if_higher_hook(estimator, metric_name, threshold, eval_dir=None, min_steps=0,
                        run_every_secs=60, run_every_steps=None):
    """Stops once an evaluation's `metric_name` is above `threshold`.

    Deliberate difference 23: it resumes a model_dir trained without such a hook.

    Args:
        estimator: The `Estimator` being trained (its config and `model_dir` are read).
        metric_name: The evaluation metric to watch, as `evaluate()` names it (e.g. `loss`).
        threshold: The value the metric is compared with.
        eval_dir: The directory of the evaluation event files to read; None takes
            `estimator.eval_dir()`.
        min_steps: Ignore evaluations before this global step.
        run_every_secs: Call `should_stop_fn` at most this often, in seconds; None to use
            `run_every_steps`.
        run_every_steps: Call `should_stop_fn` every this many steps; only when `run_every_secs`
            is None.

    Returns:
        A `SessionRunHook` to pass to `train()` (or a `TrainSpec`'s hooks).

    Raises:
        ValueError: If both cadences are set, or (when the hook runs) an evaluation lacks
            `metric_name`.

    Examples:
        Stops training once an evaluation's accuracy is above 0.9, checked every 10
        steps (the evaluations are those `evaluate()` or `train_and_evaluate` write):

        >>> import tempfile
        >>> import estimator_lib
        >>> est = estimator_lib.Estimator(lambda features: None, model_dir=tempfile.mkdtemp())
        >>> hook = estimator_lib.experimental.stop_if_higher_hook(
        ...     est, "accuracy", 0.9, run_every_secs=None, run_every_steps=10)
        >>> isinstance(hook, estimator_lib.SessionRunHook)
        True
    """
    return _stop_if_threshold_crossed_hook(estimator, metric_name, threshold, True,
                                           eval_dir, min_steps, run_every_secs,
                                           run_every_steps)


def stop_if_lower_hook(estimator, metric_name, threshold, eval_dir=None, min_steps=0,
                       run_every_secs=60, run_every_steps=None):
    """Stops once an evaluation's `metric_name` is below `threshold`.

    Deliberate difference 23: it resumes a model_dir trained without such a hook.

    Args:
        estimator: The `Estimator` being trained (its config and `model_dir` are read).
        metric_name: The evaluation metric to watch, as `evaluate()` names it (e.g. `loss`).
        threshold: The value the metric is compared with.
        eval_dir: The directory of the evaluation event files to read; None takes
            `estimator.eval_dir()`.
        min_steps: Ignore evaluations before this global step.
        run_every_secs: Call `should_stop_fn` at most this often, in seconds; None to use
            `run_every_steps`.
        run_every_steps: Call `should_stop_fn` every this many steps; only when `run_every_secs`
            is None.

    Returns:
        A `SessionRunHook` to pass to `train()` (or a `TrainSpec`'s hooks).

    Raises:
        ValueError: If both cadences are set, or (when the hook runs) an evaluation lacks
            `metric_name`.

    Examples:
        Two steps, one evaluation (its loss is under 10), then training for 100 more
        steps stops at the first check, one step later:

        >>> import tempfile
        >>> import tensorflow as tf
        >>> import estimator_lib
        >>> def model_fn(features, labels, mode):
        ...     w = tf.compat.v1.get_variable("w", [], initializer=tf.compat.v1.zeros_initializer())
        ...     loss = tf.square(w - features["x"][0])
        ...     step = tf.compat.v1.train.get_or_create_global_step()
        ...     train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, step)
        ...     return estimator_lib.EstimatorSpec(mode, loss=loss, train_op=train_op)
        >>> def input_fn():
        ...     return tf.data.Dataset.from_tensors(({"x": [1.0]}, [1.0])).repeat()
        >>> est = estimator_lib.Estimator(model_fn, model_dir=tempfile.mkdtemp())
        >>> est = est.train(input_fn, steps=2)
        >>> float(est.evaluate(input_fn, steps=1)["loss"]) < 10.0
        True
        >>> hook = estimator_lib.experimental.stop_if_lower_hook(
        ...     est, "loss", 10.0, run_every_secs=None, run_every_steps=1)
        >>> int(est.train(input_fn, steps=100, hooks=[hook]).get_variable_value("global_step"))
        3
    """
    return _stop_if_threshold_crossed_hook(estimator, metric_name, threshold, False,
                                           eval_dir, min_steps, run_every_secs,
                                           run_every_steps)


def _stop_if_no_metric_improvement_hook(estimator, metric_name, max_steps_without_improvement,
                                        higher_is_better, eval_dir, min_steps, run_every_secs,
                                        run_every_steps):
    max_steps, increase = max_steps_without_improvement, higher_is_better
    eval_dir = eval_dir or estimator.eval_dir()
    word = "increase" if increase else "decrease"

    def should_stop():
        best_value, best_step = None, None
        for step, value in _metric_series(eval_dir, metric_name, min_steps):
            if best_value is None or (value > best_value if increase else value < best_value):
                best_value, best_step = value, step
            if step - best_step >= max_steps:
                logging.info('No %s in metric "%s" for %s steps, which is greater than or '
                             "equal to max steps (%s) configured for early stopping.", word,
                             metric_name, step - best_step, max_steps)
                return True
        return False

    return make_early_stopping_hook(estimator, should_stop, run_every_secs, run_every_steps)


def stop_if_no_increase_hook(estimator, metric_name, max_steps_without_increase,
                             eval_dir=None, min_steps=0, run_every_secs=60,
                             run_every_steps=None):
    """Stops when `metric_name` has not increased for `max_steps_without_increase` steps.

    Deliberate difference 23: it resumes a model_dir trained without such a hook.

    Args:
        estimator: The `Estimator` being trained (its config and `model_dir` are read).
        metric_name: The evaluation metric to watch, as `evaluate()` names it (e.g. `loss`).
        max_steps_without_increase: Stop when the best value is this many global steps older
            than the newest evaluation.
        eval_dir: The directory of the evaluation event files to read; None takes
            `estimator.eval_dir()`.
        min_steps: Ignore evaluations before this global step.
        run_every_secs: Call `should_stop_fn` at most this often, in seconds; None to use
            `run_every_steps`.
        run_every_steps: Call `should_stop_fn` every this many steps; only when `run_every_secs`
            is None.

    Returns:
        A `SessionRunHook` to pass to `train()` (or a `TrainSpec`'s hooks).

    Raises:
        ValueError: If both cadences are set, or (when the hook runs) an evaluation lacks
            `metric_name`.

    Examples:
        Stops training once the evaluation accuracy has not increased for 1000 steps:

        >>> import tempfile
        >>> import estimator_lib
        >>> est = estimator_lib.Estimator(lambda features: None, model_dir=tempfile.mkdtemp())
        >>> hook = estimator_lib.experimental.stop_if_no_increase_hook(
        ...     est, "accuracy", max_steps_without_increase=1000)
        >>> isinstance(hook, estimator_lib.SessionRunHook)
        True
    """
    return _stop_if_no_metric_improvement_hook(
        estimator, metric_name, max_steps_without_increase, True, eval_dir, min_steps,
        run_every_secs, run_every_steps)


def stop_if_no_decrease_hook(estimator, metric_name, max_steps_without_decrease,
                             eval_dir=None, min_steps=0, run_every_secs=60,
                             run_every_steps=None):
    """Stops when `metric_name` has not decreased for `max_steps_without_decrease` steps.

    Deliberate difference 23: it resumes a model_dir trained without such a hook.

    Args:
        estimator: The `Estimator` being trained (its config and `model_dir` are read).
        metric_name: The evaluation metric to watch, as `evaluate()` names it (e.g. `loss`).
        max_steps_without_decrease: Stop when the best value is this many global steps older
            than the newest evaluation.
        eval_dir: The directory of the evaluation event files to read; None takes
            `estimator.eval_dir()`.
        min_steps: Ignore evaluations before this global step.
        run_every_secs: Call `should_stop_fn` at most this often, in seconds; None to use
            `run_every_steps`.
        run_every_steps: Call `should_stop_fn` every this many steps; only when `run_every_secs`
            is None.

    Returns:
        A `SessionRunHook` to pass to `train()` (or a `TrainSpec`'s hooks).

    Raises:
        ValueError: If both cadences are set, or (when the hook runs) an evaluation lacks
            `metric_name`.

    Examples:
        Stops training once the evaluation loss has not decreased for 100 steps:

        >>> import tempfile
        >>> import estimator_lib
        >>> est = estimator_lib.Estimator(lambda features: None, model_dir=tempfile.mkdtemp())
        >>> hook = estimator_lib.experimental.stop_if_no_decrease_hook(
        ...     est, "loss", max_steps_without_decrease=100, run_every_secs=None,
        ...     run_every_steps=10)
        >>> isinstance(hook, estimator_lib.SessionRunHook)
        True
    """
    return _stop_if_no_metric_improvement_hook(
        estimator, metric_name, max_steps_without_decrease, False, eval_dir, min_steps,
        run_every_secs, run_every_steps)


class _StopAtCheckpointStepHook(_StepReadingHook):
    """For non-chief workers: once past `last_step`, stop when a checkpoint reaches it."""

    def __init__(self, model_dir, last_step, wait_after_file_check_secs=30):
        self._model_dir = model_dir
        self._last_step = last_step
        self._wait = wait_after_file_check_secs

    def after_run(self, run_context, run_values):
        if run_values.results + 1 < self._last_step:
            return
        if restore.global_step_of(self._model_dir) >= self._last_step:
            run_context.request_stop()
        else:
            time.sleep(self._wait)


def make_stop_at_checkpoint_step_hook(estimator, last_step, wait_after_file_check_secs=30):
    """Stops the chief at `last_step`, other workers when the checkpoint gets there.

    Args:
        estimator: The `Estimator` being trained (its config and `model_dir` are read).
        last_step: The global step to stop at.
        wait_after_file_check_secs: On a non-chief worker, how long to wait between two checks
            of the checkpoint's step.

    Returns:
        On the chief, a `StopAtStepHook`; on other workers, a hook that stops once a checkpoint
        has reached `last_step`.

    Examples:
        On the chief (here: no TF_CONFIG, a single process) it is a `StopAtStepHook`:

        >>> import tempfile
        >>> import estimator_lib
        >>> est = estimator_lib.Estimator(lambda features: None, model_dir=tempfile.mkdtemp())
        >>> hook = estimator_lib.experimental.make_stop_at_checkpoint_step_hook(est, 1000)
        >>> isinstance(hook, estimator_lib.StopAtStepHook)
        True
    """
    if job_shape.role_of(estimator.config).is_chief:
        return tf.compat.v1.train.StopAtStepHook(last_step=last_step)
    return _StopAtCheckpointStepHook(estimator.model_dir, last_step, wait_after_file_check_secs)
