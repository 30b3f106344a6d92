"""conformance/extend.py without the shared harness: one line and exit 1, no traceback.

The harness (../shared/conformance) is not part of the repository; a clone of the
published repository lacks it.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

_EXTEND = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                       "conformance", "extend.py")


def _message(harness):
    return (f"extend.py: needs the shared conformance harness (run_all.py, run_file.py, "
            f"original_tests/ and later/: the tensorflow-estimator v2.15.0 unit tests), "
            f"which is not part of this repository; {harness} holds none. Put the "
            f"project's shared/ folder beside the repository, or name the harness: "
            f"python3 conformance/extend.py DEST HARNESS\n")


class ExtendWithoutHarnessTest(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)

    def _run(self, script, *args):
        return subprocess.run([sys.executable, script, *args], capture_output=True,
                              text=True, timeout=60, check=False)

    def test_a_clone_without_shared_says_what_it_needs(self):
        # A copy of the script in a repository with no shared/ beside it.
        repo = os.path.join(self.tmp, "repo")
        os.makedirs(os.path.join(repo, "conformance"))
        script = shutil.copy(_EXTEND, os.path.join(repo, "conformance"))
        dest = os.path.join(self.tmp, "dest")
        process = self._run(script, dest)
        harness = os.path.join(self.tmp, "shared", "conformance")
        self.assertEqual((process.returncode, process.stdout, process.stderr),
                         (1, "", _message(harness)))
        self.assertFalse(os.path.exists(dest))

    def test_a_named_harness_that_is_not_one_is_refused(self):
        process = self._run(_EXTEND, os.path.join(self.tmp, "dest"), self.tmp)
        self.assertEqual((process.returncode, process.stderr), (1, _message(self.tmp)))


if __name__ == "__main__":
    unittest.main()
