"""Training runs end where the original's did: equal numbers from equal starts.

Each case of tests/data/trajectory_cases.py trains `STEPS` steps from fixed initial
weights on fixed, unshuffled data in a single-threaded session; the original
(TF 2.15.1 + tensorflow-estimator 2.15.0, tests/data/make_tf215_trajectories.py)
recorded its `evaluate()` results and the [sum, sum |v|, sum v²] of every
variable (optimizer slots included) in tests/data/tf215_trajectories.json. Here
the same case code runs through `estimator_lib.compat.install()` and every
number must agree within relative `RTOL` (an absolute floor of `RTOL * 1e-3` for
values that cancel to ~0). TF 2.21's kernels give the original's numbers to
~1e-6 on these graphs, so no case needs a looser bound.

The defaults of the original that the cases pin (each by at least one case;
`<family>_<form>_<api>` cases use every constructor default):

* Optimizers by name, with the family's learning rate when none is given:
  DNN 'Adagrad' at 0.05; Linear 'Ftrl' at 0.2 (and `optimizer=None`: Ftrl at
  min(0.2, 1/sqrt(#columns)), the `*_none_many` cases with 26 columns);
  DNNLinearCombined 'Adagrad' at 0.001 for the DNN and 'Ftrl' at
  min(0.005, 1/sqrt(#columns)) for the linear part; Baseline 'Ftrl' at 0.3.
  Every name ('Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD') on both APIs, with
  the class defaults the name brings: v1 AdagradOptimizer's and v2 Adagrad's
  initial accumulator 0.1 (v2 epsilon 1e-7); Adam's beta1 0.9, beta2 0.999,
  epsilon 1e-8 (v1) / 1e-7 (v2); Ftrl's learning_rate_power -0.5, initial
  accumulator 0.1, l1 = l2 = l2_shrinkage = 0 (v2 beta 0); RMSProp's decay/rho
  0.9, momentum 0, epsilon 1e-10 (v1) / 1e-7 (v2), centered False; SGD.
  Instances and callables are used as given (`*_instance`, `*_callable`).
* Loss reduction: SUM_OVER_BATCH_SIZE for v2 classes, SUM for v1 classes.
* Heads: binary (sigmoid cross-entropy), n_classes > 2 (softmax), regression
  (mean squared error, label_dimension 2), multi-label, Poisson and logistic
  regression; weight_column, label_vocabulary; their metrics (`evaluate`).
* DNN: activation relu, dropout None (and 0.4), batch_norm False (True:
  momentum 0.999, epsilon 0.001, moving statistics from zeros/ones), the
  embedding column's 'mean' combiner.
* Linear: sparse_combiner 'sum' (the categorical feature is multivalent).
* model_to_estimator: Keras' 'adam', TF 2.11+ and legacy Keras optimizer
  instances, tf.compat.v1.train optimizers, sample weights; the v1 surface
  ('saver' format).
* A custom model_fn, and TPUEstimator(use_tpu=False) with params['batch_size'].

Initializers (glorot for DNN kernels, zeros for linear weights and biases) are
not compared: every trainable variable starts from the fixed values.
"""

import importlib.util
import json
import os

from absl.testing import parameterized
import tensorflow as tf

from estimator_lib import compat

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
RTOL = 1e-4


def _load_cases():
    spec = importlib.util.spec_from_file_location(
        "trajectory_cases", os.path.join(_DATA, "trajectory_cases.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


with open(os.path.join(_DATA, "tf215_trajectories.json")) as _f:
    REFERENCE = json.load(_f)
cases = _load_cases()


def setUpModule():
    compat.install()


def tearDownModule():
    compat.uninstall()


class TrajectoryTest(tf.test.TestCase, parameterized.TestCase):

    def test_the_recording_is_of_these_cases(self):
        self.assertEqual(cases.STEPS, REFERENCE["steps"])
        self.assertEqual({c["name"]: c for c in cases.CASES},
                         {name: rec["case"] for name, rec in REFERENCE["results"].items()})

    def _assert_close(self, ours, reference, what):
        bad = [f"{key}: ours {ours[key]}, original {value}"
               for key, value in sorted(reference.items())
               if not all(cases.is_close(a, b, rtol=RTOL)
                          for a, b in zip(tf.nest.flatten(ours[key]),
                                          tf.nest.flatten(value)))]
        self.assertEqual([], bad, f"{what} differ from the original's")

    @parameterized.named_parameters((c["name"], c["name"]) for c in cases.CASES)
    def test_trains_as_the_original(self, name):
        record = REFERENCE["results"][name]
        result = cases.run(record["case"], self.get_temp_dir(), start=record.get("start"))
        self.assertEqual(sorted(record["variables"]), sorted(result["variables"]))
        self._assert_close(result["variables"], record["variables"], "variables")
        if "evaluate" in record:
            self.assertEqual(sorted(record["evaluate"]), sorted(result["evaluate"]))
            self._assert_close(result["evaluate"], record["evaluate"], "evaluate()")


if __name__ == "__main__":
    tf.test.main()
