"""Parameter-server training from TF_CONFIG: roles, placement, the end of the job, faults.

The process tests run census.py (a census-style trainer using only `tf.estimator`
names) unchanged through `python -m estimator_lib.run` as ps, chief (or master),
worker and evaluator tasks on 127.0.0.1 with free ports. Every process still
running at a test's end is killed with SIGKILL.
"""

import json
import os
import subprocess
import sys
import tempfile
import time
from unittest import mock

import pytest
import tensorflow as tf

import estimator_lib as el
from estimator_lib.distribute import parameter_servers
from tests.estimator_lib.distribute.multi_worker.launch import free_port
from tests.estimator_lib.distribute.multi_worker.launch import kill_all
from tests.estimator_lib.distribute.multi_worker.launch import wait_all
from tests.estimator_lib.distribute.multi_worker.launch import wait_for_line

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))))
_CENSUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "census.py")
_JOB_SECS = 120  # Generous: the tasks share a loaded CPU. A job takes 10-20 s.
_FAIL_WITHIN_SECS = 60  # A killed ps: the others fail in about 1-5 s on 127.0.0.1.


def _cluster(chief="chief"):
    return {"ps": [f"127.0.0.1:{free_port()}"], chief: [f"127.0.0.1:{free_port()}"],
            "worker": [f"127.0.0.1:{free_port()}"]}


def _launch(tasks, cluster, model_dir, out_dir, *args, env=None):
    """Runs census.py through `python -m estimator_lib.run` once per task."""
    procs = {}
    for task_type in tasks:
        task_env = dict(os.environ, PYTHONPATH=_ROOT, TF_CPP_MIN_LOG_LEVEL="2",
                        TF_CONFIG=json.dumps({"cluster": cluster,
                                              "task": {"type": task_type, "index": 0}}),
                        **(env or {}))
        log = open(os.path.join(out_dir, f"{task_type}0.log"), "w")
        procs[f"{task_type}0"] = subprocess.Popen(
            [sys.executable, "-m", "estimator_lib.run", _CENSUS, "--job-dir", model_dir,
             *args], env=task_env, stdout=log, stderr=subprocess.STDOUT)
    return procs


def _log(out_dir, name):
    with open(os.path.join(out_dir, name + ".log")) as f:
        return f.read()


def _with_tf_config(cluster, task_type, index=0):
    return mock.patch.dict(os.environ, {"TF_CONFIG": json.dumps(
        {"cluster": cluster, "task": {"type": task_type, "index": index}})})


_CLUSTER = {"ps": ["h0:1", "h1:1"], "chief": ["h2:1"], "worker": ["h3:1", "h4:1"]}


class ConfigTest(tf.test.TestCase):

    def test_device_filters_are_the_originals(self):
        expected = {("chief", 0): ["/job:ps", "/job:chief"],
                    ("worker", 1): ["/job:ps", "/job:worker/task:1"],
                    ("ps", 0): ["/job:ps", "/job:worker", "/job:chief", "/job:master"]}
        for (task_type, index), filters in expected.items():
            with _with_tf_config(_CLUSTER, task_type, index):
                config = el.RunConfig()
            self.assertEqual(list(config.session_config.device_filters), filters)
            self.assertTrue(config.session_config.allow_soft_placement)
        master_cluster = {"ps": ["h0:1"], "master": ["h2:1"]}
        with _with_tf_config(master_cluster, "master"):
            self.assertEqual(list(el.RunConfig().session_config.device_filters),
                             ["/job:ps", "/job:master"])
        with _with_tf_config(_CLUSTER, "evaluator"):
            self.assertIsNone(el.RunConfig().session_config)
        own = tf.compat.v1.ConfigProto(log_device_placement=True)
        with _with_tf_config(_CLUSTER, "chief"):
            self.assertIs(el.RunConfig(session_config=own).session_config, own)

    def test_variables_go_to_the_ps_tasks_and_ops_stay_on_the_task(self):
        with _with_tf_config(_CLUSTER, "worker", 1):
            config = el.RunConfig()
        self.assertTrue(parameter_servers.is_ps_training(config))
        with tf.Graph().as_default(), tf.compat.v1.device(parameter_servers.device_fn(config)):
            first = tf.compat.v1.get_variable("a", [2])
            second = tf.compat.v1.get_variable("b", [2])
            total = first + second
        self.assertEqual({first.device, second.device}, {"/job:ps/task:0", "/job:ps/task:1"})
        self.assertEqual(total.device, "/job:worker/task:1")

    def test_the_v1_strategy_runs_the_same_way_and_needs_ps_tasks(self):
        with _with_tf_config(_CLUSTER, "chief"):
            strategy = tf.compat.v1.distribute.experimental.ParameterServerStrategy()
            config = el.RunConfig(train_distribute=strategy)
        self.assertTrue(parameter_servers.is_ps_training(config))
        self.assertEqual(list(config.session_config.device_filters), ["/job:ps", "/job:chief"])
        with _with_tf_config({"chief": ["h2:1"], "worker": ["h3:1"]}, "chief"):
            with self.assertRaisesRegex(ValueError, "needs `ps` tasks in TF_CONFIG"):
                el.RunConfig(train_distribute=strategy)

    def test_workers_wait_as_the_original(self):
        with _with_tf_config(_CLUSTER, "worker", 1):
            self.assertEqual(parameter_servers.worker_delay_secs(el.RunConfig()), 10)
            self.assertEqual(parameter_servers.worker_delay_secs(
                el.RunConfig(experimental_max_worker_delay_secs=3)), 3)
        with _with_tf_config(_CLUSTER, "chief"):
            self.assertEqual(parameter_servers.worker_delay_secs(el.RunConfig()), 0)


@pytest.mark.timeout(3 * _JOB_SECS + 60)
class ParameterServerJobTest(tf.test.TestCase):

    def _run(self, tasks, cluster, *args):
        model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        out_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        procs = _launch(tasks, cluster, model_dir, out_dir, *args)
        return procs, model_dir, out_dir

    def _assert_all_done(self, procs, out_dir):
        for name, proc in procs.items():
            log = _log(out_dir, name)
            self.assertEqual(proc.returncode, 0, f"{name} failed:\n{log[-3000:]}")
            self.assertIn(f"DONE {name}\n", log)  # ps tasks too: they end with the job.

    def test_census_job_with_chief_worker_and_evaluator(self):
        procs, model_dir, out_dir = self._run(("ps", "chief", "worker", "evaluator"),
                                              _cluster(), "--train-steps=40")
        wait_all(procs, time.time() + _JOB_SECS)
        self._assert_all_done(procs, out_dir)
        newest = tf.train.latest_checkpoint(model_dir)
        self.assertGreaterEqual(tf.train.load_variable(newest, "global_step"), 40)
        self.assertTrue(tf.io.gfile.exists(os.path.join(model_dir, "model.ckpt-0.index")))
        self.assertLen(tf.io.gfile.listdir(os.path.join(model_dir, "export", "census")), 1)
        self.assertNotEmpty(tf.io.gfile.glob(os.path.join(model_dir, "eval", "events.*")))
        # Only the chief writes model_dir's summaries.
        self.assertLen(tf.io.gfile.glob(os.path.join(model_dir, "events.*")), 1)

    def test_master_evaluates_and_exports_while_a_killed_worker_stops_nobody(self):
        cluster = _cluster("master")
        procs, model_dir, out_dir = self._run(("ps", "master", "worker"), cluster,
                                              "--train-steps=400", "--print-steps",
                                              "--throttle-secs=600")
        try:
            self.assertTrue(wait_for_line(procs, out_dir, "worker0", "STEP 20",
                                          time.time() + _JOB_SECS),
                            _log(out_dir, "worker0")[-3000:])
            procs.pop("worker0").kill()
            wait_all(procs, time.time() + _JOB_SECS)
        finally:
            kill_all(procs)
        self._assert_all_done(procs, out_dir)
        self.assertGreaterEqual(tf.train.load_variable(model_dir, "global_step"), 400)
        self.assertLen(tf.io.gfile.listdir(os.path.join(model_dir, "export", "census")), 1)
        self.assertNotEmpty(tf.io.gfile.glob(os.path.join(model_dir, "eval", "events.*")))

    def test_a_killed_ps_fails_the_others_naming_it_and_a_restart_resumes(self):
        cluster = _cluster()
        procs, model_dir, out_dir = self._run(("ps", "chief", "worker"), cluster,
                                              "--train-steps=1000000", "--print-steps")
        try:
            # Both train (a worker polls for the chief's variables every 30 s, as the
            # original's) past a checkpoint after step 0.
            deadline = time.time() + _JOB_SECS
            while time.time() < deadline and not (
                    "START STEP" in _log(out_dir, "worker0") and tf.io.gfile.glob(
                        os.path.join(model_dir, "model.ckpt-[1-9]*.index"))):
                time.sleep(0.2)  # Other processes: poll their output.
            self.assertIn("START STEP", _log(out_dir, "worker0"))
            procs["ps0"].kill()
            killed = time.time()
            for name in ("chief0", "worker0"):
                procs[name].wait(timeout=max(1, killed + _FAIL_WITHIN_SECS - time.time()))
        finally:
            kill_all(procs)
        newest = tf.train.latest_checkpoint(model_dir)
        for name in ("chief0", "worker0"):
            log = _log(out_dir, name)
            self.assertNotEqual(procs[name].returncode, 0, log[-3000:])
            self.assertIn("RuntimeError: A task of the parameter-server job stopped; ", log)
            # The worker, if it failed first, is listed after the ps.
            self.assertIn(f"Unreachable: ps:0 ({cluster['ps'][0]})", log)
            self.assertIn("Restart every task: training resumes from the newest checkpoint "
                          f"({newest}).", log)

        step = tf.train.load_variable(newest, "global_step")
        self.assertGreaterEqual(step, 10)
        out_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        procs = _launch(("ps", "chief", "worker"), cluster, model_dir, out_dir,
                        f"--train-steps={step + 20}", "--print-steps")
        wait_all(procs, time.time() + _JOB_SECS)
        self._assert_all_done(procs, out_dir)
        self.assertIn(f"START STEP {step}\n", _log(out_dir, "chief0"))
        self.assertGreaterEqual(tf.train.load_variable(model_dir, "global_step"), step + 20)

    def test_a_ps_that_never_starts_is_reported_within_the_bound(self):
        cluster = _cluster()
        model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        out_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        procs = _launch(("chief",), cluster, model_dir, out_dir,
                        env={"ESTIMATOR_LIB_CLUSTER_WAIT_SECS": "2"})
        wait_all(procs, time.time() + _JOB_SECS)
        log = _log(out_dir, "chief0")
        self.assertNotEqual(procs["chief0"].returncode, 0, log[-3000:])
        self.assertIn("RuntimeError: Parameter-server training waited 2 s for the cluster; not "
                      f"reachable: ps:0 ({cluster['ps'][0]}). Start the missing task", log)


if __name__ == "__main__":
    tf.test.main()
