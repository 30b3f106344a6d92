"""Writes tests/data/tf215_signatures.json: the public surface of the ORIGINAL tf.estimator.

Run by hand only, in the throw-away venv described in tests/data/README.md:

    TF_CPP_MIN_LOG_LEVEL=2 /tmp/tf215/bin/python tests/data/make_tf215_signatures.py

It walks `tf.estimator` and `tf.compat.v1.estimator` with every sub-namespace
(experimental, export, inputs, tpu, tpu.experimental) and records, for every
public class, its constructor and each public method, property and constant
with its signature (parameter names, kinds and defaults as repr), and for every
public function its signature. Only the original's outputs are kept.

`tests/estimator_lib/legacy/signatures_test.py` imports this module for
`describe_api`, so ours is described by the same code after
`estimator_lib.compat.install()`. Importing it runs nothing.
"""

import builtins
import enum
import inspect
import json
import os
import re
import sys
import types
from typing import Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
OUTPUT = os.path.join(HERE, "tf215_signatures.json")

ROOTS = ("tf.estimator", "tf.compat.v1.estimator")
# Values a default may print with that differ between processes and versions.
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_SIMPLE = (str, bytes, int, float, bool, type(None))


def _default_repr(value) -> str:
    if inspect.isfunction(value) or inspect.isbuiltin(value):
        return f"<function {value.__name__}>"
    if inspect.isclass(value):
        return f"<class {value.__name__}>"
    if isinstance(value, enum.Enum):
        return f"<{type(value).__name__}.{value.name}: {value.value!r}>"
    return _ADDRESS.sub("", repr(value))


def _parameters(func) -> Optional[List[list]]:
    """[[name, kind, default repr or None], ...], or None when Python cannot tell."""
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return None
    return [[p.name, p.kind.name,
             None if p.default is inspect.Parameter.empty else _default_repr(p.default)]
            for p in signature.parameters.values()]


def _constructor(cls):
    """The constructor's parameters, or "builtin" for one Python's builtins define.

    TF 2.15's API export gave classes without an `__init__` of their own a wrapper
    named `object.__init__` that takes (*args, **kwargs) and only calls object's;
    both are "builtin" here.
    """
    owners = {getattr(getattr(cls, method), "__qualname__", "").partition(".")[0]
              for method in ("__init__", "__new__")}
    if all(isinstance(getattr(builtins, owner, None), type) for owner in owners):
        return "builtin"
    return _parameters(cls)


def _is_hidden(raw) -> bool:
    """An attribute the original made raise AttributeError (`hide_attribute_from_api`)."""
    return (type(raw).__name__ == "HiddenTfApiAttribute"
            or getattr(raw, "_estimator_hidden_from_api", False))


def _member(cls, name) -> Optional[dict]:
    """How `cls.name` looks to a user; None for members Python's builtins define."""
    owner = next((k for k in cls.__mro__ if name in vars(k)), None)
    if owner is None or owner.__module__ == "builtins":
        return None
    raw = vars(owner)[name]
    if _is_hidden(raw):
        return {"kind": "hidden"}
    if isinstance(raw, staticmethod):
        return {"kind": "staticmethod", "parameters": _parameters(raw.__func__)}
    if isinstance(raw, classmethod):
        return {"kind": "classmethod", "parameters": _parameters(raw.__func__)}
    if isinstance(raw, property) or type(raw).__name__ == "_tuplegetter":
        return {"kind": "property"}
    if inspect.isclass(raw):
        return {"kind": "class"}
    if inspect.isfunction(raw) or callable(raw):
        return {"kind": "method", "parameters": _parameters(getattr(cls, name))}
    value = getattr(cls, name)
    if isinstance(value, enum.Enum):
        return {"kind": "attribute", "value": _default_repr(value)}
    if isinstance(value, _SIMPLE) or (isinstance(value, tuple) and all(
            isinstance(v, _SIMPLE) for v in value)):
        return {"kind": "attribute", "value": repr(value)}
    return {"kind": "attribute", "type": type(value).__name__}


def describe_class(cls) -> dict:
    """The constructor, builtin bases and public members of `cls`."""
    members = {}
    for name in sorted(dir(cls)):
        if name.startswith("_"):
            continue
        member = _member(cls, name)
        if member is not None:
            members[name] = member
    return {
        "name": cls.__name__,
        "constructor": _constructor(cls),
        "builtin_bases": sorted({k.__name__ for k in cls.__mro__[1:]
                                 if k.__module__ == "builtins" and k is not object}),
        "members": members,
    }


def describe_api(tf) -> Dict[str, dict]:
    """Every public name under tf.estimator and tf.compat.v1.estimator, described.

    Returns:
        {"modules": [...], "classes": {path: ...}, "functions": {path: ...},
         "other": {path: type name}}: paths like `tf.compat.v1.estimator.tpu.TPUEstimator`.
    """
    result = {"modules": [], "classes": {}, "functions": {}, "other": {}}

    def walk(module, path, depth):
        result["modules"].append(path)
        for name in sorted(dir(module)):
            if name.startswith("_"):
                continue
            value = getattr(module, name)
            full = f"{path}.{name}"
            if isinstance(value, types.ModuleType):
                # Sub-namespaces (`tpu.experimental` is the deepest), not modules that a
                # namespace's real module imported under another name (`tf`).
                if value.__name__.rpartition(".")[2] == name and full.count(".") <= depth:
                    walk(value, full, depth)
                else:
                    result["other"][full] = "module"
            elif inspect.isclass(value):
                result["classes"][full] = describe_class(value)
            elif callable(value):
                result["functions"][full] = _parameters(value)
            else:
                result["other"][full] = type(value).__name__

    for root in ROOTS:
        module = tf
        for part in root.split(".")[1:]:
            module = getattr(module, part)
        walk(module, root, root.count(".") + 2)
    return result


def main():
    from importlib import metadata  # pylint: disable=import-outside-toplevel
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    description = describe_api(tf)
    description["recorded_with"] = {
        "tensorflow": tf.__version__,
        "tensorflow_estimator": metadata.version("tensorflow-estimator"),
        "python": sys.version.split()[0]}
    with open(OUTPUT, "w") as f:
        json.dump(description, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{len(description['classes'])} classes, {len(description['functions'])} "
          f"functions -> {OUTPUT}")


if __name__ == "__main__":
    main()
