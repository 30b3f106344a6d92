"""The cluster managers' jobs replayed on 127.0.0.1: Kubeflow TFJob, Vertex AI and
SageMaker, each task with the environment its manager sets
(tests/data/cluster_managers.json, with the source of each), every host:port a free
loopback port and every cloud path a temporary folder.

Each role must do what the original Estimator did under it: RunConfig reports what the
original's reported (tests/data/tf215_cluster_managers.json, recorded on TF 2.15 by
tests/data/make_tf215_cluster_managers.py), and the job's tasks train, evaluate, export
and end as the original's roles did (docs/multi_worker.md, "On a cluster").

Every process a test starts is killed with SIGKILL if the test runs out of time.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from unittest import mock

import pytest
import tensorflow as tf

import estimator_lib as el
from estimator_lib.launcher import cluster as launcher_cluster
from tests.estimator_lib.distribute.multi_worker.launch import kill_all

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(_HERE))))
_DATA = os.path.join(_ROOT, "tests", "data")
_PROGRAM = os.path.join(_HERE, "managed_program.py")
_JOB_SECS = 240  # TensorFlow's start in 3-4 processes on a shared 2-core machine, a
# worker's 30 s poll for the chief's variables (parameter servers, as the original);
# 100-150 s under a load average of 10-20.
# A free port taken by another process before the task bound it (it is picked before
# the task starts): the job is started again once, on new ports.
_PORT_TAKEN = "Could not start gRPC server"
# SageMaker's toolkit runs its own ps on each host, not the program:
_TOOLKIT_PS = ("import json, os, tensorflow as tf\n"
               "c = json.loads(os.environ['TF_CONFIG'])\n"
               "tf.distribute.Server(tf.train.ClusterSpec(c['cluster']), job_name='ps',\n"
               "    task_index=c['task']['index'], config=tf.compat.v1.ConfigProto(\n"
               "    device_count={'GPU': 0})).join()\n")


def _shapes():
    with open(os.path.join(_DATA, "cluster_managers.json")) as f:
        return json.load(f)


def _original():
    with open(os.path.join(_DATA, "tf215_cluster_managers.json")) as f:
        return json.load(f)


def _view(config):
    """As make_tf215_cluster_managers.py records it."""
    return {"task_type": config.task_type, "task_id": config.task_id,
            "is_chief": config.is_chief, "master": config.master,
            "evaluation_master": config.evaluation_master,
            "num_ps_replicas": config.num_ps_replicas,
            "num_worker_replicas": config.num_worker_replicas,
            "global_id_in_cluster": config.global_id_in_cluster,
            "cluster_spec": config.cluster_spec.as_dict(),
            "device_filters": list(config.session_config.device_filters)
            if config.session_config else None}


def _addresses(shape):
    """Every host:port the shape's TF_CONFIGs (and CLUSTER_SPECs) name, first-seen order."""
    seen = []
    for task in shape["tasks"]:
        for variable in ("TF_CONFIG", "CLUSTER_SPEC"):
            if variable in task["env"]:
                for job in json.loads(task["env"][variable])["cluster"].values():
                    seen += [a for a in job if a not in seen]
    return seen


def _localised(text, replacements):
    for old, new in replacements.items():
        text = text.replace(old, new)
    return text


class RunConfigTest(tf.test.TestCase):

    def test_every_task_reports_what_the_original_reported(self):
        original = _original()
        for manager, shape in _shapes().items():
            if manager == "README":
                continue
            for task in shape["tasks"]:
                if task["runs"] != "program":
                    continue
                expected = original[manager][task["name"]]
                with self.subTest(manager=manager, task=task["name"]), \
                        mock.patch.dict(os.environ, task["env"]):
                    if "error" in expected:  # Refused by the original: by us too, and
                        # our message starts with the original's.
                        message = expected["error"][len("ValueError: "):]
                        with self.assertRaisesRegex(ValueError, "^" + re.escape(message)):
                            el.RunConfig()
                    else:
                        self.assertEqual(_view(el.RunConfig()), expected)


@pytest.mark.timeout(2 * _JOB_SECS + 60)
class ManagedJobTest(tf.test.TestCase):
    """Each manager's job as processes on 127.0.0.1."""

    def setUp(self):
        super().setUp()
        self.work = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.work, ignore_errors=True)
        self.procs = {}
        self.addCleanup(kill_all, self.procs)

    def _start(self, manager):
        """Starts every task of `manager`'s job; returns the path replacements used."""
        shape = _shapes()[manager]
        addresses = _addresses(shape)
        ports = launcher_cluster.free_ports(len(addresses))
        replacements = {a: f"127.0.0.1:{p}" for a, p in zip(addresses, ports)}
        for i, path in enumerate(shape["paths"]):
            replacements[path] = os.path.join(self.work, f"path{i}")
        path = os.pathsep.join(p for p in (_ROOT, os.environ.get("PYTHONPATH")) if p)
        for task in shape["tasks"]:
            env = dict(os.environ, PYTHONPATH=path, TF_CPP_MIN_LOG_LEVEL="2",
                       **{k: _localised(v, replacements) for k, v in task["env"].items()})
            if task["runs"] == "program":
                command = [sys.executable, _PROGRAM,
                           *[_localised(a, replacements) for a in shape["args"]]]
            else:
                command = [sys.executable, "-c", _TOOLKIT_PS]
            name = task["name"].replace(":", "")
            with open(os.path.join(self.work, name + ".log"), "w") as log:
                self.procs[name] = subprocess.Popen(  # pylint: disable=consider-using-with
                    command, env=env, stdout=log, stderr=subprocess.STDOUT)
        return replacements

    def _log(self, name):
        with open(os.path.join(self.work, name + ".log")) as f:
            return f.read()

    def _run(self, manager, names):
        """Runs `manager`'s job until the named tasks end; returns the replacements."""
        replacements = self._start(manager)
        self._wait_for(names)
        if any(_PORT_TAKEN in self._log(n) for n in self.procs):
            kill_all(self.procs)
            self.procs.clear()
            shutil.rmtree(self.work, ignore_errors=True)
            os.makedirs(self.work)
            replacements = self._start(manager)
            self._wait_for(names)
        self._check_ended_well(names)
        return replacements

    def _wait_for(self, names):
        deadline = time.time() + _JOB_SECS
        for name in names:
            try:
                self.procs[name].wait(timeout=max(1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                pass

    def _check_ended_well(self, names):
        logs = "\n".join(f"--- {n}:\n{self._log(n)[-3000:]}" for n in names)
        for name in names:
            self.assertEqual(self.procs[name].poll(), 0, f"{name} did not end well:\n{logs}")
            self.assertIn(f"DONE {name}\n", self._log(name))

    def _config(self, name):
        return [json.loads(line[len("CONFIG "):]) for line in self._log(name).splitlines()
                if line.startswith("CONFIG ")][-1]

    def _assert_chief_wrote(self, model_dir, train_steps=20):
        """Checkpoints from step 0 to the last: the chief's (or master's) alone."""
        steps = sorted(int(m.group(1)) for f in tf.io.gfile.listdir(model_dir)
                       for m in [re.fullmatch(r"model\.ckpt-(\d+)\.index", f)] if m)
        self.assertEqual(steps[0], 0)
        # Parameter servers train asynchronously: a worker's step in flight when the
        # chief reached the last one may count past it, as in the original.
        self.assertBetween(steps[-1], train_steps, train_steps + 2)
        self.assertFalse([f for f in tf.io.gfile.listdir(model_dir)
                          if f.startswith("tmp_worker_")])
        self.assertNotEmpty(tf.io.gfile.glob(os.path.join(model_dir, "eval", "events.*")))
        self.assertLen(tf.io.gfile.listdir(os.path.join(model_dir, "export", "census")), 1)

    def test_kubeflow_tfjob_chief_worker_evaluator_multi_worker_mirrored(self):
        replacements = self._run("kubeflow_tfjob", ["chief0", "worker0", "evaluator0"])
        self.assertEqual(self._config("chief0")["is_chief"], True)
        self.assertEqual(self._config("worker0")["is_chief"], False)
        self.assertEqual(self._config("evaluator0")["task_type"], "evaluator")
        self._assert_chief_wrote(replacements["/mnt/model"])

    def test_vertex_ai_four_worker_pools_with_parameter_servers(self):
        # The ps ends with the job.
        replacements = self._run("vertex_ai", ["chief0", "worker0", "ps0", "evaluator0"])
        self.assertEqual(self._config("chief0"), {
            "task_type": "chief", "task_id": 0, "is_chief": True, "num_worker_replicas": 2,
            "num_ps_replicas": 1, "master": self._config("chief0")["master"]})
        self.assertEqual(self._config("ps0")["task_type"], "ps")
        self._assert_chief_wrote(os.path.join(replacements["gs://bucket/output"],
                                              "checkpoints"))

    def test_sagemaker_parameter_servers_with_a_master(self):
        replacements = self._run("sagemaker", ["master0", "worker0"])
        # SageMaker ends its own ps servers (server.join() never returns) with the job.
        kill_all({k: v for k, v in self.procs.items() if k.startswith("ps")})
        self.assertEqual(self._config("master0")["task_type"], "master")
        self.assertEqual(self._config("master0")["is_chief"], True)
        self.assertEqual(self._config("worker0")["is_chief"], False)
        model_dir = os.path.join(replacements["s3://bucket/job"], "model")
        self._assert_chief_wrote(model_dir)  # the master also evaluates and exports
        sm_model_dir = os.path.join(replacements["/opt/ml"], "model")
        self.assertLen(tf.io.gfile.listdir(sm_model_dir), 1)


if __name__ == "__main__":
    tf.test.main()
