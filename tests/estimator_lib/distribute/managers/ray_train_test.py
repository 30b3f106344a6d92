"""An Estimator job run by Ray Train (`ray.train.tensorflow.TensorflowTrainer`,
`ScalingConfig(num_workers=2)`) on a local Ray: train_and_evaluate under
MultiWorkerMirroredStrategy with the TF_CONFIG Ray sets, worker 0 the chief.

The Ray driver is ray_program.py, run as its own process group (Ray's own processes
included), killed with SIGKILL if it runs out of time.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

from absl.testing import absltest

from tests.estimator_lib.distribute.managers import ray_program

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))))
_DEADLINE_SECS = 240  # Ray's start and two TensorFlow workers on a shared 2-core machine.


class RayTrainTest(absltest.TestCase):

    def test_tensorflow_trainer_runs_an_estimator_job(self):
        work = tempfile.mkdtemp(prefix="ray")  # short: Ray's socket paths must fit 107 bytes
        self.addCleanup(shutil.rmtree, work, ignore_errors=True)
        model_dir, out_dir = os.path.join(work, "model"), os.path.join(work, "out")
        os.makedirs(out_dir)
        path = os.pathsep.join(p for p in (_ROOT, os.environ.get("PYTHONPATH")) if p)
        env = dict(os.environ, PYTHONPATH=path, TF_CPP_MIN_LOG_LEVEL="2",
                   RAY_USAGE_STATS_ENABLED="0", RAY_AUTH_MODE="disabled")
        process = subprocess.Popen(  # pylint: disable=consider-using-with
            [sys.executable, ray_program.__file__, model_dir, out_dir], env=env,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            start_new_session=True)
        try:
            log, _ = process.communicate(timeout=_DEADLINE_SECS)
        finally:
            try:
                os.killpg(process.pid, signal.SIGKILL)  # Ray's processes too.
            except ProcessLookupError:
                pass
            process.wait()
        self.assertEqual(process.returncode, 0, log[-6000:])

        with open(os.path.join(out_dir, "result.json")) as f:
            result = json.load(f)
        # The chief's evaluation came back through Ray's reporting, with its checkpoint.
        self.assertEqual(result["metrics"]["global_step"], ray_program.MAX_STEPS)
        self.assertGreater(result["metrics"]["accuracy"], 0.5)
        self.assertIn("loss", result["metrics"])
        self.assertTrue(os.path.exists(os.path.join(
            result["checkpoint"], f"model.ckpt-{ray_program.MAX_STEPS}.index")))

        views = []
        for rank in (0, 1):
            with open(os.path.join(out_dir, f"{rank}.json")) as f:
                views.append(json.load(f))
        tf_configs = [json.loads(v.pop("tf_config")) for v in views]
        self.assertEqual([c["task"] for c in tf_configs],
                         [{"type": "worker", "index": 0}, {"type": "worker", "index": 1}])
        self.assertEqual(list(tf_configs[0]["cluster"]), ["worker"])
        self.assertEqual(views, [
            {"task_type": "worker", "task_id": 0, "is_chief": True, "num_worker_replicas": 2,
             "global_id_in_cluster": 0},
            {"task_type": "worker", "task_id": 1, "is_chief": False, "num_worker_replicas": 2,
             "global_id_in_cluster": 1}])

        # Checkpoints and summaries written once, by the chief: no worker copies.
        files = sorted(os.listdir(model_dir))
        self.assertEqual([f for f in files if f.startswith("events.out.tfevents.")].__len__(), 1)
        self.assertNotIn("tmp_worker_1", files)
        steps = sorted(int(f[len("model.ckpt-"):-len(".index")]) for f in files
                       if f.startswith("model.ckpt-") and f.endswith(".index"))
        self.assertEqual(steps, [0, 4, 8, 12])


if __name__ == "__main__":
    absltest.main()
