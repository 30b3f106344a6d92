"""Every TensorFlow private estimator_lib touches is in tf_internals/registry.py.

The source is walked (ast): imports of `tensorflow.python`/`tensorflow.core`/
`tf_keras.src` modules, `obj._name` attributes (and getattr/setattr/hasattr with a
`_name` string) of objects that are not the code's own, and assignments into
TensorFlow's modules. Each must be a registry entry that names the file among its
users; writes must be in tf_internals/. An entry naming a file that no longer touches
it fails too, so the list stays exact.
"""

import ast
import os
from unittest import mock

from absl.testing import absltest

from estimator_lib.tf_internals import registry

_ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..", "src", "estimator_lib")
_PRIVATE_MODULES = ("tensorflow.python", "tensorflow.core", "tensorflow.compiler",
                    "tensorflow.tsl", "tf_keras.src", "keras.src")
_TF_PACKAGES = ("tensorflow", "tf_keras", "keras")
# Python's own underscore names (namedtuple API, os/sys), not TensorFlow's.
_PYTHON = {"_exit", "_getframe", "_replace", "_asdict", "_fields", "_make",
           "_current_frames", "_field_defaults"}
# Our own objects' private names read across our modules (file, name).
_OWN = {("engine/extenders.py", "_warm_start_settings"),  # Estimator's settings
        ("head/base_head.py", "_summary_key"),  # a head's summary key
        ("canned/linear_sdca.py", "_weight_column")}  # our head's weight column


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _own_names(tree) -> set:
    """Private names the file defines itself: functions, classes, attributes it sets."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return {name for name in names if _private(name)}


def scan(source: str, path: str = "<source>", *, skip_own: bool = True):
    """[(kind, name, line)] of the TensorFlow privates `source` touches.

    kind: 'import' (a private module, or a name imported from one), 'read' or 'write'
    (a `_name` attribute), 'module-write' (an assignment into a TensorFlow module).
    """
    tree = ast.parse(source, path)
    own = _own_names(tree) if skip_own else set()
    tf_modules, found = set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(_PRIVATE_MODULES):
                    found.append(("import", alias.name, node.lineno))
                if alias.name.split(".")[0] in _TF_PACKAGES:
                    tf_modules.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.startswith(_PRIVATE_MODULES):
                found.extend(("import", f"{node.module}.{alias.name}", node.lineno)
                             for alias in node.names)
                tf_modules.update(alias.asname or alias.name for alias in node.names)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr) \
                and node.attr not in _PYTHON and node.attr not in own:
            base = node.value
            if isinstance(base, ast.Name) and base.id in ("self", "cls"):
                continue
            kind = "write" if isinstance(node.ctx, (ast.Store, ast.Del)) else "read"
            found.append((kind, node.attr, node.lineno))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("getattr", "setattr", "hasattr", "delattr") \
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
                and isinstance(node.args[1].value, str):
            name, base = node.args[1].value, node.args[0]
            writes = node.func.id in ("setattr", "delattr")
            if _private(name) and name not in own and not (
                    isinstance(base, ast.Name) and base.id in ("self", "cls")):
                found.append(("write" if writes else "read", name, node.lineno))
            elif writes and isinstance(base, ast.Name) and base.id in tf_modules:
                found.append(("module-write", f"{base.id}.{name}", node.lineno))
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
            targets = node.target if isinstance(node, ast.AugAssign) else node.targets
            for target in targets if isinstance(targets, list) else [targets]:
                root = target
                while isinstance(root, ast.Attribute):
                    root = root.value
                if isinstance(target, ast.Attribute) and isinstance(root, ast.Name) \
                        and root.id in tf_modules:
                    found.append(("module-write", ast.unparse(target), node.lineno))
    return found


def _library_files():
    for directory, _, files in os.walk(_ROOT):
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(directory, name)
                yield os.path.relpath(path, _ROOT).replace(os.sep, "/"), path


def _unregistered(relative: str, findings):
    """The findings of file `relative` that the registry does not cover."""
    problems = []
    for kind, name, line in findings:
        where = f"estimator_lib/{relative}:{line}"
        if kind == "import":
            entries = [p for p in registry.PRIVATES
                       if name in (p.module, p.name) and relative in p.users]
        elif kind == "module-write":
            entries = [True] if relative.startswith("tf_internals/") else []
        else:
            if (relative, name) in _OWN:
                continue
            entries = [p for p in registry.PRIVATES
                       if p.leaf == name and relative in p.users]
            if kind == "write" and entries and (
                    not relative.startswith("tf_internals/")
                    or not any(p.writes for p in entries)):
                problems.append(f"{where}: writes {name} outside tf_internals/ (or its "
                                "entry lacks writes=True)")
                continue
        if not entries:
            problems.append(f"{where}: {kind} {name} is not in tf_internals/registry.py "
                            "for this file")
    return problems


class RegistryTest(absltest.TestCase):

    def test_every_private_touched_is_registered_for_its_file(self):
        problems = []
        for relative, path in _library_files():
            with open(path) as f:
                problems += _unregistered(relative, scan(f.read(), path))
        self.assertEqual(problems, [], "\n".join(problems))

    def test_every_entry_is_touched_by_each_file_it_names(self):
        touched = {}
        for relative, path in _library_files():
            with open(path) as f:
                touched[relative] = {name for _, name, _ in scan(f.read(), path,
                                                                  skip_own=False)}
        stale = [f"{p.name}: {user}" for p in registry.PRIVATES for user in p.users
                 if not ({p.name, p.module, p.leaf} & touched.get(user, set()))]
        self.assertEqual(stale, [], "registry entries whose file no longer touches them")

    def test_an_unregistered_private_is_caught(self):
        # Added on purpose: each kind of touch outside the registry fails the walk.
        source = ("import tensorflow as tf\n"
                  "from tensorflow.python.ops import gen_sdca_ops\n"
                  "from tf_keras.src.engine import base_layer_utils\n"
                  "def f(session, layer):\n"
                  "    session._extend_graph()\n"
                  "    layer._dtype_policy = None\n"
                  "    getattr(session, '_session')\n"
                  "    tf.estimator = object()\n")
        problems = _unregistered("training/example.py", scan(source))
        self.assertLen(problems, 6, problems)
        for name in ("gen_sdca_ops", "base_layer_utils", "_extend_graph", "_dtype_policy",
                     "_session", "tf.estimator"):
            self.assertTrue(any(name in p for p in problems), (name, problems))

    def test_own_private_names_are_not_tensorflow_s(self):
        source = ("class A:\n"
                  "    def _helper(self):\n"
                  "        return self._x\n"
                  "def g(a, b):\n"
                  "    a._helper()\n"
                  "    return b._replace(x=1)\n")
        self.assertEqual(scan(source), [])

    def test_every_import_entry_resolves_on_this_tensorflow(self):
        self.assertEqual(registry.missing(), [])

    def test_a_missing_private_fails_in_one_line_naming_the_version(self):
        gone = registry.Private("tensorflow.python.training.saver", "Saver._gone_in_2_99",
                                ("training/x.py",), "test")
        with mock.patch.object(registry, "PRIVATES", registry.PRIVATES + [gone]):
            with self.assertRaises(ImportError) as raised:
                registry.check()
        message = str(raised.exception)
        self.assertNotIn("\n", message)
        self.assertRegex(message, r"TensorFlow 2\.\d+.*tensorflow\.python\.training\.saver\."
                                  r"Saver\._gone_in_2_99")


if __name__ == "__main__":
    absltest.main()
