"""SIGTERM/SIGINT during train(): the step ends, a checkpoint is written, the lock
released; then the signal does what it did without us (KeyboardInterrupt, the
program's own handler, or the default exit)."""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
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


# A process started in the foreground has Python's own SIGINT handler; one started as a
# background job of a non-interactive shell (`cmd &` in a script, as some CI runners and
# `nohup` wrappers start pytest) inherits SIGINT ignored, which train() leaves ignored
# (test_an_ignored_signal_stays_ignored). The tests below are about Python's handler, so
# they set it themselves rather than depend on how pytest was started.
_FOREGROUND_SIGINT = "signal.signal(signal.SIGINT, signal.default_int_handler)"


class PreemptionTest(tf.test.TestCase):

    def setUp(self):
        super().setUp()
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        self.addCleanup(signal.signal, signal.SIGINT, previous)

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

    def test_sigint_raises_keyboard_interrupt_after_the_checkpoint(self):
        estimator = self._estimator()
        before = {s: signal.getsignal(s) for s in preemption.SIGNALS}
        with self.assertRaises(KeyboardInterrupt) as stopped:
            estimator.train(testing.train_input_fn(), max_steps=100,
                            hooks=[_SignalAtStep(signal.SIGINT, at=2)])
        self.assertIsInstance(stopped.exception, preemption.Interrupted)
        self.assertEqual(str(stopped.exception), "Training stopped by SIGINT: checkpoint at "
                         f"step 2 written in {estimator.model_dir}, model_dir lock released.")
        self.assertEqual(restore.global_step_of(estimator.model_dir), 2)
        self.assertEqual({s: signal.getsignal(s) for s in preemption.SIGNALS}, before)

    def test_sigint_set_to_the_default_action_exits_130(self):
        previous = signal.signal(signal.SIGINT, signal.SIG_DFL)
        try:
            with self.assertRaises(preemption.Preempted) as stopped:
                self._estimator().train(testing.train_input_fn(), max_steps=100,
                                        hooks=[_SignalAtStep(signal.SIGINT, at=1)])
            self.assertIs(signal.getsignal(signal.SIGINT), signal.SIG_DFL)
        finally:
            signal.signal(signal.SIGINT, previous)
        self.assertEqual(stopped.exception.code, 130)

    def test_an_ignored_signal_stays_ignored(self):
        estimator = self._estimator()
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            estimator.train(testing.train_input_fn(), max_steps=4,
                            hooks=[_SignalAtStep(signal.SIGINT, at=1)])
            self.assertIs(signal.getsignal(signal.SIGINT), signal.SIG_IGN)
        finally:
            signal.signal(signal.SIGINT, previous)
        self.assertEqual(restore.global_step_of(estimator.model_dir), 4)

    def test_handlers_are_restored_when_train_raises(self):
        class _Fails(tf.compat.v1.train.SessionRunHook):
            def after_run(self, run_context, run_values):
                raise RuntimeError("hook failed")

        before = {s: signal.getsignal(s) for s in preemption.SIGNALS}
        with self.assertRaisesRegex(RuntimeError, "hook failed"):
            self._estimator().train(testing.train_input_fn(), max_steps=3, hooks=[_Fails()])
        self.assertEqual({s: signal.getsignal(s) for s in preemption.SIGNALS}, before)

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

    def test_train_on_another_thread_runs_without_handlers(self):
        estimator = self._estimator()
        before = {s: signal.getsignal(s) for s in preemption.SIGNALS}
        seen, errors = [], []

        class _ReadsHandlers(tf.compat.v1.train.SessionRunHook):
            def after_run(self, run_context, run_values):
                seen.append({s: signal.getsignal(s) for s in preemption.SIGNALS})

        def train():
            try:
                estimator.train(testing.train_input_fn(), max_steps=2, hooks=[_ReadsHandlers()])
            except Exception as e:  # pylint: disable=broad-except  (reported below)
                errors.append(e)
        thread = threading.Thread(target=train)
        thread.start()
        thread.join()
        self.assertEqual(errors, [])
        self.assertEqual(seen, [before, before])
        self.assertEqual(restore.global_step_of(estimator.model_dir), 2)


_PROGRAM = textwrap.dedent(f"""
    import os, signal, sys
    {_FOREGROUND_SIGINT}
    import estimator_lib as el
    from estimator_lib.graph import restore
    from tests.estimator_lib import testing
    import tensorflow as tf

    class SignalAtStep(tf.compat.v1.train.SessionRunHook):
        def __init__(self, signum):
            self.signum, self.steps = signum, 0

        def after_run(self, run_context, run_values):
            self.steps += 1
            if self.steps == 3:
                os.kill(os.getpid(), self.signum)

    def train(model_dir, signum):
        estimator = el.Estimator(testing.linear_model_fn, config=el.RunConfig(
            model_dir=model_dir, save_checkpoints_steps=1000, log_step_count_steps=None))
        estimator.train(testing.train_input_fn(), max_steps=100, hooks=[SignalAtStep(signum)])

    root = sys.argv[1]
    # 1. A script that catches KeyboardInterrupt around train().
    try:
        train(os.path.join(root, "sigint"), signal.SIGINT)
    except KeyboardInterrupt as e:
        print("caught KeyboardInterrupt:", e)
    print("SIGINT handler restored", signal.getsignal(signal.SIGINT) is signal.default_int_handler)

    # 2. Its own SIGTERM handler, which returns.
    calls = []
    def on_sigterm(signum, frame):
        calls.append(restore.global_step_of(os.path.join(root, "returns")))
    signal.signal(signal.SIGTERM, on_sigterm)
    train(os.path.join(root, "returns"), signal.SIGTERM)
    print("train returned; handler calls", calls)
    print("SIGTERM handler restored", signal.getsignal(signal.SIGTERM) is on_sigterm)

    # 3. Its own SIGTERM handler, which exits.
    def exit_on_sigterm(signum, frame):
        print("handler called with", signal.Signals(signum).name, "after checkpoint step",
              restore.global_step_of(os.path.join(root, "exits")))
        sys.stdout.flush()
        sys.exit(7)
    signal.signal(signal.SIGTERM, exit_on_sigterm)
    train(os.path.join(root, "exits"), signal.SIGTERM)
    print("not reached")
""")


class SignalProgramTest(tf.test.TestCase):
    """A program in its own process (what it sees is what a user's script sees)."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.root = tempfile.mkdtemp()
        repository = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__)))))
        cls.result = subprocess.run(
            [sys.executable, "-c", _PROGRAM, cls.root], cwd=repository,
            env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"), capture_output=True, text=True,
            timeout=300, check=False)
        cls.lines = cls.result.stdout.splitlines()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.root, ignore_errors=True)
        super().tearDownClass()

    def test_a_script_catches_keyboard_interrupt_after_the_checkpoint(self):
        model_dir = os.path.join(self.root, "sigint")
        self.assertEqual(self.lines[:2], [
            "caught KeyboardInterrupt: Training stopped by SIGINT: checkpoint at step 3 "
            f"written in {model_dir}, model_dir lock released.",
            "SIGINT handler restored True"], self.result.stderr[-3000:])
        self.assertEqual(restore.global_step_of(model_dir), 3)

    def test_when_the_programs_handler_returns_train_returns(self):
        self.assertEqual(self.lines[2:4], ["train returned; handler calls [3]",
                                           "SIGTERM handler restored True"],
                         self.result.stderr[-3000:])

    def test_the_programs_sigterm_handler_is_called_after_the_checkpoint(self):
        model_dir = os.path.join(self.root, "exits")
        self.assertEqual(self.result.returncode, 7, self.result.stderr[-3000:])
        self.assertEqual(self.lines[4:], ["handler called with SIGTERM after checkpoint step 3"])
        self.assertEqual(restore.global_step_of(model_dir), 3)
        self.assertFalse(os.path.exists(os.path.join(model_dir, model_dir_lock.LOCK_NAME)))


if __name__ == "__main__":
    tf.test.main()
