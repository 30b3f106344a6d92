"""Our checkpoints hold exactly the variables the original's do, program by program.

tests/data/tf215_variable_lists.json holds, for each program of
tests/data/make_tf215_variable_lists.py (canned estimators v1 and v2 with their
heads and optimizers, model_to_estimator, custom model_fns with early stopping and
InMemoryEvaluatorHook, TPUEstimator on the CPU), the name, shape and dtype of
every variable in the checkpoint the original (TF 2.15.1) wrote. The programs use
only the `tf.estimator` API, so here they run unchanged against estimator_lib
through `compat.install()`. Equal lists mean the checkpoints interchange both ways:
the original's graph of the program restores ours (every variable it saves is
there, with its shape and dtype), and ours restores the original's
(legacy_checkpoint_test.py resumes recorded model_dirs with their values).
"""

import importlib.util
import json
import os
import tempfile

import tensorflow as tf
from absl.testing import parameterized

from estimator_lib import compat

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
with open(os.path.join(_DATA, "tf215_variable_lists.json")) as _file:
    RECORDED = json.load(_file)


def _generator():
    spec = importlib.util.spec_from_file_location(
        "make_tf215_variable_lists", os.path.join(_DATA, "make_tf215_variable_lists.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class VariableListsTest(tf.test.TestCase, parameterized.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        if not compat.is_installed():
            compat.install()
            cls.addClassCleanup(compat.uninstall)
        cls.generator = _generator()

    def test_every_program_is_recorded(self):
        self.assertEqual(sorted(self.generator.PROGRAMS), sorted(RECORDED))

    @parameterized.named_parameters(*((name, name) for name in sorted(RECORDED)))
    def test_checkpoint_variables_are_the_originals(self, name):
        ours = self.generator.record(name, tempfile.mkdtemp(dir=self.get_temp_dir()))
        for part, variables in RECORDED[name].items():
            self.assertEqual(ours.get(part), variables, f"{name}: {part}")
        self.assertEqual(sorted(ours), sorted(RECORDED[name]))


if __name__ == "__main__":
    tf.test.main()
