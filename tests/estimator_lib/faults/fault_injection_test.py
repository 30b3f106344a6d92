"""SIGKILL a training job at random moments; model_dir must never lose or corrupt state.

After each kill: the newest readable checkpoint exists (once one was written), its
global step never goes backwards, the checkpoint state file names only readable
checkpoints, and every timestamped export is complete. Finally an uninterrupted
run ends at exactly MAX_STEPS. Figures: docs/reliability.md.
"""

import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time

import pytest
import tensorflow as tf

from estimator_lib.graph import restore
from tests.estimator_lib.faults import trainer

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
_TRAINER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "trainer.py")
_SEEDS = list(range(20))
_TRIAL_BUDGET = 12


def _start(model_dir, *args):
    env = dict(os.environ, PYTHONPATH=_ROOT, TF_CPP_MIN_LOG_LEVEL="3")
    return subprocess.Popen([sys.executable, _TRAINER, model_dir, *map(str, args)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _wait_ready(proc, timeout=60):
    """Waits for READY; then collects the trainer's further output in the background."""
    deadline = time.time() + timeout
    for line in proc.stdout:
        if line.startswith("READY"):
            lines = []
            thread = threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True)
            thread.start()
            return lines, thread
        if time.time() > deadline:
            break
    raise AssertionError("trainer never got ready")


def _kill_point(lines):
    """Where the kill landed, from the trainer's last phase marker."""
    markers = [line.split()[0] for line in lines
               if line.split() and line.split()[0] in ("SAVING", "SAVED", "EXPORTING",
                                                        "EXPORTED")]
    if markers and markers[-1] == "SAVING":
        return "checkpoint write"
    if markers and markers[-1] == "EXPORTING":
        return "export"
    if any(line.startswith("FINISHED") for line in lines):
        return "after the run ended"
    return "step or start-up"


def _exports_complete(model_dir):
    export_dir = os.path.join(model_dir, "export")
    if not os.path.isdir(export_dir):
        return True, 0
    count = 0
    for name in os.listdir(export_dir):
        if not name.isdigit():
            continue  # temp-<timestamp>: never picked up as an export.
        path = os.path.join(export_dir, name)
        count += 1
        if not (os.path.isfile(os.path.join(path, "saved_model.pb"))
                and os.path.isfile(os.path.join(path, "variables", "variables.index"))):
            return False, count
    return True, count


@pytest.mark.timeout(600)
class FaultInjectionTest(tf.test.TestCase):

    def test_sigkill_at_random_moments_never_loses_or_corrupts_state(self):
        model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        last_step = 0
        kill_points = {}
        for seed in _SEEDS:
            rng = random.Random(seed)
            # At most 12 steps a trial, so that the final run has training left to do.
            proc = _start(model_dir, _TRIAL_BUDGET)
            try:
                lines, reader = _wait_ready(proc)
                time.sleep(rng.uniform(0.05, 2.5))
            finally:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
            reader.join(timeout=10)
            point = _kill_point(lines)
            kill_points[point] = kill_points.get(point, 0) + 1
            newest = restore.newest_readable(model_dir)
            step = restore.global_step_of(newest)
            self.assertGreaterEqual(step, last_step, f"seed {seed}: global_step went back")
            last_step = step
            named = tf.train.latest_checkpoint(model_dir)
            if named:
                self.assertIsNone(restore.checkpoint_problem(named),
                                  f"seed {seed}: the state file names a broken checkpoint")
            complete, _ = _exports_complete(model_dir)
            self.assertTrue(complete, f"seed {seed}: an incomplete export looks finished")
        self.assertGreater(last_step, 0)
        proc = _start(model_dir, trainer.MAX_STEPS, 100)  # Uninterrupted, in big chunks.
        out, _ = proc.communicate(timeout=300)
        self.assertEqual(proc.returncode, 0, out[-3000:])
        self.assertIn("FINISHED", out)
        self.assertEqual(restore.global_step_of(restore.newest_readable(model_dir)),
                         trainer.MAX_STEPS)
        self.assertLess(last_step, trainer.MAX_STEPS)  # The final run really resumed.
        print(f"trials={len(_SEEDS)} kill_points={kill_points} "
              f"step_before_final_run={last_step} final={trainer.MAX_STEPS}")


if __name__ == "__main__":
    tf.test.main()
