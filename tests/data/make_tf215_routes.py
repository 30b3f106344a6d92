"""Writes tests/data/tf215_routes.json: every attribute route to the ORIGINAL estimator API.

Run by hand only, in the throw-away venv described in tests/data/README.md:

    TF_CPP_MIN_LOG_LEVEL=2 /tmp/tf215/bin/python tests/data/make_tf215_routes.py

A library reaches tf.estimator by more roads than `tf.estimator`: `import tensorflow.
compat.v2 as tf; tf.compat.v1.estimator`, `tf.compat.v1.keras.estimator`,
`tensorflow_estimator.estimator`, ... This walks, from each root of `ROOTS`, every
attribute path through the public API modules, and records each path that reaches an
estimator module or object. Only names are recorded, never code.

The walk:

* A module is walked into when it is an API module: `tensorflow` itself, the
  `tensorflow.*` / `tensorflow._api.*` modules TensorFlow generates (not its
  implementation: `tensorflow.python`, `.core`, `.compiler`, `.tsl`, `.lite.python`),
  `keras.api.*` (`tf.keras`), and `tensorflow_estimator`'s API packages
  (`tensorflow_estimator`, `._api.*`, `.python.estimator.api.*`). Public attributes
  only, and `tensorflow_estimator`'s generated packages `_api`, `_v1`, `_v2` (all of
  them imported first: `API_PACKAGES`).
* Cycles: a module is not entered twice on one path (`tf.compat.v1.compat.v1.compat.v1`
  is `tf.compat.v1.compat.v1`). Depth: at most `MAX_COMPAT_HOPS` `compat` attributes on a
  path (TensorFlow nests them without end: `tf.compat.v1.compat.v2.compat.v1...`), and
  `MAX_DEPTH` attributes in all.
* A path is recorded when its value is an estimator module (`__name__` under
  `tensorflow_estimator.`, or a Keras API module named `estimator`: `tf.keras.estimator`,
  whose `model_to_estimator` calls the estimator), or an estimator object (its
  `__module__` under `tensorflow_estimator.` or `keras.src.estimator`) held by a module
  that is not itself recorded. Estimator modules are walked into too (`tf.estimator.export`).

Recorded:

* `routes`: route (`root` + `.` + attribute path) -> `root` (the module imported),
  `reaches` (the module's `__name__`, or the object's `module.qualname`), `kind`
  (`module` or `object`), and `imports`: whether `importlib.import_module(route)`, run
  after the walk, returned that module in TF 2.15 (the attribute may be the lazy loader
  TensorFlow puts in its place).
* `modules`: each reached module's public names -> what each is (`module.qualname` of a
  class or function, `module:<name>` of a module, `constant:<type>` otherwise).
  Read by tests/estimator_lib/legacy/routes_test.py (and route_check.py).
"""

import importlib
import importlib.metadata
import json
import os
import pkgutil
import re
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "tf215_routes.json")

ROOTS = ("tensorflow", "tensorflow_estimator", "tensorflow_estimator._api",
         "tensorflow_estimator.python.estimator.api")
# Imported whole before the walk, so that the routes do not depend on what a program
# happened to import before (`tensorflow_estimator._api.v2`, `api._v1.v1`).
API_PACKAGES = ("tensorflow_estimator._api", "tensorflow_estimator.python.estimator.api")
MAX_COMPAT_HOPS = 3
MAX_DEPTH = 12
_API_PREFIXES = ("tensorflow.", "keras.api.", "tensorflow_estimator._api",
                 "tensorflow_estimator.python.estimator.api")
_IMPLEMENTATION = ("tensorflow.python", "tensorflow.core", "tensorflow.compiler",
                   "tensorflow.tsl", "tensorflow.lite.python", "tensorflow.include")
_PRIVATE_WALKED = ("_api", "_v1", "_v2")
_KERAS_ESTIMATOR = re.compile(r"^keras\.api\..*\.estimator$")
_ESTIMATOR_OBJECT_MODULES = ("tensorflow_estimator.", "keras.src.estimator")


def is_estimator_module(value) -> bool:
    name = getattr(value, "__name__", "") or ""
    return (name.startswith("tensorflow_estimator.") and ".api" in name or
            name.startswith("tensorflow_estimator._api") or
            bool(_KERAS_ESTIMATOR.match(name)))


def _is_api_module(value) -> bool:
    name = getattr(value, "__name__", "") or ""
    if name in ("tensorflow", "tensorflow_estimator"):
        return True
    return name.startswith(_API_PREFIXES) and not name.startswith(_IMPLEMENTATION)


def describe(value) -> str:
    """What a name holds: `module:<name>`, `<module>.<qualname>`, or `constant:<type>`."""
    if isinstance(value, types.ModuleType):
        return f"module:{value.__name__}"
    module = getattr(value, "__module__", None)
    qualname = getattr(value, "__qualname__", None)
    if module and qualname and callable(value):
        return f"{module}.{qualname}"
    return f"constant:{type(value).__name__}"


def _attributes(module):
    estimator_package = str(getattr(module, "__name__", "")).startswith("tensorflow_estimator")
    for name in sorted(dir(module)):
        if name.startswith("_") and not (estimator_package and name in _PRIVATE_WALKED):
            continue
        try:
            yield name, getattr(module, name)
        except Exception:  # pylint: disable=broad-except
            continue  # A lazy attribute that fails to load is no route.


def walk(root_name, root, routes, modules):
    stack = [(root_name, root, (id(root),), 0)]
    while stack:
        path, module, on_path, hops = stack.pop()
        reached = is_estimator_module(module)
        for name, value in _attributes(module):
            route = f"{path}.{name}"
            if isinstance(value, types.ModuleType):
                if is_estimator_module(value):
                    routes[route] = dict(root=root_name, reaches=value.__name__, kind="module")
                    modules.setdefault(value.__name__, {
                        n: describe(v) for n, v in _attributes(value) if not n.startswith("_")})
                elif not _is_api_module(value):
                    continue
                next_hops = hops + (name == "compat")
                if (id(value) in on_path or next_hops > MAX_COMPAT_HOPS
                        or len(on_path) >= MAX_DEPTH):
                    continue
                stack.append((route, value, on_path + (id(value),), next_hops))
            elif not reached and str(getattr(value, "__module__", "")).startswith(
                    _ESTIMATOR_OBJECT_MODULES):
                routes[route] = dict(root=root_name, reaches=describe(value), kind="object")


def _imports(route, expected) -> bool:
    """Whether `import <route>` gives the module the attributes reach (TensorFlow's lazy
    loaders stand in for the module they load: compared by name)."""
    try:
        return importlib.import_module(route).__name__ == expected.__name__
    except Exception:  # pylint: disable=broad-except
        return False


def resolve(route: str, root: str):
    value = importlib.import_module(root)
    for part in route[len(root) + 1:].split("."):
        value = getattr(value, part)
    return value


def main():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    routes, modules = {}, {}
    # TensorFlow's routes as a fresh process has them (importing an API package adds
    # attributes: `api._v2.estimator.inputs` would show as `tf.estimator.inputs`).
    walk("tensorflow", tf, routes, modules)
    for package in API_PACKAGES:  # Every generated API module, not only those imported yet.
        for info in pkgutil.walk_packages(importlib.import_module(package).__path__,
                                          package + "."):
            importlib.import_module(info.name)
    for root in ROOTS[1:]:
        walk(root, importlib.import_module(root), routes, modules)
    for route, record in routes.items():
        record["imports"] = _imports(route, resolve(route, record["root"]))
    data = dict(
        generator="tests/data/make_tf215_routes.py",
        versions=dict(tensorflow=tf.__version__,
                      tensorflow_estimator=importlib.metadata.version("tensorflow-estimator"),
                      keras=importlib.metadata.version("keras"),
                      python=sys.version.split()[0]),
        max_compat_hops=MAX_COMPAT_HOPS,
        routes=dict(sorted(routes.items())),
        modules={name: dict(sorted(names.items())) for name, names in sorted(modules.items())},
    )
    with open(OUT, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    print(f"{len(routes)} routes ({sum(r['imports'] for r in routes.values())} importable) "
          f"to {len(modules)} modules -> {OUT}")


if __name__ == "__main__":
    main()
