"""Lists, per test of the original's canned/ and tpu/ files, the private names it needs.

    python3 conformance/private_names.py [HARNESS] [--missing-here]

HARNESS: ../shared/conformance by default. With --missing-here (estimator_lib importable:
the project's venv), only the names estimator_lib lacks after compat.install() are kept,
and the tests left with none are dropped.

Reads (runs nothing) the test files of HARNESS/later/ and this folder's results/orig/: for
every test that passes on the original, the private (underscore) names of the original's
modules that its code touches: `module._name` of a module imported from
tensorflow_estimator, `mock.patch.object(module, '_name')` and `mock.patch('..._name')`
targets, attributes `_name` read from an Estimator the test built (`est._ctx`), and the
private modules its file imports. The code of a test is its method, what it calls on
`self` (through its base classes, which may live in the original's testing utils) and
the module-level functions it calls, transitively. The output is the table of
conformance/README.md, "Tests excused as private (class i)".
"""

import ast
import glob
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = "tensorflow_estimator/python/estimator"
_PRIVATE_MODULES = ("_tpu_estimator_embedding", "error_handling", "iteration_count_estimator")
_HELPERS = ("canned/dnn_testing_utils.py", "canned/linear_testing_utils.py",
            "canned/v1/dnn_testing_utils_v1.py", "canned/v1/linear_testing_utils_v1.py")


def _is_private(name):
    return name.startswith("_") and not name.startswith("__")


class _Module:
    """One parsed file: its classes, functions and the estimator modules it imports."""

    def __init__(self, path):
        with open(path) as f:
            self.tree = ast.parse(f.read())
        self.classes = {n.name: n for n in self.tree.body if isinstance(n, ast.ClassDef)}
        self.functions = {n.name: n for n in self.tree.body if isinstance(n, ast.FunctionDef)}
        self.aliases = {}  # name bound to a tensorflow_estimator module -> its path
        self.private_imports = []
        self.other_imports = set()  # names bound to anything else (TensorFlow's own modules)
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and not (
                    getattr(node, "module", None) or "").startswith("tensorflow_estimator"):
                self.other_imports.update((a.asname or a.name).split(".")[0]
                                          for a in node.names)
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                    "tensorflow_estimator"):
                for alias in node.names:
                    self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                    if alias.name in _PRIVATE_MODULES or any(
                            part in _PRIVATE_MODULES for part in node.module.split(".")):
                        self.private_imports.append(
                            f"{node.module}.{alias.name}" if alias.name in _PRIVATE_MODULES
                            else node.module)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("tensorflow_estimator"):
                        self.aliases[alias.asname or alias.name.split(".")[0]] = alias.name


def _private_refs(node, aliases, other_imports=()):
    """The private names `node`'s code touches (in source order): `module:_name` for a
    module of the original's, `~obj._name` for an attribute of an object the test made
    (the Estimator's `_ctx`, a layer's `_units`), which a reader must check by hand."""
    found = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and _is_private(sub.attr):
            base = sub.value
            if isinstance(base, ast.Name) and base.id in aliases:
                found.append(f"{aliases[base.id]}:{sub.attr}")
            elif isinstance(base, ast.Name) and base.id not in ("self", "cls") and \
                    base.id not in other_imports and base.id[0].islower():
                found.append(f"~{base.id}.{sub.attr}")
        elif isinstance(sub, ast.Call) and sub.args:
            func = sub.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name == "object" and len(sub.args) >= 2 and isinstance(sub.args[1], ast.Constant):
                target = sub.args[1].value
                base = sub.args[0]
                if isinstance(target, str) and _is_private(target) and isinstance(
                        base, ast.Name) and base.id in aliases:
                    found.append(f"{aliases[base.id]}:{target}")
            elif name == "patch" and isinstance(sub.args[0], ast.Constant):
                target = sub.args[0].value
                if isinstance(target, str) and "tensorflow_estimator" in target and any(
                        _is_private(p) for p in target.split(".")):
                    module, _, name = target.rpartition(".")
                    found.append(f"{module}:{name}")
    return found


class _Index:
    def __init__(self, root, test_file):
        self.modules = [_Module(os.path.join(root, test_file))]
        self.modules += [_Module(os.path.join(root, h)) for h in _HELPERS
                         if os.path.exists(os.path.join(root, h))]
        self.main = self.modules[0]

    def find_class(self, name):
        for module in self.modules:
            if name in module.classes:
                return module, module.classes[name]
        return None, None

    def mro(self, name):
        out, todo = [], [name]
        while todo:
            module, cls = self.find_class(todo.pop(0))
            if cls is None:
                continue
            out.append((module, cls))
            for base in cls.bases:
                todo.append(base.attr if isinstance(base, ast.Attribute) else
                            getattr(base, "id", ""))
        return out

    def method(self, mro, name):
        for module, cls in mro:
            for node in cls.body:
                if isinstance(node, ast.FunctionDef) and node.name == name:
                    return module, node
        return None, None

    def test_code(self, class_name, test_name):
        """[(module, function node)] of a test: its method, its setUp, and what they call."""
        mro = self.mro(class_name)
        methods = [n.name for _, c in mro for n in c.body if isinstance(n, ast.FunctionDef)]
        # Parameterized names carry a suffix: the longest method name it starts with.
        base = max((m for m in methods if test_name.startswith(m)), key=len, default=None)
        seen, todo, out = set(), [n for n in (base, "setUp") if n], []
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            module, node = self.method(mro, name)
            if node is None:
                module, node = next(((m, m.functions[name]) for m in self.modules
                                     if name in m.functions), (None, None))
            if node is None:
                continue
            out.append((module, node))
            for sub in ast.walk(node):
                if isinstance(sub, ast.Call):
                    func = sub.func
                    if isinstance(func, ast.Attribute) and isinstance(
                            func.value, ast.Name) and func.value.id == "self":
                        todo.append(func.attr)
                    elif isinstance(func, ast.Name):
                        todo.append(func.id)
        return out


_INDEXES = {}


def needs(root, test_file, test_id):
    if test_file not in _INDEXES:
        _INDEXES[test_file] = _Index(root, test_file)
    index = _INDEXES[test_file]
    if index.main.private_imports:
        return sorted(set(index.main.private_imports))
    class_name, _, test_name = test_id.partition("::")
    names = []
    for module, node in index.test_code(class_name, re.sub(r"\[.*\]$", "", test_name)):
        names += [n for n in _private_refs(node, module.aliases, module.other_imports)
                  if n not in names]
    return names


def missing_here(names):
    """Of `names`, those estimator_lib lacks after compat.install() (objects' attributes,
    `~...`, cannot be told without running the test: kept)."""
    import importlib  # pylint: disable=import-outside-toplevel
    from estimator_lib import compat  # pylint: disable=import-outside-toplevel
    compat.install()
    missing = []
    for name in names:
        if name.startswith("~"):
            missing.append(name)
            continue
        module_path, _, attr = name.partition(":")
        try:
            module = importlib.import_module(module_path)
        except ImportError:
            missing.append(name)
            continue
        if attr and not hasattr(module, attr):
            missing.append(name)
    return missing


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    harness = os.path.abspath(args[0] if args else
                              os.path.join(HERE, "..", "..", "shared", "conformance"))
    root = os.path.join(harness, "later", PKG)
    table = {}
    for path in sorted(glob.glob(os.path.join(HERE, "results", "orig", "*.json"))):
        with open(path) as f:
            record = json.load(f)
        test_file = record["file"].split("@")[0]
        if not test_file.startswith(("canned/", "tpu/")) or record["file"].endswith("@v1"):
            continue
        for test_id, outcome in sorted(record["tests"].items()):
            if outcome["outcome"] != "passed":
                continue
            names = needs(root, test_file, test_id)
            if names:
                table[f"{test_file}::{test_id}"] = names
    if "--missing-here" in argv:
        table = {test: missing_here(names) for test, names in table.items()}
        table = {test: names for test, names in table.items() if names}
    for test, names in table.items():
        print(f"{test}\t{', '.join(names)}")
    return table


if __name__ == "__main__":
    main(sys.argv)
