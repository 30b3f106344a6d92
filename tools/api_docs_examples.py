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
"""

import os
import re
import textwrap
from typing import List

EXAMPLE_SECTIONS = ("Example", "Examples")
_HEADING = re.compile(r'<h6 id="examples?(?:-\d+)?">(Examples?):</h6>')
_NEXT = re.compile(r"<h6 |</section>|<div class=\"attr ", re.S)
_PRE = re.compile(r"<pre\b.*?</pre>", re.S)
_SCRIPT = re.compile(r"<script\b.*?</script>", re.S | re.I)


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
