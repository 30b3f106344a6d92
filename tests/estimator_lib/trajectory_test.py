"""Training runs end where the original's did: equal numbers from equal starts.

Each case of tests/data/trajectory_cases.py trains `STEPS` steps from fixed initial
weights on fixed, unshuffled data in a single-threaded session; the original
(TF 2.15.1 + tensorflow-estimator 2.15.0, tests/data/make_tf215_trajectories.py)
recorded its `evaluate()` results and the [sum, sum |v|, sum v², digest] of every
variable (optimizer slots included) when the session started and after training
in tests/data/tf215_trajectories.json; the digest, a dot product with a fixed
random vector, changes when elements swap places. Here the same case code runs
through `estimator_lib.compat.install()` and every number must agree within
relative `RTOL` (an absolute floor of `RTOL * 1e-3` for values that cancel to ~0).
TF 2.21's kernels need no looser bound: when the file was recorded, every number
here equalled the original's to all 9 recorded digits.

A check that a skipped update would pass is no check: every variable training
changes must end at least 100 tolerances away from where it started. Where the
fixture moves a variable less than 100 * RTOL (the DNN's embedding and logits under
the v2 classes' small Adagrad steps: `slow_movers()`), that variable is compared
at a tolerance of a hundredth of its move (`tolerance()`), no looser than 1e-7:
the same numbers, held more tightly.

The original's defaults that the cases pin (`<family>_<form>_<api>` cases build
each class with every constructor default):

* Optimizers by name, at the family's learning rate when none is given: DNN
  'Adagrad' at 0.05; Linear 'Ftrl' at 0.2, and `optimizer=None` Ftrl at
  min(0.2, 1/sqrt(#columns)) (`linear_regressor_*_none_many`, 26 columns);
  DNNLinearCombined 'Adagrad' at 0.001 for the DNN and 'Ftrl' at
  min(0.005, 1/sqrt(#columns)) for the linear part (and 'Adagrad' there,
  `*_callable`); Baseline 'Ftrl' at 0.3.
* Every name ('Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD') on both APIs
  (`*_classifier_<api>_<name>`), with its class defaults: Adagrad's initial
  accumulator 0.1; Adam's beta1 0.9, beta2 0.999, epsilon 1e-8 (v1) / 1e-7 (v2);
  Ftrl's learning_rate_power -0.5, initial accumulator 0.1, l1 = l2 =
  l2_shrinkage = 0 (v2 beta 0); RMSProp's decay (rho) 0.9, momentum 0, not
  centered, mean square from 1 (v1) / 0 and epsilon 1e-7 (v2). The data's third
  column is scaled by 1e-6, so the gradients of its weights are ~1e-7 and an
  epsilon of 1e-7 instead of 1e-8 moves them by tens of percent (where an
  accumulator starts at 0.1 or 1, the epsilon cannot show). Instances and
  callables are used as given (`*_instance`, `*_callable`).
* Loss reduction: SUM_OVER_BATCH_SIZE for the v2 classes, SUM for the v1 ones.
* Heads: binary (sigmoid cross-entropy), n_classes > 2 (softmax), regression
  (squared error; label_dimension 2), multi-label, Poisson and logistic
  regression, MultiHead; weight_column and label_vocabulary; the v1 classes'
  heads and the v1 heads of the v1 Estimator forms; each one's metrics
  (the cases marked `evaluate`).
* DNN: activation relu, dropout None (and 0.4 on both APIs: the same masks from
  the same seed), batch_norm False (True: momentum 0.999, epsilon 0.001, moving
  statistics from 0 and 1), the embedding column's 'mean' combiner.
* Linear: sparse_combiner 'sum' (the categorical feature is multivalent).
* model_to_estimator: Keras' 'adam', TF 2.11+ and legacy Keras optimizer
  instances, a tf.compat.v1.train optimizer, sample weights; the v1 surface
  ('saver' format, tf.compat.v1 SGD).
* A custom model_fn (Adam), and TPUEstimator(use_tpu=False) with
  params['batch_size'] (Momentum).

Initializers (glorot for DNN kernels, zeros for linear weights and biases) are
not compared: every trainable variable starts from the fixed values.
"""

import json
import math
import os

from absl.testing import parameterized
import tensorflow as tf

from estimator_lib import compat
from tests.data import trajectory_cases as cases
from tests.data import trajectory_runs

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
RTOL = 1e-4

with open(os.path.join(_DATA, "tf215_trajectories.json")) as _f:
    REFERENCE = json.load(_f)


MARGIN = 100  # a variable's move, in tolerances, at least
FLOOR = 1e-7  # the tightest relative tolerance used (float32 values summed in float64)


def is_close(ours: float, reference: float, rtol: float = RTOL) -> bool:
    """Within rtol of the original's, with an absolute floor for values that cancel to ~0."""
    return abs(ours - reference) <= rtol * max(abs(reference), 1e-3) or (
        math.isnan(ours) and math.isnan(reference))


def moved(initial, final) -> float:
    """How far a variable's checksum moved, in units of RTOL (the largest component's)."""
    return max(abs(f - i) / (RTOL * max(abs(f), 1e-3)) for f, i in zip(final, initial))


def tolerance(initial, final) -> float:
    """The relative tolerance a variable is compared at: RTOL, or tighter, so that its
    move is at least MARGIN tolerances."""
    return max(FLOOR, min(RTOL, RTOL * moved(initial, final) / MARGIN))


def slow_movers():
    """{case: [variable, ...]} that training moves but by less than MARGIN * RTOL."""
    slow = {}
    for name, record in REFERENCE["results"].items():
        for var, final in record["variables"].items():
            initial = record["initial"][var]
            if initial != final and moved(initial, final) < MARGIN:
                slow.setdefault(name, []).append(var)
    return slow


def setUpModule():
    compat.install()


def tearDownModule():
    compat.uninstall()


class TrajectoryTest(tf.test.TestCase, parameterized.TestCase):

    def test_the_recording_is_of_these_cases(self):
        self.assertEqual(cases.STEPS, REFERENCE["steps"])
        self.assertEqual({c["name"]: c for c in cases.CASES},
                         {name: rec["case"] for name, rec in REFERENCE["results"].items()})

    def _assert_close(self, ours, reference, what, rtols=None):
        bad = [f"{key}: ours {ours[key]}, original {value}"
               for key, value in sorted(reference.items())
               if not all(is_close(a, b, (rtols or {}).get(key, RTOL))
                          for a, b in zip(tf.nest.flatten(ours[key]),
                                          tf.nest.flatten(value)))]
        self.assertEqual([], bad, f"{what} differ from the original's")

    def test_every_variable_training_changes_moves_beyond_its_tolerance(self):
        for name, record in REFERENCE["results"].items():
            for var, final in record["variables"].items():
                initial = record["initial"][var]
                if initial == final:  # Hyperparameters, untouched statistics.
                    continue
                self.assertGreaterEqual(  # (less a rounding of the division)
                    moved(initial, final) * RTOL / tolerance(initial, final), MARGIN - 1e-6,
                    f"{name}: {var} moves too little to be checked ({initial} -> {final})")
        # Slow movers are few, and all DNN (or Keras) weights and slots.
        slow = slow_movers()
        self.assertLessEqual(sum(map(len, slow.values())), 60, slow)

    def test_the_digest_sees_swapped_elements(self):
        value = [[0.1, 0.2], [0.3, 0.4]]
        swapped = [[0.2, 0.1], [0.3, 0.4]]
        a, b = trajectory_runs.checksum(value), trajectory_runs.checksum(swapped)
        self.assertAllClose(a[:3], b[:3])
        self.assertFalse(is_close(a[3], b[3]))

    @parameterized.named_parameters((c["name"], c["name"]) for c in cases.CASES)
    def test_trains_as_the_original(self, name):
        record = REFERENCE["results"][name]
        result = trajectory_runs.run(record["case"], self.get_temp_dir(),
                                     start=record.get("start"))
        self.assertEqual(sorted(record["variables"]), sorted(result["variables"]))
        self._assert_close(result["initial"], record["initial"], "initial values")
        rtols = {var: tolerance(record["initial"][var], final)
                 for var, final in record["variables"].items()}
        self._assert_close(result["variables"], record["variables"], "variables", rtols)
        if "evaluate" in record:
            self.assertEqual(sorted(record["evaluate"]), sorted(result["evaluate"]))
            self._assert_close(result["evaluate"], record["evaluate"], "evaluate()")


if __name__ == "__main__":
    tf.test.main()
