"""What the original's public methods read on `self` at call time, we read too.

`tests/data/tf215_call_time_reads.json` was recorded from the original (TF 2.15.1 +
tensorflow-estimator 2.15.0) by `tests/data/make_tf215_call_time_reads.py`, running the
programs of `tests/data/call_time_cases.py` under a recording `__getattribute__`. This
test runs the same programs here after `compat.install()`, with the same recorder, and
checks, for each recorded (program, role, method, attribute):

- that our instance has the attribute after construction and our public method reads
  it on `self` during the call (an instance attribute, or a `ConfigAlias` view of
  `_config`, whose read is the read of `_config`: engine/construction.CONFIG_ALIASES);
- for the attributes libraries replace (`_model_fn`, `_params`, `_config`,
  `_warm_start_settings`, `_device_fn`, the distributions, the heads' `_weight_column`,
  `_name`, `_loss_reduction`, `_thresholds`), that replacing it on a built instance
  changes what the original's did: the same losses, metric values and keys, the same
  modes a wrapped model_fn saw, or the same error.

Each difference kept on purpose is in `_DIFFERENT_READS` / `_DIFFERENT_EFFECTS` with
its reason, the reason stated in docs/estimator.md ("Call-time reads").
"""

import collections
import json
import os
import shutil
import sys
import tempfile

from absl.testing import parameterized
import tensorflow as tf

from estimator_lib import compat
from estimator_lib.engine import construction

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "data")
_DOCS = os.path.join(os.path.dirname(_DATA), "..", "docs", "estimator.md")
sys.path.insert(0, _DATA)
import call_time_cases  # pylint: disable=wrong-import-position
sys.path.remove(_DATA)

with open(os.path.join(_DATA, "tf215_call_time_reads.json")) as _f:
    _RECORD = json.load(_f)

_TPU_INTERNALS = (
    "TPUEstimator's TPU machinery (its `_TPUContext`, the input-fn invocation flag and "
    "the rendezvous of TPU errors) has no counterpart: without a TPU, use_tpu=False "
    "runs the Estimator's own CPU path, and the TPU context is not kept on the instance")

# (program, attribute) -> why ours does not read it (docs/estimator.md, "Call-time reads").
_DIFFERENT_READS = {
    ("tpu_estimator", "_ctx"): _TPU_INTERNALS,
    ("tpu_estimator", "_is_input_fn_invoked"): _TPU_INTERNALS,
    ("tpu_estimator", "_rendezvous"): _TPU_INTERNALS,
}

# effect program -> why ours differs (docs/estimator.md, "Call-time reads").
_DIFFERENT_EFFECTS = {
    "estimator_train_distribution": (
        "the original kept `_train_distribution` apart from `_config`, and its "
        "distributed training path, reading both, raised AttributeError after a "
        "replacement; here the attribute is a view of `_config`, so training runs "
        "under the replaced strategy"),
}


def _reads_by_program():
    reads = collections.defaultdict(set)
    for program, role, _, method, attribute in _RECORD["reads"]:
        reads[program].add((role, method, attribute))
    return reads


_READS = _reads_by_program()


def _ours(rows):
    """(role, method, attribute) read here; a ConfigAlias read counts as `_config`'s."""
    got = set()
    for role, _, method, attribute in rows:
        got.add((role, method, attribute))
        if attribute == "_config" and role == "estimator":
            got.update((role, method, alias) for alias in construction.CONFIG_ALIASES)
    return got


class CallTimeReadsTest(parameterized.TestCase, tf.test.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls._was_installed = compat.is_installed()
        compat.install()
        cls._bases = call_time_cases.original_bases()

    @classmethod
    def tearDownClass(cls):
        if not cls._was_installed:
            compat.uninstall()
        super().tearDownClass()

    def setUp(self):
        super().setUp()
        self._tmp = tempfile.mkdtemp(prefix="call_time_")
        self.addCleanup(shutil.rmtree, self._tmp, ignore_errors=True)

    def test_the_record_is_the_originals(self):
        self.assertEqual(_RECORD["versions"]["tensorflow-cpu"], "2.15.1")
        self.assertEqual(_RECORD["versions"]["tensorflow-estimator"], "2.15.0")
        self.assertEqual({p for p in _READS if not p.startswith("head_")},
                         set(call_time_cases.READ_PROGRAMS))
        self.assertEqual(set(_RECORD["effects"]), set(call_time_cases.EFFECT_PROGRAMS))
        self.assertGreaterEqual(len(_RECORD["reads"]), 700)

    def test_each_difference_is_documented(self):
        with open(_DOCS) as f:
            text = f.read()
        section = text[text.index("### Call-time reads"):]
        for reason in set(_DIFFERENT_READS.values()) | set(_DIFFERENT_EFFECTS.values()):
            self.assertIn(" ".join(reason.split()), " ".join(section.split()))

    def _assert_reads(self, program, rows):
        missing = sorted(
            read for read in _READS[program] - _ours(rows)
            if (program, read[2]) not in _DIFFERENT_READS)
        self.assertEqual(missing, [], f"{program}: the original's public methods read "
                                      "these on self, ours do not (role, method, attribute)")

    @parameterized.named_parameters(
        (name, name) for name in sorted(call_time_cases.READ_PROGRAMS))
    def test_public_methods_read_what_the_original_read(self, program):
        rows = call_time_cases.run_read_program(program, tf, self._tmp, self._bases,
                                                descriptors=True)
        self._assert_reads(program, rows)

    def test_heads_public_methods_read_what_the_original_read(self):
        rows = call_time_cases.head_calls(tf, self._bases, descriptors=True)
        by_program = collections.defaultdict(list)
        for program, *row in rows:
            by_program[program].append(row)
        for program in sorted(p for p in _READS if p.startswith("head_")):
            self._assert_reads(program, by_program[program])

    @parameterized.named_parameters(
        (name, name) for name in sorted(call_time_cases.EFFECT_PROGRAMS))
    def test_replacing_an_attribute_changes_what_it_changed(self, program):
        if program in _DIFFERENT_EFFECTS:
            self.skipTest(_DIFFERENT_EFFECTS[program])
        ours = call_time_cases.EFFECT_PROGRAMS[program](tf, self._tmp)
        self._assert_same(_RECORD["effects"][program], ours, program)

    def _assert_same(self, original, ours, where):
        if isinstance(original, dict):
            self.assertIsInstance(ours, dict, where)
            self.assertEqual(sorted(ours), sorted(original), where)
            for key in original:
                self._assert_same(original[key], ours[key], f"{where}.{key}")
        elif isinstance(original, list):
            self.assertEqual(len(ours), len(original), where)
            for i, (a, b) in enumerate(zip(original, ours)):
                self._assert_same(a, b, f"{where}[{i}]")
        elif isinstance(original, float):
            self.assertAllClose(ours, original, rtol=1e-4, atol=1e-5, msg=where)
        else:
            self.assertEqual(ours, original, where)


if __name__ == "__main__":
    tf.test.main()
