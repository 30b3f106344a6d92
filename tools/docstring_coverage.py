"""Counts Args sections over src/estimator_lib: issue 38's documentation metric.

    python3 tools/docstring_coverage.py [--missing] [--min-params N]

Reads the sources with `ast` (imports nothing, needs no TensorFlow). Counted: every
public function at a module's top level and every public method (and `__init__`) of a
public class, in every module of the package, with at least N parameters (default 3;
`self`/`cls` not counted, `*args` and `**kwargs` counted). It has an Args section when
its docstring has a line `Args:` (for `__init__`, the class docstring's counts too:
Google style documents the constructor there). Prints the counts, and with --missing
each one without, as path:line qualified-name.

Also prints how many public functions, classes and methods (`__init__` not counted)
have a docstring of their own; --missing lists those without too.
"""

import argparse
import ast
import os
import re
import sys

_ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src",
                     "estimator_lib")
_ARGS = re.compile(r"^\s*Args:\s*$", re.M)


def _modules(root):
    for directory, _, files in os.walk(root):
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(directory, name)
                with open(path) as f:
                    yield os.path.relpath(path, os.path.dirname(root)), ast.parse(f.read())


def _parameters(function, is_method):
    a = function.args
    names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
    if is_method and names and names[0] in ("self", "cls"):
        names = names[1:]
    return len(names) + bool(a.vararg) + bool(a.kwarg)


def _public(name):
    return not name.startswith("_")


def _definitions(root):
    """(path, node, qualified name, documented-or-counted) for each public definition.

    Yields every public top-level function and class, and each public method (and
    `__init__`) of a public class; the last item says whether it counts among the
    public names (`__init__` does not: Google style documents it in the class).
    """
    for path, tree in _modules(root):
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _public(node.name):
                yield path, node, node.name, True
            if isinstance(node, ast.ClassDef) and _public(node.name):
                yield path, node, node.name, True
                for member in node.body:
                    if not isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        continue
                    if _public(member.name) or member.name == "__init__":
                        yield (path, member, f"{node.name}.{member.name}",
                               member.name != "__init__")


def survey(root=_ROOT, min_params=3):
    """(rows, documented, public): rows are (path, line, name, params, has_args)."""
    rows, documented, public = [], 0, 0
    class_docs = {}
    for path, node, name, counted in _definitions(root):
        doc = ast.get_docstring(node) or ""
        if isinstance(node, ast.ClassDef):
            class_docs[path, name] = doc
        else:
            has_args = bool(_ARGS.search(doc))
            if node.name == "__init__":
                has_args |= bool(_ARGS.search(class_docs[path, name.rsplit(".", 1)[0]]))
            rows.append((path, node.lineno, name, _parameters(node, "." in name), has_args))
        if counted:
            public += 1
            documented += bool(doc)
    rows = [row for row in rows if row[3] >= min_params]
    return rows, documented, public


def undocumented(root=_ROOT):
    """'path:line name' of each public function, class and method without a docstring."""
    return [f"{path}:{node.lineno} {name}" for path, node, name, counted in _definitions(root)
            if counted and not ast.get_docstring(node)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--missing", action="store_true", help="list those without Args")
    parser.add_argument("--min-params", type=int, default=3)
    options = parser.parse_args(argv)
    rows, documented, public = survey(min_params=options.min_params)
    with_args = sum(row[4] for row in rows)
    print(f"Args sections: {with_args} of {len(rows)} public functions and methods with "
          f">= {options.min_params} parameters ({with_args / max(len(rows), 1):.0%})")
    print(f"docstrings: {documented} of {public} public functions, classes and methods")
    if options.missing:
        for path, line, name, params, has_args in rows:
            if not has_args:
                print(f"  {path}:{line} {name} ({params} parameters)")
        for where in undocumented():
            print(f"  {where} (no docstring)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
