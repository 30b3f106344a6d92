"""Real Estimator jobs through `python -m estimator_lib.launch`:
tests/estimator_lib/distribute/multi_worker/program.py as one worker (a one-task
cluster under MultiWorkerMirroredStrategy, which the original trained), and as a
chief, a worker and an evaluator. The launcher's own behaviour is launcher_test.py's.

Every process is killed with SIGKILL if the test runs out of time.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

import pytest
from absl.testing import absltest

from estimator_lib.launcher import cluster
from tests.estimator_lib.distribute.multi_worker import program

_SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(cluster.__file__))))
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
_DEADLINE_SECS = 180  # TensorFlow's start in up to 3 processes on a shared 2-core machine.


def _checkpoint_steps(model_dir):
    return sorted(int(m.group(1)) for f in os.listdir(model_dir)
                  for m in [re.fullmatch(r"model\.ckpt-(\d+)\.index", f)] if m)


@pytest.mark.timeout(2 * _DEADLINE_SECS + 60)
class LaunchedJobTest(absltest.TestCase):

    def _launch(self, *roles):
        work = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, work, ignore_errors=True)
        model_dir = os.path.join(work, "model")
        env = dict(os.environ, PYTHONPATH=os.pathsep.join((_ROOT, _SRC)),
                   TF_CPP_MIN_LOG_LEVEL="2")
        process = subprocess.Popen(  # pylint: disable=consider-using-with
            [sys.executable, "-m", "estimator_lib.launch", *roles, program.__file__,
             model_dir, work], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, start_new_session=True)
        try:
            out, _ = process.communicate(timeout=_DEADLINE_SECS)
        finally:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait()
        self.assertEqual(process.returncode, 0, out[-5000:])
        configs = {m.group(1): json.loads(m.group(2))
                   for m in re.finditer(r"^\[(\S+)\] CONFIG (.*)$", out, re.M)}
        return model_dir, out, configs

    def test_one_worker(self):
        model_dir, out, configs = self._launch("--workers=1")
        self.assertIn("[worker:0] DONE worker0\n", out)
        self.assertEqual(configs["worker:0"]["is_chief"], True)
        self.assertEqual(_checkpoint_steps(model_dir), [0, 4, 8, program.MAX_STEPS])

    def test_chief_worker_and_evaluator(self):
        model_dir, out, configs = self._launch("--chief", "--workers=1", "--evaluator")
        for name in ("chief0", "worker0", "evaluator0"):
            self.assertIn(f"DONE {name}\n", out)
        self.assertEqual([configs[n]["task_type"] for n in ("chief:0", "worker:0",
                                                           "evaluator:0")],
                         ["chief", "worker", "evaluator"])
        self.assertEqual(_checkpoint_steps(model_dir), [0, 4, 8, program.MAX_STEPS])
        self.assertTrue(os.path.isdir(os.path.join(model_dir, "eval")))


if __name__ == "__main__":
    absltest.main()
