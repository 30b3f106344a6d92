"""BUILD cannot rot: every srcs and deps it names exists, every module has a target."""

import os
import unittest

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_PACKAGES = ("estimator_lib", "datasets", "flags", "tests", "bench")


def _targets():
    targets = []

    def rule(kind):
        def record(**kwargs):
            targets.append(dict(kwargs, kind=kind))
        return record

    namespace = {kind: rule(kind) for kind in ("py_library", "py_binary", "py_test")}
    namespace["glob"] = lambda patterns: list(patterns)
    with open(os.path.join(_ROOT, "BUILD")) as f:
        exec(compile(f.read(), "BUILD", "exec"), namespace)  # pylint: disable=exec-used
    return targets


class BuildFileTest(unittest.TestCase):

    def setUp(self):
        self.targets = _targets()
        self.names = {t["name"] for t in self.targets}

    def test_names_are_unique(self):
        self.assertEqual(len(self.names), len(self.targets))

    def test_every_src_exists(self):
        for target in self.targets:
            for src in target["srcs"] + ([target["main"]] if "main" in target else []):
                self.assertTrue(os.path.isfile(os.path.join(_ROOT, src)),
                                f"{target['name']} names missing file {src}")

    def test_every_dep_exists(self):
        for target in self.targets:
            for dep in target.get("deps", []):
                if dep.startswith("@"):
                    continue  # A third-party package, installed by setup.cfg.
                self.assertIn(dep.lstrip(":"), self.names,
                              f"{target['name']} depends on unknown target {dep}")

    def test_every_module_has_a_target(self):
        covered = {src for target in self.targets for src in target["srcs"]}
        for package in _PACKAGES:
            for directory, _, files in os.walk(os.path.join(_ROOT, package)):
                relative = os.path.relpath(directory, _ROOT)
                if "__pycache__" in relative or "data" in relative.split(os.sep):
                    continue
                for name in files:
                    if name.endswith(".py"):
                        path = os.path.join(relative, name)
                        self.assertIn(path, covered, f"{path} has no BUILD target")

    def test_tests_are_py_tests(self):
        for target in self.targets:
            if target["srcs"][0].endswith("_test.py"):
                self.assertEqual(target["kind"], "py_test", target["name"])


if __name__ == "__main__":
    unittest.main()
