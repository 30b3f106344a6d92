"""`pytest` with xdist workers ends with its summary line: nothing after it (issue #37).

Each worker starts TensorFlow in tests/conftest.py; its C++ start-up lines and the
failed cuInit of a machine without a GPU are hidden there, as the binaries hide them.
Runs pytest as a user does, in a subprocess with two workers, on one small file.
"""

import os
import subprocess
import sys

import pytest
import tensorflow as tf

pytestmark = pytest.mark.timeout(600)  # Two workers each start TensorFlow: minutes under load.

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class QuietWorkersTest(tf.test.TestCase):

    def test_nothing_follows_the_summary_line(self):
        environment = dict(os.environ)
        environment.pop("TF_CPP_MIN_LOG_LEVEL", None)  # As a user's shell has it.
        environment.pop("PYTEST_XDIST_WORKER", None)
        process = subprocess.run(
            [sys.executable, "-m", "pytest", "-n", "2", "-q", "-p", "no:cacheprovider",
             "tests/docs_paths_test.py"],
            cwd=_ROOT, env=environment, capture_output=True, text=True, timeout=540,
            check=False)
        output = (process.stdout + process.stderr).strip().splitlines()
        self.assertEqual(process.returncode, 0, "\n".join(output[-40:]))
        self.assertRegex(output[-1], r"^\d+ passed in ", "\n".join(output[-40:]))
        for line in output:
            self.assertFalse(line.startswith(("I0000", "W0000", "E0000", "WARNING: All log")),
                             line)


if __name__ == "__main__":
    tf.test.main()
