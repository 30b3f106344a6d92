"""BUILD and setup.cfg cannot rot: they describe the tree as it is.

BUILD has one target per package (by glob); every .py file is in exactly one
target, every estimator_lib package a target's files import is one of its deps,
and setup.cfg installs every package of the tree under `estimator_lib` only.
"""

import ast
import configparser
import glob
import os
import unittest

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_TOP_FOLDERS = ("src", "tests", "bench", "conformance")
# The folder holding the installed packages (setup.cfg's package_dir: a src/ layout).
_SRC = "src"


def _targets():
    targets = []

    def rule(kind):
        def record(**kwargs):
            targets.append(dict(kwargs, kind=kind))
        return record

    def glob_(patterns):
        return sorted(os.path.relpath(p, _ROOT) for pattern in patterns
                      for p in glob.glob(os.path.join(_ROOT, pattern), recursive=True))

    namespace = {kind: rule(kind) for kind in ("py_library", "py_binary", "py_test")}
    namespace["glob"] = glob_
    with open(os.path.join(_ROOT, "BUILD")) as f:
        exec(compile(f.read(), "BUILD", "exec"), namespace)  # pylint: disable=exec-used
    return targets


def _python_files():
    for folder in _TOP_FOLDERS:
        for directory, _, files in os.walk(os.path.join(_ROOT, folder)):
            if "__pycache__" in directory:
                continue
            for name in files:
                if name.endswith(".py"):
                    yield os.path.relpath(os.path.join(directory, name), _ROOT)


def _folder_of(top_level):
    """The repository folder a top-level package's folder sits in."""
    return _SRC if top_level == "estimator_lib" else ""


def _imported_modules(path):
    with open(os.path.join(_ROOT, path)) as f:
        tree = ast.parse(f.read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # `from package import module` uses the module, not the package's __init__.
            for alias in node.names:
                name = f"{node.module}.{alias.name}"
                yield name if _is_module(name) else node.module


def _is_module(name):
    parts = name.split(".")
    folder = os.path.join(_ROOT, _folder_of(parts[0]), *parts)
    return os.path.exists(folder + ".py") or os.path.exists(os.path.join(folder, "__init__.py"))


class BuildFileTest(unittest.TestCase):

    def setUp(self):
        self.targets = _targets()
        self.by_name = {t["name"]: t for t in self.targets}
        self.owner = {}
        for target in self.targets:
            for src in target["srcs"]:
                self.owner.setdefault(src, []).append(target["name"])

    def test_names_are_unique(self):
        self.assertEqual(len(self.by_name), len(self.targets))

    def test_every_file_is_in_exactly_one_target(self):
        for path in _python_files():
            self.assertEqual(len(self.owner.get(path, [])), 1,
                             f"{path} is in targets {self.owner.get(path)}")

    def test_every_dep_is_a_target(self):
        for target in self.targets:
            for dep in target.get("deps", []):
                self.assertIn(dep.lstrip(":"), self.by_name, f"{target['name']}: {dep}")

    def test_imports_across_packages_are_declared_deps(self):
        def target_of_module(module):
            parts = module.split(".")
            for length in range(len(parts), 0, -1):
                name = ".".join(parts[:length])
                folder = os.path.join(_folder_of(parts[0]), name.replace(".", os.sep))
                for candidate in (folder + ".py", os.path.join(folder, "__init__.py")):
                    if candidate in self.owner:
                        return self.owner[candidate][0]
            return None

        for target in self.targets:
            allowed = {dep.lstrip(":") for dep in target.get("deps", [])} | {target["name"]}
            for src in target["srcs"]:
                for module in _imported_modules(src):
                    if not module.startswith(("estimator_lib", "tests", "bench")):
                        continue
                    used = target_of_module(module)
                    if used is not None:
                        self.assertIn(used, allowed,
                                      f"{src} imports {module} (target {used}), which is "
                                      f"not a dep of {target['name']}")

    def test_deps_are_acyclic(self):
        """The deps are layers: no target reaches itself through its deps."""
        deps = {t["name"]: [d.lstrip(":") for d in t.get("deps", [])] for t in self.targets}
        for start in deps:
            stack = [(start, iter(deps[start]))]
            seen = set()
            while stack:
                name, children = stack[-1]
                child = next(children, None)
                if child is None:
                    stack.pop()
                    continue
                self.assertNotEqual(child, start, "BUILD deps form a cycle: " + " -> ".join(
                    [n for n, _ in stack] + [child]))
                if child not in seen:
                    seen.add(child)
                    stack.append((child, iter(deps.get(child, []))))

    def test_a_cycle_is_rejected(self):
        """The cycle check fails on a cycle (a BUILD with one added on purpose)."""
        original = self.targets
        self.targets = [dict(name="a", deps=[":b"]), dict(name="b", deps=[":c"]),
                        dict(name="c", deps=[":a"])]
        try:
            with self.assertRaisesRegex(AssertionError, "cycle: a -> b -> c -> a"):
                self.test_deps_are_acyclic()
        finally:
            self.targets = original


class SetupCfgTest(unittest.TestCase):

    def setUp(self):
        config = configparser.ConfigParser()
        config.read(os.path.join(_ROOT, "setup.cfg"))
        self.packages = config["options"]["packages"].split()
        self.package_dir = dict(
            (part.strip() for part in line.split("=", 1))
            for line in config["options"]["package_dir"].strip().splitlines())

    def test_installs_every_package_of_the_tree_and_only_under_estimator_lib(self):
        tree = set()
        for directory, _, files in os.walk(os.path.join(_ROOT, _SRC)):
            if "__init__.py" in files:
                tree.add(os.path.relpath(directory, os.path.join(_ROOT, _SRC)).replace(
                    os.sep, "."))
        self.assertEqual(sorted(self.packages), sorted(tree))
        self.assertTrue(all(p == "estimator_lib" or p.startswith("estimator_lib.")
                            for p in self.packages), self.packages)

    def test_installs_from_a_src_layout(self):
        """Only src/ holds packages: a folder named estimator_lib beside a script (a
        clone's) can never be imported in place of the installed package."""
        self.assertEqual(self.package_dir, {"": _SRC})
        self.assertFalse(os.path.exists(os.path.join(_ROOT, "estimator_lib")))


if __name__ == "__main__":
    unittest.main()
