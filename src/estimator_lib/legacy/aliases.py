"""install(): the original's module tree (legacy/original_tree.py) put in place.

TensorFlow 2.16 removed `tf.estimator` and the `tensorflow_estimator` package no
longer imports, so a legacy program stops at its first import. After `install()`:

- every path of `original_tree.TREE` imports, and is an attribute of its parent: the
  `tensorflow_estimator.*` modules, under the pre-split `tensorflow.python.estimator.*`
  names too (`original_tree.ALIASES`);
- `tf.estimator` is the TF2 namespace and `tf.compat.v1.estimator` the v1 one, on
  `tf.compat.v1`, `tf.compat.v2` and every `compat.v1` / `compat.v2` nested in them
  (`import tensorflow.compat.v2 as tf; tf.compat.v1.estimator.tpu.TPUEstimator`);
- `tf.keras.estimator.model_to_estimator` (tf_keras' own) works: tf_keras imports
  `tensorflow_estimator.python.estimator.keras_lib` when called.

A path of the table is one module object, wherever it is reached: a module of ours stands
at its original path itself, and a submodule of one of our packages reached under an
original name (`tensorflow_estimator.python.estimator.tpu.experimental` by import, while
`estimator_lib.tpu` stands at `...estimator.tpu`) is that submodule, not a second run of
its file (`_TreeFinder`). `install()` is idempotent; `uninstall()` undoes it.
"""

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import threading
import types
from typing import Dict, List, Tuple

import tensorflow as tf

from estimator_lib.engine.estimator_v1 import EstimatorV1  # noqa: F401  (compat's name)
from estimator_lib.legacy import original_tree
from estimator_lib.legacy.original_tree import API_VERSION  # noqa: F401  (compat's name)
from estimator_lib.tf_internals import module_attributes

logging = tf.compat.v1.logging

_DOC = "The original's module at this path, resolved by estimator_lib.compat.install()."


def _new_module(name: str, *, package: bool) -> types.ModuleType:
    module = types.ModuleType(name, _DOC)
    module.__spec__ = importlib.machinery.ModuleSpec(name, loader=None, is_package=package)
    module.__package__ = name if package else name.rpartition(".")[0]
    if package:
        module.__path__ = []
    return module


def _names(names: str) -> List[Tuple[str, str]]:
    return [tuple(entry.split("=", 1)) if "=" in entry else (entry, entry)
            for entry in names.split()]


# Names the original's `tf.estimator` namespaces never had, though users look there:
# where each lives, as a path the user can type (issue 47).
ELSEWHERE = {
    "model_to_estimator": ("tf.keras.estimator.model_to_estimator (with tf_keras), or "
                           "estimator_lib.model_to_estimator"),
}


def _missing_attribute(module_name: str):
    """Returns a module `__getattr__` whose AttributeError says where ELSEWHERE's names live."""

    def __getattr__(name):  # pylint: disable=invalid-name
        message = f"module {module_name!r} has no attribute {name!r}"
        if name in ELSEWHERE:
            message += f" (nor had TF 2.15's); use {ELSEWHERE[name]}"
        raise AttributeError(message)

    return __getattr__


def build_tree() -> Dict[str, types.ModuleType]:
    """Every path of the table (and of its aliases) -> its module, ready for sys.modules."""
    tree = original_tree.TREE
    modules = {path: importlib.import_module(spec) if isinstance(spec, str) else
               _new_module(path, package=any(p.startswith(path + ".") for p in tree))
               for path, spec in tree.items()}
    for path, spec in tree.items():
        for source, names in () if isinstance(spec, str) else spec:
            for name, source_name in _names(names):
                value = (modules[source_name] if source == "@" else
                         getattr(importlib.import_module(source), source_name))
                setattr(modules[path], name, value)
    for path in (original_tree.API_V1, original_tree.API_V2):
        modules[path].__getattr__ = _missing_attribute(path)
    for alias, target in original_tree.ALIASES.items():
        modules.update([(alias + path[len(target):], module) for path, module in modules.items()
                        if path == target or path.startswith(target + ".")])
    for path, module in modules.items():
        parent, _, leaf = path.rpartition(".")
        if (path not in original_tree.IMPORT_ONLY and isinstance(
                original_tree.TREE.get(parent), tuple)):
            setattr(modules[parent], leaf, module)  # Never into a module of ours.
    return modules


class _ModuleLoader(importlib.abc.Loader):
    """Loads a module that exists already: one of the table's, or a submodule of ours."""

    def __init__(self, get_module):
        self._get_module = get_module

    def create_module(self, spec):
        return self._get_module()

    def exec_module(self, module):
        pass  # Ran once, under its own name (or made by build_tree).


class _TreeFinder(importlib.abc.MetaPathFinder):
    """Finds what the table has at a path that is not in `sys.modules` until imported.

    * `on_import`: the `IMPORT_ONLY` paths; importing one makes it an attribute of its
      parent, as in TF 2.15 (`tf.estimator.inputs` exists after `import tensorflow_
      estimator.python.estimator.api._v2.estimator.inputs`, not before).
    * `packages`: our packages that stand at original paths. `estimator_lib.tpu` stands
      at `...estimator.tpu` (and `tf.compat.v1.estimator.tpu`); without this finder,
      importing `<that path>.experimental` would search the package's `__path__` and run
      tpu/experimental.py a second time, as a new module that then replaces
      `estimator_lib.tpu.experimental` as the package's attribute.
    """

    def __init__(self, on_import: Dict[str, types.ModuleType], packages: Dict[str, str]):
        self._on_import = on_import  # path -> its module
        self._packages = packages  # original path -> our package's name
        self.loaded: List[str] = []

    def find_spec(self, fullname, path=None, target=None):
        del path, target
        if fullname in self._on_import:
            module = self._on_import[fullname]
            self.loaded.append(fullname)
            return importlib.machinery.ModuleSpec(fullname, _ModuleLoader(lambda: module))
        parent, _, leaf = fullname.rpartition(".")
        package = self._packages.get(parent)
        if package is None or importlib.util.find_spec(f"{package}.{leaf}") is None:
            return None
        self.loaded.append(fullname)
        return importlib.machinery.ModuleSpec(fullname, _ModuleLoader(
            lambda: importlib.import_module(f"{package}.{leaf}")))


def _compat_modules() -> List[Tuple[types.ModuleType, str]]:
    """(module, "v1" or "v2") for `tf` and every `compat.v1`/`compat.v2` reachable from it.

    TensorFlow nests them (`tf.compat.v2.compat.v1`, `tf.compat.v1.compat.v1.compat.v2`,
    ...) over a finite set of module objects, each visited once.
    """
    found, seen, stack = [], set(), [(tf, "v2")]
    while stack:
        module, version = stack.pop()
        if id(module) in seen:
            continue
        seen.add(id(module))
        found.append((module, version))
        compat = getattr(module, "compat", None)
        stack.extend((getattr(compat, v), v) for v in ("v1", "v2") if hasattr(compat, v))
    return found


_lock = threading.Lock()
_assignments = module_attributes.Assignments()
_installed: Dict[str, object] = {}


def install() -> None:
    """Makes the legacy estimator import surfaces resolve to estimator_lib.

    Registers every path of the original's module tree in `sys.modules` and sets
    `tf.estimator` and `tf.compat.v1.estimator` on every (nested) compat module.
    Calling it again does nothing; never touches `tf.keras` (that would fix the Keras
    version before the program chooses it).
    """
    with _lock:
        if is_installed():
            return
        modules = build_tree()
        import tensorflow.python as tf_python  # pylint: disable=import-outside-toplevel
        api = {"v1": modules[original_tree.API_V1], "v2": modules[original_tree.API_V2]}
        for module, version in _compat_modules():
            _assignments.set(module, "estimator", api[version])
        _assignments.set(tf_python, "estimator", modules["tensorflow.python.estimator"])
        on_import = {id(modules[path]) for path in original_tree.IMPORT_ONLY}
        for name, module in modules.items():
            if id(module) not in on_import:
                _assignments.set(sys.modules, name, module)
        finder = _TreeFinder(
            {name: module for name, module in modules.items() if id(module) in on_import},
            {path: module.__name__ for path, module in modules.items()
             if path != module.__name__ and hasattr(module, "__path__")
             and module.__spec__.origin})  # Ours: a file; the table's have no origin.
        sys.meta_path.insert(0, finder)
        _installed.update(api=api["v2"], finder=finder)
        logging.debug("estimator_lib.compat: installed %d legacy module paths.", len(modules))


def uninstall() -> None:
    """Undoes `install()`: the attributes and sys.modules entries it set are restored."""
    with _lock:
        finder = _installed.get("finder")
        if finder in sys.meta_path:
            sys.meta_path.remove(finder)
            for name in finder.loaded:
                sys.modules.pop(name, None)
        _assignments.undo()
        _installed.clear()


def is_installed() -> bool:
    """True while `install()`'s surfaces are in place."""
    return bool(_installed) and getattr(tf, "estimator", None) is _installed["api"]
