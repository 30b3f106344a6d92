"""Checks every route of tests/data/tf215_routes.json here; a program as well as a helper.

`failures(data)` resolves each recorded route (root module, then attribute by attribute)
and returns what differs from TF 2.15:

* the route does not resolve, or one of the names TF 2.15's module had is missing;
* names that were one object in TF 2.15 (the same `module.qualname`, wherever they were
  reached) are not one object here: `tf.compat.v2.compat.v1.estimator.Estimator` must be
  `tf.compat.v1.estimator.Estimator`, the v1 class, not the v2 one;
* a route that `import` reached in TF 2.15 does not import here, or imports another module
  (those are imported first, as the generator did);
* the Keras routes (`tf.keras.estimator`) name another `model_to_estimator` than Keras 2's
  (tf_keras here: `keras.` becomes `tf_keras.`).

Run as a program (`python route_check.py [--install]`, or `python -m estimator_lib.run
route_check.py`) it prints the failures as JSON, one list.
"""

import importlib
import json
import os
import sys
import types

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "data",
                    "tf215_routes.json")
_MISSING = object()


def load():
    with open(DATA) as f:
        return json.load(f)


def resolve(route: str, root: str):
    """The value at `route`: `root` imported, then one attribute per remaining part."""
    value = importlib.import_module(root)
    for part in route[len(root) + 1:].split(".") if route != root else ():
        value = getattr(value, part)
    return value


def _describe(value) -> str:
    if isinstance(value, types.ModuleType):
        return f"module:{value.__name__}"
    return f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', '')}"


def _is_keras(module_name: str) -> bool:
    return module_name.startswith("keras.")


def failures(data=None):
    """Every way the recorded routes differ here (empty: all resolve as in TF 2.15)."""
    data = data or load()
    found, groups = [], {}
    # As the generator did before walking tensorflow_estimator: import what imports (an
    # import makes a module an attribute of its parent: `api._v2.estimator.inputs`).
    for route, record in data["routes"].items():
        if record["imports"]:
            try:
                importlib.import_module(route)
            except ImportError:
                pass  # Reported below.
    for route, record in data["routes"].items():
        try:
            value = resolve(route, record["root"])
        except (ImportError, AttributeError) as e:
            found.append(f"{route}: does not resolve ({e!r})")
            continue
        if record["kind"] == "object":
            groups.setdefault(record["reaches"], []).append((route, value))
            continue
        if record["imports"]:
            try:
                imported = importlib.import_module(route)
            except ImportError as e:
                found.append(f"{route}: `import {route}` fails here ({e!r})")
            else:
                if imported is not value:
                    found.append(f"{route}: `import` gives {imported!r}, the attribute "
                                 f"{value!r}")
        for name, original in data["modules"][record["reaches"]].items():
            attribute = getattr(value, name, _MISSING)
            if attribute is _MISSING:
                found.append(f"{route}.{name}: missing (TF 2.15: {original})")
            elif _is_keras(record["reaches"]):
                if _describe(attribute) != "tf_" + original:
                    found.append(f"{route}.{name}: {_describe(attribute)}, TF 2.15: {original}")
            elif not original.startswith(("module:", "constant:")):
                groups.setdefault(original, []).append((f"{route}.{name}", attribute))
    for original, members in sorted(groups.items()):
        first_route, first = members[0]
        found.extend(f"{route} is not {first_route} (both were {original} in TF 2.15)"
                     for route, value in members[1:] if value is not first)
    return found


def main(argv):
    if "--install" in argv:
        from estimator_lib import compat  # pylint: disable=import-outside-toplevel
        compat.install()
    print(json.dumps(failures()))


if __name__ == "__main__":
    main(sys.argv)
