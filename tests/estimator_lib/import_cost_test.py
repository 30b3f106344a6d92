"""What `import estimator_lib` loads beyond TensorFlow and tf_keras (issue 27, start-up).

Pinned by module, not by time: importing the package loads the core (Estimator,
RunConfig, hooks, export, train_and_evaluate) and none of the canned estimators,
heads, Keras conversion, TPU or legacy-alias modules, nor any tf_keras module; those
load on first use of a name that needs them (`_lazy_api.LAZY_NAMES`), and every public
name still resolves to the same object as before.
"""

import json
import os
import subprocess
import sys
import unittest

_SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "src")

_PROBE = r"""
import json, sys
import tensorflow, tf_keras
before = set(sys.modules)
import estimator_lib
after_import = sorted(set(sys.modules) - before)
first = estimator_lib.DNNClassifier
after_canned = sorted(set(sys.modules) - before)
namespace = {}
exec("from estimator_lib import *", namespace)
print(json.dumps({
    "after_import": after_import,
    "after_canned": after_canned,
    "star": sorted(k for k in namespace if not k.startswith("__")),
    "dir": dir(estimator_lib),
    "dnn": first.__module__ + "." + first.__qualname__,
    "same": first is estimator_lib.canned.DNNClassifierV2,
}))
"""

# Subpackages `import estimator_lib` must not load (they load on first use).
_LAZY_PACKAGES = ("estimator_lib.canned", "estimator_lib.head", "estimator_lib.keras",
                  "estimator_lib.tpu", "estimator_lib.legacy", "estimator_lib.compat",
                  "estimator_lib.experimental")


def _run_probe():
    env = dict(os.environ, PYTHONPATH=_SRC, TF_CPP_MIN_LOG_LEVEL="3")
    result = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True,
                            text=True, timeout=300, check=False)
    if result.returncode != 0:
        raise AssertionError(result.stderr[-3000:])
    return json.loads(result.stdout.strip().splitlines()[-1])


class ImportCostTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.probe = _run_probe()

    def test_import_loads_no_tf_keras_module(self):
        loaded = [m for m in self.probe["after_import"] if m.split(".")[0] == "tf_keras"]
        self.assertEqual(loaded, [])

    def test_import_loads_only_the_core(self):
        loaded = [m for m in self.probe["after_import"]
                  if m.startswith(_LAZY_PACKAGES)]
        self.assertEqual(loaded, [])
        self.assertIn("estimator_lib.engine.estimator", self.probe["after_import"])

    def test_canned_names_load_on_first_use(self):
        self.assertIn("estimator_lib.canned.dnn", self.probe["after_canned"])
        self.assertEqual(self.probe["dnn"], "estimator_lib.canned.dnn.DNNClassifierV2")
        self.assertTrue(self.probe["same"])

    def test_star_import_and_dir_list_every_public_name(self):
        for names in (self.probe["star"], self.probe["dir"]):
            for name in ("Estimator", "RunConfig", "DNNClassifier", "LinearRegressor",
                         "MultiHead", "model_to_estimator", "canned", "experimental",
                         "compat", "tpu", "head", "hooks", "export"):
                self.assertIn(name, names)


if __name__ == "__main__":
    unittest.main()
