"""`python -m estimator_lib.run prog.py` ends a program as the binaries end theirs (#37).

- SIGTERM during training: the checkpoint, then bin.train's last line, exit 143;
- a user error of estimator_lib's (a model_dir in use): one line, exit 1, the
  traceback only with --verbosity=1 among the program's arguments;
- an exception of the program's own keeps its traceback.
Each program runs in its own process, as a user runs it.
"""

import json
import os
import socket
import subprocess
import sys
import tempfile
import textwrap

import pytest
import tensorflow as tf

from estimator_lib.training import model_dir_lock

pytestmark = pytest.mark.timeout(600)

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))

_TRAIN = textwrap.dedent("""\
    import os
    import signal
    import sys

    import tensorflow as tf


    def model_fn(features, labels, mode):
        w = tf.compat.v1.get_variable("w", [], initializer=tf.compat.v1.zeros_initializer())
        loss = tf.reduce_mean(tf.square(features["x"] * w - labels))
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


    def input_fn():
        return tf.data.Dataset.from_tensors(({"x": [1.0]}, [1.0])).repeat()


    class TerminateAtThirdStep(tf.estimator.SessionRunHook):
        steps = 0

        def after_run(self, run_context, run_values):
            self.steps += 1
            if self.steps == 3:  # As a scheduler pre-empting the job would.
                os.kill(os.getpid(), signal.SIGTERM)


    hooks = [TerminateAtThirdStep()] if "--terminate" in sys.argv else []
    tf.estimator.Estimator(model_fn, model_dir=sys.argv[1]).train(
        input_fn, max_steps=1000000 if hooks else 2, hooks=hooks)
    if "--own_error" in sys.argv:
        raise ValueError("the program's own mistake")
    print("trained")
    """)


def _start(program, *args, cwd):
    env = {key: value for key, value in os.environ.items()
           if key not in ("TF_USE_LEGACY_KERAS", "TF_CONFIG", "TF_CPP_MIN_LOG_LEVEL")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [_REPO, env.get("PYTHONPATH")]))
    return subprocess.Popen([sys.executable, "-m", "estimator_lib.run", program, *args],
                            cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


class RunnerOutcomesTest(tf.test.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.tmp = tmp = tempfile.mkdtemp()
        program = os.path.join(tmp, "prog.py")
        with open(program, "w") as f:
            f.write(_TRAIN)
        cls.locked = os.path.join(tmp, "locked")
        os.makedirs(cls.locked)
        with open(os.path.join(cls.locked, model_dir_lock.LOCK_NAME), "w") as f:
            json.dump({"pid": os.getpid(), "host": socket.gethostname(), "started": 0}, f)
        cls.terminated = os.path.join(tmp, "terminated")
        cases = {
            "sigterm": (cls.terminated, "--terminate"),
            "in_use": (cls.locked,),
            "in_use_verbose": (cls.locked, "--verbosity=1"),
            "own_error": (os.path.join(tmp, "own"), "--own_error"),
        }
        started = {key: _start(program, *args, cwd=tmp) for key, args in cases.items()}
        cls.results = {}
        for key, process in started.items():
            out, err = process.communicate(timeout=540)
            cls.results[key] = (process.returncode, out, err)

    def test_sigterm_ends_with_the_line_bin_train_prints(self):
        code, out, err = self.results["sigterm"]
        self.assertEqual(code, 143, err[-3000:])
        step = int(tf.train.latest_checkpoint(self.terminated).rsplit("-", 1)[-1])
        self.assertGreaterEqual(step, 3)
        self.assertEqual(
            err.strip().splitlines()[-1],
            f"estimator_lib.run: Training stopped by SIGTERM: checkpoint at step {step} "
            f"written in {self.terminated}, model_dir lock released; exiting with status 143.")
        self.assertNotIn("Traceback", err)
        self.assertNotIn("trained", out)

    def test_a_model_dir_in_use_is_one_line_and_exit_1(self):
        code, _, err = self.results["in_use"]
        self.assertEqual(code, 1, err[-3000:])
        self.assertNotIn("Traceback", err)
        last = err.strip().splitlines()[-1]
        self.assertRegex(last, rf"^estimator_lib.run: error: model_dir {self.locked} is in use "
                               rf"by another training \(pid {os.getpid()} on .*\(--verbosity=1 "
                               r"shows the traceback\)$")
        self.assertLen([line for line in err.splitlines() if ": error: " in line], 1)

    def test_verbosity_1_shows_the_traceback_too(self):
        code, _, err = self.results["in_use_verbose"]
        self.assertEqual(code, 1, err[-3000:])
        self.assertIn("Traceback", err)
        self.assertIn("ModelDirInUseError", err)
        self.assertEqual(err.strip().splitlines()[-1],
                         self.results["in_use"][2].strip().splitlines()[-1])

    def test_the_programs_own_exception_keeps_its_traceback(self):
        code, _, err = self.results["own_error"]
        self.assertEqual(code, 1, err[-3000:])
        self.assertIn("Traceback", err)
        self.assertEqual(err.strip().splitlines()[-1],
                         "ValueError: the program's own mistake")


if __name__ == "__main__":
    tf.test.main()
