"""`python -m estimator_lib.launch`: the roles' TF_CONFIGs, prefixed output, a failed
task ending the job with its status, signals leaving no process behind, and the TFJob
manifest. The tasks here are small standard-library programs (no TensorFlow); the
managers' shapes run real Estimator jobs through the launcher in
tests/estimator_lib/distribute/managers/.

Every process a test starts is killed with SIGKILL if the test runs out of time.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time

import yaml
from absl.testing import absltest

from estimator_lib.launcher import cluster
from estimator_lib.launcher import main as launcher_main

# Where this estimator_lib is imported from: the launcher the tests start runs it too.
_SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(cluster.__file__))))

_DEADLINE_SECS = 30

# Each task prints its TF_CONFIG and a stderr line; with an argument it also writes its
# pid and a child's (a `sleep`) to PIDS_DIR and waits, or (worker 1) exits 3 once chief 0
# and worker 0 have written theirs (exiting at once, it let the launcher stop them before
# they started, under load: 1 run in 3 at load average 6).
_TASK = textwrap.dedent("""
    import json, os, signal, subprocess, sys, time
    config = json.loads(os.environ["TF_CONFIG"])
    task = config["task"]
    print("TF_CONFIG", json.dumps(config, sort_keys=True), flush=True)
    print("to stderr", file=sys.stderr, flush=True)
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "fail" and task == {"type": "worker", "index": 1}:
        while not all(os.path.exists(os.path.join(sys.argv[2], name + ".pids"))
                      for name in ("chief0", "worker0")):
            time.sleep(0.05)
        sys.exit(3)
    if mode in ("fail", "wait", "stubborn"):
        if mode == "stubborn":
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        child = subprocess.Popen(["sleep", "300"])
        name = f"{task['type']}{task['index']}"
        with open(os.path.join(sys.argv[2], name + ".tmp"), "w") as f:
            f.write(f"{os.getpid()} {child.pid}")
        os.rename(os.path.join(sys.argv[2], name + ".tmp"),
                  os.path.join(sys.argv[2], name + ".pids"))
        time.sleep(300)
""")


def _alive(pid):
    """Whether `pid` runs (a zombie, ended but not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


class RolesTest(absltest.TestCase):

    def test_tasks_and_cluster_of_every_role(self):
        roles = cluster.Roles(workers=2, ps=1, chief=True, evaluator=True)
        self.assertEqual(roles.tasks(), [("chief", 0), ("worker", 0), ("worker", 1),
                                         ("ps", 0), ("evaluator", 0)])
        addresses = cluster.cluster_on_ports(roles, [1001, 1002, 1003, 1004])
        self.assertEqual(addresses, {"chief": ["127.0.0.1:1001"],
                                     "worker": ["127.0.0.1:1002", "127.0.0.1:1003"],
                                     "ps": ["127.0.0.1:1004"]})
        configs = dict(cluster.tf_configs(roles, addresses))
        self.assertEqual(json.loads(configs["evaluator:0"]),
                         {"cluster": addresses, "task": {"type": "evaluator", "index": 0}})
        self.assertEqual(json.loads(configs["worker:1"])["task"], {"type": "worker", "index": 1})

    def test_refuses_ps_without_chief_and_no_trainer(self):
        with self.assertRaisesRegex(ValueError, "--ps=1 without --chief.*Add --chief"):
            cluster.Roles(workers=2, ps=1)
        with self.assertRaisesRegex(ValueError, "--workers=0 without --chief"):
            cluster.Roles(workers=0)

    def test_free_ports_are_distinct(self):
        ports = cluster.free_ports(5)
        self.assertLen(set(ports), 5)


class LaunchTest(absltest.TestCase):

    def setUp(self):
        super().setUp()
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.program = os.path.join(self.dir, "task.py")
        with open(self.program, "w") as f:
            f.write(_TASK)
        self.pids_dir = os.path.join(self.dir, "pids")
        os.mkdir(self.pids_dir)
        self.env = dict(os.environ, PYTHONPATH=_SRC)

    def _launch(self, *args):
        process = subprocess.Popen(  # pylint: disable=consider-using-with
            [sys.executable, "-m", "estimator_lib.launch", *args], env=self.env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        self.addCleanup(self._kill_group, process)
        return process

    def _kill_group(self, process):
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()

    def _task_pids(self, names, process):
        """Every pid the named tasks wrote (each task's own and its child's)."""
        deadline = time.time() + _DEADLINE_SECS
        paths = [os.path.join(self.pids_dir, n + ".pids") for n in names]
        while not all(os.path.exists(p) for p in paths):
            self.assertIsNone(process.poll(), "the launcher ended before its tasks started")
            self.assertLess(time.time(), deadline, "the tasks did not start")
            time.sleep(0.05)  # The tasks run in other processes: poll their files.
        pids = []
        for path in paths:
            with open(path) as f:
                pids += [int(p) for p in f.read().split()]
        return pids

    def test_every_task_runs_with_its_tf_config_and_prefixed_output(self):
        process = self._launch("--workers=2", "--chief", "--ps=1", "--evaluator", self.program)
        out, err = process.communicate(timeout=_DEADLINE_SECS)
        self.assertEqual(process.returncode, 0, err)
        configs = {}
        for line in out.splitlines():
            name, _, rest = line.partition("] TF_CONFIG ")
            configs[name.lstrip("[")] = json.loads(rest)
        self.assertEqual(sorted(configs), ["chief:0", "evaluator:0", "ps:0", "worker:0",
                                           "worker:1"])
        cluster_spec = configs["chief:0"]["cluster"]
        self.assertEqual({k: len(v) for k, v in cluster_spec.items()},
                         {"chief": 1, "worker": 2, "ps": 1})
        addresses = sum(cluster_spec.values(), [])
        self.assertLen(set(addresses), 4)
        self.assertTrue(all(a.startswith("127.0.0.1:") for a in addresses))
        for name, config in configs.items():
            task_type, index = name.split(":")
            self.assertEqual(config, {"cluster": cluster_spec,
                                      "task": {"type": task_type, "index": int(index)}})
        self.assertCountEqual(err.splitlines(), [f"[{n}] to stderr" for n in configs])

    def test_a_failed_task_stops_the_others_and_gives_its_status(self):
        process = self._launch("--workers=2", "--chief", "--grace_secs=20", self.program,
                               "fail", self.pids_dir)
        pids = self._task_pids(["chief0", "worker0"], process)
        _, err = process.communicate(timeout=_DEADLINE_SECS)
        self.assertEqual(process.returncode, 3)
        self.assertIn("estimator_lib.launch: task worker:1 exited 3; stopping the others", err)
        self.assertEqual([p for p in pids if _alive(p)], [])

    def test_sigterm_and_sigint_leave_no_process_behind(self):
        for signum in (signal.SIGTERM, signal.SIGINT):
            with self.subTest(signal=signum.name):
                for name in os.listdir(self.pids_dir):
                    os.remove(os.path.join(self.pids_dir, name))
                process = self._launch("--workers=2", "--chief", "--evaluator", self.program,
                                       "wait", self.pids_dir)
                pids = self._task_pids(["chief0", "worker0", "worker1", "evaluator0"],
                                       process)
                self.assertLen([p for p in pids if _alive(p)], 8)
                process.send_signal(signum)
                _, err = process.communicate(timeout=_DEADLINE_SECS)
                self.assertEqual(process.returncode, 128 + signum)
                self.assertIn(f"got {signum.name}; stopping every task", err)
                self.assertEqual([p for p in pids if _alive(p)], [])

    def test_a_task_ignoring_sigterm_is_killed_after_the_grace(self):
        process = self._launch("--workers=1", "--grace_secs=0.5", self.program, "stubborn",
                               self.pids_dir)
        pids = self._task_pids(["worker0"], process)
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=_DEADLINE_SECS)
        self.assertEqual(process.returncode, 128 + signal.SIGTERM)
        self.assertEqual([p for p in pids if _alive(p)], [])


class TFJobTest(absltest.TestCase):

    def test_the_launcher_loads_no_tensorflow(self):
        result = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "estimator_lib.launch", "--workers=1",
             "--emit=tfjob", "train.py"], env=dict(os.environ, PYTHONPATH=_SRC),
            capture_output=True, text=True, timeout=_DEADLINE_SECS, check=True)
        self.assertIn("kind: TFJob", result.stdout)
        self.assertIn("estimator_lib.launcher.main", result.stderr)
        self.assertNotIn("tensorflow", result.stderr)

    def _manifest(self, *args):
        out = _Text()
        self.assertEqual(launcher_main.main(["--emit=tfjob", *args], stdout=out), 0)
        return yaml.safe_load(out.text)

    def test_manifest_has_one_replica_spec_per_role(self):
        job = self._manifest("--workers=2", "--ps=1", "--chief", "--evaluator",
                             "--image=gcr.io/p/trainer:1", "--name=census", "train.py",
                             "--steps=10")
        self.assertEqual((job["apiVersion"], job["kind"], job["metadata"]["name"]),
                         ("kubeflow.org/v1", "TFJob", "census"))
        specs = job["spec"]["tfReplicaSpecs"]
        self.assertEqual({k: v["replicas"] for k, v in specs.items()},
                         {"Chief": 1, "Worker": 2, "PS": 1, "Evaluator": 1})
        for spec in specs.values():
            container, = spec["template"]["spec"]["containers"]
            self.assertEqual(container["name"], "tensorflow")
            self.assertEqual(container["image"], "gcr.io/p/trainer:1")
            self.assertEqual(container["command"], ["python", "train.py", "--steps=10"])
            self.assertEqual(container["ports"], [{"containerPort": 2222,
                                                   "name": "tfjob-port"}])

    def test_a_volume_is_mounted_in_every_replica(self):
        job = self._manifest("--workers=1", "--chief", "--volume=runs:/mnt/model", "t.py")
        for spec in job["spec"]["tfReplicaSpecs"].values():
            pod = spec["template"]["spec"]
            self.assertEqual(pod["volumes"], [{"name": "model-dir", "persistentVolumeClaim":
                                               {"claimName": "runs"}}])
            self.assertEqual(pod["containers"][0]["volumeMounts"],
                             [{"name": "model-dir", "mountPath": "/mnt/model"}])
        self.assertEqual(job["spec"]["runPolicy"], {"cleanPodPolicy": "None"})

    def test_workers_only_and_module_programs(self):
        job = self._manifest("--workers=3", "-m", "trainer.task", "--lr=0.1")
        specs = job["spec"]["tfReplicaSpecs"]
        self.assertEqual(list(specs), ["Worker"])
        self.assertEqual(specs["Worker"]["template"]["spec"]["containers"][0]["command"],
                         ["python", "-m", "trainer.task", "--lr=0.1"])


class _Text:
    def __init__(self):
        self.text = ""

    def write(self, text):
        self.text += text


if __name__ == "__main__":
    absltest.main()
