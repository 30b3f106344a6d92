"""Writes tests/data/tf215_names.json: every public name of the ORIGINAL package, by path.

Run by hand only, in the throw-away venv described in tests/data/README.md:

    TF_CPP_MIN_LOG_LEVEL=2 /tmp/tf215/bin/python tests/data/make_tf215_names.py

Only names are recorded (and each name's kind: class, function, constant, module),
never code. `tests/estimator_lib/legacy/original_names_test.py` reads the file.

What is recorded:

* `modules`: every module under `tensorflow_estimator.python.estimator`, found by
  walking the package (`pkgutil.walk_packages`), with the public module-level names
  the module *itself defines*. The rule: a name that does not start with `_` is
  recorded when the module binds it by a top-level `def`, `class` or assignment in
  its own source (`VocabInfo = tf.compat.v1.train.VocabInfo` counts; `fn_args =
  function_utils.fn_args` counts), or when it is a class or function whose
  `__module__` is the module (made by a decorator or a loop). Names bound only by an
  `import` are not recorded (that is where the module *uses* another one's name),
  except in a *pure re-export* module: one whose top level binds no name (public or
  private, dunders aside) by def, class or assignment, only by imports, besides
  expression statements (`estimator_export("estimator.X")(X)`) and the generated
  API's `_module_wrapper` block: the original's `estimator_lib.py`,
  `export/export_lib.py`, `export/export_output.py`, `inputs/inputs.py`,
  `mode_keys.py`, `hooks/session_run_hook.py`, `hooks/basic_session_run_hooks.py`
  and the `api/_v1`, `api/_v2` packages. There every public name an explicit
  `from X import name` binds is recorded, and of `import X` / `from P import X`
  the modules of `tensorflow_estimator` only (not `os` or `tf`); an `import *`
  brings the names recorded for its source module. A package's submodules are
  recorded as their own modules, never as names of the package. Everywhere, the
  export decorator `estimator_export` and `from __future__` features are not names.
  Modules with no public name of their own (`canned/linear_optimizer/.../sdca_ops.py`
  defines only `_SDCAModel` and the like) are recorded with an empty list: the path
  itself must import.
* `failed_imports`: modules that fail to import in TF 2.15, with the error.
* `pre_split`: TensorFlow 2.15's `tensorflow.python.estimator.*` modules. Each is a
  shim that sets the original module's `__all__` to every non-dunder name and does
  `from tensorflow_estimator.python.estimator.<X> import *` (`tensorflow.python.
  estimator.keras` is `keras_lib`; the packages' `__init__` are empty): recorded as
  the original module it re-exports, with that module's recorded names.
* `api`: every public name of `tf.estimator`, `tf.compat.v1.estimator` and
  `tf.compat.v2.estimator` and of each of their sub-namespaces (export, experimental,
  inputs, tpu, tpu.experimental), as `dir()` lists them, sub-namespaces included as
  `module` names, as a fresh process has them (recorded before the walk above, whose
  imports add attributes: `api._v2.estimator.inputs` exists as a module, but
  `tf.estimator.inputs` is an AttributeError in TF 2.15).
"""

import __future__
import ast
import importlib
import importlib.metadata
import inspect
import json
import os
import pkgutil
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "tf215_names.json")
ROOT = "tensorflow_estimator.python.estimator"
PRE_SPLIT = "tensorflow.python.estimator"


def _kind(value) -> str:
    if isinstance(value, types.ModuleType):
        return "module"
    if inspect.isclass(value):
        return "class"
    if callable(value):
        return "function"
    return "constant"


def _assigned_names(targets):
    for target in targets:
        if isinstance(target, ast.Name):
            yield target.id
        elif isinstance(target, (ast.Tuple, ast.List)):
            yield from _assigned_names(target.elts)


def _top_level(body):
    """Top-level statements, looking into `if`/`try` blocks (they run at import)."""
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


def _source_tree(module):
    path = getattr(module, "__file__", None)
    if not path or not path.endswith(".py"):
        return None
    with open(path) as f:
        return ast.parse(f.read(), path)


def _public(name: str) -> bool:
    return not name.startswith("_")


_DECORATOR = "estimator_export"


def _star_names(module_name: str):
    if module_name.startswith("tensorflow_estimator."):
        return list(_recorded_names(importlib.import_module(module_name))[1])
    source = importlib.import_module(module_name)
    names = getattr(source, "__all__", None)
    if names is None:
        names = [n for n in dir(source) if _public(n)]
    return [n for n in names if _public(n)]


def _binds(node) -> bool:
    """Whether a top-level statement binds a non-dunder name other than by import."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return True
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        targets = [node.target]
    else:
        return False
    names = list(_assigned_names(targets))
    return any(not (n.startswith("__") and n.endswith("__")) for n in names)


def _recorded_names(module):
    """(rule, {name: kind}) under the module docstring's rule."""
    tree = _source_tree(module)
    statements = list(_top_level(tree.body)) if tree else []
    defined, imported = set(), set()
    for node in statements:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, ast.Assign):
            defined.update(_assigned_names(node.targets))
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            defined.update(_assigned_names([node.target]))
        elif isinstance(node, ast.ImportFrom):
            if node.module == "__future__":
                continue
            for alias in node.names:
                if alias.name == "*":
                    imported.update(_star_names(node.module))
                else:
                    imported.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                imported.add(alias.asname or alias.name.split(".")[0])
    re_export = not any(_binds(node) for node in statements)
    names = {}
    for name in dir(module):
        if not _public(name) or name == _DECORATOR:
            continue
        value = getattr(module, name)
        if isinstance(value, __future__._Feature):  # pylint: disable=protected-access
            continue
        if re_export:
            keep = name in imported and (
                not isinstance(value, types.ModuleType)
                or value.__name__.startswith("tensorflow_estimator."))
        elif isinstance(value, types.ModuleType):
            keep = False
        else:
            own = getattr(value, "__module__", None) == module.__name__ and (
                inspect.isclass(value) or inspect.isfunction(value))
            keep = name in defined or own
        if keep:
            names[name] = _kind(value)
    return ("re-export" if re_export else "defines"), dict(sorted(names.items()))


def _walk_modules():
    package = importlib.import_module(ROOT)
    found = [ROOT]
    errors = {}

    def onerror(name):
        errors[name] = repr(sys.exc_info()[1])

    for info in pkgutil.walk_packages(package.__path__, ROOT + ".", onerror=onerror):
        found.append(info.name)
    return sorted(set(found)), errors


def record_modules():
    modules, failed = {}, {}
    names, walk_errors = _walk_modules()
    failed.update(walk_errors)
    for name in names:
        try:
            module = importlib.import_module(name)
        except Exception as e:  # pylint: disable=broad-except
            failed[name] = f"{type(e).__name__}: {e}"
            continue
        rule, recorded = _recorded_names(module)
        modules[name] = dict(rule=rule, names=recorded)
    return modules, failed


def record_pre_split(modules):
    """tensorflow.python.estimator.X -> the original module it star-imports."""
    import tensorflow.python.estimator as pre_split  # pylint: disable=import-outside-toplevel
    result = {}
    for info in pkgutil.walk_packages(pre_split.__path__, PRE_SPLIT + "."):
        module = importlib.import_module(info.name)
        tree = _source_tree(module)
        target = None
        for node in tree.body if tree else []:
            if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
                target = node.module
        if target is None:
            result[info.name] = dict(resolves_to=None, names={})
        else:
            result[info.name] = dict(resolves_to=target, names=modules[target]["names"])
    result[PRE_SPLIT] = dict(resolves_to=None, names={})
    return dict(sorted(result.items()))


def _namespace(prefix, module, out):
    names = {}
    for name in dir(module):
        if not _public(name):
            continue
        value = getattr(module, name)
        names[name] = _kind(value)
        if isinstance(value, types.ModuleType) and "estimator" in value.__name__:
            _namespace(f"{prefix}.{name}", value, out)
    out[prefix] = dict(sorted(names.items()))


def record_api():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    out = {}
    _namespace("tf.estimator", tf.estimator, out)
    _namespace("tf.compat.v1.estimator", tf.compat.v1.estimator, out)
    _namespace("tf.compat.v2.estimator", tf.compat.v2.estimator, out)
    return dict(sorted(out.items()))


def main():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    # The API first: walking the package imports api/_v2/estimator/inputs, which then
    # shows as `tf.estimator.inputs` (a fresh process has no such attribute).
    api = record_api()
    modules, failed = record_modules()
    data = dict(
        generator="tests/data/make_tf215_names.py",
        versions=dict(tensorflow=tf.__version__,
                      tensorflow_estimator=importlib.metadata.version("tensorflow-estimator"),
                      python=sys.version.split()[0]),
        modules=modules,
        failed_imports=failed,
        pre_split=record_pre_split(modules),
        api=api,
    )
    with open(OUT, "w") as f:
        json.dump(data, f, indent=1, sort_keys=False)
        f.write("\n")
    total = sum(len(m["names"]) for m in modules.values())
    print(f"{len(modules)} modules ({len(failed)} failed to import), {total} names; "
          f"{len(data['pre_split'])} pre-split paths; {len(data['api'])} API namespaces "
          f"-> {OUT}")


if __name__ == "__main__":
    main()
