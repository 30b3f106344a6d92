"""A user's first hour with the binaries, each case a real `python -m` process.

Fast, quiet --help; another binary's flag refused naming it; remedies named as flags;
a corrupt JPEG named (or skipped); an unwritable or locked model_dir in one line;
SIGTERM mid-training: checkpoint, lock released, exit 143; a plain CLASS/*.jpeg
folder trains with --dataset=oct; a model_dir already at the step trains nothing;
the training loss is logged as `loss`, often enough to draw a curve.
"""

import glob
import json
import os
import socket
import subprocess
import sys
import tempfile

import numpy as np
import pytest
import tensorflow as tf
from tensorflow.core.util import event_pb2

from estimator_lib.datasets import synthetic
from estimator_lib.training import checkpoints
from estimator_lib.training import model_dir_lock
from tests.datasets import fixtures

# Eight binaries start at once in setUpClass: on 2 loaded cores that takes minutes.
pytestmark = pytest.mark.timeout(600)

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
_NOISE = ("I0000", "W0000", "WARNING: All log messages")
_TINY = ["--image_size=32", "--batch_size=2", "--warm_steps=0", "--log_steps=1"]


def _start(binary, *args, env=None):
    environment = dict(os.environ, **(env or {}))
    environment.pop("TF_CPP_MIN_LOG_LEVEL", None)  # The binaries' own default.
    environment["PYTHONPATH"] = os.pathsep.join(
        p for p in (_ROOT, environment.get("PYTHONPATH")) if p)
    return subprocess.Popen(
        [sys.executable, "-m", f"estimator_lib.bin.{binary}", *args], cwd=_ROOT,
        env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _corrupt_jpeg(path):
    """A JPEG whose header and end marker are intact and whose data is garbage."""
    source = synthetic.write_textured_jpegs(tempfile.mkdtemp(), count=1, height=64,
                                            width=64)[0]
    with open(source, "rb") as f:
        data = bytearray(f.read())
    data[400:-2] = np.random.RandomState(0).randint(
        0, 256, len(data) - 402).astype(np.uint8).tobytes()
    with open(path, "wb") as f:
        f.write(bytes(data))


def _loss_steps(model_dir):
    steps = {}
    for path in glob.glob(os.path.join(model_dir, "events.out.tfevents.*")):
        for record in tf.data.TFRecordDataset(path):
            event = event_pb2.Event.FromString(record.numpy())
            for value in event.summary.value:
                steps.setdefault(value.tag, []).append(event.step)
    return steps


class FirstHourTest(tf.test.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.tmp = tmp = tempfile.mkdtemp()
        oct_dir = os.path.join(tmp, "oct")
        for split in ("train", "test"):
            fixtures.write_image_folder(os.path.join(oct_dir, split), per_class=2)
        cls.corrupt = os.path.join(oct_dir, "train", "CNV", "corrupt.jpeg")
        _corrupt_jpeg(cls.corrupt)
        cls.plain = os.path.join(tmp, "plain")  # CLASS/*.jpeg, as the OCT sample.
        fixtures.write_image_folder(cls.plain, per_class=3)
        a_file = os.path.join(tmp, "a_file")
        open(a_file, "w").close()
        cls.locked = os.path.join(tmp, "locked")
        os.makedirs(cls.locked)
        with open(os.path.join(cls.locked, model_dir_lock.LOCK_NAME), "w") as f:
            json.dump({"pid": os.getpid(), "host": socket.gethostname(), "started": 0}, f)
        cls.empty = os.path.join(tmp, "empty")
        os.makedirs(cls.empty)
        cls.plain_model_dir = os.path.join(tmp, "plain_run")
        cases = {
            "help": ("train", "--help"),
            "foreign": ("train", "--devices=4"),
            "no_oct": ("train", "--dataset=oct", f"--data_dir={cls.empty}"),
            "not_writable": ("train", f"--model_dir={a_file}/run", "--train_steps=1"),
            "locked": ("train", f"--model_dir={cls.locked}", "--train_steps=1"),
            "corrupt": ("train", "--dataset=oct", f"--data_dir={oct_dir}", "--train_steps=20",
                        f"--model_dir={os.path.join(tmp, 'corrupt_run')}", *_TINY),
            "corrupt_skipped": (
                "train", "--dataset=oct", f"--data_dir={oct_dir}", "--train_steps=3",
                "--on_bad_file=skip", f"--model_dir={os.path.join(tmp, 'skip_run')}", *_TINY),
            "plain": ("train", "--dataset=oct", f"--data_dir={cls.plain}", "--train_steps=12",
                      f"--model_dir={cls.plain_model_dir}", *_TINY),
        }
        cls.results = {}
        started = {key: _start(*args) for key, args in cases.items()}
        for key, process in started.items():
            out, err = process.communicate(timeout=540)
            cls.results[key] = (process.returncode, out, err)
        # Then again on the finished run's model_dir, with a lower step.
        again = _start("train", "--dataset=oct", f"--data_dir={cls.plain}", "--train_steps=5",
                       f"--model_dir={cls.plain_model_dir}", *_TINY)
        out, err = again.communicate(timeout=300)
        cls.results["again"] = (again.returncode, out, err)

    def _error_line(self, key, code):
        returncode, out, err = self.results[key]
        self.assertEqual(returncode, code, err[-3000:])
        self.assertNotIn("Traceback", out + err)
        lines = err.strip().splitlines()
        self.assertLen([line for line in lines if ": error: " in line], 1, err[-3000:])
        return lines[-1]

    def test_help_is_quiet(self):
        code, out, err = self.results["help"]
        self.assertEqual(code, 0, err)
        self.assertIn("--batch_size_scope", out)
        for line in (out + err).splitlines():
            self.assertFalse(line.startswith(_NOISE), line)
        # That it answers before TensorFlow loads (~0.1 s): first_hour_quiet_test, with a
        # TensorFlow that refuses to import; a wall-clock bound here failed under load.

    def test_a_flag_of_another_binary_is_refused_naming_it(self):
        self.assertEqual(
            self._error_line("foreign", 2),
            "estimator_lib.bin.train: error: estimator_lib.bin.train does not take --devices "
            "(a flag of estimator_lib.bin.scaling_benchmark); --help lists the flags it takes.")

    def test_remedies_are_named_as_commands(self):
        line = self._error_line("no_oct", 1)
        self.assertIn(f"and no CLASS/*.jpeg folders. Download it with python -m "
                      f"estimator_lib.bin.download_oct --data_dir={self.empty} (add "
                      f"--synthetic_sample for a small offline sample).", line)
        self.assertNotIn("download_oct(data_dir)", line)

    def test_unwritable_model_dir_is_one_line(self):
        self.assertRegex(self._error_line("not_writable", 1),
                         r"^estimator_lib.bin.train: error: Cannot write into "
                         r"--model_dir=.*a_file/run \(.*\)")

    def test_locked_model_dir_is_one_line(self):
        self.assertRegex(self._error_line("locked", 1),
                         rf"^estimator_lib.bin.train: error: model_dir {self.locked} is in use "
                         rf"by another training \(pid {os.getpid()} on ")

    def test_a_corrupt_jpeg_is_named_when_the_folder_is_scanned(self):
        self.assertEqual(
            self._error_line("corrupt", 1),
            f"estimator_lib.bin.train: error: {self.corrupt} is a bad image: corrupt JPEG. "
            f"Pass --on_bad_file=skip to leave such files out.")
        _, _, err = self.results["corrupt"]
        self.assertNotIn("JPEG data", err)  # libjpeg's own `Corrupt JPEG data: ...` lines.
        self.assertNotIn("Unsupported marker", err)
        self.assertNotIn("loss = ", err)  # Found before training started.

    def test_a_corrupt_jpeg_is_skipped_named_and_counted_with_on_bad_file_skip(self):
        code, out, err = self.results["corrupt_skipped"]
        self.assertEqual(code, 0, err[-3000:])
        self.assertIn("global step now 3", out)
        # 2 per class in train, the corrupt file left out: 8 images.
        self.assertIn(f"  skipped        1 bad file(s) left out, 8 training images used: "
                      f"{self.corrupt} (corrupt JPEG)\n", out)
        self.assertIn(f"; skipped 1 (1 corrupt JPEG): {self.corrupt} (corrupt JPEG).", err)
        train_dir = os.path.dirname(os.path.dirname(self.corrupt))
        self.assertIn(f"Data: oct (8 training images in {train_dir}, resized to 32x32; 1 bad "
                      f"file(s) left out: {self.corrupt} (corrupt JPEG))", err)
        self.assertNotIn("JPEG data", err)
        self.assertNotIn("Unsupported marker", err)

    def test_a_plain_class_folder_trains_and_evaluates(self):
        code, out, err = self.results["plain"]
        self.assertEqual(code, 0, err[-3000:])
        self.assertIn("cnn on oct", out)
        self.assertIn("test split", out)
        for line in err.splitlines():
            self.assertFalse(line.startswith(_NOISE), line)

    def test_training_loss_is_logged_as_loss_often_enough_for_a_curve(self):
        tags = _loss_steps(self.plain_model_dir)
        self.assertNotIn("loss_1", tags)
        self.assertEqual(tags["loss"], [1, 11])  # Every 10 steps (the binaries' default).

    def test_a_model_dir_already_at_the_step_trains_nothing(self):
        code, out, err = self.results["again"]
        self.assertEqual(code, 0, err[-3000:])
        self.assertIn(f"model_dir {self.plain_model_dir} is already at step 12 "
                      f"(--train_steps=5): nothing to train.", err)
        self.assertIn("global step now 12", out)
        # Keras checkpoints hold no `global_step` key: the step is in the name.
        self.assertEndsWith(tf.train.latest_checkpoint(self.plain_model_dir), "-12")

    def test_sigterm_checkpoints_releases_the_lock_and_exits_143(self):
        model_dir = os.path.join(self.tmp, "sigterm")
        process = _start("train", f"--model_dir={model_dir}", "--train_steps=100000",
                         "--batch_size=8", "--log_steps=1", "--eval=false")
        lines = []
        for line in process.stderr:
            lines.append(line)
            if "loss = " in line:  # Training runs.
                process.terminate()  # SIGTERM
                break
        rest = process.stderr.read()
        process.wait(timeout=120)
        err = "".join(lines) + rest
        self.assertEqual(process.returncode, 143, err[-3000:])
        step = int(tf.train.latest_checkpoint(model_dir).rsplit("-", 1)[-1])
        self.assertGreater(step, 0)
        self.assertEqual(
            err.strip().splitlines()[-1],
            f"estimator_lib.bin.train: Training stopped by SIGTERM: checkpoint at step "
            f"{step} written in {model_dir}, model_dir lock released; exiting with status 143.")
        self.assertFalse(os.path.exists(os.path.join(model_dir, model_dir_lock.LOCK_NAME)))
        self.assertNotIn("Traceback", err)


if __name__ == "__main__":
    tf.test.main()
