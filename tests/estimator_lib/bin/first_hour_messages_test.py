"""Every user error of the binaries names what arrived and a command the user can type
(issue #37), each case a real `python -m` process, checked line for line.

- a --data_dir that is a file is called a file, not missing, with what was expected;
- remedies are commands (`python -m estimator_lib.bin.make_tfrecords ...`,
  `download_oct ... --synthetic_sample`), never the Python functions datasets/ names.
"""

import os
import re
import subprocess
import sys
import tempfile

import pytest
import tensorflow as tf

from tests.datasets import fixtures

pytestmark = pytest.mark.timeout(600)  # Binaries started at once: minutes under load.

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
_IMAGES = ("a folder of CLASS/*.jpeg images or an OCT2017 download (python -m "
           "estimator_lib.bin.download_oct --data_dir=DIR --synthetic_sample writes a small "
           "one)")
_TFRECORDS = ("a folder of TFRecords (python -m estimator_lib.bin.make_tfrecords "
              "--data_dir=IMAGES --output_dir=DIR writes one)")
# A command or a flag setting the user can type.
_COMMAND = re.compile(r"python -m estimator_lib\.bin\.\w+ --\w+|--\w+=\w+")


def _start(binary, *args, tmpdir, no_tensorflow=None):
    environment = dict(os.environ, TMPDIR=tmpdir)
    environment.pop("TF_CPP_MIN_LOG_LEVEL", None)  # The binaries' own default.
    paths = [no_tensorflow, _ROOT, environment.get("PYTHONPATH")]
    environment["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    return subprocess.Popen(
        [sys.executable, "-m", f"estimator_lib.bin.{binary}", *args], cwd=tmpdir,
        env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


class MessagesTest(tf.test.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.tmp = tmp = tempfile.mkdtemp()
        # Errors found before TensorFlow loads run with a `tensorflow` that cannot load.
        no_tensorflow = os.path.join(tmp, "no_tensorflow")
        os.makedirs(os.path.join(no_tensorflow, "tensorflow"))
        with open(os.path.join(no_tensorflow, "tensorflow", "__init__.py"), "w") as f:
            f.write("raise ImportError('TensorFlow was loaded before the user error')\n")
        cls.a_file = os.path.join(tmp, "myprog.py")
        with open(cls.a_file, "w") as f:
            f.write("print('a program, not data')\n")
        cls.missing = os.path.join(tmp, "missing")
        cls.empty = os.path.join(tmp, "empty")
        os.makedirs(cls.empty)
        cls.train_only = os.path.join(tmp, "train_only")
        fixtures.write_image_folder(os.path.join(cls.train_only, "OCT2017", "train"),
                                    per_class=1)
        cls.not_writable = os.path.join(cls.a_file, "run")
        before = {
            "train_oct_file": ("train", "--dataset=oct", f"--data_dir={cls.a_file}"),
            "train_tfrecords_file": ("train", "--dataset=tfrecords",
                                     f"--data_dir={cls.a_file}"),
            "train_fashion_missing": ("train", "--dataset=fashion_mnist",
                                      f"--data_dir={cls.missing}"),
            "make_tfrecords_file": ("make_tfrecords", f"--data_dir={cls.a_file}",
                                    "--output_dir=out"),
            "input_benchmark_file": ("input_benchmark", f"--data_dir={cls.a_file}"),
        }
        after = {
            "train_tfrecords_empty": ("train", "--dataset=tfrecords",
                                      f"--data_dir={cls.empty}", "--model_dir=run_t"),
            "train_oct_empty": ("train", "--dataset=oct", f"--data_dir={cls.empty}",
                                "--model_dir=run_o"),
            "make_tfrecords_no_split": ("make_tfrecords", f"--data_dir={cls.train_only}",
                                        "--output_dir=out", "--splits=test,val"),
            "train_not_writable": ("train", f"--model_dir={cls.not_writable}",
                                   "--train_steps=1"),
        }
        started = {key: _start(*args, tmpdir=tmp, no_tensorflow=no_tensorflow)
                   for key, args in before.items()}
        started.update({key: _start(*args, tmpdir=tmp) for key, args in after.items()})
        cls.results = {}
        for key, process in started.items():
            out, err = process.communicate(timeout=540)
            cls.results[key] = (process.returncode, out, err)

    def _assert_line(self, key, code, line):
        returncode, out, err = self.results[key]
        self.assertEqual((returncode, err.strip().splitlines()[-1:]), (code, [line]), err)
        self.assertNotIn("Traceback", out + err)
        self.assertRegex(line, _COMMAND)

    def test_a_data_dir_that_is_a_file_is_called_a_file(self):
        for key, binary, expected in (
                ("train_oct_file", "train", _IMAGES),
                ("train_tfrecords_file", "train", _TFRECORDS),
                ("make_tfrecords_file", "make_tfrecords", _IMAGES),
                ("input_benchmark_file", "input_benchmark", _IMAGES)):
            self._assert_line(key, 2, f"estimator_lib.bin.{binary}: error: --data_dir="
                                      f"{self.a_file} is a file, not a folder; expected "
                                      f"{expected}.")

    def test_a_missing_fashion_mnist_folder_says_what_works(self):
        self._assert_line(
            "train_fashion_missing", 2, f"estimator_lib.bin.train: error: --data_dir="
            f"{self.missing} does not exist; expected a folder for Fashion-MNIST's files "
            "(create it, and they are downloaded into it; --dataset=synthetic needs none).")

    def test_an_empty_tfrecords_folder_names_make_tfrecords(self):
        metadata = os.path.join(self.empty, "train.metadata.json")
        self._assert_line(
            "train_tfrecords_empty", 1, f"estimator_lib.bin.train: error: No TFRecord "
            f"conversion 'train' in {self.empty}: {metadata} is missing (the conversion did "
            "not finish, or never ran). Write it with python -m "
            f"estimator_lib.bin.make_tfrecords --data_dir=IMAGES --output_dir={self.empty}.")

    def test_an_empty_oct_folder_names_every_layout_that_works(self):
        expected = os.path.join(self.empty, "OCT2017", "train", "CNV", "*.jpeg")
        self._assert_line(
            "train_oct_empty", 1, f"estimator_lib.bin.train: error: `data_dir` {self.empty} "
            f"holds no OCT2017 folder with train/test/val splits (expected {expected}) and no "
            "CLASS/*.jpeg folders. Download it with python -m estimator_lib.bin.download_oct "
            f"--data_dir={self.empty} (add --synthetic_sample for a small offline sample).")


    def test_a_folder_without_the_asked_splits_names_those_it_holds(self):
        self._assert_line(
            "make_tfrecords_no_split", 2, f"estimator_lib.bin.make_tfrecords: error: "
            f"--data_dir={self.train_only} holds none of the splits --splits=test,val; it "
            "holds --splits=train.")

    def test_an_unwritable_model_dir_says_what_to_pass(self):
        self._assert_line(
            "train_not_writable", 1, f"estimator_lib.bin.train: error: Cannot write into "
            f"--model_dir={self.not_writable} (Not a directory). Training needs a writable "
            "model_dir for its checkpoints: pass --model_dir=DIR, a folder you can write.")


if __name__ == "__main__":
    tf.test.main()
