"""What the original raised, we raise: an instance of the original's type, for its check.

`tests/data/tf215_exceptions.json` was recorded from the original (TF 2.15.1 +
tensorflow-estimator 2.15.0) by `tests/data/make_tf215_exceptions.py`, running each
named program of `tests/data/exception_cases.py`. This test runs the same programs
here after `compat.install()` and checks that each raises an instance of the type the
original raised (ours may be a subclass, with a clearer message: an incompatible
checkpoint is a `tf.errors.NotFoundError` that is also a ValueError), and that our
message contains the case's key phrase, recorded with the original's message (the
generator checked it is there), or the case's `ours=` phrase where our wording differs
on purpose: so each case fails at the check it is named after, here as there.

The cases where the original raised nothing raise nothing here either, but those of
`_REFUSED_HERE`: deliberate differences of docs/estimator.md (we refuse earlier, with a
message).
"""

import importlib
import json
import os
import sys

from absl.testing import parameterized
import tensorflow as tf

from estimator_lib import compat

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "data")
sys.path.insert(0, _DATA)
import exception_cases  # pylint: disable=wrong-import-position
import make_tf215_exceptions  # pylint: disable=wrong-import-position
sys.path.remove(_DATA)

with open(os.path.join(_DATA, "tf215_exceptions.json")) as _f:
    _RECORD = json.load(_f)

_DOCS = os.path.join(os.path.dirname(_DATA), "..", "docs", "estimator.md")

# Cases where the original raised nothing and we refuse on purpose: case -> (the number
# of the deliberate difference in docs/estimator.md, words that item says it with).
_REFUSED_HERE = {
    "dnn_linear_combined_dnn_without_hidden_units": (14, "bad constructor arguments are"),
    "regression_head_label_dtype_string": (17, "string regression labels get a ValueError"),
    "numpy_input_fn_x_a_string": (25, "`numpy_input_fn` with `x` neither a dict nor an array"),
    "spec_unknown_mode": (25, "`EstimatorSpec` with a mode that is not a `ModeKeys` value"),
}


def _raised_cases():
    return sorted(name for name, raised in _RECORD["cases"].items() if raised)


def _silent_cases():
    return sorted(name for name, raised in _RECORD["cases"].items() if not raised)


def _deliberate_difference(number: int) -> str:
    """The text of item `number` of docs/estimator.md's deliberate differences, each run
    of white space one space."""
    with open(_DOCS) as f:
        text = f.read()
    section = text[text.index("## Deliberate differences"):]
    section = section[:section.index("\n## ", 4)]
    start = section.index(f"\n{number}. ")
    following = section.find(f"\n{number + 1}. ", start)
    return " ".join(section[start:following if following > 0 else len(section)].split())


def _resolve(path: str) -> type:
    """The class at `module.qualname`, reached here (after compat.install())."""
    module_name, _, name = path.rpartition(".")
    while module_name:
        try:
            value = importlib.import_module(module_name)
            break
        except ImportError:
            module_name, _, outer = module_name.rpartition(".")
            name = f"{outer}.{name}"
    for part in name.split("."):
        value = getattr(value, part)
    return value


class ExceptionTypesTest(parameterized.TestCase, tf.test.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls._was_installed = compat.is_installed()
        compat.install()

    @classmethod
    def tearDownClass(cls):
        if not cls._was_installed:
            compat.uninstall()
        super().tearDownClass()

    def test_the_recording_is_the_original(self):
        recorded = _RECORD["recorded_with"]
        self.assertEqual(recorded["tensorflow"], "2.15.1")
        self.assertEqual(recorded["tensorflow_estimator"], "2.15.0")
        self.assertEqual(sorted(_RECORD["cases"]), sorted(exception_cases.CASES))
        self.assertGreaterEqual(len(_raised_cases()), 150)

    def test_the_record_holds_each_case_s_key_phrase(self):
        # The generator wrote each key phrase it found in the original's message; a case
        # whose phrase changed since must be recorded again.
        for name, original in _RECORD["cases"].items():
            with self.subTest(name):
                self.assertEqual(original and original["key"], exception_cases.KEYS[name])
        self.assertEqual(sorted(set(exception_cases.OURS) - set(_raised_cases())),
                         sorted(_REFUSED_HERE))

    @parameterized.named_parameters((name, name) for name in _raised_cases())
    def test_raises_the_original_type_at_its_check(self, name):
        original = _RECORD["cases"][name]
        expected = _resolve(original["type"])
        error = make_tf215_exceptions.run_case(exception_cases.CASES[name], tf)
        self.assertIsNotNone(
            error, f"{name}: the original raised {original['type']} "
                   f"({original['message']}); ours raised nothing")
        self.assertIsInstance(
            error, expected,
            f"{name}: the original raised {original['type']} ({original['message']}); "
            f"ours {make_tf215_exceptions.type_name(type(error))} ({error})")
        phrase = exception_cases.OURS.get(name, original["key"])
        self.assertIn(phrase, str(error),
                      f"{name}: the original said {original['message']!r}; ours stopped at "
                      f"another check")

    @parameterized.named_parameters((name, name) for name in _silent_cases())
    def test_raises_nothing_where_the_original_raised_nothing(self, name):
        error = make_tf215_exceptions.run_case(exception_cases.CASES[name], tf)
        if name not in _REFUSED_HERE:
            self.assertIsNone(error, f"{name}: the original raised nothing; ours "
                                     f"{error and make_tf215_exceptions.type_name(type(error))}"
                                     f" ({error})")
            return
        number, words = _REFUSED_HERE[name]
        self.assertIn(words, _deliberate_difference(number))
        self.assertIsNotNone(error, f"{name}: refused here on purpose (docs/estimator.md, "
                                    f"deliberate difference {number}); ours raised nothing")
        self.assertIn(exception_cases.OURS[name], str(error))


if __name__ == "__main__":
    tf.test.main()
