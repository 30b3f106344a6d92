"""`python -m estimator_lib.run SCRIPT [ARGS...]`: unmodified legacy programs run.

The programs in legacy_programs/ are data: the TF1 programs of the official migration
guides and TF1/TF2.x-era scripts, kept as their authors wrote them. Each runs in a
subprocess through the runner with no edit (and without TF_USE_LEGACY_KERAS in its
environment: the runner sets it). The runner's own argument handling runs in-process.
"""

import contextlib
import io
import os
import subprocess
import sys
import tempfile
import textwrap

import pytest
import tensorflow as tf

from estimator_lib import compat
from estimator_lib.legacy import runner

pytestmark = pytest.mark.timeout(600)

_HERE = os.path.dirname(os.path.abspath(__file__))
_REPO = os.path.dirname(os.path.dirname(os.path.dirname(_HERE)))
_PROGRAMS = os.path.join(_HERE, "legacy_programs")
_TIMEOUT_S = 120


def _checkpoint_step(model_dir):
    path = tf.train.latest_checkpoint(model_dir)
    return int(path.rsplit("-", 1)[1]) if path else None


class LegacyProgramsTest(tf.test.TestCase):
    """Each legacy program through `python -m estimator_lib.run`, in a fresh process."""

    def _run(self, program, *args):
        """Runs legacy_programs/`program` with `args`; returns (process, its TMPDIR)."""
        tmpdir = tempfile.mkdtemp(dir=self.get_temp_dir())
        env = {key: value for key, value in os.environ.items()
               if key not in ("TF_USE_LEGACY_KERAS", "TF_CONFIG")}
        env.update(TMPDIR=tmpdir, TF_CPP_MIN_LOG_LEVEL="1",
                   PYTHONPATH=os.pathsep.join(filter(None, [_REPO, env.get("PYTHONPATH")])))
        process = subprocess.run(
            [sys.executable, "-m", "estimator_lib.run", os.path.join(_PROGRAMS, program),
             *args],
            cwd=tmpdir, env=env, capture_output=True, text=True, timeout=_TIMEOUT_S,
            check=False)
        return process, tmpdir

    def _assert_ok(self, process):
        self.assertEqual(process.returncode, 0,
                         f"stdout:\n{process.stdout}\nstderr:\n{process.stderr[-5000:]}")

    def _temporary_model_dir(self, tmpdir):
        """The model_dir an Estimator built without one created under TMPDIR."""
        (name,) = [n for n in os.listdir(tmpdir) if n.startswith("tmp")]
        return os.path.join(tmpdir, name)

    def test_guide_program_timing_session_run_hook(self):
        process, tmpdir = self._run("sessionrunhook_timing.py")
        self._assert_ok(process)
        self.assertRegex(process.stdout, r"Step #: 0 , Examples per second: [0-9.]+")
        self.assertIn("Using temporary folder as model directory", process.stderr)
        # Three examples, batch 1, one epoch.
        self.assertEqual(_checkpoint_step(self._temporary_model_dir(tmpdir)), 3)

    def test_guide_program_logging_and_stop_at_step_hooks(self):
        process, tmpdir = self._run("logging_stop_hook.py")
        self._assert_ok(process)
        # StopAtStepHook(num_steps=2) in training_hooks stops the 3-step epoch early.
        self.assertEqual(_checkpoint_step(self._temporary_model_dir(tmpdir)), 2)

    def test_hook_library_subclassing_at_import_time(self):
        model_dir = os.path.join(self.get_temp_dir(), "keras_program")
        process, _ = self._run("keras_estimator_program.py", model_dir)
        self._assert_ok(process)
        self.assertRegex(process.stdout, r"examples/sec: [0-9.e+]+ \(global step \d+\)")
        self.assertIn("StepCountingHook saw 6 runs", process.stdout)
        self.assertIn("final metrics: global_step=6", process.stdout)
        self.assertTrue(os.path.exists(os.path.join(model_dir, "export", "marker",
                                                    "exported_step_6")))

    def test_absl_app_program_parses_its_own_flags(self):
        model_dir = os.path.join(self.get_temp_dir(), "absl_program")
        export_dir = os.path.join(self.get_temp_dir(), "absl_export")
        process, _ = self._run("absl_app_program.py", f"--model_dir={model_dir}",
                               "--train_steps=3", f"--export_dir={export_dir}")
        self._assert_ok(process)
        self.assertIn("eval results: global_step=3", process.stdout)
        self.assertEqual(_checkpoint_step(model_dir), 3)
        self.assertIn("logged_loss = ", process.stderr)  # LoggingTensorHook, INFO on
        self.assertIn("export_savedmodel", process.stderr)  # the deprecation warning
        (exported,) = tf.io.gfile.listdir(export_dir)
        self.assertTrue(tf.saved_model.contains_saved_model(
            os.path.join(export_dir, exported)))

    def test_absl_flag_errors_give_the_scripts_exit_status(self):
        process, _ = self._run("absl_app_program.py", "--train_steps=3")
        self.assertEqual(process.returncode, 1)
        self.assertIn("--model_dir", process.stderr)
        self.assertNotIn("Traceback", process.stderr)


class ModuleProgramTest(tf.test.TestCase):
    """`python -m estimator_lib.run -m PACKAGE.MODULE`, as a user runs it: quiet start."""

    def test_a_package_module_with_relative_imports_runs_as_python_m_runs_it(self):
        tmpdir = tempfile.mkdtemp(dir=self.get_temp_dir())
        package = os.path.join(tmpdir, "legacy_pkg")
        os.makedirs(package)
        files = {
            "__init__.py": "",
            "helper.py": "GREETING = 'hello from helper'\n",
            "main.py": """\
                import sys
                import tensorflow as tf
                from .helper import GREETING
                tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)
                tf.compat.v1.logging.info("the program's own log line")
                print(GREETING, __name__, sys.argv[1:], sys.argv[0].endswith("main.py"),
                      tf.estimator.ModeKeys.TRAIN)
                """,
        }
        for name, body in files.items():
            with open(os.path.join(package, name), "w") as f:
                f.write(textwrap.dedent(body))
        env = {key: value for key, value in os.environ.items()
               if key not in ("TF_USE_LEGACY_KERAS", "TF_CONFIG", "TF_CPP_MIN_LOG_LEVEL")}
        env.update(TMPDIR=tmpdir,
                   PYTHONPATH=os.pathsep.join(filter(None, [_REPO, env.get("PYTHONPATH")])))
        process = subprocess.run(
            [sys.executable, "-m", "estimator_lib.run", "-m", "legacy_pkg.main", "--a=1", "b"],
            cwd=tmpdir, env=env, capture_output=True, text=True, timeout=_TIMEOUT_S,
            check=False)
        self.assertEqual(process.returncode, 0, process.stderr[-3000:])
        self.assertEqual(process.stdout,
                         "hello from helper __main__ ['--a=1', 'b'] True train\n")
        # The program's own logging, and none of TensorFlow's start-up lines (nor, on a
        # machine without a GPU, its failed cuInit).
        self.assertEqual(process.stderr, "INFO:tensorflow:the program's own log line\n")
        self.assertEqual(sorted(os.listdir(tmpdir)), ["legacy_pkg"])  # Nothing left behind.


class RunnerTest(tf.test.TestCase):
    """runner.main in this process, on tiny scripts that import no TensorFlow."""

    def setUp(self):
        super().setUp()
        self.addCleanup(compat.uninstall)

    def _script(self, body, name="script.py"):
        directory = tempfile.mkdtemp(dir=self.get_temp_dir())
        path = os.path.join(directory, name)
        with open(path, "w") as f:
            f.write(textwrap.dedent(body))
        return path

    def _main(self, argv):
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            try:
                status = runner.main(argv)
            except SystemExit as exit_:
                status = exit_.code
        return status, stdout.getvalue(), stderr.getvalue()

    def test_no_script_is_a_usage_error(self):
        status, _, stderr = self._main(["estimator_lib.run"])
        self.assertEqual(status, 2)
        self.assertIn("no script given", stderr)
        self.assertIn(runner.USAGE, stderr)

    def test_missing_script_is_a_usage_error(self):
        status, _, stderr = self._main(["estimator_lib.run", "no_such_script.py", "--x"])
        self.assertEqual(status, 2)
        self.assertIn("cannot find script 'no_such_script.py'", stderr)
        self.assertIn(runner.USAGE, stderr)

    def test_a_missing_module_is_a_usage_error(self):
        status, _, stderr = self._main(["estimator_lib.run", "-m", "no_such_pkg.module"])
        self.assertEqual(status, 2)
        self.assertIn("estimator_lib.run: no module named 'no_such_pkg.module'", stderr)
        self.assertIn(runner.USAGE, stderr)
        status, _, stderr = self._main(["estimator_lib.run", "-m"])
        self.assertEqual((status, stderr.splitlines()[0]),
                         (2, "estimator_lib.run: -m needs a module name."))

    def test_help(self):
        status, stdout, _ = self._main(["estimator_lib.run", "--help"])
        self.assertEqual(status, 0)
        self.assertIn(runner.USAGE, stdout)

    def test_main_semantics_argv_and_path(self):
        path = self._script("""
            import os, sys
            print("name", __name__)
            print("argv", sys.argv)
            print("path0", sys.path[0])
            print("keras", os.environ["TF_USE_LEGACY_KERAS"])
            import tensorflow as tf
            print("estimator", tf.estimator.Estimator.__module__)
            if __name__ == "__main__":
                print("ran as main")
        """)
        saved_argv, saved_path0 = list(sys.argv), sys.path[0]
        status, stdout, _ = self._main(["estimator_lib.run", path, "--flag=1", "pos"])
        self.assertEqual(status, 0)
        self.assertIn("name __main__", stdout)
        self.assertIn(f"argv {[path, '--flag=1', 'pos']}", stdout)
        self.assertIn(f"path0 {os.path.dirname(path)}", stdout)
        self.assertIn("keras 1", stdout)
        self.assertIn("estimator estimator_lib.engine.estimator", stdout)
        self.assertIn("ran as main", stdout)
        self.assertEqual(sys.argv, saved_argv)
        self.assertEqual(sys.path[0], saved_path0)

    def test_sibling_modules_import_from_the_script_directory(self):
        path = self._script("import sibling_module\nprint(sibling_module.VALUE)\n")
        with open(os.path.join(os.path.dirname(path), "sibling_module.py"), "w") as f:
            f.write("VALUE = 'sibling found'\n")
        status, stdout, _ = self._main(["estimator_lib.run", path])
        self.assertEqual(status, 0)
        self.assertIn("sibling found", stdout)
        sys.modules.pop("sibling_module", None)

    def test_exit_status_is_the_scripts(self):
        path = self._script("import sys\nsys.exit(int(sys.argv[1]))\n")
        for code in (0, 3, 42):
            status, _, _ = self._main(["estimator_lib.run", path, str(code)])
            self.assertEqual(status, code)

    def test_exceptions_propagate(self):
        path = self._script("raise KeyError('from the script')\n")
        with self.assertRaisesRegex(KeyError, "from the script"):
            runner.main(["estimator_lib.run", path])


if __name__ == "__main__":
    tf.test.main()
