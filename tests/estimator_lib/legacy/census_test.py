"""Every use of the original's internals that public libraries make works here as there.

tests/data/estimator_census.json (written by tests/data/make_estimator_census.py with
TF 2.15.1 + tensorflow-estimator 2.15.0) records what 24 sources of libraries built on
tf.estimator (their wheels, their repositories' tests) and some GitHub code use of the
original below its public API. One test per recorded use, generated from the record,
after `compat.install()`:

* `import` / `attribute`: the name resolves at the recorded path, with the original's
  kind (module, class, function, constant), parameters (name, kind, default; ours may
  add keyword-only parameters with defaults after them, which no legacy call reaches)
  and, for simple constants, value;
* `subclass-override`: the recorded base class resolves, each method the library
  overrides exists on ours with the original's kind and parameters, and the subclass
  can be made;
* `private-assignment`: the probe of census_probes.py (the attribute assigned after
  construction, as the library does) gives the original's recorded result.

Uses that other branches of issue 44 make work are listed in PENDING, each with its
reason; they run as expected failures, so one that starts to work fails the test until
it is taken off the list.
"""

import importlib.util
import json
import os
import re
import unittest

import tensorflow as tf

from estimator_lib import compat
from tests.estimator_lib.legacy import census_probes

_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir,
                     "data")
_T = "tensorflow_estimator.python.estimator."
_P = "tensorflow.python.estimator."


def _generator():
    spec = importlib.util.spec_from_file_location(
        "make_estimator_census", os.path.join(_DATA, "make_estimator_census.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_GEN = _generator()
with open(os.path.join(_DATA, "estimator_census.json")) as _f:
    USES = json.load(_f)["uses"]


def key(use: dict) -> str:
    """The PENDING key of a use: the path, `path:Class` for a subclass, or `.attribute`."""
    if use["kind"] == "subclass-override":
        return f"{use['path']}:{use['class']}"
    if use["kind"] == "private-assignment":
        return f"{use['target']}.{use['attribute']}"
    return use["path"]


_NAMES = ("module-level private name of the original: issue 44 part 1 (names), "
          "the `libs` branch")
_V1_HEAD = _T + "canned.head."
PENDING = {
}


def _parameters_match(original, ours) -> bool:
    """Same parameters, or ours with keyword-only ones (with defaults) after them."""
    if original is None or ours is None:
        return original == ours
    extra = ours[len(original):]
    return ours[:len(original)] == original and all(
        kind == "KEYWORD_ONLY" and default is not None for _, kind, default in extra)


class CensusTest(tf.test.TestCase):
    """One generated test per recorded use (below the class)."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.was_installed = compat.is_installed()
        compat.install()

    @classmethod
    def tearDownClass(cls):
        if not cls.was_installed:
            compat.uninstall()
        super().tearDownClass()

    def check_name(self, use):
        try:
            obj = _GEN.resolve(use["path"])
        except (ImportError, AttributeError) as e:
            self.fail(f"{use['library']} uses {use['path']}, which does not resolve here: "
                      f"{e!r}")
        original, ours = use["original"], _GEN.describe(obj)
        self.assertEqual(original["kind"], ours["kind"], f"{use['path']}: kind")
        for field in ("parameters", "constructor"):
            if field in original:
                self.assertTrue(_parameters_match(original[field], ours.get(field)),
                                f"{use['path']}: {field}\n original: {original[field]}\n"
                                f" ours:     {ours.get(field)}")
        if "value" in original:
            self.assertEqual(original["value"], ours.get("value"), f"{use['path']}: value")

    def check_override(self, use):
        base = _GEN.resolve(use["path"])
        ours = _GEN.overrides(base, list(use["original"]["overrides"]))
        namespace = {}
        for name, original in use["original"]["overrides"].items():
            self.assertIn(name, ours, f"{use['library']}'s {use['class']} overrides "
                                      f"{use['path']}.{name}, which ours lacks")
            self.assertEqual(original["kind"], ours[name]["kind"], f"{name}: kind")
            self.assertTrue(
                _parameters_match(original["parameters"], ours[name]["parameters"]),
                f"{use['path']}.{name}\n original: {original['parameters']}\n"
                f" ours:     {ours[name]['parameters']}")
            stub = lambda self, *args, **kwargs: None  # noqa: E731
            namespace[name] = property(stub) if original["kind"] == "property" else stub
        subclass = type(base)(use["class"], (base,), namespace)
        self.assertTrue(issubclass(subclass, base))

    def check_private(self, use):
        result = census_probes.probe(tf, use, self.get_temp_dir())
        self.assertIsNotNone(result, f"no probe for {key(use)} in census_probes.py")
        self.assertEqual(use["original"]["probe"], result,
                         f"{use['library']}: {key(use)} assigned after construction")


def _test_method(use):
    check = {"import": "check_name", "attribute": "check_name",
             "subclass-override": "check_override",
             "private-assignment": "check_private"}[use["kind"]]

    def test(self):
        getattr(self, check)(use)
    test.__doc__ = f"{use['library']}: {use['kind']} {key(use)}"
    return unittest.expectedFailure(test) if key(use) in PENDING else test


def _add_tests():
    for index, use in enumerate(USES):
        label = re.sub(r"[^0-9A-Za-z]+", "_", f"{use['library']}_{key(use).split('.')[-1]}")
        setattr(CensusTest, f"test_{index:03d}_{use['kind'].split('-')[0]}_{label}"[:120],
                _test_method(use))


_add_tests()


class CensusRecordTest(tf.test.TestCase):

    def test_pending_keys_are_recorded_uses(self):
        self.assertEqual(set(), set(PENDING) - {key(use) for use in USES})

    def test_census_covers_the_kinds_and_libraries(self):
        kinds = {use["kind"] for use in USES}
        self.assertEqual({"import", "attribute", "subclass-override", "private-assignment"},
                         kinds)
        libraries = {use["library"] for use in USES if use["origin"] != "github"}
        self.assertGreaterEqual(len(libraries), 10, sorted(libraries))


if __name__ == "__main__":
    tf.test.main()
