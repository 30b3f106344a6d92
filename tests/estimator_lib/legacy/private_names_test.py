"""After compat.install(), the original's private module-level names resolve at their paths,
and its classes' private methods have the original's signatures.

tests/data/tf215_private_names.json (written by tests/data/make_tf215_private_names.py
with the original) records every private name each module of tensorflow-estimator
2.15 binds itself, with its kind and (functions, classes) parameters, and every
private method each of its classes defines, with its parameters (names, kinds,
defaults as repr). Libraries import such helpers directly (`canned.head.
_DEFAULT_SERVING_KEY`, `estimator._canned_estimator_api_gauge`), and subclasses call
and override the private methods. What does not resolve, or differs, is listed in
private_name_exceptions.py, each with its reason (docs/estimator.md, "Private names").
"""

import importlib
import importlib.util
import json
import os

import tensorflow as tf

from estimator_lib import compat
from tests.estimator_lib.legacy import private_name_exceptions as exceptions

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "data")


def _load_generator():
    spec = importlib.util.spec_from_file_location(
        "make_tf215_private_names", os.path.join(_DATA, "make_tf215_private_names.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _same_signature(original, ours) -> bool:
    """The original's parameters (names, kinds, defaults) in order; after them only
    keyword-only ones with a default (ours' own options, which no original call sets)."""
    if original is None or ours is None or "builtin" in (original, ours):
        return original == ours
    extra = ours[len(original):]
    return ours[:len(original)] == original and all(
        kind == "KEYWORD_ONLY" and default is not None for _, kind, default in extra)


def _is_export_wrapper(parameters) -> bool:
    """The `(self, /, *args, **kwargs)` __init__ TF 2.15's API export gave a class
    without its own; signatures_test compares those constructors."""
    return [kind for _, kind, _ in parameters or ()] == [
        "POSITIONAL_ONLY", "VAR_POSITIONAL", "VAR_KEYWORD"]


def _resolve_module(name):
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _resolve_class(path):
    module_name, _, name = path.rpartition(".")
    module = _resolve_module(module_name)
    value = getattr(module, name, None) if module else None
    return value if isinstance(value, type) else None


class PrivateNamesTest(tf.test.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        with open(os.path.join(_DATA, "tf215_private_names.json")) as f:
            cls.record = json.load(f)
        cls.generator = _load_generator()
        cls._was_installed = compat.is_installed()
        compat.install()

    @classmethod
    def tearDownClass(cls):
        if not cls._was_installed:
            compat.uninstall()
        super().tearDownClass()

    def test_the_recording_is_the_original(self):
        recorded = self.record["recorded_with"]
        self.assertEqual(recorded["tensorflow"], "2.15.1")
        self.assertEqual(recorded["tensorflow_estimator"], "2.15.0")
        self.assertEqual(sum(len(v) for v in self.record["modules"].values()), 356)

    def _module_names(self):
        for module_name, names in sorted(self.record["modules"].items()):
            for name, original in sorted(names.items()):
                yield module_name, name, original

    def test_every_private_module_name_resolves_with_its_kind_and_signature(self):
        used, resolved, checked = set(), 0, 0
        for module_name, name, original in self._module_names():
            path = f"{module_name}:{name}"
            reason = exceptions.reason(path)
            module = _resolve_module(module_name)
            present = module is not None and hasattr(module, name)
            if reason is not None and reason[1] == exceptions.ABSENT and present and \
                    reason[0].endswith((".", ":")):
                reason = None  # A prefix covers what is absent; what is here is checked.
            with self.subTest(path):
                if reason is not None and reason[1] == exceptions.ABSENT:
                    used.add(reason[0])
                    self.assertFalse(present, f"{path} is here now: remove its exception")
                    continue
                self.assertIsNotNone(module, f"{module_name} does not import")
                self.assertTrue(hasattr(module, name), f"{path} does not resolve")
                resolved += 1
                ours = self.generator.describe_value(getattr(module, name))
                if reason is not None and reason[1] == exceptions.DIFFERS:
                    used.add(reason[0])
                    self.assertFalse(
                        ours["kind"] == original["kind"] and _same_signature(
                            original.get("parameters"), ours.get("parameters")),
                        f"{path} is now the original's: remove its exception")
                    continue
                checked += 1
                self.assertEqual(ours["kind"], original["kind"])
                if "parameters" in original:
                    self.assertTrue(
                        _same_signature(original["parameters"], ours.get("parameters")),
                        f"original {original['parameters']}\nours     {ours.get('parameters')}")
        self.assertEmpty(sorted(exceptions.module_keys() - used),
                         "stale exceptions in private_name_exceptions.py")
        self.assertGreaterEqual(resolved, exceptions.RESOLVED_AT_LEAST)

    def test_every_private_method_has_the_original_signature(self):
        used, checked = set(), 0
        for path, methods in sorted(self.record["methods"].items()):
            cls = _resolve_class(path)
            for name, original in sorted(methods.items()):
                if name == "__init__" and _is_export_wrapper(original["parameters"]):
                    continue
                key = f"{path}.{name}"
                reason = exceptions.method_reason(key, cls)
                present = cls is not None and hasattr(cls, name)
                if reason is not None and reason[1] == exceptions.ABSENT and present and \
                        reason[0].endswith("."):
                    reason = None  # A prefix covers what is absent; what is here is checked.
                with self.subTest(key):
                    if reason is not None:
                        used.add(reason[0])
                        if reason[1] == exceptions.ABSENT:
                            self.assertFalse(present, f"{key} is here now: remove its exception")
                            continue
                    self.assertIsNotNone(cls, f"{path} is not reached")
                    self.assertTrue(hasattr(cls, name), f"{key} is missing")
                    ours = self.generator.private_methods(cls, own=False)[name]
                    if reason is not None:  # DIFFERS
                        self.assertFalse(
                            ours["kind"] == original["kind"] and _same_signature(
                                original["parameters"], ours["parameters"]),
                            f"{key} is now the original's: remove its exception")
                        continue
                    checked += 1
                    self.assertEqual(ours["kind"], original["kind"])
                    self.assertTrue(
                        _same_signature(original["parameters"], ours["parameters"]),
                        f"original {original['parameters']}\nours     {ours['parameters']}")
        self.assertEmpty(sorted(exceptions.method_keys() - used),
                         "stale method exceptions in private_name_exceptions.py")
        self.assertGreaterEqual(checked, exceptions.METHODS_CHECKED_AT_LEAST)


if __name__ == "__main__":
    tf.test.main()
