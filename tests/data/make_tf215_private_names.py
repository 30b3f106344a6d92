"""Writes tests/data/tf215_private_names.json: the ORIGINAL's private module-level names
and the private methods of its classes, with their signatures.

Run by hand only, in the throw-away venv described in tests/data/README.md:

    TF_CPP_MIN_LOG_LEVEL=2 /tmp/tf215/bin/python tests/data/make_tf215_private_names.py

Only names, kinds and signatures are recorded, never code.
`tests/estimator_lib/legacy/private_names_test.py` imports this module for
`describe_value` and `private_methods`, and describes ours with them after
`estimator_lib.compat.install()`.

What is recorded:

* `modules`: for every module of `tf215_names.json` that imports, each name starting
  with one `_` (dunders aside) that the module binds itself: by a top-level `def`,
  `class` or assignment in its own source (looking into top-level `if`/`try`
  blocks), or a class or function whose `__module__` is the module. Names bound only
  by an import are the imported module's. Each name's kind (class, function,
  constant, module) and, for functions and classes, the parameters (name, kind,
  default as repr, as make_tf215_signatures.py writes them) of the function or the
  class's constructor.
* `methods`: for every class of `tf215_class_contract.json` of the original's
  package, each private method (one leading `_`, or `__init__`/`__call__`) the class
  itself defines, with its kind and parameters (default as repr): the signatures a
  subclass overriding or calling one must match. An inherited one is recorded at the
  class that defines it; members a TensorFlow or Keras base defines are theirs.
"""

import ast
import importlib
import importlib.util
import inspect
import json
import os
import sys
import types
from typing import Dict

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = os.path.join(HERE, "tf215_names.json")
CONTRACT = os.path.join(HERE, "tf215_class_contract.json")
OUTPUT = os.path.join(HERE, "tf215_private_names.json")
PACKAGE = "tensorflow_estimator.python.estimator"


def _signatures_module():
    spec = importlib.util.spec_from_file_location(
        "make_tf215_signatures", os.path.join(HERE, "make_tf215_signatures.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_SIGNATURES = _signatures_module()


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _assigned(targets):
    for target in targets:
        if isinstance(target, ast.Name):
            yield target.id
        elif isinstance(target, (ast.Tuple, ast.List)):
            yield from _assigned(target.elts)


def _top_level(body):
    for node in body:
        if isinstance(node, ast.If):
            yield from _top_level(node.body)
            yield from _top_level(node.orelse)
        elif isinstance(node, ast.Try):
            yield from _top_level(node.body)
            for handler in node.handlers:
                yield from _top_level(handler.body)
            yield from _top_level(node.orelse)
            yield from _top_level(node.finalbody)
        else:
            yield node


def _defined_names(module) -> set:
    path = getattr(module, "__file__", None)
    if not path or not path.endswith(".py"):
        return set()
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    names = set()
    for node in _top_level(tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(_assigned(node.targets))
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            names.update(_assigned([node.target]))
    return names


def kind_of(value) -> str:
    if isinstance(value, types.ModuleType):
        return "module"
    if inspect.isclass(value):
        return "class"
    if callable(value):
        return "function"
    return "constant"


def describe_value(value) -> dict:
    """Kind, and for a function or class the parameters (a class: its constructor's)."""
    kind = kind_of(value)
    described = {"kind": kind}
    if kind == "function":
        described["parameters"] = _SIGNATURES._parameters(value)  # pylint: disable=protected-access
    elif kind == "class":
        described["parameters"] = _SIGNATURES._constructor(value)  # pylint: disable=protected-access
    return described


def private_module_names(module) -> Dict[str, dict]:
    defined = _defined_names(module)
    result = {}
    for name in sorted(vars(module)):
        if not _private(name):
            continue
        value = getattr(module, name)
        own = (inspect.isclass(value) or inspect.isfunction(value)) and \
            getattr(value, "__module__", None) == module.__name__
        if name in defined or own:
            result[name] = describe_value(value)
    return result


def private_methods(cls, own: bool = True) -> Dict[str, dict]:
    """name -> {kind, parameters} of each private method `cls` defines itself (`own`),
    or has from any class (not `own`)."""
    result = {}
    for name in sorted(dir(cls)):
        if not (_private(name) or name in ("__init__", "__call__")):
            continue
        owner = next((k for k in cls.__mro__ if name in vars(k)), None)
        if owner is None or (own and owner is not cls):
            continue
        raw = vars(owner)[name]
        if isinstance(raw, staticmethod):
            kind, function = "staticmethod", raw.__func__
        elif isinstance(raw, classmethod):
            kind, function = "classmethod", raw.__func__
        elif inspect.isfunction(raw):
            kind, function = "method", raw
        else:
            continue
        result[name] = {"kind": kind,
                        "parameters": _SIGNATURES._parameters(function)}  # pylint: disable=protected-access
    return result


def record_modules(names: dict) -> Dict[str, dict]:
    modules = {}
    for module_name in sorted(names["modules"]):
        try:
            module = importlib.import_module(module_name)
        except Exception:  # pylint: disable=broad-except  (tf215_names.json records it)
            continue
        modules[module_name] = private_module_names(module)
    return modules


def record_methods(contract: dict) -> Dict[str, dict]:
    methods = {}
    for path in sorted(contract["classes"]):
        module_name, _, name = path.rpartition(".")
        try:
            cls = getattr(importlib.import_module(module_name), name)
        except Exception:  # pylint: disable=broad-except
            continue
        found = private_methods(cls) if cls.__module__.startswith(PACKAGE) else None
        if found:
            methods[path] = found
    return methods


def main():
    from importlib import metadata  # pylint: disable=import-outside-toplevel
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    with open(NAMES) as f:
        names = json.load(f)
    with open(CONTRACT) as f:
        contract = json.load(f)
    record = {
        "generator": "tests/data/make_tf215_private_names.py",
        "modules": record_modules(names),
        "methods": record_methods(contract),
        "recorded_with": {
            "tensorflow": tf.__version__,
            "tensorflow_estimator": metadata.version("tensorflow-estimator"),
            "python": sys.version.split()[0]},
    }
    with open(OUTPUT, "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")
    count = sum(len(v) for v in record["modules"].values())
    methods = sum(len(v) for v in record["methods"].values())
    print(f"{count} private module names, {methods} private methods -> {OUTPUT}")


if __name__ == "__main__":
    main()
