"""`python -m estimator_lib.compat --enable/--disable/--status`, in a fresh venv.

The venv is new (`python -m venv --without-pip`); one .pth file of the test's own
makes this interpreter's packages (TensorFlow, pytest) and estimator_lib's source
importable there, as an install would. Nothing below imports estimator_lib in the
programs it runs: a plain `python prog.py` (and its multiprocessing child, spawned),
`python -m pytest` over a library's test file, each sees tf.estimator all the same.
About a minute on two cores: five fresh interpreters load TensorFlow.
"""

import os
import site
import subprocess
import sys
import tempfile
import textwrap
import unittest

import pytest

import estimator_lib
from estimator_lib.legacy import activation

pytestmark = pytest.mark.timeout(600)

_SRC = os.path.dirname(os.path.dirname(os.path.abspath(estimator_lib.__file__)))
_TIMEOUT_S = 300

_PROGRAM = """\
import multiprocessing
import os
import sys


def child(queue):
    before = "estimator_lib" in sys.modules
    import tensorflow as tf
    queue.put((before, tf.estimator.Estimator.__module__))


if __name__ == "__main__":
    print("estimator_lib before:", "estimator_lib" in sys.modules)
    import tensorflow as tf
    print("tf.estimator:", tf.estimator.Estimator.__module__)
    print("v1:", tf.compat.v1.estimator.Estimator.__module__)
    print("keras:", os.environ.get("TF_USE_LEGACY_KERAS"), tf.keras.__name__.split(".")[0])
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=child, args=(queue,))
    process.start()
    print("child:", queue.get(timeout=240))
    process.join()
"""

# A library's own test file: a model_fn, an Estimator from tensorflow_estimator's path
# (imported before TensorFlow), two training steps.
_LIBRARY_TEST = """\
import sys

from tensorflow_estimator.python.estimator import estimator as estimator_module
import numpy as np
import tensorflow as tf


def model_fn(features, labels, mode):
    weights = tf.compat.v1.get_variable("w", [2, 1])
    predictions = tf.matmul(features["x"], weights)
    loss = tf.compat.v1.losses.mean_squared_error(labels, predictions)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                      predictions=predictions)


def input_fn():
    features = {"x": np.ones((4, 2), np.float32)}
    return tf.data.Dataset.from_tensors((features, np.ones((4, 1), np.float32))).repeat(5)


class LibraryTest(tf.test.TestCase):

    def test_the_estimator_trains(self):
        estimator = estimator_module.Estimator(model_fn, model_dir=self.get_temp_dir())
        estimator.train(input_fn, max_steps=2)
        self.assertEqual(estimator.get_variable_value("global_step"), 2)

    def test_tf_estimator_is_estimator_lib(self):
        self.assertTrue(tf.estimator.Estimator.__module__.startswith("estimator_lib"))
        self.assertIs(sys.modules["tensorflow.estimator"], tf.estimator)
"""

# install() failing (here: stand-in estimator_lib modules whose install raises).
_FAILING_INSTALL = """\
import sys, types
aliases = types.ModuleType("estimator_lib.legacy.aliases")
def install():
    raise RuntimeError("install broke")
aliases.install = install
package = types.ModuleType("estimator_lib")
legacy = types.ModuleType("estimator_lib.legacy")
package.__path__, legacy.__path__ = [], []
package.legacy, legacy.aliases = legacy, aliases
sys.modules.update({"estimator_lib": package, "estimator_lib.legacy": legacy,
                    "estimator_lib.legacy.aliases": aliases})
import tensorflow as tf
print("imported", tf.__version__, hasattr(tf, "estimator"))
"""


class FreshVenvActivationTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        venv = os.path.join(cls._tmp.name, "venv")
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True,
                       timeout=_TIMEOUT_S)
        cls.python = os.path.join(venv, "bin", "python")
        cls.work = os.path.join(cls._tmp.name, "work")
        os.mkdir(cls.work)
        cls.site_dir = cls._python_value("import sysconfig; print(sysconfig.get_path('purelib'))")
        with open(os.path.join(cls.site_dir, "_test_packages.pth"), "w") as f:
            f.write("\n".join([_SRC] + site.getsitepackages()) + "\n")
        cls._run_ok(["-m", "estimator_lib.compat", "--enable"])

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    @classmethod
    def _run(cls, args):
        env = {key: value for key, value in os.environ.items()
               if key not in ("PYTHONPATH", "TF_USE_LEGACY_KERAS", "PYTEST_ADDOPTS")}
        env["TF_CPP_MIN_LOG_LEVEL"] = "2"
        return subprocess.run([cls.python, *args], cwd=cls.work, env=env,
                              capture_output=True, text=True, timeout=_TIMEOUT_S, check=False)

    @classmethod
    def _run_ok(cls, args):
        process = cls._run(args)
        if process.returncode != 0:
            raise AssertionError(f"{args} exited {process.returncode}:\n{process.stdout}\n"
                                 f"{process.stderr[-4000:]}")
        return process

    @classmethod
    def _python_value(cls, code):
        return cls._run_ok(["-c", code]).stdout.strip()

    def _write(self, name, text):
        path = os.path.join(self.work, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_a_program_and_its_spawned_child_see_tf_estimator(self):
        out = self._run_ok([self._write("prog.py", _PROGRAM)]).stdout
        self.assertIn("estimator_lib before: False", out)
        self.assertIn("tf.estimator: estimator_lib.engine.estimator", out)
        self.assertIn("v1: estimator_lib.", out)
        self.assertIn("keras: 1 tf_keras", out)
        self.assertIn("child: (False, 'estimator_lib.engine.estimator')", out)

    def test_a_library_test_file_passes_under_python_m_pytest(self):
        path = self._write("library_test.py", _LIBRARY_TEST)
        process = self._run(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
                             "no:xdist", "-p", "no:randomly", path])
        self.assertEqual(process.returncode, 0, process.stdout[-4000:])
        self.assertIn("2 passed", process.stdout)

    def test_a_process_without_tensorflow_loads_nothing_but_the_stub(self):
        out = self._python_value(
            "import sys; print(sorted(m for m in sys.modules if 'estimator' in m or "
            "m.startswith('tensorflow')), type(sys.meta_path[0]).__name__)")
        self.assertEqual(out, "[] EstimatorLibActivationStub")

    def test_a_failing_install_leaves_import_tensorflow_working_and_says_how_to_disable(self):
        process = self._run_ok(["-c", _FAILING_INSTALL])
        self.assertIn("imported", process.stdout)
        self.assertIn("False", process.stdout)
        self.assertIn("install broke", process.stderr)
        self.assertIn("python -m estimator_lib.compat --disable", process.stderr)
        self.assertEqual(process.stderr.count("estimator_lib activation:"), 1)

    def test_status_then_disable_removes_it(self):
        status = self._run_ok(["-m", "estimator_lib.compat", "--status"]).stdout
        pth = os.path.join(self.site_dir, activation.PTH_NAME)
        self.assertIn("estimator_lib activation: on", status)
        self.assertIn(pth, status)
        self.assertIn("works", status)
        try:
            self._run_ok(["-m", "estimator_lib.compat", "--disable"])
            self.assertFalse(os.path.exists(pth))
            out = self._python_value("import sys; print(type(sys.meta_path[0]).__name__)")
            self.assertNotEqual(out, "EstimatorLibActivationStub")
            self.assertIn("off", self._run_ok(["-m", "estimator_lib.compat", "--status"]).stdout)
        finally:
            self._run_ok(["-m", "estimator_lib.compat", "--enable"])


if __name__ == "__main__":
    unittest.main()
