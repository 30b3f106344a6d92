"""Every binary from the command line: --help works, a bad flag is one line and exit != 0.

The binaries run as real `python -m` processes, all started at once (each one
spends its time importing TensorFlow), so the whole set costs about as much as
the slowest few.
"""

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import types

import pytest
import tensorflow as tf
from absl import app
from absl import flags as absl_flags
from absl.testing import flagsaver

from estimator_lib.bin import cli
from estimator_lib.bin import download_oct
from estimator_lib.bin.jobs import job
from estimator_lib.bin import make_tfrecords
from estimator_lib.bin import scaling_benchmark
from estimator_lib.bin import train

# Eleven binaries start at once in setUpClass: on 2 loaded cores that takes minutes.
pytestmark = pytest.mark.timeout(600)

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
BINARIES = ("train", "scaling_benchmark", "input_benchmark", "download_oct", "make_tfrecords")
# A flag each binary's --help must list (its own key flags, not only absl's).
HELP_FLAG = {"train": "--batch_size_scope", "scaling_benchmark": "--devices",
             "input_benchmark": "--num_images", "download_oct": "--data_dir",
             "make_tfrecords": "--image_format"}


def _start(binary, args, env=None):
    environment = dict(os.environ, **(env or {}))
    environment["PYTHONPATH"] = os.pathsep.join(
        p for p in (_ROOT, environment.get("PYTHONPATH")) if p)
    return subprocess.Popen(
        [sys.executable, "-m", f"estimator_lib.bin.{binary}", *args], cwd=_ROOT,
        env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


class CommandLineTest(tf.test.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.tmp = tempfile.mkdtemp()
        home = os.path.join(cls.tmp, "home")  # No kaggle.json here.
        os.makedirs(home)
        no_kaggle = {"HOME": home, "KAGGLE_USERNAME": "", "KAGGLE_KEY": "",
                     "KAGGLE_API_TOKEN": "", "KAGGLE_CONFIG_DIR": home}
        cases = {
            ("help", binary): (binary, ["--help"], None) for binary in BINARIES}
        cases.update({
            ("bad", "train"): ("train", ["--dataset=imagenet"], None),
            ("bad", "scaling_benchmark"): ("scaling_benchmark", ["--devices=1,two"], None),
            ("bad", "input_benchmark"): (
                "input_benchmark", ["--data_dir=/nonexistent/oct"], None),
            ("bad", "download_oct"): (
                "download_oct", [f"--data_dir={os.path.join(cls.tmp, 'oct')}"], no_kaggle),
            ("bad", "make_tfrecords"): (
                "make_tfrecords", ["--data_dir=/nonexistent/oct",
                                   f"--output_dir={os.path.join(cls.tmp, 'out')}"], None),
            # XLA on CPU must be on before TensorFlow starts: only a fresh process shows it.
            ("run", "train_mixed_xla"): (
                "train", [f"--model_dir={os.path.join(cls.tmp, 'mixed_xla')}", "--num_devices=2",
                          "--dtype=mixed_bfloat16", "--xla", "--train_steps=2", "--batch_size=4",
                          "--eval=false", "--warm_steps=0"], {"TF_CPP_MIN_LOG_LEVEL": "0"}),
        })
        processes = {key: _start(*value) for key, value in cases.items()}
        cls.results = {}
        for key, process in processes.items():
            out, err = process.communicate(timeout=540)
            cls.results[key] = (process.returncode, out, err)

    def _assert_one_line_error(self, key, binary, *patterns):
        code, out, err = self.results[("bad", key)]
        self.assertNotEqual(code, 0, err)
        self.assertNotIn("Traceback", err + out)
        errors = [line for line in err.splitlines() if ": error: " in line]
        self.assertLen(errors, 1, err)
        self.assertTrue(errors[0].startswith(f"estimator_lib.bin.{binary}: error: "), errors)
        self.assertEqual(err.strip().splitlines()[-1], errors[0])
        for pattern in patterns:
            self.assertRegex(errors[0], pattern)

    def test_help_lists_each_binarys_own_flags_and_exits_zero(self):
        for binary in BINARIES:
            code, out, err = self.results[("help", binary)]
            self.assertEqual(code, 0, f"{binary}: {err[-2000:]}")
            self.assertIn(HELP_FLAG[binary], out, binary)
            self.assertIn(f"estimator_lib.bin.{binary}", out, binary)
            self.assertIn("--helpfull", out, binary)

    def test_train_unknown_dataset(self):
        self._assert_one_line_error("train", "train", r"--dataset=imagenet",
                                    r"synthetic\|fashion_mnist\|oct\|tfrecords")

    def test_scaling_benchmark_bad_devices(self):
        self._assert_one_line_error("scaling_benchmark", "scaling_benchmark", "--devices=1,two")

    def test_input_benchmark_missing_data_dir(self):
        self._assert_one_line_error("input_benchmark", "input_benchmark", "/nonexistent/oct")

    def test_download_oct_without_credentials(self):
        self._assert_one_line_error("download_oct", "download_oct",
                                    "No Kaggle credentials found")

    def test_make_tfrecords_missing_data_dir(self):
        self._assert_one_line_error("make_tfrecords", "make_tfrecords", "/nonexistent/oct")

    def test_train_mixed_bfloat16_with_xla_on_two_replicas(self):
        code, out, err = self.results[("run", "train_mixed_xla")]
        self.assertEqual(code, 0, err[-3000:])
        self.assertIn("Compiled cluster using XLA", err)
        with open(os.path.join(self.tmp, "mixed_xla", job.SUMMARY_FILENAME)) as f:
            summary = json.load(f)
        self.assertEqual((summary["dtype"], summary["global_step"], summary["strategy"]),
                         ("mixed_bfloat16", 2, "mirrored"))


class InProcessTest(tf.test.TestCase):
    """cli.run in this process (flags restored after each): the cheaper error cases."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        if not absl_flags.FLAGS.is_parsed():
            absl_flags.FLAGS(["cli_test"])
        app.define_help_flags()

    def _run(self, module, *args):
        out, err = io.StringIO(), io.StringIO()
        with flagsaver.flagsaver(), contextlib.redirect_stdout(out), \
                contextlib.redirect_stderr(err):
            with self.assertRaises(SystemExit) as done:
                cli.run(module.main, program=module.PROGRAM, key_flags=module.KEY_FLAGS,
                        argv=[module.PROGRAM, *args])
        return done.exception.code, out.getvalue(), err.getvalue()

    def _assert_error(self, module, args, *patterns):
        code, _, err = self._run(module, *args)
        self.assertNotEqual(code, 0)
        self.assertLen(err.splitlines(), 1, err)
        self.assertStartsWith(err, f"{module.PROGRAM}: error: ")
        for pattern in patterns:
            self.assertRegex(err, pattern)

    def test_ctrl_c_in_training_and_outside_it(self):
        from estimator_lib.training import preemption  # pylint: disable=import-outside-toplevel

        for error, expected in (
                (preemption.Interrupted(3, "/run"), "estimator_lib.bin.train: Training "
                 "stopped by SIGINT: checkpoint at step 3 written in /run, model_dir lock "
                 "released.\n"),
                (KeyboardInterrupt(), "estimator_lib.bin.train: error: interrupted (Ctrl-C).\n")):
            def main(argv, error=error):
                del argv
                raise error
            binary = types.SimpleNamespace(main=main, PROGRAM=train.PROGRAM,
                                           KEY_FLAGS=train.KEY_FLAGS)
            code, _, err = self._run(binary)
            self.assertEqual((code, err), (130, expected))

    def test_helpfull_lists_every_flag_and_exits_zero(self):
        code, out, _ = self._run(train, "--helpfull")
        self.assertEqual(code, 0)
        for flag in ("--devices", "--cross_device_ops", "--dtype", "--[no]xla", "--flagfile",
                     "--save_summary_steps", "--image_format", "--batch_size_scope"):
            self.assertIn(flag, out)

    def test_unknown_flag_suggests_the_right_one(self):
        self._assert_error(train, ["--datset=oct"], "datset", "dataset")

    def test_missing_data_dir(self):
        self._assert_error(train, ["--dataset=oct"], "--data_dir")

    def test_batch_not_divisible(self):
        self._assert_error(train, ["--num_devices=2", "--batch_size=3",
                                   "--batch_size_scope=global"], "--batch_size=3", "2 replicas")

    def test_flagfile_is_read(self):
        flagfile = os.path.join(self.get_temp_dir(), "bad.flags")
        with open(flagfile, "w") as f:
            f.write("--train_steps=5\n--batch_size=0\n")
        self._assert_error(train, [f"--flagfile={flagfile}"], "--batch_size=0")

    def test_unexpected_argument(self):
        self._assert_error(train, ["extra"], "Unexpected arguments: extra")

    def test_more_devices_than_exist(self):
        self._assert_error(train, ["--num_devices=99"], "--num_devices=99", "no GPU")

    def test_nccl_without_gpus(self):
        if tf.config.list_physical_devices("GPU"):
            self.skipTest("This machine has GPUs.")
        self._assert_error(train, ["--num_devices=2", "--cross_device_ops=nccl"],
                           "nccl needs GPUs")

    def test_strong_scaling_batch_not_divisible(self):
        self._assert_error(scaling_benchmark, ["--devices=1,2", "--scaling=strong",
                                               "--batch_size=3"], "--batch_size=3", "strong")

    def test_download_oct_needs_data_dir(self):
        self._assert_error(download_oct, [], "--data_dir is required")

    def test_make_tfrecords_needs_output_dir(self):
        self._assert_error(make_tfrecords, [f"--data_dir={self.get_temp_dir()}"],
                           "--output_dir is required")


class CommandLineWordsTest(tf.test.TestCase):

    def test_every_remedy_of_datasets_has_its_command_line_words(self):
        from estimator_lib.datasets import errors  # pylint: disable=import-outside-toplevel
        self.assertCountEqual(errors.REMEDIES, cli.COMMAND_LINE_REMEDIES)
        with flagsaver.flagsaver(data_dir="/data/oct"):
            self.assertEqual(
                cli.for_the_command_line(
                    f"x.jpeg is bad. {errors.SKIP_BAD_FILES} to leave such files out. Or "
                    f"{errors.DOWNLOAD_OCT}, or ({errors.USE_SYNTHETIC}). Write it with "
                    f"{errors.CONVERT_TO_TFRECORDS}."),
                "x.jpeg is bad. Pass --on_bad_file=skip to leave such files out. Or python -m "
                "estimator_lib.bin.download_oct --data_dir=/data/oct (add --synthetic_sample "
                "for a small offline sample), or (--dataset=synthetic). Write it with python -m "
                "estimator_lib.bin.make_tfrecords --data_dir=IMAGES --output_dir=/data/oct.")

    def test_each_flag_belongs_to_a_binary(self):
        owners = cli.flag_owners()
        self.assertEqual(owners["devices"], ("estimator_lib.bin.scaling_benchmark",))
        self.assertIn("estimator_lib.bin.train", owners["batch_size"])
        ours = {flag.name for flag in absl_flags.FLAGS.get_flags_for_module(
            "estimator_lib.flags.definitions")}
        self.assertEqual(ours - set(owners), {"num_gpus"})  # An alias; all else is read.


class OneLineTest(tf.test.TestCase):

    def test_joins_lines(self):
        self.assertEqual(cli.one_line(ValueError("a\n  b\n\n")), "a b")
        self.assertEqual(cli.one_line(ValueError("")), "ValueError")

    def test_fail_prints_one_line_and_exits(self):
        stderr = io.StringIO()
        saved, sys.stderr = sys.stderr, stderr
        try:
            with self.assertRaises(SystemExit) as done:
                cli.fail("prog", "bad thing", 3)
        finally:
            sys.stderr = saved
        self.assertEqual(done.exception.code, 3)
        self.assertEqual(stderr.getvalue(), "prog: error: bad thing\n")


if __name__ == "__main__":
    tf.test.main()
