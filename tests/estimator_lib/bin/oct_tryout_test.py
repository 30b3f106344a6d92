"""README's OCT try-out as a user runs it: the synthetic sample, then train on it.

Shortened (--train_steps, --batch_size) to stay quick; it checks that the run
finishes, prints the estimate of its length after the first steps, and on a
machine without a GPU resizes to the CPU default (64x64).
"""

import os
import shutil
import subprocess
import sys
import tempfile

import pytest
import tensorflow as tf

pytestmark = pytest.mark.timeout(600)

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))


def _run(binary, *args):
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        p for p in (os.path.join(_ROOT, "src"), environment.get("PYTHONPATH")) if p)
    process = subprocess.run(
        [sys.executable, "-m", f"estimator_lib.bin.{binary}", *args], cwd=_ROOT,
        env=environment, capture_output=True, text=True, timeout=540, check=False)
    return process.returncode, process.stdout, process.stderr


class OctTryOutTest(tf.test.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)

    def test_the_try_out_finishes_and_prints_its_estimate(self):
        sample = os.path.join(self.tmp, "oct-sample")
        code, out, err = _run("download_oct", "--synthetic_sample", f"--data_dir={sample}")
        self.assertEqual(code, 0, err[-3000:])
        code, out, err = _run("train", "--dataset=oct", f"--data_dir={sample}",
                              "--train_steps=6", "--batch_size=4")
        self.assertEqual(code, 0, err[-3000:])
        self.assertIn("Summary", out)
        self.assertIn("steps          6 (global step now 6)", out)
        # One timed run after the first (left out), then 3 timed steps: 2 left.
        self.assertRegex(err, r"Estimate: 2 steps left x [0-9.e-]+ s/step = about \d+:\d\d "
                              r"of training")
        self.assertEqual(err.count("Estimate: "), 1)
        if not tf.config.list_physical_devices("GPU"):
            self.assertIn("resized to 64x64, the default without a GPU", err)


if __name__ == "__main__":
    tf.test.main()
