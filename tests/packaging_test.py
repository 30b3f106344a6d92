"""`pip install .` installs nothing top-level but `estimator_lib`, beside Hugging Face `datasets`.

The package lives in `src/estimator_lib` (datasets and flags inside it). Before, the
wheel installed top-level `datasets` and `flags` packages, overwriting Hugging Face
`datasets` (among the most installed packages beside TensorFlow) file for file; and an
editable install of a clone in a folder named `estimator_lib` lost, for a script saved
beside that folder, to the folder itself (an empty namespace package).
"""

import glob
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import unittest
import zipfile
from importlib import metadata

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(*args):
    # Not from the repository root, where `import datasets` would find its folder.
    return subprocess.run(list(args), capture_output=True, text=True, timeout=300,
                          check=True, cwd=tempfile.gettempdir())


class PackagingTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        source = os.path.join(cls.tmp, "source")  # A copy: building writes build/, egg-info.
        shutil.copytree(_ROOT, source, ignore=shutil.ignore_patterns(
            ".venv*", ".git", "__pycache__", "*.egg-info", "build", "tests", "bench", "runs"))
        _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
             "--no-index", "-q", "-w", os.path.join(cls.tmp, "dist"), source)
        cls.wheel = glob.glob(os.path.join(cls.tmp, "dist", "*.whl"))[0]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_the_wheel_holds_only_estimator_lib_at_the_top(self):
        with zipfile.ZipFile(self.wheel) as wheel:
            tops = {name.split("/")[0] for name in wheel.namelist()}
            names = set(wheel.namelist())
        self.assertEqual({t for t in tops if not t.endswith(".dist-info")}, {"estimator_lib"})
        self.assertIn("estimator_lib/datasets/fashion_mnist.py", names)
        self.assertIn("estimator_lib/flags/definitions.py", names)

    def test_hugging_face_datasets_and_estimator_lib_install_and_uninstall_apart(self):
        venv = os.path.join(self.tmp, "venv")
        _run(sys.executable, "-m", "venv", "--without-pip", venv)
        python = os.path.join(venv, "bin", "python")
        site = _run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"
                    ).stdout.strip()
        # Their dependencies (TensorFlow, pyarrow, ...) come from this venv, read-only.
        with open(os.path.join(site, "_deps.pth"), "w") as f:
            f.write(sysconfig.get_paths()["purelib"] + "\n")
        self._install_hugging_face_datasets(site)
        _run(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps",
             "--no-index", "-q", self.wheel)
        both = ("import datasets, estimator_lib.datasets as ours, estimator_lib.flags; "
                "assert callable(datasets.load_dataset), datasets.__file__; "
                "assert ours.__file__.startswith(%r), ours.__file__; "
                "print(ours.fashion_mnist.__name__)" % site)
        self.assertIn("estimator_lib.datasets.fashion_mnist", _run(python, "-c", both).stdout)

        _run(sys.executable, "-m", "pip", "--python", python, "uninstall", "-y", "-q",
             "estimator_lib")
        self.assertFalse(os.path.exists(os.path.join(site, "estimator_lib")))
        _run(python, "-c", "import datasets; assert callable(datasets.load_dataset)")

        _run(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps",
             "--no-index", "-q", self.wheel)
        _run(sys.executable, "-m", "pip", "--python", python, "uninstall", "-y", "-q",
             "datasets")
        self.assertFalse(os.path.exists(os.path.join(site, "datasets")))
        _run(python, "-c", "import estimator_lib.datasets as d; d.fashion_mnist.make_input_fn")

    def test_an_editable_clone_named_estimator_lib_is_not_shadowed_by_its_folder(self):
        """A script beside a clone's folder `estimator_lib` imports the installed package."""
        work = os.path.join(self.tmp, "work")
        clone = os.path.join(work, "estimator_lib")
        shutil.copytree(_ROOT, clone, ignore=shutil.ignore_patterns(
            ".venv*", ".git", "__pycache__", "*.egg-info", "build", "tests", "bench", "runs"))
        venv = os.path.join(self.tmp, "editable")
        _run(sys.executable, "-m", "venv", "--without-pip", venv)
        python = os.path.join(venv, "bin", "python")
        site = _run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"
                    ).stdout.strip()
        with open(os.path.join(site, "_deps.pth"), "w") as f:
            f.write(sysconfig.get_paths()["purelib"] + "\n")
        _run(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps",
             "--no-build-isolation", "--no-index", "-q", "-e", clone)
        with open(os.path.join(work, "script.py"), "w") as f:
            f.write("import estimator_lib\nprint(estimator_lib.__file__)\n")
        printed = subprocess.run([python, "script.py"], capture_output=True, text=True,
                                 timeout=300, check=False, cwd=work,
                                 env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
        self.assertEqual(printed.returncode, 0, printed.stderr[-2000:])
        self.assertEqual(printed.stdout.strip(),
                         os.path.join(clone, "src", "estimator_lib", "__init__.py"))

    @staticmethod
    def _install_hugging_face_datasets(site):
        """Copies the installed Hugging Face `datasets` (files and record) into `site`.

        Installed from the test extras; copied, not downloaded: tests reach no network.
        """
        dist = metadata.distribution("datasets")
        for file in dist.files:
            source = dist.locate_file(file)
            target = os.path.join(site, str(file))
            if os.path.isfile(source) and not str(file).startswith(".."):
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copy2(source, target)


if __name__ == "__main__":
    unittest.main()
