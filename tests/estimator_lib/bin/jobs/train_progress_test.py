"""The train binary's estimate and progress: pure text functions, and the hook on a fake clock."""

import io

import tensorflow as tf
from absl.testing import parameterized

from estimator_lib.bin.jobs import train_progress


class _Values:
    def __init__(self, results):
        self.results = results


class _Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def _drive(hook, clock, steps, secs_per_step, *, first_step_secs=5.0):
    """Runs `steps` one-step runs of the hook (global step read before each run)."""
    for step in range(steps):
        clock.now += first_step_secs if step == 0 else secs_per_step
        hook.after_run(None, _Values(step))


class TextTest(tf.test.TestCase, parameterized.TestCase):

    @parameterized.parameters(
        (95, 0.45, "Estimate: 95 steps left x 0.45 s/step = about 0:43 of training"),
        (1000, 9.2, "Estimate: 1,000 steps left x 9.2 s/step = about 2:33:20 of training"),
        (2, 0.0123, "Estimate: 2 steps left x 0.0123 s/step = about 0:00 of training"),
    )
    def test_estimate_line_is_steps_left_times_seconds_per_step(self, left, secs, start):
        line = train_progress.estimate_line(steps_left=left, secs_per_step=secs)
        self.assertStartsWith(line, start)
        self.assertEndsWith(line, "(evaluation follows).")

    @parameterized.parameters(
        (40, 100, 142.24, 27.0, "step 40/100, 142.2 examples/sec, 0:27 left"),
        (100, 100, 1234.5, 0.0, "step 100/100, 1,234.5 examples/sec, done"),
        (5, 4000, 7.3, 3725.0, "step 5/4,000, 7.3 examples/sec, 1:02:05 left"),
        (5, 10, 7.3, None, "step 5/10, 7.3 examples/sec"),
    )
    def test_progress_line(self, step, last, rate, left, expected):
        self.assertEqual(
            train_progress.progress_line(step=step, last_step=last, examples_per_sec=rate,
                                         secs_left=left), expected)


class HookTest(tf.test.TestCase):

    def _hook(self, *, interactive, last_step=100, batch=64):
        clock, stream = _Clock(), io.StringIO()
        hook = train_progress.TrainProgressHook(last_step=last_step, global_batch_size=batch,
                                                stream=stream, interactive=interactive,
                                                clock=clock)
        return hook, clock, stream

    def test_estimate_after_the_first_timed_steps_leaves_out_the_first_run(self):
        hook, clock, _ = self._hook(interactive=False)
        with self.assertLogs(tf.get_logger(), "INFO") as logs:
            # The first run (5 s, building) is left out; then 0.5 s a step.
            _drive(hook, clock, 1 + train_progress.ESTIMATE_AFTER_STEPS, 0.5)
        self.assertLen(logs.output, 1)
        self.assertIn("Estimate: 96 steps left x 0.5 s/step = about 0:48 of training",
                      logs.output[0])

    def test_no_estimate_before_enough_steps(self):
        hook, clock, stream = self._hook(interactive=True)
        with self.assertNoLogs(tf.get_logger(), "INFO"):
            _drive(hook, clock, train_progress.ESTIMATE_AFTER_STEPS, 0.5)
        self.assertEqual(stream.getvalue(), "")

    def test_log_lines_off_a_terminal_each_tenth_and_not_too_often(self):
        hook, clock, stream = self._hook(interactive=False)
        with self.assertLogs(tf.get_logger(), "INFO") as logs:
            _drive(hook, clock, 100, 1.0)  # 100 s: a tenth each 10 s, a line each 15 s.
        progress = [line for line in logs.output if "Progress: " in line]
        self.assertEqual(stream.getvalue(), "")  # Nothing on the stream: all in the log.
        # The estimate at step 4; then 15 s later, each time in a new tenth.
        self.assertEqual([line.split("Progress: step ")[1].split("/")[0] for line in progress],
                         ["19", "34", "49", "64", "79", "94"])
        self.assertIn("Progress: step 19/100, 64.0 examples/sec, 1:21 left", progress[0])

    def test_one_line_rewritten_on_a_terminal(self):
        hook, clock, stream = self._hook(interactive=True, last_step=10, batch=8)
        _drive(hook, clock, 10, 0.5)
        text = stream.getvalue()
        self.assertStartsWith(text, "\r\x1b[Kstep 4/10, 16.0 examples/sec, 0:03 left\r")
        self.assertEqual(text.count("\n"), 1)
        self.assertEndsWith(text, "\r\x1b[Kstep 10/10, 16.0 examples/sec, done\n")

    def test_a_log_line_clears_the_open_terminal_line_first(self):
        hook, clock, stream = self._hook(interactive=True, last_step=10, batch=8)
        hook.begin()  # Installs the filter (no global step in this graph: runs counted).
        try:
            _drive(hook, clock, 5, 0.5)
            self.assertEndsWith(stream.getvalue(), "0:02 left")
            with self.assertLogs(tf.get_logger(), "INFO"):
                tf.compat.v1.logging.info("a log line")
            self.assertEndsWith(stream.getvalue(), "0:02 left\r\x1b[K")
        finally:
            hook.end(None)
        self.assertNotIn(hook._filter, tf.get_logger().filters)  # pylint: disable=protected-access

    def test_steps_per_run_counts_global_steps(self):
        hook, clock, _ = self._hook(interactive=False, last_step=100, batch=10)
        with self.assertLogs(tf.get_logger(), "INFO") as logs:
            for before in range(0, 40, 10):  # Runs of 10 steps, 2 s each.
                clock.now += 2.0
                hook.after_run(None, _Values((before, before + 10)))
        # The first run (to step 10) is left out; the next makes 10 timed steps.
        self.assertIn("Estimate: 80 steps left x 0.2 s/step = about 0:16", logs.output[0])


if __name__ == "__main__":
    tf.test.main()
