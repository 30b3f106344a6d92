"""Writes tests/data/tf215_class_contract.json: the ORIGINAL's classes as a subclass sees them.

Run by hand only, in the throw-away venv described in tests/data/README.md:

    TF_CPP_MIN_LOG_LEVEL=2 /tmp/tf215/bin/python tests/data/make_tf215_class_contract.py

For every class reached at a module path of `tf215_names.json` (the public names the
module records, and the private classes the module itself defines), it records, by
path (`module.Name`): the metaclass, `__abstractmethods__`, the bases and the MRO
(`module.qualname` of each), and every member the class defines or inherits from a
non-builtin class, public and private, with its kind and signature. For the classes a
library subclasses (Estimator, TPUEstimator, RunConfig, the heads, the canned
estimators, the exporters and the hooks), it records too which of the class's own
private methods each method calls directly (`self._name(...)`, read from the AST of
the original's methods): names only, never code.

`tests/estimator_lib/legacy/class_contract_test.py` imports this module for
`describe_class` and compares ours, reached by the same paths after
`estimator_lib.compat.install()`. Importing it runs nothing.
"""

import ast
import importlib
import inspect
import json
import os
import sys
import textwrap
from typing import Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = os.path.join(HERE, "tf215_names.json")
OUTPUT = os.path.join(HERE, "tf215_class_contract.json")
PACKAGE = "tensorflow_estimator.python.estimator"

# The classes whose private-call structure is recorded: module suffix -> class names
# (None: every class the module records).
CALL_GRAPH_CLASSES = {
    "estimator": ("Estimator", "EstimatorV2"),
    "tpu.tpu_estimator": ("TPUEstimator",),
    "run_config": ("RunConfig",),
    "tpu.tpu_config": ("RunConfig", "TPUConfig"),
    "canned.head": None,
    "head.base_head": ("Head",),
    "head.binary_class_head": None,
    "head.multi_class_head": None,
    "head.multi_label_head": None,
    "head.multi_head": None,
    "head.regression_head": None,
    "head.sequential_head": None,
    "canned.baseline": None,
    "canned.dnn": None,
    "canned.dnn_linear_combined": None,
    "canned.linear": None,
    "canned.rnn": None,
    "canned.kmeans": None,
    "canned.saved_model_estimator": None,
    "canned.timeseries.estimators": None,
    "exporter": None,
    "hooks.hooks": None,
    "hooks.basic_session_run_hooks": None,
    "early_stopping": None,
}


def type_name(klass) -> str:
    return f"{klass.__module__}.{klass.__qualname__}"


def _parameters(function) -> Optional[List[list]]:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    return [[p.name, p.kind.name, p.default is not inspect.Parameter.empty]
            for p in signature.parameters.values()]


def _owner(cls, name):
    return next((k for k in cls.__mro__ if name in vars(k)), None)


def _kind(raw) -> str:
    if isinstance(raw, staticmethod):
        return "staticmethod"
    if isinstance(raw, classmethod):
        return "classmethod"
    if isinstance(raw, property) or type(raw).__name__ == "_tuplegetter":
        return "property"
    if inspect.isclass(raw):
        return "class"
    if inspect.isfunction(raw) or callable(raw):
        return "method"
    return "attribute"


def _function(raw):
    if isinstance(raw, (staticmethod, classmethod)):
        return raw.__func__
    if isinstance(raw, property):
        return raw.fget
    return raw if inspect.isfunction(raw) else None


def members(cls) -> Dict[str, dict]:
    """Every member not defined by a builtin class: kind, owner and parameters."""
    result = {}
    for name in sorted(dir(cls)):
        owner = _owner(cls, name)
        if owner is None or owner.__module__ == "builtins":
            continue
        raw = vars(owner)[name]
        if name.startswith("__") and name.endswith("__") and name not in (
                "__init__", "__new__", "__call__", "__getattr__", "__eq__", "__hash__"):
            continue
        kind = _kind(raw)
        member = {"kind": kind, "owner": type_name(owner)}
        if kind in ("method", "staticmethod", "classmethod"):
            member["parameters"] = _parameters(
                _function(raw) or getattr(cls, name))
        result[name] = member
    return result


def _self_calls(function, method_names) -> List[str]:
    """The class's private methods `function` calls as `self._x(...)` (or through
    `self.__class__`, `type(self)`, `super()`)."""
    try:
        source = textwrap.dedent(inspect.getsource(function))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError, IndentationError):
        return []
    called = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        name = node.attr
        if not name.startswith("_") or name.startswith("__") or name not in method_names:
            continue
        target = node.value
        if isinstance(target, ast.Name) and target.id in ("self", "cls"):
            called.add(name)
        elif isinstance(target, ast.Attribute) and target.attr == "__class__":
            called.add(name)
        elif isinstance(target, ast.Call) and isinstance(target.func, ast.Name) and \
                target.func.id in ("type", "super"):
            called.add(name)
    return sorted(called)


def call_graph(cls) -> Dict[str, List[str]]:
    """method -> the class's private methods it calls, for methods of the package's own
    code (methods a TensorFlow base defines are TensorFlow's, the same here)."""
    private = {name for name in dir(cls) if name.startswith("_") and not name.startswith("__")
               and _kind(vars(_owner(cls, name))[name]) in ("method", "staticmethod",
                                                              "classmethod", "property")}
    graph = {}
    for name in sorted(dir(cls)):
        owner = _owner(cls, name)
        if owner is None or not owner.__module__.startswith(PACKAGE):
            continue
        function = _function(vars(owner)[name])
        if function is None or (name.startswith("__") and name != "__init__"):
            continue
        calls = _self_calls(function, private)
        if calls:
            graph[name] = calls
    return graph


def describe_class(cls) -> dict:
    return {
        "metaclass": type_name(type(cls)),
        "abstract": sorted(getattr(cls, "__abstractmethods__", ()) or ()),
        "bases": [type_name(base) for base in cls.__bases__],
        "mro": [type_name(k) for k in cls.__mro__],
        "members": members(cls),
    }


def classes_at_paths(names: dict) -> Dict[str, type]:
    """path -> class, for each module of tf215_names.json that imports."""
    found = {}
    for module_name, entry in sorted(names["modules"].items()):
        try:
            module = importlib.import_module(module_name)
        except Exception:  # pylint: disable=broad-except  (recorded in failed_imports)
            continue
        for name in sorted(vars(module)):
            value = getattr(module, name)
            if not inspect.isclass(value):
                continue
            public = entry["names"].get(name) == "class"
            own = name.startswith("_") and not name.startswith("__") and \
                value.__module__ == module_name
            if public or own:
                found[f"{module_name}.{name}"] = value
    return found


def wants_call_graph(path: str) -> bool:
    module, _, name = path.rpartition(".")
    suffix = module[len(PACKAGE) + 1:]
    if suffix not in CALL_GRAPH_CLASSES:
        return False
    wanted = CALL_GRAPH_CLASSES[suffix]
    return wanted is None or name in wanted


def main():
    from importlib import metadata  # pylint: disable=import-outside-toplevel
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    with open(NAMES) as f:
        names = json.load(f)
    record = {"classes": {}}
    for path, cls in sorted(classes_at_paths(names).items()):
        description = describe_class(cls)
        if wants_call_graph(path):
            description["calls"] = call_graph(cls)
        record["classes"][path] = description
    record["recorded_with"] = {
        "tensorflow": tf.__version__,
        "tensorflow_estimator": metadata.version("tensorflow-estimator"),
        "python": sys.version.split()[0]}
    with open(OUTPUT, "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")
    with_calls = sum(1 for c in record["classes"].values() if "calls" in c)
    print(f"{len(record['classes'])} classes ({with_calls} with their calls) -> {OUTPUT}")


if __name__ == "__main__":
    main()
