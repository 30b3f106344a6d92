"""SIGTERM/SIGINT during train(): the step ends, a checkpoint is written, the lock released."""

import os
import signal
import tempfile
import threading

import tensorflow as tf

import estimator_lib as el
from estimator_lib.graph import restore
from estimator_lib.training import model_dir_lock
from estimator_lib.training import preemption
from tests.estimator_lib import testing


class _SignalAtStep(tf.compat.v1.train.SessionRunHook):
    """Sends this process `signum` `times` times after local step `at`."""

    def __init__(self, signum, at, times=1):
        self.signum, self.at, self.times, self.steps = signum, at, times, 0

    def after_run(self, run_context, run_values):
        self.steps += 1
        if self.steps == self.at:
            for _ in range(self.times):
                os.kill(os.getpid(), self.signum)


class PreemptionTest(tf.test.TestCase):

    def _estimator(self):
        return el.Estimator(testing.linear_model_fn, config=el.RunConfig(
            model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()), save_checkpoints_steps=1000,
            log_step_count_steps=None))

    def test_sigterm_checkpoints_the_step_releases_the_lock_and_exits_143(self):
        estimator = self._estimator()
        before = {s: signal.getsignal(s) for s in preemption.SIGNALS}
        with self.assertRaises(preemption.Preempted) as stopped:
            estimator.train(testing.train_input_fn(), max_steps=100,
                            hooks=[_SignalAtStep(signal.SIGTERM, at=3)])
        self.assertEqual(stopped.exception.code, 143)
        self.assertEqual(stopped.exception.step, 3)
        self.assertIn("Training stopped by SIGTERM: checkpoint at step 3 written", str(
            stopped.exception))
        self.assertEqual(restore.global_step_of(estimator.model_dir), 3)
        self.assertFalse(os.path.exists(
            os.path.join(estimator.model_dir, model_dir_lock.LOCK_NAME)))
        self.assertEqual({s: signal.getsignal(s) for s in preemption.SIGNALS}, before)
        estimator.train(testing.train_input_fn(), max_steps=5)  # Resumes from step 3.
        self.assertEqual(restore.global_step_of(estimator.model_dir), 5)

    def test_sigint_exits_130(self):
        with self.assertRaises(preemption.Preempted) as stopped:
            self._estimator().train(testing.train_input_fn(), max_steps=100,
                                    hooks=[_SignalAtStep(signal.SIGINT, at=1)])
        self.assertEqual(stopped.exception.code, 130)

    def test_sigint_is_still_a_keyboard_interrupt_after_the_checkpoint(self):
        # A legacy program catching Ctrl-C around train(), as the original raised it.
        estimator = self._estimator()
        with self.assertRaises(KeyboardInterrupt) as stopped:
            estimator.train(testing.train_input_fn(), max_steps=100,
                            hooks=[_SignalAtStep(signal.SIGINT, at=2)])
        self.assertIsInstance(stopped.exception, preemption.Interrupted)
        self.assertEqual(checkpoints.global_step_of(estimator.model_dir), 2)
        self.assertNotIsInstance(preemption.Preempted(signal.SIGTERM, 1, "d"),
                                 KeyboardInterrupt)

    def test_a_second_sigint_stops_at_once(self):
        estimator = self._estimator()
        with self.assertRaises(KeyboardInterrupt):  # Python's own SIGINT handler.
            estimator.train(testing.train_input_fn(), max_steps=100,
                            hooks=[_SignalAtStep(signal.SIGINT, at=1, times=2)])
        self.assertFalse(os.path.exists(
            os.path.join(estimator.model_dir, model_dir_lock.LOCK_NAME)))

    def test_no_handlers_outside_the_main_thread(self):
        result = {}

        def train():
            with preemption.stop_on_signals() as request:
                result["handler"] = signal.getsignal(signal.SIGTERM)
                result["requested"] = request.requested
        thread = threading.Thread(target=train)
        thread.start()
        thread.join()
        self.assertEqual(result, {"handler": signal.getsignal(signal.SIGTERM),
                                  "requested": False})


if __name__ == "__main__":
    tf.test.main()
