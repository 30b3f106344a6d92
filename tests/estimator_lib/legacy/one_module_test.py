"""One module object per path: importing every recorded path runs no file of ours twice.

one_module_program.py, in a fresh process, imports every module path of
tests/data/tf215_names.json, every route of tf215_routes.json and each submodule of a
package of ours under the original paths where it stands, and reports any estimator_lib
file that ran twice and any alias that is not the one module object.
"""

import json
import os
import subprocess
import sys

import pytest
import tensorflow as tf

pytestmark = pytest.mark.timeout(300)

_PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "one_module_program.py")


def _run(*args):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    process = subprocess.run([sys.executable, _PROGRAM, *args], env=env, capture_output=True,
                             text=True, timeout=240, check=False)
    if process.returncode:
        raise AssertionError(process.stderr[-5000:])
    return json.loads(process.stdout.strip().splitlines()[-1])


class OneModulePerPathTest(tf.test.TestCase):

    def test_no_file_of_ours_runs_twice_and_every_alias_is_one_object(self):
        result = _run()
        self.assertEqual([], result["failures"])
        self.assertGreater(result["files_run"], 100)  # The count saw our imports.
        self.assertGreater(result["paths"], 200)

    def test_without_the_finder_the_second_runs_are_seen(self):
        failures = _run("--without-finder")["failures"]
        self.assertTrue(any("tpu/tpu_estimator_spec.py ran" in f for f in failures), failures)
        self.assertTrue(any(f.startswith("estimator_lib.tpu.util is <module") for f in failures),
                        failures)


if __name__ == "__main__":
    tf.test.main()
