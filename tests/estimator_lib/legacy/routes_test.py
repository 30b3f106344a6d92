"""Every route TF 2.15 had to the estimator API resolves here, to the equivalent object.

tests/data/tf215_routes.json (make_tf215_routes.py, run on the original) records each
attribute path under `tensorflow` and `tensorflow_estimator`'s API packages that reached
an estimator module or object: `tf.compat.v2.compat.v1.estimator.tpu`, `tf.compat.v1.
keras.estimator`, `tensorflow_estimator.estimator`, ... route_check.py compares them
here: after compat.install() in this process, and in a program run by `python -m
estimator_lib.run` (which installs the aliases itself).
"""

import json
import os
import subprocess
import sys

import pytest
import tensorflow as tf

from estimator_lib import compat
from tests.estimator_lib.legacy import route_check

pytestmark = pytest.mark.timeout(300)

_HERE = os.path.dirname(os.path.abspath(__file__))


class RoutesTest(tf.test.TestCase):

    def setUp(self):
        super().setUp()
        self.data = route_check.load()
        if not compat.is_installed():
            compat.install()
            self.addCleanup(compat.uninstall)

    def test_the_record_holds_the_nested_compat_routes(self):
        routes = self.data["routes"]
        self.assertGreater(len(routes), 100)
        self.assertEqual("tensorflow_estimator.python.estimator.api._v1.estimator.tpu",
                         routes["tensorflow.compat.v2.compat.v1.estimator.tpu"]["reaches"])
        self.assertIn("tensorflow.compat.v1.compat.v2.estimator", routes)
        self.assertIn("tensorflow.compat.v1.keras.estimator", routes)

    def test_every_route_resolves_after_install(self):
        self.assertEqual([], route_check.failures(self.data))

    def test_the_issue_s_program(self):
        import tensorflow.compat.v2 as tf_v2  # pylint: disable=import-outside-toplevel
        self.assertIs(tf_v2.compat.v1.estimator.tpu.TPUEstimator,
                      tf.compat.v1.estimator.tpu.TPUEstimator)
        self.assertIs(tf_v2.compat.v1.estimator.Estimator, compat.EstimatorV1)

    def test_a_route_left_out_is_reported(self):
        module = tf.compat.v2.compat.v1
        self.addCleanup(setattr, module, "estimator", module.estimator)
        module.estimator = tf.estimator  # The v2 namespace where the v1 one belongs.
        failures = route_check.failures(self.data)
        self.assertIn("tensorflow.compat.v2.compat.v1.estimator.tpu: missing "
                      "(TF 2.15: module:tensorflow_estimator.python.estimator.api._v1."
                      "estimator.tpu)", failures)
        self.assertTrue(any(f.startswith("tensorflow.compat.v2.compat.v1.estimator.Estimator "
                                         "is not ") for f in failures), failures)

    def test_every_route_resolves_through_the_runner(self):
        env = {key: value for key, value in os.environ.items()
               if key not in ("TF_USE_LEGACY_KERAS", "TF_CONFIG")}
        env["TF_CPP_MIN_LOG_LEVEL"] = "2"
        process = subprocess.run(
            [sys.executable, "-m", "estimator_lib.run", os.path.join(_HERE, "route_check.py")],
            env=env, capture_output=True, text=True, timeout=240, check=False)
        self.assertEqual(0, process.returncode, process.stderr[-5000:])
        self.assertEqual([], json.loads(process.stdout.strip().splitlines()[-1]))


if __name__ == "__main__":
    tf.test.main()
