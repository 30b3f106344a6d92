"""`train` twice with the same flags: the same losses, bit for bit.

By default (--seed seeds the graph, the shuffles and the Keras initial weights) and
with --deterministic (op determinism too). Each run is a real `python -m
estimator_lib.bin.train` process: op determinism is process-wide and cannot be
switched off again, and unseeded Keras initializers draw their seeds from the
process's own Python `random`. The two runs of a pair start together. The per-step training losses are read from the TensorBoard events as raw
float32 bytes; the evaluation loss and accuracy from train_summary.json.
"""

import glob
import json
import os
import subprocess
import sys
import tempfile
from unittest import mock

import numpy as np
import pytest
import tensorflow as tf
from absl import app
from tensorflow.core.util import event_pb2

from estimator_lib.bin.jobs import job
from tests.datasets import fixtures

# Two pairs of binaries on 2 loaded cores: each run takes ~15 s alone.
pytestmark = pytest.mark.timeout(600)

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
_TINY = ["--train_steps=4", "--batch_size=4", "--eval_steps=1", "--save_summary_steps=1",
         "--warm_steps=1"]


def _start(model_dir, *args):
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        p for p in (_ROOT, environment.get("PYTHONPATH")) if p)
    return subprocess.Popen(
        [sys.executable, "-m", "estimator_lib.bin.train", f"--model_dir={model_dir}",
         *_TINY, *args], cwd=_ROOT, env=environment, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True)


def _losses(model_dir):
    """Reads the training loss of each step, as the raw bytes of its float32 value."""
    losses = {}
    for path in glob.glob(os.path.join(model_dir, "events.out.tfevents.*")):
        for record in tf.data.TFRecordDataset(path):
            event = event_pb2.Event.FromString(record.numpy())
            for value in event.summary.value:
                if value.tag == "loss":  # A scalar summary: its simple_value, a float32.
                    losses[event.step] = (tf.make_ndarray(value.tensor).tobytes()
                                          if value.HasField("tensor") else
                                          np.float32(value.simple_value).tobytes())
    return losses


class DeterministicTest(tf.test.TestCase):

    def _run_twice(self, *args):
        tmp = tempfile.mkdtemp()
        dirs = [os.path.join(tmp, f"run{k}") for k in (1, 2)]
        processes = [_start(d, *args) for d in dirs]
        outputs = []
        for process in processes:
            output, _ = process.communicate(timeout=540)
            self.assertEqual(process.returncode, 0, output[-3000:])
            outputs.append(output)
        return dirs, outputs

    def _assert_same_run(self, first, second):
        losses = _losses(first)
        self.assertEqual(sorted(losses), [1, 2, 3, 4])
        self.assertEqual(losses, _losses(second))
        with open(os.path.join(first, job.SUMMARY_FILENAME), encoding="utf-8") as f:
            summary = json.load(f)
        with open(os.path.join(second, job.SUMMARY_FILENAME), encoding="utf-8") as f:
            again = json.load(f)
        self.assertIsNotNone(summary["eval_loss"])
        self.assertEqual((summary["eval_loss"], summary["accuracy"]),
                         (again["eval_loss"], again["accuracy"]))

    def test_synthetic_runs_repeat_bit_for_bit_by_default(self):
        dirs, outputs = self._run_twice()
        self._assert_same_run(*dirs)
        self.assertNotIn("op determinism on", outputs[0])

    def test_oct_folder_runs_repeat_bit_for_bit_with_deterministic(self):
        # A plain CLASS/*.jpeg folder: the seeded split, shuffle and parallel decode.
        folder = os.path.join(tempfile.mkdtemp(), "oct")
        fixtures.write_image_folder(folder, per_class=5)
        dirs, outputs = self._run_twice("--dataset=oct", f"--data_dir={folder}",
                                        "--image_size=32", "--deterministic")
        self._assert_same_run(*dirs)
        self.assertIn("Deterministic: op determinism on", outputs[0])

    def test_deterministic_switches_op_determinism_on(self):
        with mock.patch.object(tf.config.experimental, "enable_op_determinism") as enable:
            job._make_repeatable(job.JobConfig(deterministic=True))  # pylint: disable=protected-access
        enable.assert_called_once_with()

    def test_deterministic_without_a_seed_is_a_usage_error(self):
        with mock.patch.object(tf.config.experimental, "enable_op_determinism") as enable:
            with self.assertRaisesRegex(app.UsageError, "--deterministic needs a --seed"):
                job.run_job(job.JobConfig(deterministic=True, seed=None))
        enable.assert_not_called()


if __name__ == "__main__":
    tf.test.main()
