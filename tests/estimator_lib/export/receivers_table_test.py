"""Every receiver builder and class gives what the original's gave, exports included.

tests/data/tf215_receivers.json was recorded on TF 2.15 by
tests/data/make_tf215_receivers.py; this test runs the same cases, through the
`tf.estimator` names (`compat.install()`), and compares per case: the receiver's type,
its receiver tensors', features' and labels' kinds, names, dtypes and shapes, and every
signature def of the SavedModel exported with it.
"""

import importlib.util
import json
import os
import tempfile

from absl.testing import parameterized
import tensorflow as tf

from estimator_lib import compat
from estimator_lib.export import receivers

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "data")


def _generator():
    spec = importlib.util.spec_from_file_location(
        "make_tf215_receivers", os.path.join(_DATA, "make_tf215_receivers.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


with open(os.path.join(_DATA, "tf215_receivers.json")) as _f:
    _RECORD = json.load(_f)
_CASES = sorted(k for k in _RECORD if k != "versions")


class ReceiversTableTest(tf.test.TestCase, parameterized.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        was_installed = compat.is_installed()
        compat.install()
        try:
            with tempfile.TemporaryDirectory() as work_dir:
                cls._ours = _generator().describe_all(
                    tf.estimator, tf, receivers.SupervisedInputReceiver, work_dir)
        finally:
            if not was_installed:
                compat.uninstall()

    def test_every_recorded_case_is_run(self):
        self.assertCountEqual(self._ours, _CASES)

    @parameterized.named_parameters((name, name) for name in _CASES)
    def test_case_matches_the_original(self, name):
        self.assertDictEqual(self._ours[name], _RECORD[name])

    def test_guide_scalar_feature_gets_a_batch_dimension(self):
        # The SavedModel guide feeds [5.] to the export of {'input': tf.constant(3.)}.
        inputs = self._ours["raw_guide_scalar"]["signatures"]["serving_default"]["inputs"]
        self.assertEqual(inputs["input"]["shape"], [None])


if __name__ == "__main__":
    tf.test.main()
