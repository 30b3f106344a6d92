"""Imports every recorded original path in one process; prints what ran twice, as JSON.

Run by one_module_test.py in a fresh process (`python one_module_program.py
[--without-finder]`). It counts every execution of an estimator_lib source file (the
`exec` audit event Python raises when an import runs a module's code), installs the
aliases, then imports every module path of tests/data/tf215_names.json (the original's
modules and TF 2.15's pre-split shims) and resolves and imports every route of
tf215_routes.json. It prints {"failures": [...], "files_run": N, "paths": N}; a failure:

* an estimator_lib file ran more than once, or two module objects in `sys.modules` share
  one of our files;
* a module of ours is not the attribute its package holds under its name
  (`estimator_lib.tpu.experimental` rebound to a copy);
* an original path in `sys.modules` is not the module the table puts there, or its
  parent's attribute is another object;
* `tf.compat.v1.estimator.tpu.experimental.EmbeddingConfigSpec` is another class after
  the imports than before (`isinstance` of an object made before would be False);
* `tf.estimator.inputs` exists right after install() (a fresh TF 2.15 process has none).

`--without-finder` takes out the finder install() adds: the test shows the program then
reports second runs of tpu/*.py.
"""

import collections
import importlib
import importlib.util
import json
import os
import pkgutil
import sys
import types

_OURS = importlib.util.find_spec("estimator_lib").submodule_search_locations[0]
_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "data")
_runs = collections.Counter()


def _count_runs(event, args):
    if event == "exec" and isinstance(args[0], types.CodeType):
        filename = args[0].co_filename
        if filename.startswith(_OURS):
            _runs[filename] += 1


def _recorded_paths():
    with open(os.path.join(_DATA, "tf215_names.json")) as f:
        names = json.load(f)
    with open(os.path.join(_DATA, "tf215_routes.json")) as f:
        routes = json.load(f)
    return list(names["modules"]) + list(names["pre_split"]), routes["routes"]


def _resolve(route, root):
    value = importlib.import_module(root)
    for part in route[len(root) + 1:].split(".") if route != root else ():
        value = getattr(value, part)
    return value


def _submodule_paths():
    """`<path>.<leaf>` for every submodule file of a package of ours standing at `path`
    (`...estimator.tpu.tpu_estimator_spec`: not the original's, but it must not run twice)."""
    paths = []
    for path, module in list(sys.modules.items()):
        if _ours(module) and hasattr(module, "__path__") and path != module.__name__:
            paths.extend(f"{path}.{info.name}" for info in pkgutil.iter_modules(module.__path__))
    return paths


def _import_everything(module_paths, routes):
    for path in module_paths + list(routes) + _submodule_paths():
        try:
            importlib.import_module(path)
        except ImportError:
            pass  # Paths not re-provided (TPU hardware) and routes that are attributes only.
    for route, record in routes.items():
        try:
            _resolve(route, record["root"])
        except (ImportError, AttributeError):
            pass  # routes_test.py reports it.


def _ours(module) -> bool:
    return str(getattr(module, "__file__", "") or "").startswith(_OURS)


def _module_failures(tree):
    failures = []
    modules = dict(sys.modules)
    by_file = collections.defaultdict(set)
    for name, module in modules.items():
        if _ours(module):
            by_file[module.__file__].add(id(module))
            if modules.get(module.__name__) is not module:
                failures.append(f"sys.modules[{name!r}] is a copy of {module.__name__}")
        if name.startswith("estimator_lib.") and _ours(module):
            parent, _, leaf = name.rpartition(".")
            held = getattr(modules.get(parent), leaf, module)
            if held is not module:
                failures.append(f"{parent}.{leaf} is {held!r}, not sys.modules[{name!r}]")
    failures.extend(f"{len(ids)} module objects of {path}" for path, ids in by_file.items()
                    if len(ids) > 1)
    for path, spec in tree.items():
        module = modules.get(path)
        if isinstance(spec, str) and module is not None and module is not modules.get(spec):
            failures.append(f"sys.modules[{path!r}] is not {spec}")
        parent, _, leaf = path.rpartition(".")
        held = getattr(modules.get(parent), leaf, module)
        if module is not None and held is not module:
            failures.append(f"{parent}.{leaf} is not sys.modules[{path!r}]")
    return failures


def main(argv):
    sys.addaudithook(_count_runs)
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    from estimator_lib import compat  # pylint: disable=import-outside-toplevel
    from estimator_lib.legacy import original_tree  # pylint: disable=import-outside-toplevel
    compat.install()
    failures = []
    if hasattr(tf.estimator, "inputs"):
        failures.append("tf.estimator.inputs exists before any import of it")
    if "--without-finder" in argv:
        sys.meta_path[:] = [f for f in sys.meta_path
                            if type(f).__module__ != "estimator_lib.legacy.aliases"]
    spec_class = tf.compat.v1.estimator.tpu.experimental.EmbeddingConfigSpec
    module_paths, routes = _recorded_paths()
    _import_everything(module_paths, routes)
    failures.extend(f"{path} ran {count} times" for path, count in sorted(_runs.items())
                    if count > 1)
    failures.extend(_module_failures(original_tree.TREE))
    if tf.compat.v1.estimator.tpu.experimental.EmbeddingConfigSpec is not spec_class:
        failures.append("tf.compat.v1.estimator.tpu.experimental.EmbeddingConfigSpec changed")
    print(json.dumps(dict(failures=failures, files_run=len(_runs),
                          paths=len(module_paths) + len(routes))))


if __name__ == "__main__":
    main(sys.argv)
