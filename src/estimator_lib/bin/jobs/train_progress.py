"""The train binary's estimate of a run's length, and its progress as the run goes.

After the first timed steps (the first run is left out: it builds and warms up)
it logs once `Estimate: 95 steps left x 0.45 s/step = about 0:43 of training`.
Then it shows `step 40/100, 142.2 examples/sec, 0:27 left`: on a terminal as
one line rewritten in place on stderr (a log line that comes meanwhile clears
it first), otherwise as a log line every tenth of the run, at most one per
`LOG_EVERY_SECS`. The text is made by pure functions from plain numbers; the
hook reads times from an injectable `clock`.
"""

import logging as std_logging
import sys
import time
from typing import Callable, Optional, TextIO

import tensorflow as tf

from estimator_lib.bin.jobs import progress
from estimator_lib.hooks import throughput

logging = tf.compat.v1.logging

Clock = Callable[[], float]

# Timed steps (after the first run) the estimate is made from.
ESTIMATE_AFTER_STEPS = 3
# Off a terminal: at most one progress line this often.
LOG_EVERY_SECS = 15.0
# On a terminal: the line is rewritten at most this often.
REDRAW_EVERY_SECS = 0.25


def estimate_line(*, steps_left: int, secs_per_step: float) -> str:
    """Returns `Estimate: 95 steps left x 0.45 s/step = about 0:43 of training`."""
    return (f"Estimate: {steps_left:,} steps left x {secs_per_step:.3g} s/step = about "
            f"{progress.duration(steps_left * secs_per_step)} of training "
            "(evaluation follows).")


def progress_line(*, step: int, last_step: int, examples_per_sec: float,
                  secs_left: Optional[float]) -> str:
    """Returns `step 40/100, 142.2 examples/sec, 0:27 left` (`, done` at the last step).

    Args:
        step: The current global step.
        last_step: The step training stops at.
        examples_per_sec: The current throughput.
        secs_left: The estimated seconds left, or None.

    Returns:
        The line.

    Examples:
        >>> progress_line(step=40, last_step=100, examples_per_sec=142.2, secs_left=27)
        'step 40/100, 142.2 examples/sec, 0:27 left'
    """
    tail = ("done" if step >= last_step else
            f"{progress.duration(secs_left)} left" if secs_left is not None else "")
    return (f"step {step:,}/{last_step:,}, {examples_per_sec:,.1f} examples/sec"
            f"{', ' + tail if tail else ''}")


class _ClearLine(std_logging.Filter):
    """Ends the progress line on the terminal before a log line is written."""

    def __init__(self, display: "TrainProgressHook"):
        super().__init__()
        self._display = display

    def filter(self, record) -> bool:
        self._display.clear_line()
        return True


class TrainProgressHook(tf.compat.v1.train.SessionRunHook):
    """Logs the estimate after the first steps, then the step, examples/sec and time left.

    Args:
        last_step: The global step the run trains to (max_steps).
        global_batch_size: Examples a step consumes over all replicas.
        stream: Where the terminal line goes (stderr).
        interactive: Rewrite one line (default: whether `stream` is a terminal).
        clock: Seconds, monotonic.
    """

    def __init__(self, *, last_step: int, global_batch_size: int,
                 stream: Optional[TextIO] = None, interactive: Optional[bool] = None,
                 clock: Clock = time.monotonic):
        self._last_step = last_step
        self._batch = global_batch_size
        self._stream = stream or sys.stderr
        self._interactive = (interactive if interactive is not None
                             else getattr(self._stream, "isatty", lambda: False)())
        self._clock = clock
        self._filter = _ClearLine(self)
        self._tensors = None
        self._reset()

    def _reset(self):
        self._start = self._start_step = None
        self._step = None
        self._estimated = False
        self._shown_at = None
        self._tenth = None
        self._open_line = False

    def begin(self):
        """Finds the step tensors; on a terminal, keeps log lines off the progress line."""
        self._reset()
        self._tensors = throughput.run_step_tensors() or throughput.global_step_read_tensor()
        if self._interactive:
            tf.get_logger().addFilter(self._filter)

    def before_run(self, run_context):
        """Fetches the global step with the run.

        Args:
            run_context: The `SessionRunContext` of the run.

        Returns:
            `SessionRunArgs` fetching the global step (before and after a steps_per_run
            loop's run), or None without a global step.
        """
        if self._tensors is None:
            return None
        return tf.compat.v1.train.SessionRunArgs(self._tensors)

    def after_run(self, run_context, run_values):
        """Updates the step; logs the estimate once, then shows the progress when due.

        Timing starts at the end of the first run, which builds and warms up.

        Args:
            run_context: The `SessionRunContext` of the run.
            run_values: The run's `SessionRunValues` (the global step).
        """
        results = run_values.results
        if results is None:  # No global step: count the runs.
            step = (self._step or 0) + 1
        elif isinstance(results, (list, tuple)):  # (before, after) a steps_per_run loop.
            step = int(results[1])
        else:  # The step read before this run; the run made one more.
            step = int(results) + 1
        self._step = step
        now = self._clock()
        if self._start is None:  # The first run builds and warms up: time from its end.
            self._start, self._start_step = now, step
            return
        timed = step - self._start_step
        elapsed = now - self._start
        if timed <= 0 or elapsed <= 0:
            return
        secs_per_step = elapsed / timed
        left = max(0, self._last_step - step)
        if not self._estimated and timed >= ESTIMATE_AFTER_STEPS:
            self._estimated = True
            if left:
                logging.info(estimate_line(steps_left=left, secs_per_step=secs_per_step))
            if not self._interactive:  # The estimate said it: the next line comes later.
                self._shown_at, self._tenth = now, 10 * step // max(1, self._last_step)
                return
        if self._estimated:
            self._show(now, step, self._batch * timed / elapsed, left * secs_per_step)

    def _show(self, now: float, step: int, rate: float, secs_left: float) -> None:
        text = progress_line(step=step, last_step=self._last_step, examples_per_sec=rate,
                             secs_left=secs_left)
        done = step >= self._last_step
        if self._interactive:
            if done or self._shown_at is None or now - self._shown_at >= REDRAW_EVERY_SECS:
                self._shown_at = now
                self._stream.write("\r\x1b[K" + text + ("\n" if done else ""))
                self._stream.flush()
                self._open_line = not done
            return
        tenth = 10 * step // max(1, self._last_step)
        if tenth == self._tenth or done:
            return
        if self._shown_at is not None and now - self._shown_at < LOG_EVERY_SECS:
            return
        self._tenth, self._shown_at = tenth, now
        logging.info("Progress: %s", text)

    def clear_line(self) -> None:
        """Ends an open terminal line, so that what is written next starts clean."""
        if self._open_line:
            self._open_line = False
            self._stream.write("\r\x1b[K")
            self._stream.flush()

    def end(self, session):
        """Ends an open progress line and removes the log filter.

        Args:
            session: The session about to close (unused).
        """
        self.clear_line()
        tf.get_logger().removeFilter(self._filter)
