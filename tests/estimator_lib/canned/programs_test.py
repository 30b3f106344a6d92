"""Public canned-estimator programs run unchanged through `python -m estimator_lib.run`.

Each program in programs/ has the shape of a published one (the premade-estimator
and linear-model tutorials, the official r1 census wide & deep, a TFMA-era MultiHead
trainer, the getting-started LinearRegressor on numpy and pandas input_fns), on
synthetic data. tests/data/tf215_canned_programs.json holds what the same programs
gave on the original (TensorFlow 2.15.1 + tensorflow-estimator 2.15.0, run by hand:
`/tmp/tf215/bin/python programs/NAME.py MODEL_DIR`): evaluate keys, predict keys with
dtypes and shapes, variable names, export signatures and their outputs.
"""

import json
import os
import subprocess
import sys
import tempfile

from absl.testing import parameterized

_HERE = os.path.dirname(os.path.abspath(__file__))
_REPO = os.path.dirname(os.path.dirname(os.path.dirname(_HERE)))
with open(os.path.join(_REPO, "tests", "data", "tf215_canned_programs.json")) as _f:
    _ORIGINAL = json.load(_f)


class CannedProgramsTest(parameterized.TestCase):

    @parameterized.parameters(*sorted(_ORIGINAL))
    def test_runs_unchanged_with_the_originals_results(self, program):
        model_dir = tempfile.mkdtemp()
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2",
                   PYTHONPATH=os.pathsep.join(filter(None, [_REPO, os.environ.get(
                       "PYTHONPATH")])))
        run = subprocess.run(
            [sys.executable, "-m", "estimator_lib.run",
             os.path.join(_HERE, "programs", program + ".py"), model_dir],
            capture_output=True, text=True, timeout=300, env=env, cwd=tempfile.gettempdir())
        self.assertEqual(run.returncode, 0, run.stderr[-3000:])
        lines = [line for line in run.stdout.splitlines() if line.startswith("RESULT ")]
        self.assertLen(lines, 1, run.stdout[-2000:])
        self.assertEqual(json.loads(lines[0][len("RESULT "):]), _ORIGINAL[program])


if __name__ == "__main__":
    import unittest
    unittest.main()
