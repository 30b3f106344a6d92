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

import dataclasses
import json
import numbers
import os
import time
from typing import Callable, Dict, List, Optional, Sequence, Union

import tensorflow as tf
from tensorflow.python.training import training_util

from estimator_lib.training import steps_loop

logging = tf.compat.v1.logging

Clock = Callable[[], float]

# Where the hooks append their JSON records, inside `output_dir`.
RECORDS_FILENAME = "throughput.jsonl"
EXAMPLES_PER_SEC_TAG = "examples/sec"
AVERAGE_EXAMPLES_PER_SEC_TAG = "examples/sec_average"


# ----------------------------------------------------------------- pure math

def examples_per_second(batch_size: int, step_times: Sequence[float],
                        warm_steps: int = 0, *,
                        steps: Optional[Sequence[int]] = None) -> float:
    """Examples per second over the steps after warm-up.

    Args:
        batch_size: Examples each step consumes, over all replicas and workers.
        step_times: Wall seconds of each step, in order; of each session run
            when `steps` is given.
        warm_steps: Leading steps to leave out (graph optimisation, first input);
            with `steps`, whole runs until at least that many steps are out.
        steps: The steps each entry of `step_times` made, when a run makes
            several (`RunConfig.steps_per_run`); one each when None.

    Returns:
        `batch_size * measured_steps / sum(measured step times)`.

    Raises:
        ValueError: If `batch_size` is not positive, `warm_steps` is negative,
            `steps` and `step_times` differ in length, no step follows the
            warm-up, or the measured steps took no time.
    """
    _check_non_negative_int("warm_steps", warm_steps)
    step_times = list(step_times)
    counts = [1] * len(step_times) if steps is None else [int(n) for n in steps]
    if len(counts) != len(step_times):
        raise ValueError(
            "`steps` must give the steps of each entry of `step_times`. Received: "
            f"{len(counts)} step count(s) for {len(step_times)} time(s).")
    first = warm_seen = 0
    while first < len(counts) and warm_seen < warm_steps:
        warm_seen += counts[first]
        first += 1
    measured = step_times[first:]
    if not measured:
        raise ValueError(
            f"No step follows the {warm_steps} warm-up step(s): measure more steps or lower "
            f"`warm_steps`. Received: {len(step_times)} step time(s).")
    return examples_per_second_over(batch_size, steps=sum(counts[first:]),
                                    seconds=sum(measured))


def examples_per_second_over(batch_size: int, *, steps: int, seconds: float) -> float:
    """`batch_size * steps / seconds`: the same figure from running totals.

    Raises:
        ValueError: If `batch_size` or `steps` is not positive, or `seconds` is not.
    """
    _check_positive_int("batch_size", batch_size)
    _check_positive_int("steps", steps)
    if not seconds > 0:
        raise ValueError(
            f"The measured steps must take time. Received: seconds={float(seconds)} over "
            f"{steps} step(s).")
    return batch_size * steps / float(seconds)


@dataclasses.dataclass(frozen=True)
class GlobalBatch:
    """The examples one training step consumes: per replica x replicas x workers."""

    per_replica: int
    replicas_per_worker: int = 1
    workers: int = 1

    @property
    def size(self) -> int:
        return self.per_replica * self.replicas_per_worker * self.workers

    def __str__(self):
        return (f"{self.size} = {self.per_replica} per replica x {self.replicas_per_worker} "
                f"replica(s) x {self.workers} worker(s)")


def make_global_batch(per_replica_batch_size: int, *, strategy=None,
                      config=None) -> GlobalBatch:
    """The global batch of a step, from the per-replica batch the input_fn makes.

    As with the original Estimator, an input_fn under `train_distribute` batches
    per replica, and each replica of each worker takes its own batch every step.
    `num_replicas_in_sync` already counts every worker's replicas for
    MultiWorkerMirroredStrategy (local devices x workers); it is split here only
    to say so in logs. Without a strategy a step is one batch; in asynchronous
    (parameter-server) training each worker then reports its own examples.

    Args:
        per_replica_batch_size: The batch size the input_fn's dataset uses.
        strategy: The `tf.distribute` strategy training runs under, if any.
        config: A RunConfig; its `train_distribute` is used when `strategy` is None.

    Returns:
        A GlobalBatch; `.size` is what ExamplesPerSecondHook's `batch_size` wants.

    Raises:
        ValueError: If the batch is not a positive int, or `strategy` and
            `config.train_distribute` are two different strategies.
    """
    _check_positive_int("per_replica_batch_size", per_replica_batch_size)
    from_config = getattr(config, "train_distribute", None) if config is not None else None
    if strategy is not None and from_config is not None and strategy is not from_config:
        raise ValueError(
            "`strategy` and `config.train_distribute` name different strategies; pass one. "
            f"Received: strategy={strategy!r}, config.train_distribute={from_config!r}.")
    strategy = strategy if strategy is not None else from_config
    if strategy is None:
        return GlobalBatch(per_replica_batch_size)
    replicas = int(strategy.num_replicas_in_sync)
    local = len(getattr(strategy.extended, "worker_devices", ()) or ()) or replicas
    workers = replicas // local if replicas % local == 0 else 1
    return GlobalBatch(per_replica_batch_size, replicas // workers, workers)


def global_batch_size(per_replica_batch_size: int, *, strategy=None, config=None) -> int:
    """`make_global_batch(...).size`: examples per step over all replicas and workers."""
    return make_global_batch(per_replica_batch_size, strategy=strategy, config=config).size


# ------------------------------------------------------------------- outputs

def default_records_path(output_dir: str) -> str:
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
    """Writes `scalars` at `step` to the event file the Estimator's hooks share."""
    summary = tf.compat.v1.Summary(value=[
        tf.compat.v1.Summary.Value(tag=tag, simple_value=float(value))
        for tag, value in scalars.items()])
    tf.compat.v1.summary.FileWriterCache.get(output_dir).add_summary(summary, step)


def flush_scalars(output_dir: str) -> None:
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
        self.times, self.wall_times, self.steps = [], [], []
        self._start = self._last_end = None
        self._run_steps = run_step_tensors()

    def before_run(self, run_context):
        self._start = self._clock()
        if self._last_end is None:
            self._last_end = self._start
        if self._run_steps is None:
            return None
        return tf.compat.v1.train.SessionRunArgs(self._run_steps)

    def after_run(self, run_context, run_values):
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
    """

    def __init__(self, batch_size: Union[int, GlobalBatch], every_n_steps: Optional[int] = None,
                 every_n_secs: Optional[float] = None, warm_steps: int = 0, *,
                 output_dir: Optional[str] = None, records_path: Optional[str] = None,
                 clock: Clock = time.perf_counter):
        super().__init__(clock=clock)
        self._batch = batch_size if isinstance(batch_size, GlobalBatch) else None
        self._batch_size = self._batch.size if self._batch else batch_size
        _check_positive_int("batch_size", self._batch_size)
        if (every_n_steps is None) == (every_n_secs is None):
            raise ValueError(
                "Exactly one of `every_n_steps` and `every_n_secs` must be given. Received: "
                f"every_n_steps={every_n_steps!r}, every_n_secs={every_n_secs!r}.")
        if every_n_steps is not None:
            _check_positive_int("every_n_steps", every_n_steps)
        if every_n_secs is not None and not every_n_secs > 0:
            raise ValueError(
                f"`every_n_secs` must be > 0. Received: every_n_secs={every_n_secs!r}.")
        _check_non_negative_int("warm_steps", warm_steps)
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
        """The hook for a RunConfig: global batch from it, `output_dir` its model_dir."""
        batch = make_global_batch(per_replica_batch_size, strategy=strategy, config=config)
        kwargs.setdefault("output_dir", config.model_dir)
        return cls(batch, **kwargs)

    @property
    def batch_size(self) -> int:
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
        super().begin()
        self._step_tensor = global_step_read_tensor()
        self._global_step = None
        self._reset_totals()

    def before_run(self, run_context):
        loop_args = super().before_run(run_context)
        if loop_args is not None or self._step_tensor is None:
            return loop_args  # A loop's (step before, step after) holds the step.
        return tf.compat.v1.train.SessionRunArgs(self._step_tensor)

    def after_run(self, run_context, run_values):
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


def _check_positive_int(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
        raise ValueError(f"`{name}` must be a positive int. Received: {name}={value!r}.")


def _check_non_negative_int(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"`{name}` must be an int >= 0. Received: {name}={value!r}.")
