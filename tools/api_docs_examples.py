"""The reference's "Example:" sections: rendered as code blocks, and checked so.

pdoc renders a Google-style section it has no list form for (`Example:`,
`Examples:`) as a quoted paragraph, in which the lines of a code example run together.
`example_section` (installed by tools/build_api_docs.py in place of pdoc's section
converter for those two names) renders the section as Markdown instead: each run of
doctest lines (`>>>`, `...` and the output under them, up to a blank line) and each
indented block becomes a fenced Python code block; other lines stay prose.

`bad_examples(output)` reads the built pages: each Example heading must be followed by
a code block, with no quoted paragraph and no `>>>` outside code, else the strict build
fails (`broken example: ...`). tests/api_checks_test.py plants one that does not
render as code.

A class that TensorFlow provides and estimator_lib re-exports as it is (the hooks,
`SessionRunHook`...) is rendered with TensorFlow's own docstring, which we do not
write. Its example lives in the docstring of the module that re-exports it
(estimator_lib.hooks' Examples use every hook): `example_home` finds that module, and
the page template (`examples_link`) adds under the class a line saying whose docstring
it is, with a link to that module page's Examples section.
"""

import importlib
import os
import re
import textwrap
from typing import Iterable, List, Optional, Tuple

import jinja2

EXAMPLE_SECTIONS = ("Example", "Examples")
_HEADING = re.compile(r'<h6 id="examples?(?:-\d+)?">(Examples?):</h6>')
_NEXT = re.compile(r"<h6 |</section>|<div class=\"attr ", re.S)
_PRE = re.compile(r"<pre\b.*?</pre>", re.S)
_SCRIPT = re.compile(r"<script\b.*?</script>", re.S | re.I)
# A docstring's Example(s) section: its heading line, then the lines indented under it.
EXAMPLE_SECTION = re.compile(r"^([ \t]*)Examples?:[ \t]*\n((?:\1[ \t]+.*\n|[ \t]*\n)*)",
                             re.M)


def examples_use(doc: str, name: str) -> bool:
    """Whether a `>>>` or `...` line of an Example(s) section of `doc` uses `name`.

    Args:
        doc: A docstring.
        name: A public name, such as `LoggingTensorHook`.

    Returns:
        True if some doctest line of the docstring's Example sections has `name` as a
        whole word (`hooks.LoggingTensorHook(...)` counts; `MyLoggingTensorHook` not).
    """
    word = re.compile(rf"(?<![\w]){re.escape(name)}(?![\w])")
    for match in EXAMPLE_SECTION.finditer((doc or "") + "\n"):
        for line in match.group(2).splitlines():
            if line.strip().startswith((">>>", "...")) and word.search(line):
                return True
    return False


def example_home(value, name: str, module_names: Iterable[str]) -> Optional[str]:
    """The first of `module_names` that binds `name` to `value` and shows it in its Examples.

    Args:
        value: The object (a class TensorFlow provides, as estimator_lib re-exports it).
        name: The public name it has there.
        module_names: Dotted names of modules to look in, in order.

    Returns:
        The module's dotted name, or None if no module docstring's Examples use it.
    """
    for module_name in module_names:
        module = importlib.import_module(module_name)
        if getattr(module, name, None) is value and examples_use(module.__doc__, name):
            return module_name
    return None


@jinja2.pass_context
def examples_link(context, member) -> Optional[Tuple[str, str]]:
    """The link, from the page being rendered, to the Examples showing a class not ours.

    Args:
        context: The template's context (its `module` and `all_modules`).
        member: A pdoc class of the page.

    Returns:
        (href, module name): `PAGE#examples` of the rendered module whose docstring's
        Examples use the class under the name it has on this page (`#examples` on that
        page itself), and that module's name; or None for a class of estimator_lib or
        one no module shows.
    """
    import pdoc.render_helpers  # pylint: disable=import-outside-toplevel

    if member.kind != "class" or member.taken_from[0].startswith("estimator_lib"):
        return None
    home = example_home(member.obj, member.name, sorted(context["all_modules"]))
    if home is None:
        return None
    page = pdoc.render_helpers.relative_link(context["module"].modulename, home)
    return f"{page}#examples", home


def example_section(name: str, contents: str) -> str:
    """Renders the contents of an `Example:` / `Examples:` section as Markdown.

    Args:
        name: The section's name as written (`Example` or `Examples`).
        contents: The section's lines, indented as in the docstring.

    Returns:
        A `###### Name:` heading, then the prose and fenced code blocks.
    """
    lines = textwrap.dedent(contents).strip("\n").split("\n")
    out, code = [], []

    def flush():
        if code:
            out.extend(["", "```python", *textwrap.dedent("\n".join(code)).split("\n"), "```",
                        ""])
            code.clear()

    for line in lines:
        in_doctest = bool(code) and code[0].lstrip().startswith(">>>")
        if line.lstrip().startswith(">>>") and not in_doctest:
            flush()
            code.append(line)
        elif code and (line.strip() and (in_doctest or line.startswith((" ", "\t")))):
            code.append(line)
        elif not code and line.startswith((" ", "\t")) and line.strip():
            code.append(line)
        elif code and not line.strip() and not in_doctest:
            code.append(line)  # a blank line inside an indented block
        else:
            flush()
            out.append(line)
    flush()
    return f"\n###### {name}:\n" + "\n".join(out).strip("\n") + "\n\n"


def bad_examples(output: str) -> List[str]:
    """'page: Example section N (why)' for each Example section that is not code.

    Args:
        output: The folder the site was built into.

    Returns:
        One entry per section whose first block is no code block, or that holds a
        quoted paragraph or a `>>>` outside code; sorted.
    """
    bad = []
    for directory, _, files in os.walk(output):
        if os.path.basename(directory) == "guides":
            continue
        for name in sorted(files):
            if not name.endswith(".html"):
                continue
            path = os.path.join(directory, name)
            with open(path, encoding="utf-8") as f:
                page = _SCRIPT.sub("", f.read())
            for number, match in enumerate(_HEADING.finditer(page), 1):
                rest = page[match.end():]
                end = _NEXT.search(rest)
                body = rest[:end.start()] if end else rest
                where = f"{os.path.relpath(path, output)}: {match.group(1)} section {number}"
                if "<pre" not in body:
                    bad.append(f"{where} (no code block)")
                elif "<blockquote" in body:
                    bad.append(f"{where} (a quoted paragraph)")
                elif "&gt;&gt;&gt;" in _PRE.sub("", body):
                    bad.append(f"{where} (>>> outside a code block)")
    return sorted(bad)
