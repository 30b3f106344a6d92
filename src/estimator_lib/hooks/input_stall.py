"""InputStallHook: how much of a step waits for the input pipeline ("GPU starvation").

Design. The hook changes neither the graph nor the dataset: the Estimator has
built both before hooks begin. Instead, one step in `every_n_steps` (after
warm-up) runs with `RunOptions(trace_level=SOFTWARE_TRACE)`, and the step
stats the runtime returns say when each input op ran. The input ops are the
ones that hand a batch to the model: `IteratorGetNext` (one per replica under
MirroredStrategy), `MultiDeviceIteratorGetNextFromShard`, and queue dequeues
for queue-runner inputs. Such an op blocks until its batch is ready, so its
duration is the time that replica waited for input; the union of those
intervals over all replicas is the step's input wait. The step's time is the
wall time of the session.run (the hook's `before_run` to `after_run`), and

    input-stall fraction = input wait / step time
    compute = step time - input wait (the model, all-reduce, session overhead).

A fraction at or above `threshold` reads "input-bound", below it "compute-bound".
With a prefetching pipeline that keeps up, get_next returns a ready batch in
microseconds; a pipeline slower than the model shows up as the wait.

Cost: steps that are not sampled run exactly as without the hook (no fetch,
no RunOptions; the hook counts the step, 0.2 us). A sampled step pays for the
trace, about as much again as an untraced step of a one-layer model; at the
default one step in 100 that models to x1.01 on that worst case, and A/B runs
show no slowdown beyond their noise (bench/hook_overhead.py, docs/throughput.md).
The trace adds per-op bookkeeping to the sampled step's compute, so the
fraction errs, slightly, towards compute-bound. While a profiler session runs
(ProfileStepsHook) a trace would fail the step, so sampling waits for the
next step after it.

Why not time get_next inside the graph: the graph is built and finalized by
the Estimator before any hook sees it, and `tf.timestamp` ops around get_next
would need control edges into every replica's model; step stats give the
same intervals without touching what the user built.

Every sample is logged at INFO in one line, written as the scalar
`input_stall/fraction` to `output_dir` and appended to the JSON-lines records.
"""

import time
from typing import Dict, Iterable, Optional, Sequence, Tuple

import tensorflow as tf

from estimator_lib.hooks import profiler
from estimator_lib.hooks import throughput

logging = tf.compat.v1.logging

INPUT_BOUND = "input-bound"
COMPUTE_BOUND = "compute-bound"
STALL_FRACTION_TAG = "input_stall/fraction"

# Ops that block a step until the next input batch is ready.
INPUT_OP_TYPES = frozenset([
    "IteratorGetNext", "IteratorGetNextSync", "IteratorGetNextAsOptional",
    "MultiDeviceIteratorGetNextFromShard",
    "QueueDequeue", "QueueDequeueV2", "QueueDequeueMany", "QueueDequeueManyV2",
    "QueueDequeueUpTo", "QueueDequeueUpToV2",
])


# ----------------------------------------------------------------- pure math

def union_seconds(intervals: Iterable[Tuple[float, float]]) -> float:
    """Total length covered by (start, end) intervals, overlaps counted once."""
    total, covered_to = 0.0, None
    for start, end in sorted(intervals):
        if covered_to is None or start > covered_to:
            total += end - start
            covered_to = end
        elif end > covered_to:
            total += end - covered_to
            covered_to = end
    return total


def input_op_intervals(step_stats, input_op_names: Iterable[str]
                       ) -> Sequence[Tuple[float, float]]:
    """(start, end) seconds of every input op in a run's `StepStats`."""
    names = frozenset(input_op_names)
    intervals = []
    for device in step_stats.dev_stats:
        for node in device.node_stats:
            if node.node_name.split(":")[0] in names:
                start = node.all_start_micros / 1e6
                intervals.append((start, start + node.all_end_rel_micros / 1e6))
    return intervals


def input_wait_seconds(step_stats, input_op_names: Iterable[str]) -> float:
    """Seconds of the run during which some replica waited for its input batch."""
    return union_seconds(input_op_intervals(step_stats, input_op_names))


def stall_fraction(input_wait_secs: float, step_secs: float) -> float:
    """Input wait over step time, within [0, 1].

    Raises:
        ValueError: If `step_secs` is not positive or `input_wait_secs` negative.
    """
    if not step_secs > 0:
        raise ValueError(f"`step_secs` must be > 0. Received: step_secs={step_secs!r}.")
    if input_wait_secs < 0:
        raise ValueError(
            f"`input_wait_secs` must be >= 0. Received: input_wait_secs={input_wait_secs!r}.")
    return min(1.0, input_wait_secs / step_secs)


def verdict(fraction: float, *, threshold: float = 0.5) -> str:
    """INPUT_BOUND when `fraction` >= `threshold`, else COMPUTE_BOUND."""
    return INPUT_BOUND if fraction >= threshold else COMPUTE_BOUND


# ---------------------------------------------------------------------- hook

class InputStallHook(tf.compat.v1.train.SessionRunHook):
    """Samples steps to separate input wait from compute; says input- or compute-bound.

    Attributes:
        samples: (global_step, step_secs, input_wait_secs) of every sampled step.
    """

    def __init__(self, *, every_n_steps: int = 100, warm_steps: int = 1,
                 threshold: float = 0.5, output_dir: Optional[str] = None,
                 records_path: Optional[str] = None, clock=time.perf_counter):
        """Builds the hook.

        Args:
            every_n_steps: Trace one step in this many (1 traces every step).
            warm_steps: Leading steps of the session never sampled.
            threshold: Input-stall fraction from which training reads input-bound.
            output_dir: Where `input_stall/fraction` is written (the model_dir);
                None logs only.
            records_path: JSON-lines file for the records; defaults to
                `output_dir/throughput.jsonl`.
            clock: Seconds, for the step's wall time; tests inject a fake one.

        Raises:
            ValueError: If `every_n_steps` < 1, `warm_steps` < 0 or `threshold`
                is outside (0, 1].
        """
        if isinstance(every_n_steps, bool) or not isinstance(every_n_steps, int) \
                or every_n_steps < 1:
            raise ValueError(
                f"`every_n_steps` must be an int >= 1. Received: every_n_steps={every_n_steps!r}.")
        if isinstance(warm_steps, bool) or not isinstance(warm_steps, int) or warm_steps < 0:
            raise ValueError(
                f"`warm_steps` must be an int >= 0. Received: warm_steps={warm_steps!r}.")
        if not 0 < threshold <= 1:
            raise ValueError(
                f"`threshold` must be a fraction in (0, 1], e.g. 0.5. Received: "
                f"threshold={threshold!r}.")
        self._every_n_steps = every_n_steps
        self._warm_steps = warm_steps
        self._threshold = threshold
        self._output_dir = output_dir
        self._records_path = records_path or (
            throughput.default_records_path(output_dir) if output_dir else None)
        self._clock = clock
        self._input_ops = ()
        self._step_tensor = None
        self._run_index = 0
        self._due = False
        self._sampling = False
        self._start = None
        self.samples = []

    @property
    def input_ops(self) -> Tuple[str, ...]:
        """Names of the ops whose wait is measured (found in `begin`)."""
        return self._input_ops

    def fraction(self) -> Optional[float]:
        """Input wait over step time, summed over every sample; None before one."""
        step = sum(s[1] for s in self.samples)
        if not step:
            return None
        return stall_fraction(sum(s[2] for s in self.samples), step)

    def verdict(self) -> Optional[str]:
        """INPUT_BOUND or COMPUTE_BOUND over the samples so far; None before any."""
        fraction = self.fraction()
        return None if fraction is None else verdict(fraction, threshold=self._threshold)

    def begin(self):
        """Finds the graph's input ops and the global-step read; clears the samples.

        Logs a warning, and measures nothing, when the graph has no input op
        (`INPUT_OP_TYPES`).
        """
        graph = tf.compat.v1.get_default_graph()
        self._input_ops = tuple(op.name for op in graph.get_operations()
                                if op.type in INPUT_OP_TYPES)
        if not self._input_ops:
            logging.warning("InputStallHook found no input op (%s) in the graph; input "
                            "stall is not measured.", ", ".join(sorted(INPUT_OP_TYPES)[:2]))
        self._step_tensor = throughput.global_step_read_tensor()
        self._run_index = 0
        self._due = False
        self.samples = []

    def before_run(self, run_context):
        """Asks for a software trace of the run when a sample is due.

        A sample is due every `every_n_steps` runs after the first `warm_steps`; a due
        sample waits while a profiler session is active (the trace would meet it).

        Args:
            run_context: The `SessionRunContext` of the run.

        Returns:
            `SessionRunArgs` fetching the global step with a trace requested, or None
            when this run is not sampled.
        """
        index, self._run_index = self._run_index, self._run_index + 1
        if index >= self._warm_steps and (index - self._warm_steps) % self._every_n_steps == 0:
            self._due = True
        self._sampling = bool(self._due and self._input_ops and not profiler.profiler_active())
        if not self._sampling:
            return None
        self._due = False
        self._start = self._clock()
        return tf.compat.v1.train.SessionRunArgs(
            self._step_tensor,
            options=tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.SOFTWARE_TRACE))

    def after_run(self, run_context, run_values):
        """Records a sampled run: its time, and the time its input ops spent waiting.

        Args:
            run_context: The `SessionRunContext` of the run.
            run_values: The run's `SessionRunValues` (the global step and the trace).
        """
        if not self._sampling:
            return
        step_secs = self._clock() - self._start
        wait = input_wait_seconds(run_values.run_metadata.step_stats, self._input_ops)
        step = int(run_values.results) if self._step_tensor is not None else self._run_index - 1
        self.record_sample(global_step=step, step_secs=step_secs, input_wait_secs=wait)

    def record_sample(self, *, global_step: int, step_secs: float,
                      input_wait_secs: float) -> Dict:
        """Adds one sampled step and reports it three ways; returns its record.

        Args:
            global_step: The sampled step.
            step_secs: How long the step took, in seconds.
            input_wait_secs: How long of it was spent waiting for input.

        Returns:
            The step's record (a dict).
        """
        fraction = stall_fraction(input_wait_secs, step_secs)
        self.samples.append((global_step, step_secs, input_wait_secs))
        average = self.fraction()
        record = {
            "kind": "input_stall", "global_step": global_step, "step_secs": step_secs,
            "input_wait_secs": input_wait_secs, "compute_secs": step_secs - input_wait_secs,
            "fraction": fraction, "average_fraction": average, "samples": len(self.samples),
            "threshold": self._threshold, "verdict": verdict(average, threshold=self._threshold),
            "wall_time": time.time()}
        logging.info(
            "Input stall at step %d: %.1f%% of the step waiting for input (%.3g ms of %.3g ms); "
            "%.1f%% over %d sampled step(s): %s.", global_step, 100 * fraction,
            1e3 * input_wait_secs, 1e3 * step_secs, 100 * average, len(self.samples),
            record["verdict"])
        if self._output_dir:
            throughput.write_scalars(self._output_dir, global_step,
                                     {STALL_FRACTION_TAG: fraction})
        if self._records_path:
            throughput.append_record(self._records_path, record)
        return record

    def end(self, session):
        """Logs the stall fraction over every sample, and flushes the summaries.

        Args:
            session: The session about to close (unused).
        """
        if not self.samples:
            return
        logging.info("Input stall over %d sampled step(s): %.1f%% of step time waiting for "
                     "input: %s (threshold %.0f%%).", len(self.samples), 100 * self.fraction(),
                     self.verdict(), 100 * self._threshold)
        if self._output_dir:
            throughput.flush_scalars(self._output_dir)
