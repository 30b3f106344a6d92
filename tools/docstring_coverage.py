"""Counts Args sections over src/estimator_lib: issue 38's documentation metric.

    python3 tools/docstring_coverage.py [--missing] [--min-params N]

Reads the sources with `ast` (imports nothing, needs no TensorFlow). Counted: every
public function at a module's top level and every public method (and `__init__`) of a
public class, in every module of the package, with at least N parameters (default 3;
`self`/`cls` not counted, `*args` and `**kwargs` counted). It has an Args section when
its docstring has a line `Args:` (for `__init__`, the class docstring's counts too:
Google style documents the constructor there). Prints the counts, and with --missing
each one without, as path:line qualified-name.

Also prints how many public functions, classes and methods have any docstring.
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


def survey(root=_ROOT, min_params=3):
    """(rows, documented, public): rows are (path, line, name, params, has_args)."""
    rows, documented, public = [], 0, 0
    for path, tree in _modules(root):
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _public(node.name):
                public += 1
                documented += bool(ast.get_docstring(node))
                rows.append((path, node.lineno, node.name, _parameters(node, False),
                             bool(_ARGS.search(ast.get_docstring(node) or ""))))
            if isinstance(node, ast.ClassDef) and _public(node.name):
                public += 1
                class_doc = ast.get_docstring(node) or ""
                documented += bool(class_doc)
                for member in node.body:
                    if not isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        continue
                    if not (_public(member.name) or member.name == "__init__"):
                        continue
                    doc = ast.get_docstring(member) or ""
                    if member.name != "__init__":
                        public += 1
                        documented += bool(doc)
                    has_args = bool(_ARGS.search(doc)) or (
                        member.name == "__init__" and bool(_ARGS.search(class_doc)))
                    rows.append((path, member.lineno, f"{node.name}.{member.name}",
                                 _parameters(member, True), has_args))
    rows = [row for row in rows if row[3] >= min_params]
    return rows, documented, public


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
    return 0


if __name__ == "__main__":
    sys.exit(main())
