"""The first hour without noise, each case a real `python -m` process (issue #25).

- user errors that need no TensorFlow are answered before it loads: the processes
  run with a `tensorflow` on PYTHONPATH that refuses to import, so a binary that
  loaded it would fail with a traceback instead of its one line;
- exit codes follow one rule: 2 for the command line, 1 for what it names;
- a run shows the user's output and real problems only: no C++ start-up lines, no
  failed cuInit on a machine without a GPU, no deprecation warning of ours;
- a default run's temporary model_dir is removed and said so; nothing is left in TMPDIR;
- `download_oct --synthetic_sample` writes a sample offline that the README's commands
  use; make_tfrecords holds out the 'test' split `--dataset=oct` holds out;
- a resumed run's summary says the steps it ran and where it resumed.
"""

import json
import os
import socket
import subprocess
import sys
import tempfile

import pytest
import tensorflow as tf

from estimator_lib.core import quiet_start
from estimator_lib.datasets import folder_scan
from estimator_lib.datasets import oct_folder

pytestmark = pytest.mark.timeout(600)  # Binaries started at once: minutes under load.

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
_TINY = ["--image_size=32", "--batch_size=4", "--warm_steps=0"]
# What must never reach a user: TensorFlow's C++ start-up lines and warnings.
_NOISE = ("I0000", "W0000", "E0000", "WARNING: All log messages", "To enable the following")


def _env(tmpdir, *, no_tensorflow=None):
    environment = dict(os.environ, TMPDIR=tmpdir)
    environment.pop("TF_CPP_MIN_LOG_LEVEL", None)  # The binaries' own default.
    paths = [no_tensorflow, _ROOT, environment.get("PYTHONPATH")]
    environment["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    return environment


def _start(binary, *args, tmpdir, no_tensorflow=None):
    return subprocess.Popen(
        [sys.executable, "-m", f"estimator_lib.bin.{binary}", *args], cwd=tmpdir,
        env=_env(tmpdir, no_tensorflow=no_tensorflow), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)


def _finish(process):
    out, err = process.communicate(timeout=540)
    return process.returncode, out, err


class BeforeTensorFlowTest(tf.test.TestCase):
    """User errors answered without TensorFlow: one line, and the rule's exit code."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.tmp = tmp = tempfile.mkdtemp()
        no_tensorflow = os.path.join(tmp, "no_tensorflow")
        os.makedirs(os.path.join(no_tensorflow, "tensorflow"))
        with open(os.path.join(no_tensorflow, "tensorflow", "__init__.py"), "w") as f:
            f.write("raise ImportError('TensorFlow was loaded before the user error')\n")
        cls.missing = os.path.join(tmp, "missing")
        cls.locked = os.path.join(tmp, "locked")
        os.makedirs(cls.locked)
        with open(os.path.join(cls.locked, ".estimator_lib.lock"), "w") as f:
            json.dump({"pid": os.getpid(), "host": socket.gethostname(), "started": 0}, f)
        cls.full = os.path.join(tmp, "full")
        os.makedirs(os.path.join(cls.full, "notes"))
        cases = {
            "train_argument": ("train", "extra"),
            "train_missing": ("train", "--dataset=oct", f"--data_dir={cls.missing}"),
            "train_devices": ("train", "--num_devices=64"),
            "train_locked": ("train", f"--model_dir={cls.locked}"),
            "tfrecords_no_data_dir": ("make_tfrecords", "--output_dir=out"),
            "tfrecords_missing": ("make_tfrecords", f"--data_dir={cls.missing}",
                                  "--output_dir=out"),
            "download_argument": ("download_oct", "--data_dir=x", "now"),
            "download_no_data_dir": ("download_oct",),
            "sample_not_empty": ("download_oct", "--synthetic_sample",
                                 f"--data_dir={cls.full}"),
            "input_missing": ("input_benchmark", f"--data_dir={cls.missing}"),
            "scaling_devices": ("scaling_benchmark", "--devices=1,64"),
            "train_help": ("train", "--help"),
        }
        started = {key: _start(*args, tmpdir=tmp, no_tensorflow=no_tensorflow)
                   for key, args in cases.items()}
        cls.results = {key: _finish(process) for key, process in started.items()}

    def _assert_error(self, key, code, message):
        returncode, out, err = self.results[key]
        self.assertEqual((returncode, out, err), (code, "", message + "\n"))

    def test_help_answers_without_tensorflow(self):
        returncode, out, err = self.results["train_help"]
        self.assertEqual((returncode, err), (0, ""))
        self.assertIn("--batch_size_scope", out)

    def test_positional_arguments_exit_2(self):
        self._assert_error(
            "train_argument", 2, "estimator_lib.bin.train: error: Unexpected arguments: "
            "extra (flags are --name=value).")
        self._assert_error(
            "download_argument", 2, "estimator_lib.bin.download_oct: error: Unexpected "
            "arguments: now (flags are --name=value).")

    def test_a_data_dir_that_does_not_exist_exits_2_in_every_binary(self):
        for key, binary in (("train_missing", "train"),
                            ("tfrecords_missing", "make_tfrecords"),
                            ("input_missing", "input_benchmark")):
            self._assert_error(
                key, 2, f"estimator_lib.bin.{binary}: error: --data_dir={self.missing} does "
                "not exist; expected a folder of CLASS/*.jpeg images or an OCT2017 download "
                "(python -m estimator_lib.bin.download_oct --data_dir=DIR --synthetic_sample "
                "writes a small one).")

    def test_a_missing_data_dir_flag_exits_2(self):
        self._assert_error(
            "tfrecords_no_data_dir", 2, "estimator_lib.bin.make_tfrecords: error: "
            "--data_dir is required: the OCT download folder or a folder of CLASS/*.jpeg "
            "images.")
        self._assert_error(
            "download_no_data_dir", 2, "estimator_lib.bin.download_oct: error: --data_dir "
            "is required: the folder to download the OCT data into (~5 GB zip, ~6 GB "
            "unpacked), e.g. --data_dir=/data/oct.")
        self._assert_error(
            "sample_not_empty", 2, f"estimator_lib.bin.download_oct: error: --data_dir="
            f"{self.full} already holds other files; --synthetic_sample writes only into an "
            "empty or new folder (or one it wrote).")

    @pytest.mark.skipif(quiet_start.nvidia_devices_present(),
                        reason="needs a machine without NVIDIA device files (/dev/nvidia0): "
                               "with a GPU the count is TensorFlow's, checked after it loads")
    def test_more_devices_than_a_machine_without_gpu_has_exits_2(self):
        limit, cores = max(8, os.cpu_count()), os.cpu_count()
        self._assert_error(
            "train_devices", 2, f"estimator_lib.bin.train: error: --num_devices=64 but this "
            f"machine has no GPU, and at most {limit} logical CPU devices are allowed (they "
            f"share the same {cores} cores).")
        self._assert_error(
            "scaling_devices", 2, f"estimator_lib.bin.scaling_benchmark: error: --devices="
            f"1,64 asks for 64 devices, but this machine has no GPU, and at most {limit} "
            f"logical CPU devices are allowed (they share the same {cores} cores).")

    def test_a_model_dir_held_by_a_live_run_exits_1(self):
        returncode, out, err = self.results["train_locked"]
        self.assertEqual((returncode, out), (1, ""))
        self.assertRegex(err, rf"^estimator_lib.bin.train: error: model_dir {self.locked} "
                              rf"is in use by another training \(pid {os.getpid()} on .*\n$")


class QuietRunTest(tf.test.TestCase):
    """Runs as a user would: the sample, a default run, a resumed run, make_tfrecords."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.tmp = tmp = tempfile.mkdtemp()
        cls.sample = os.path.join(tmp, "oct-sample")
        cls.sample_result = _finish(_start("download_oct", "--synthetic_sample",
                                           f"--data_dir={cls.sample}", tmpdir=tmp))
        cls.default_tmp = os.path.join(tmp, "default_tmp")
        os.makedirs(cls.default_tmp)
        cls.model_dir = os.path.join(tmp, "run")
        cls.tfrecords = os.path.join(tmp, "oct-tfr")
        started = {
            # Two replicas: the replicated input path (MirroredStrategy) is quiet too.
            "default": _start("train", "--train_steps=2", "--num_devices=2", *_TINY,
                              tmpdir=cls.default_tmp),
            "oct": _start("train", "--dataset=oct", f"--data_dir={cls.sample}",
                          "--train_steps=2", f"--model_dir={cls.model_dir}", *_TINY,
                          tmpdir=tmp),
            "tfrecords": _start("make_tfrecords", f"--data_dir={cls.sample}",
                                f"--output_dir={cls.tfrecords}", "--image_size=32",
                                tmpdir=tmp),
        }
        cls.results = {key: _finish(process) for key, process in started.items()}
        cls.results["resumed"] = _finish(_start(
            "train", "--dataset=oct", f"--data_dir={cls.sample}", "--train_steps=3",
            f"--model_dir={cls.model_dir}", *_TINY, tmpdir=tmp))

    def _ok(self, key):
        code, out, err = self.results[key]
        self.assertEqual(code, 0, err[-3000:])
        return out, err

    def test_the_synthetic_sample_is_written_offline(self):
        code, out, err = self.sample_result
        self.assertEqual((code, err), (0, ""))
        self.assertRegex(out, rf"^Wrote a synthetic sample to {self.sample}: 40 OCT-sized "
                              r"grayscale JPEGs \(10 in each class folder, CNV, DME, DRUSEN, "
                              r"NORMAL; textured noise, not scans\), [0-9.]+ MiB. Train on it "
                              rf"with: python -m estimator_lib.bin.train --dataset=oct "
                              rf"--data_dir={self.sample}\n$")
        self.assertEqual(sorted(os.listdir(self.sample)), ["CNV", "DME", "DRUSEN", "NORMAL"])

    def test_a_run_shows_no_start_up_lines_nor_warnings_of_ours(self):
        for key in ("default", "oct", "resumed", "tfrecords"):
            out, err = self._ok(key)
            for line in err.splitlines():
                self.assertFalse(line.startswith(_NOISE), f"{key}: {line}")
                self.assertNotIn("cuInit", line, key)
                self.assertNotRegex(line, r"Warning|deprecat", key)
        _, err = self._ok("default")
        self.assertStartsWith(err, "INFO:tensorflow:Using MirroredStrategy with devices")

    def test_a_default_run_removes_its_temporary_model_dir_and_says_so(self):
        out, _ = self._ok("default")
        (line,) = [line for line in out.splitlines() if line.startswith("  model_dir")]
        self.assertRegex(line, rf"^  model_dir      {self.default_tmp}/estimator_lib_train_"
                               r"\w+ \(temporary, removed at exit; --model_dir=DIR keeps the "
                               r"checkpoints\)$")
        self.assertEqual(os.listdir(self.default_tmp), [])  # No autograph files either.

    def test_a_resumed_run_says_the_steps_it_ran(self):
        out, _ = self._ok("oct")
        self.assertIn("\n  steps          2 (global step now 2)\n", out)
        self.assertIn("test split", out)
        out, _ = self._ok("resumed")
        self.assertIn("\n  steps          1 this run, resumed from global step 2 "
                      "(--train_steps=3, global step now 3)\n", out)

    def test_make_tfrecords_holds_out_the_test_split_of_dataset_oct(self):
        out, _ = self._ok("tfrecords")
        self.assertIn("20% of each class held out as 'test' (the draw --dataset=oct "
                      "makes).", out)
        self.assertIn("train: 32 examples (CNV 8, DME 8, DRUSEN 8, NORMAL 8)", out)
        self.assertIn("test: 8 examples (CNV 2, DME 2, DRUSEN 2, NORMAL 2)", out)
        _, test = folder_scan.split_listing(
            folder_scan.scan_folder(self.sample, class_names=oct_folder.CLASS_NAMES),
            test_fraction=oct_folder.HOLDOUT_FRACTION, seed=0)
        read = set()
        for path in tf.io.gfile.glob(os.path.join(self.tfrecords, "test-*.tfrecord")):
            for record in tf.data.TFRecordDataset(path):
                example = tf.train.Example.FromString(record.numpy())
                read.add(example.features.feature["image/filename"].bytes_list.value[0])
        self.assertLen(read, 8)
        self.assertEqual(read, {os.path.relpath(f, self.sample).encode() for f in test.files})


if __name__ == "__main__":
    tf.test.main()
