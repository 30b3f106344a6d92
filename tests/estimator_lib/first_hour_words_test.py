"""Issue 47, parts 2 and 6: the exact words a newcomer meets.

- README's "Use" example names the real route of model_to_estimator;
- `tf.estimator.model_to_estimator` (under install/activation) raises an
  AttributeError that says where model_to_estimator lives, as a path one can type;
- MIGRATION.md says a module-level `tf.compat.v1.placeholder` fails under TF 2's
  eager default, with the one-line change;
- docs/activation.md says TensorFlow's own start-up lines are printed as TensorFlow
  prints them under plain `python prog.py`;
- `python -m estimator_lib.compat --enabel` suggests `--enable`;
- `train --batch_size=abc` says which flag wants an integer.
"""

import os
import subprocess
import sys

import tensorflow as tf
from absl import flags as absl_flags

from estimator_lib import compat
from estimator_lib.bin import cli
from estimator_lib.legacy import activation

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _read(*parts):
    with open(os.path.join(_ROOT, *parts), encoding="utf-8") as f:
        return " ".join(f.read().split())


class DocsWordsTest(tf.test.TestCase):

    def test_readme_names_the_real_route(self):
        readme = _read("README.md")
        self.assertIn("est = estimator.model_to_estimator(model, config=config) "
                      "# was: tf.keras.estimator.model_to_estimator", readme)

    def test_migration_says_a_module_level_placeholder_fails(self):
        text = _read("docs", "MIGRATION.md")
        self.assertIn("A placeholder built at module level fails under TF 2's eager "
                      "default.", text)
        self.assertIn("`RuntimeError: tf.placeholder() is not compatible with eager "
                      "execution.`", text)
        self.assertIn("The one-line change is to move that line into the function that "
                      "uses it", text)

    def test_activation_says_start_up_lines_are_tensorflows(self):
        text = _read("docs", "activation.md")
        self.assertIn("Under plain `python prog.py` TensorFlow's own start-up lines", text)
        self.assertIn("are printed as TensorFlow prints them", text)


class ModelToEstimatorRouteTest(tf.test.TestCase):

    def test_the_error_says_where_model_to_estimator_lives(self):
        was_installed = compat.is_installed()
        compat.install()
        try:
            with self.assertRaises(AttributeError) as raised:
                tf.estimator.model_to_estimator  # pylint: disable=pointless-statement
            with self.assertRaises(AttributeError) as other:
                tf.compat.v1.estimator.no_such_name  # pylint: disable=pointless-statement
        finally:
            if not was_installed:
                compat.uninstall()
        self.assertEqual(
            "module 'tensorflow_estimator.python.estimator.api._v2.estimator' has no "
            "attribute 'model_to_estimator' (nor had TF 2.15's); use "
            "tf.keras.estimator.model_to_estimator (with tf_keras), or "
            "estimator_lib.model_to_estimator", str(raised.exception))
        self.assertEqual("module 'tensorflow_estimator.python.estimator.api._v1.estimator' "
                         "has no attribute 'no_such_name'", str(other.exception))


class CommandLineWordsTest(tf.test.TestCase):

    def test_compat_suggests_the_option_meant(self):
        done = subprocess.run([sys.executable, "-m", "estimator_lib.compat", "--enabel"],
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(2, done.returncode)
        self.assertIn("python -m estimator_lib.compat: error: unrecognized argument "
                      "--enabel: did you mean --enable?", done.stderr)

    def test_compat_leaves_unrelated_arguments_to_argparse(self):
        with self.assertRaises(SystemExit):
            activation.main(["--frobnicate"])  # argparse's own "required" error

    def test_a_number_flag_given_text_names_the_flag_and_the_type(self):
        self.assertEqual(
            "flag --batch_size=abc: --batch_size wants an integer, not 'abc'",
            cli.bad_value_message(absl_flags.IllegalFlagValueError(
                "flag --batch_size=abc: invalid literal for int() with base 10: 'abc'")))
        self.assertEqual(
            "flag --learning_rate=x: --learning_rate wants a number, not 'x'",
            cli.bad_value_message(absl_flags.IllegalFlagValueError(
                "flag --learning_rate=x: could not convert string to float: 'x'")))

    def test_train_batch_size_abc(self):
        done = subprocess.run([sys.executable, "-m", "estimator_lib.bin.train",
                               "--batch_size=abc"], capture_output=True, text=True,
                              timeout=120)
        self.assertNotEqual(0, done.returncode)
        self.assertIn("--batch_size wants an integer, not 'abc'", done.stderr)
        self.assertNotIn("invalid literal", done.stderr)


class SummaryTimesTest(tf.test.TestCase):
    """Issue 47 part 4: "total time" had two meanings; the summary now names both."""

    def test_one_definition_named_in_the_summary(self):
        import types  # pylint: disable=import-outside-toplevel
        from estimator_lib.bin.jobs import job  # pylint: disable=import-outside-toplevel

        times = job.JobSummary.times(types.SimpleNamespace(
            train_secs=4.8, total_secs=9.0, process_secs=11.1))
        self.assertEqual("training 4.8 s, process 11.1 s", times)
        process = job.process_seconds()
        self.assertIsNotNone(process)  # Linux: /proc is there
        self.assertGreater(process, 0.0)
        with open(os.path.join(_ROOT, "docs", "binaries.md"), encoding="utf-8") as f:
            self.assertIn("time           training 8.2 s, process 11.1 s", f.read())


class SummaryDataTest(tf.test.TestCase):
    """Issue 47 part 5: synthetic data named as such, the chance level beside accuracy."""

    def test_synthetic_and_chance_words(self):
        from estimator_lib.bin import train  # pylint: disable=import-outside-toplevel
        from absl.testing import flagsaver  # pylint: disable=import-outside-toplevel
        import contextlib  # pylint: disable=import-outside-toplevel
        import io  # pylint: disable=import-outside-toplevel
        import tempfile  # pylint: disable=import-outside-toplevel

        if not absl_flags.FLAGS.is_parsed():
            absl_flags.FLAGS(["first_hour_words_test"])
        out = io.StringIO()
        model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        with flagsaver.flagsaver(model_dir=model_dir, train_steps=2, batch_size=8,
                                 eval_steps=1, warm_steps=1, log_steps=1, num_devices=1), \
                contextlib.redirect_stdout(out):
            train.main(["train"])
        printed = out.getvalue()
        self.assertIn("model          cnn on synthetic (generated data, not Fashion-MNIST: "
                      "--dataset=fashion_mnist reads the real one), float32", printed)
        self.assertIn("(chance 0.1000 for 10 classes; loss ", printed)


if __name__ == "__main__":
    tf.test.main()
