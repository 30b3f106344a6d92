"""Throughput that counts every replica: examples/sec from the global batch and step times.

`StepCounterHook`'s `global_step/sec` counts steps. Under MirroredStrategy the
input_fn's batch is per replica, so with N replicas each step consumes N times
that batch, and steps/sec alone says nothing about examples (tensorflow issues
26392, 32172). Here the batch is made global first (`make_global_batch`), and
examples/sec is that global batch times the steps measured, divided by their
wall time, warm-up steps excluded.

The arithmetic is in pure functions (`examples_per_second`); the hooks only
collect times from an injectable `clock`, so tests feed times instead of sleeping.
With `RunConfig(steps_per_run=N)` a session run makes up to N steps: the hooks
count each run's steps from the global step before and after it.
Every figure goes three ways: the log at INFO, TensorBoard scalars in
`output_dir` and JSON lines in `output_dir/throughput.jsonl` (`read_records`).
"""

import json
import os
import time
from typing import Callable, Dict, List, Optional, Union

import tensorflow as tf
from tensorflow.python.training import training_util

from estimator_lib.hooks import global_batch
from estimator_lib.hooks.global_batch import GlobalBatch
from estimator_lib.hooks.global_batch import examples_per_second
from estimator_lib.hooks.global_batch import examples_per_second_over
from estimator_lib.hooks.global_batch import make_global_batch
from estimator_lib.training import steps_loop

logging = tf.compat.v1.logging

Clock = Callable[[], float]

# Where the hooks append their JSON records, inside `output_dir`.
RECORDS_FILENAME = "throughput.jsonl"
EXAMPLES_PER_SEC_TAG = "examples/sec"
AVERAGE_EXAMPLES_PER_SEC_TAG = "examples/sec_average"


# ------------------------------------------------------------------- outputs

def default_records_path(output_dir: str) -> str:
    """Where the hooks append their JSON records by default: `output_dir/throughput.jsonl`.

    Args:
        output_dir: The hooks' output folder (usually the Estimator's model_dir).

    Returns:
        The path of the JSON-lines file.
    """
    return os.path.join(output_dir, RECORDS_FILENAME)


def append_record(path: str, record: Dict) -> None:
    """Appends `record` as one JSON line to `path` (created with its folder)."""
    tf.io.gfile.makedirs(os.path.dirname(path) or ".")
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(record, sort_keys=True) + "\n")


def read_records(path: str, kind: Optional[str] = None) -> List[Dict]:
    """The JSON records in `path`, all or only those whose "kind" is `kind`."""
    with open(path, encoding="utf-8") as f:
        records = [json.loads(line) for line in f if line.strip()]
    return [r for r in records if kind is None or r.get("kind") == kind]


def write_scalars(output_dir: str, step: int, scalars: Dict[str, float]) -> None:
    """Writes `scalars` at `step` to the event file the Estimator's hooks share.

    Args:
        output_dir: The directory of the event file (the Estimator's model_dir).
        step: The global step the values are recorded at.
        scalars: A dict of summary tag to value.
    """
    summary = tf.compat.v1.Summary(value=[
        tf.compat.v1.Summary.Value(tag=tag, simple_value=float(value))
        for tag, value in scalars.items()])
    tf.compat.v1.summary.FileWriterCache.get(output_dir).add_summary(summary, step)


def flush_scalars(output_dir: str) -> None:
    """Flushes the shared event file of `output_dir`, so that what was written is on disk.

    Args:
        output_dir: The event file's folder (the one `write_scalars` wrote to).
    """
    tf.compat.v1.summary.FileWriterCache.get(output_dir).flush()


def global_step_read_tensor():
    """The tensor the Estimator's hooks read the global step from, or None without one."""
    if training_util.get_global_step() is None:
        return None
    return training_util._get_or_create_global_step_read()  # pylint: disable=protected-access


def run_step_tensors():
    """(global step before, global step after) a run of a steps_per_run loop, else None.

    Without a loop (one step per run) a run makes exactly one step.
    """
    after = steps_loop.step_after_run_tensor()
    if after is None:
        return None
    return global_step_read_tensor(), after


def _steps_made(step_tensors, results) -> int:
    if step_tensors is None:
        return 1
    before, after = results
    return int(after) - int(before)


# --------------------------------------------------------------------- hooks

class TimeHistory(tf.compat.v1.train.SessionRunHook):
    """Collects per-step times, as the seed program's hook did, from an injectable clock.

    Attributes:
        times: Seconds from this hook's `before_run` to its `after_run`, per step
            (the seed program's figure: the session.run alone).
        wall_times: Seconds from the end of the previous step to the end of this
            one (the first from its `before_run`): they tile the training loop, so
            they include other hooks and the loop itself, as a user's watch does.
        steps: The steps each run made: 1, or up to `RunConfig.steps_per_run`
            (then `times` and `wall_times` are per run, not per step).
    """

    def __init__(self, *, clock: Clock = time.perf_counter):
        self._clock = clock
        self.times: List[float] = []
        self.wall_times: List[float] = []
        self.steps: List[int] = []
        self._start = None
        self._last_end = None
        self._run_steps = None

    def begin(self):
        """Clears the times and finds a steps_per_run loop's step tensors, if any."""
        self.times, self.wall_times, self.steps = [], [], []
        self._start = self._last_end = None
        self._run_steps = run_step_tensors()

    def before_run(self, run_context):
        """Starts the run's clock.

        Args:
            run_context: The `SessionRunContext` of the run.

        Returns:
            `SessionRunArgs` fetching the global step before and after a steps_per_run
            loop's run, or None without a loop (a run then makes one step).
        """
        self._start = self._clock()
        if self._last_end is None:
            self._last_end = self._start
        if self._run_steps is None:
            return None
        return tf.compat.v1.train.SessionRunArgs(self._run_steps)

    def after_run(self, run_context, run_values):
        """Appends the run's time, its wall time and the steps it made.

        Args:
            run_context: The `SessionRunContext` of the run.
            run_values: The run's `SessionRunValues`.
        """
        now = self._clock()
        self.times.append(now - self._start)
        self.wall_times.append(now - self._last_end)
        self.steps.append(_steps_made(self._run_steps, run_values.results))
        self._last_end = now

    def examples_per_second(self, batch_size: int, warm_steps: int = 0) -> float:
        """Examples/sec over the wall time of the steps after `warm_steps`."""
        return examples_per_second(batch_size, self.wall_times, warm_steps, steps=self.steps)


class ExamplesPerSecondHook(TimeHistory):
    """Logs and records examples/sec over the global batch, current and average.

    Same constructor as the official models' ExamplesPerSecondHook, except that
    the figure goes to TensorBoard (`examples/sec`, `examples/sec_average`) and
    to JSON lines when `output_dir` is given. `batch_size` is the global batch:
    build it with `make_global_batch(per_replica, config=run_config)`, or use
    `ExamplesPerSecondHook.for_config`. Steps are this session's; the first
    `warm_steps` are left out (whole runs, with `RunConfig.steps_per_run` > 1).
    "Current" covers the steps since the last report, "average" every step after
    warm-up. A last report is made at `end`.

    Examples:
        Four steps of a tiny model, the first left out as warm-up:

        >>> import tempfile
        >>> import tensorflow as tf
        >>> import estimator_lib
        >>> from estimator_lib.hooks import ExamplesPerSecondHook
        >>> def model_fn(features, labels, mode):
        ...     w = tf.compat.v1.get_variable("w", [], initializer=tf.compat.v1.zeros_initializer())
        ...     loss = tf.reduce_mean(tf.square(w - features["x"]))
        ...     step = tf.compat.v1.train.get_or_create_global_step()
        ...     train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, step)
        ...     return estimator_lib.EstimatorSpec(mode, loss=loss, train_op=train_op)
        >>> def input_fn():
        ...     return tf.data.Dataset.from_tensors({"x": [1.0, 2.0, 3.0, 4.0]}).repeat()
        >>> hook = ExamplesPerSecondHook(batch_size=4, every_n_steps=2, warm_steps=1)
        >>> est = estimator_lib.Estimator(model_fn, model_dir=tempfile.mkdtemp())
        >>> est = est.train(input_fn, steps=4, hooks=[hook])
        >>> hook.batch_size, hook.measured_steps, hook.average_examples_per_second() > 0
        (4, 3, True)

        From a RunConfig: the global batch over its replicas, the summaries in its
        model_dir:

        >>> config = estimator_lib.RunConfig(model_dir=tempfile.mkdtemp())
        >>> ExamplesPerSecondHook.for_config(32, config=config, every_n_steps=100).batch_size
        32

    Args:
        batch_size: The global batch (examples per step over all replicas): an int or a
            `GlobalBatch`.
        every_n_steps: Report every this many steps; exclusive with `every_n_secs`.
        every_n_secs: Report every this many seconds; exclusive with `every_n_steps`.
        warm_steps: How many first steps to leave out of the figures (start-up costs).
        output_dir: Where the summaries (and `throughput.jsonl`) are written; None writes only
            the log.
        records_path: A JSON-lines file to append each report to; None takes
            `output_dir/throughput.jsonl` when `output_dir` is given.
        clock: The clock measuring the steps (for tests).

    Raises:
        ValueError: If `batch_size` is not a positive int, or not exactly one of `every_n_steps`
            and `every_n_secs` is given.
    """

    def __init__(self, batch_size: Union[int, GlobalBatch], every_n_steps: Optional[int] = None,
                 every_n_secs: Optional[float] = None, warm_steps: int = 0, *,
                 output_dir: Optional[str] = None, records_path: Optional[str] = None,
                 clock: Clock = time.perf_counter):
        super().__init__(clock=clock)
        self._batch = batch_size if isinstance(batch_size, GlobalBatch) else None
        self._batch_size = self._batch.size if self._batch else batch_size
        global_batch.check_positive_int("batch_size", self._batch_size)
        if (every_n_steps is None) == (every_n_secs is None):
            raise ValueError(
                "Exactly one of `every_n_steps` and `every_n_secs` must be given. Received: "
                f"every_n_steps={every_n_steps!r}, every_n_secs={every_n_secs!r}.")
        if every_n_steps is not None:
            global_batch.check_positive_int("every_n_steps", every_n_steps)
        if every_n_secs is not None and not every_n_secs > 0:
            raise ValueError(
                f"`every_n_secs` must be > 0. Received: every_n_secs={every_n_secs!r}.")
        global_batch.check_non_negative_int("warm_steps", warm_steps)
        self._every_n_steps = every_n_steps
        self._every_n_secs = every_n_secs
        self._warm_steps = warm_steps
        self._output_dir = output_dir
        self._records_path = records_path or (
            default_records_path(output_dir) if output_dir else None)
        self._step_tensor = None
        self._global_step = None
        self._reset_totals()

    def _reset_totals(self):
        # Running totals: a report costs O(1) however long the window or the training.
        self._steps_seen = 0
        self._measured_steps = 0
        self._measured_secs = 0.0
        self._window_steps = 0
        self._window_secs = 0.0

    @classmethod
    def for_config(cls, per_replica_batch_size: int, *, config, strategy=None,
                   **kwargs) -> "ExamplesPerSecondHook":
        """The hook for a RunConfig: global batch from it, `output_dir` its model_dir.

        Args:
            per_replica_batch_size: The batch size the input_fn gives each replica.
            config: The `RunConfig` the Estimator runs with.
            strategy: The distribution strategy the batch spans; None reads it from `config`.
            **kwargs: The constructor's other arguments (every_n_steps, warm_steps, ...).

        Returns:
            An `ExamplesPerSecondHook` over the config's global batch, writing to its
            `model_dir` unless `output_dir` is given.
        """
        batch = make_global_batch(per_replica_batch_size, strategy=strategy, config=config)
        kwargs.setdefault("output_dir", config.model_dir)
        return cls(batch, **kwargs)

    @property
    def batch_size(self) -> int:
        """The global batch the figures count (examples per step over all replicas)."""
        return self._batch_size

    @property
    def measured_steps(self) -> int:
        """Steps after warm-up so far."""
        return self._measured_steps

    def average_examples_per_second(self) -> Optional[float]:
        """Examples/sec over every step after warm-up so far; None before one."""
        if not self.measured_steps:
            return None
        return examples_per_second_over(self._batch_size, steps=self.measured_steps,
                                        seconds=self._measured_secs)

    def begin(self):
        """Resets the times and totals; finds the global-step read."""
        super().begin()
        self._step_tensor = global_step_read_tensor()
        self._global_step = None
        self._reset_totals()

    def before_run(self, run_context):
        """Starts the run's clock and fetches the global step.

        Args:
            run_context: The `SessionRunContext` of the run.

        Returns:
            `SessionRunArgs` fetching the global step (with a steps_per_run loop, the
            step before and after the run), or None without a global step.
        """
        loop_args = super().before_run(run_context)
        if loop_args is not None or self._step_tensor is None:
            return loop_args  # A loop's (step before, step after) holds the step.
        return tf.compat.v1.train.SessionRunArgs(self._step_tensor)

    def after_run(self, run_context, run_values):
        """Counts the run's steps and time after warm-up; reports when a report is due.

        Args:
            run_context: The `SessionRunContext` of the run.
            run_values: The run's `SessionRunValues` (the global step).
        """
        super().after_run(run_context, run_values)
        if self._run_steps is not None:
            self._global_step = int(run_values.results[0])
        else:
            self._global_step = (int(run_values.results) if self._step_tensor is not None
                                 else len(self.wall_times))
        steps = self.steps[-1]
        warm_up = self._steps_seen < self._warm_steps
        self._steps_seen += steps
        if warm_up:
            return
        self._measured_steps += steps
        self._measured_secs += self.wall_times[-1]
        self._window_steps += steps
        self._window_secs += self.wall_times[-1]
        if self._every_n_steps is not None:
            due = self._window_steps >= self._every_n_steps
        else:
            due = self._window_secs >= self._every_n_secs
        if due and self._window_secs > 0:
            self._report()

    def end(self, session):
        """Makes a last report over the steps since the previous one; flushes the summaries.

        Args:
            session: The session about to close (unused).
        """
        if self._window_steps and self._window_secs > 0:
            self._report(final=True)
        if self._output_dir and self.measured_steps:
            flush_scalars(self._output_dir)

    def _report(self, final=False):
        window, window_secs = self._window_steps, self._window_secs
        current = examples_per_second_over(self._batch_size, steps=window, seconds=window_secs)
        average = self.average_examples_per_second()
        self._window_steps, self._window_secs = 0, 0.0
        steps_per_sec = current / self._batch_size
        batch = str(self._batch) if self._batch else str(self._batch_size)
        logging.info(
            "examples/sec: %.6g (average %.6g over %d steps after %d warm-up; %.4g steps/sec, "
            "global batch %s)", current, average, self.measured_steps, self._warm_steps,
            steps_per_sec, batch)
        if self._output_dir:
            write_scalars(self._output_dir, self._global_step,
                          {EXAMPLES_PER_SEC_TAG: current, AVERAGE_EXAMPLES_PER_SEC_TAG: average})
        if self._records_path:
            append_record(self._records_path, {
                "kind": "examples_per_second", "global_step": self._global_step,
                "examples_per_sec": current, "average_examples_per_sec": average,
                "steps_per_sec": steps_per_sec, "window_steps": window,
                "window_secs": window_secs, "measured_steps": self.measured_steps,
                "measured_secs": self._measured_secs,
                "warm_steps": self._warm_steps, "global_batch_size": self._batch_size,
                "per_replica_batch_size": self._batch.per_replica if self._batch else None,
                "replicas": (self._batch.replicas_per_worker * self._batch.workers
                             if self._batch else None),
                "final": final, "wall_time": time.time()})
