"""The cross-references in estimator_lib's docstrings must name something that exists.

pdoc links a name it resolves and leaves any other as plain code, silently; this
check is what makes a broken reference fail the build (tools/build_api_docs.py
--strict). The rule (docs/api_reference.md):

A *reference* is a backticked span of a docstring (`` `name` ``, single backticks)
whose whole text is a dotted name, `a.b` or `a.b.c()`, and whose first part is one of

- `estimator_lib`: the package itself;
- `tf`: TensorFlow (with estimator_lib's tf.estimator installed, so `tf.estimator.*`
  and `tf.compat.v1.estimator.*` are the names users import);
- a name the docstring's own module binds to a class or module of estimator_lib
  (`Estimator.train` in a module that imports or defines `Estimator`), or, where the
  module binds nothing to it, a class of `estimator_lib`'s own `__all__`
  (`RunConfig.steps_per_run` anywhere).

A span ending in a file suffix (`ar_loops.py`, `scaling.json`) names a file, not an
attribute, and is not a reference. Every reference must resolve: each part an
attribute of the one before, or, on a class, a field (dataclass, namedtuple,
annotation) or a name its docstring's `Attributes:` section documents. Anything else
in backticks (an argument, a value, an expression such as `features["x"]`, a name
of a library other than TensorFlow) is not a reference, so code raises nothing.

Checked: the docstrings pdoc renders (the modules of the reference, their classes,
functions, methods and properties), each where it is defined.
"""

import dataclasses
import importlib
import inspect
import re
import types
from typing import Iterable, List, Optional

# `name`, not ``name`` (double backticks quote code in reST and are left alone).
_BACKTICKED = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_DOTTED = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?$")
_FILE_SUFFIXES = {"py", "md", "json", "jsonl", "txt", "csv", "pbtxt", "html", "png", "pth",
                  "cfg", "toml", "yaml", "zip", "gz", "jpeg", "jpg", "tfrecord", "meta"}
_ATTRIBUTES = re.compile(r"^\s*Attributes:\s*$((?:\n(?:[ \t]+.*)?)*)", re.M)
_ATTRIBUTE_NAME = re.compile(r"^\s+(\w+)(?:\s*\([^)]*\))?:", re.M)


@dataclasses.dataclass(frozen=True)
class Broken:
    """One reference that does not resolve."""

    where: str  # module.qualname of the docstring
    reference: str

    def __str__(self):
        return f"{self.where}: `{self.reference}` names nothing"


def references(docstring: str) -> List[str]:
    """The backticked dotted names of `docstring` (candidates, before the first-part rule)."""
    found = []
    for match in _BACKTICKED.finditer(docstring or ""):
        text = match.group(1).strip()
        if _DOTTED.match(text) and text.rsplit(".", 1)[-1] not in _FILE_SUFFIXES:
            found.append(text.removesuffix("()"))
    return found


def _defined_in(package: str, modulename: str) -> bool:
    return modulename == package or modulename.startswith(package + ".")


def _ours(value) -> bool:
    name = value.__name__ if isinstance(value, types.ModuleType) else getattr(
        value, "__module__", None)
    return isinstance(name, str) and _defined_in("estimator_lib", name)


def documented_attributes(cls) -> set:
    """Names a class documents without a class attribute: fields, annotations, Attributes:."""
    names = set()
    for klass in inspect.getmro(cls):
        names |= set(getattr(klass, "__annotations__", {}) or {})
        names |= set(getattr(klass, "_fields", ()) or ())
        for section in _ATTRIBUTES.findall(klass.__dict__.get("__doc__") or ""):
            names |= set(_ATTRIBUTE_NAME.findall(section))
    return names


def _resolve_from(value, parts: Iterable[str]) -> bool:
    for part in parts:
        if inspect.isclass(value) and part not in vars(value) and not hasattr(value, part):
            return part in documented_attributes(value)
        try:
            value = getattr(value, part)
        except Exception:  # pylint: disable=broad-except  (a property may raise anything)
            if isinstance(value, types.ModuleType):
                try:
                    value = importlib.import_module(f"{value.__name__}.{part}")
                    continue
                except ImportError:
                    return False
            return False
    return True


def resolves(reference: str, namespace: dict, tf_module=None) -> Optional[bool]:
    """Whether `reference` resolves; None when it is not a reference by the rule.

    Args:
        reference: A dotted name (no trailing `()`).
        namespace: The globals of the module whose docstring holds it.
        tf_module: The `tensorflow` module to resolve `tf.*` with; None leaves them
            unchecked.

    Returns:
        True or False for a reference, None for other dotted text.
    """
    first, *rest = reference.split(".")
    if first == "estimator_lib":
        return _resolve_from(importlib.import_module("estimator_lib"), rest)
    if first == "tf":
        return None if tf_module is None else _resolve_from(tf_module, rest)
    value = namespace.get(first)
    if value is None:
        # A class users import from the package (`Estimator.train` where the module
        # does not import Estimator itself).
        package = importlib.import_module("estimator_lib")
        value = getattr(package, first, None) if first in package.__all__ else None
        if not inspect.isclass(value):
            return None
    if not (inspect.isclass(value) or isinstance(value, types.ModuleType)):
        return None
    if not _ours(value):
        return None
    return _resolve_from(value, rest)


def _docstrings(module_doc, package: str):
    """(module.qualname, docstring, module globals) of a pdoc module and its own members
    defined in `package` (another library's docstrings are not ours to check)."""
    namespace = vars(module_doc.obj)
    yield module_doc.modulename, module_doc.docstring, namespace

    def visit(doc):
        if doc.name.startswith("_") and doc.name != "__init__":
            return
        if not _defined_in(package, doc.taken_from[0]):
            return
        defining = importlib.import_module(doc.taken_from[0])
        yield ".".join(doc.taken_from), doc.docstring, vars(defining)
        for child in getattr(doc, "own_members", ()):
            yield from visit(child)

    for member in module_doc.own_members:
        yield from visit(member)


def check(module_names: Iterable[str], pdoc_doc, tf_module=None,
          package: str = "estimator_lib") -> List[Broken]:
    """Every broken reference in the docstrings of the rendered modules, each once.

    Args:
        module_names: The dotted names of the modules the reference renders.
        pdoc_doc: The `pdoc.doc` module (its `Module.from_name` reads a module).
        tf_module: TensorFlow, with estimator_lib's tf.estimator installed; None
            leaves `tf.*` references unchecked.
        package: Whose docstrings are checked: the members defined in it (a test
            passes its own module).

    Returns:
        The broken references, sorted.
    """
    broken = set()
    seen = set()
    for name in module_names:
        for where, docstring, namespace in _docstrings(pdoc_doc.Module.from_name(name),
                                                       package):
            if where in seen:
                continue
            seen.add(where)
            for reference in references(docstring):
                if resolves(reference, namespace, tf_module) is False:
                    broken.add(Broken(where, reference))
    return sorted(broken, key=str)
