"""A task whose peers never start fails within ESTIMATOR_LIB_CLUSTER_WAIT_SECS, naming them.

The process tests start real tasks on 127.0.0.1; every process is killed with
SIGKILL if a test runs out of time.
"""

import json
import os
import subprocess
import sys
import tempfile
import time

from absl.testing import parameterized
import pytest
import tensorflow as tf
from tensorflow.python.distribute import collective_all_reduce_strategy

import estimator_lib as el
from estimator_lib.core import environment
from estimator_lib.distribute import cluster_wait
from tests.estimator_lib.distribute.multi_worker import program
from tests.estimator_lib.distribute.multi_worker.launch import free_port
from tests.estimator_lib.distribute.multi_worker.launch import launch
from tests.estimator_lib.distribute.multi_worker.launch import wait_all

_VARIABLE = cluster_wait.WAIT_SECS_VARIABLE
_WAIT_SECS = 3
_DEADLINE_SECS = 120  # Generous: the tasks share a loaded CPU. A pass takes seconds.


def _log(out_dir, name):
    with open(os.path.join(out_dir, name + ".log")) as f:
        return f.read()


def _run_watchdog(secs, cluster, *, then):
    """Runs the watchdog under a throw-away parent, which runs the code `then` after starting it."""
    script = ("import subprocess, sys, time\n"
              "watchdog = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE)\n" + then)
    return subprocess.run(
        [sys.executable, "-c", script, sys.executable, "-I", cluster_wait.__file__, str(secs),
         json.dumps(cluster)], capture_output=True, text=True, timeout=_DEADLINE_SECS)


class WaitSecsTest(parameterized.TestCase):

    @parameterized.parameters(
        ({}, environment.DEFAULT_WAIT_SECS), ({_VARIABLE: ""}, environment.DEFAULT_WAIT_SECS),
        ({_VARIABLE: "30"}, 30.0), ({_VARIABLE: " 2.5 "}, 2.5), ({_VARIABLE: "0"}, None),
        ({_VARIABLE: "inf"}, None))
    def test_reads_the_bound(self, environ, expected):
        self.assertEqual(environment.cluster_wait_secs(environ), expected)

    @parameterized.parameters("-1", "nan", "10s", "ten")
    def test_refuses_a_bad_bound_naming_it(self, raw):
        with self.assertRaisesRegex(
                ValueError, f"{_VARIABLE} must be a number of seconds > 0 .* 0 or 'inf' to "
                            f"wait forever.*Received: {_VARIABLE}='{raw}'"):
            environment.cluster_wait_secs({_VARIABLE: raw})

    def test_wraps_tensorflow_once(self):
        extended = collective_all_reduce_strategy.CollectiveAllReduceExtended
        cluster_wait.install()
        self.assertTrue(
            getattr(extended._initialize_multi_worker, "bounded_by_estimator_lib", False),
            "TensorFlow's private CollectiveAllReduceExtended._initialize_multi_worker, "
            "which cluster_wait.install() wraps, is gone: nothing bounds "
            "MultiWorkerMirroredStrategy's wait for a task that never starts.")
        cluster_wait.install()
        self.assertFalse(getattr(extended._initialize_multi_worker.__wrapped__,
                                 "bounded_by_estimator_lib", False))

    @parameterized.named_parameters(
        ("no_tf_config", None),
        ("chief_and_worker", {"cluster": {"chief": ["a:1"], "worker": ["b:2"]},
                              "task": {"type": "chief", "index": 0}}))
    def test_importing_the_library_bounds_the_wait_whatever_tf_config(self, tf_config):
        # Once, at import: a program may also set TF_CONFIG itself after importing us.
        env = dict(os.environ)
        env.pop("TF_CONFIG", None)
        if tf_config is not None:
            env["TF_CONFIG"] = json.dumps(tf_config)
        script = ("import estimator_lib\n"
                  "from tensorflow.python.distribute import collective_all_reduce_strategy as c\n"
                  "print(getattr(c.CollectiveAllReduceExtended._initialize_multi_worker,"
                  " 'bounded_by_estimator_lib', False))\n")
        out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                             text=True, timeout=120, check=True).stdout
        self.assertEqual(out.strip().splitlines()[-1], "True")


class WatchdogTest(parameterized.TestCase):

    def test_ends_a_stuck_parent_naming_the_missing_task(self):
        dead = f"127.0.0.1:{free_port()}"
        parent = _run_watchdog(0.5, {"worker": [dead]}, then="time.sleep(60)")
        self.assertEqual(parent.returncode, -9)
        self.assertEqual(parent.stderr.splitlines(), [cluster_wait.timeout_message(
            0.5, [f"worker:0 ({dead})"])])
        self.assertIn("not reachable: worker:0 (127.0.0.1:", parent.stderr)

    def test_leaves_quietly_when_the_wait_ends(self):
        parent = _run_watchdog(30, {"worker": ["127.0.0.1:1"]}, then=(
            "watchdog.stdin.close(); sys.exit(watchdog.wait())"))
        self.assertEqual((parent.returncode, parent.stderr), (0, ""))


@pytest.mark.timeout(3 * _DEADLINE_SECS)
class LoneTaskTest(tf.test.TestCase, parameterized.TestCase):

    def _cluster(self):
        return {"chief": [f"127.0.0.1:{free_port()}"], "worker": [f"127.0.0.1:{free_port()}"]}

    def _run(self, tasks, cluster, model_dir, *args, wait_secs=_WAIT_SECS):
        out_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        with tf.compat.v1.test.mock.patch.dict(os.environ, {_VARIABLE: str(wait_secs)}):
            procs = launch(tasks, cluster, model_dir, out_dir, *args)
        start = time.time()
        wait_all(procs, start + _DEADLINE_SECS)
        self.assertLess(time.time() - start, _DEADLINE_SECS, "killed by the test's deadline")
        return {name: (proc.returncode, _log(out_dir, name)) for name, proc in procs.items()}

    def _assert_fails_naming(self, result, missing):
        returncode, log = result
        self.assertNotEqual(returncode, 0, log[-3000:])
        self.assertIn(f"estimator_lib: MultiWorkerMirroredStrategy waited {_WAIT_SECS} s for "
                      f"the cluster; not reachable: {missing}. Start the missing task", log)

    def test_a_worker_alone_fails_naming_the_chief(self):
        cluster = self._cluster()
        result = self._run([("worker", 0)], cluster, tempfile.mkdtemp(dir=self.get_temp_dir()))
        self._assert_fails_naming(result["worker0"], f"chief:0 ({cluster['chief'][0]})")

    def test_a_chief_alone_fails_and_the_restarted_job_resumes(self):
        model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        el.Estimator(program.model_fn, model_dir=model_dir).train(program.input_fn, max_steps=4)
        cluster = self._cluster()

        result = self._run([("chief", 0)], cluster, model_dir)
        self._assert_fails_naming(result["chief0"], f"worker:0 ({cluster['worker'][0]})")

        results = self._run([("chief", 0), ("worker", 0)], cluster, model_dir, "--max_steps=8",
                            wait_secs=_DEADLINE_SECS)
        for name, (returncode, log) in results.items():
            self.assertEqual(returncode, 0, f"{name} failed:\n{log[-3000:]}")
            self.assertIn("START STEP 4\n", log)
        self.assertEqual(tf.train.load_variable(model_dir, "global_step"), 8)


if __name__ == "__main__":
    tf.test.main()
