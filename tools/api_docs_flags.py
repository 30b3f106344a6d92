"""The binaries' flags page of the API reference, generated from the flag definitions.

`markdown()` writes one section per `python -m estimator_lib.bin.*` binary
(`estimator_lib.bin.cli.BINARIES`): what the binary does (its module docstring's
first line) and a table of the flags it reads (its `KEY_FLAGS`, the ones its
`--help` lists), each with its type, default and help as absl holds them in
`estimator_lib/flags/definitions.py`; then the aliases defined there. Nothing is
copied by hand: a flag added to a binary appears at the next build.
"""

import html
import importlib
from typing import Dict, List

_PAGE_INTRO = """\
# The binaries' flags

Generated from the flag definitions (`estimator_lib/flags/definitions.py`) when the
reference is built. Each binary takes the flags listed under it, and absl's own:
`--help` (its flags), `--helpfull` (every flag), `--flagfile=FILE` (one
`--name=value` a line). How the binaries behave, with examples: [binaries](binaries.md).
"""


def _cell(text: str) -> str:
    """`text` on one line, as a Markdown table cell shows it verbatim."""
    text = html.escape(" ".join(str(text).split()), quote=False)
    for char in "|*_[]":
        text = text.replace(char, "\\" + char)
    return text


def _default(flag) -> str:
    value = flag.default
    if value is None:
        return "(none)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "`" + ",".join(str(v) for v in value) + "`"
    return f"`{value}`"


def _type(flag) -> str:
    values = getattr(flag.parser, "enum_values", None)
    if values:
        return "one of " + ", ".join(f"`{v}`" for v in values)
    return flag.flag_type()


def flag_row(flag) -> Dict[str, str]:
    """The table row of one absl flag: name, type and default (Markdown), help (text)."""
    return {"name": flag.name, "type": _type(flag), "default": _default(flag),
            "help": flag.help or ""}


def binaries() -> List[str]:
    """The dotted names of the binaries, in the order the page shows them."""
    from estimator_lib.bin import cli  # pylint: disable=import-outside-toplevel
    return [f"estimator_lib.bin.{name}" for name in cli.BINARIES]


def binary_flags(module_name: str) -> list:
    """The absl flags a binary reads: its `KEY_FLAGS`, as flag objects."""
    from absl import flags as absl_flags  # pylint: disable=import-outside-toplevel
    module = importlib.import_module(module_name)
    return [absl_flags.FLAGS[holder.name] for holder in module.KEY_FLAGS]


def aliases() -> list:
    """The alias flags of flags/definitions.py (`--num_gpus` for `--num_devices`)."""
    from absl import flags as absl_flags  # pylint: disable=import-outside-toplevel
    from estimator_lib.flags import definitions  # pylint: disable=import-outside-toplevel
    return [flag for flag in absl_flags.FLAGS.get_flags_for_module(definitions.__name__)
            if (flag.help or "").startswith("Alias for --")]


def _table(flags) -> List[str]:
    lines = ["| flag | type | default | help |", "| --- | --- | --- | --- |"]
    for flag in flags:
        row = flag_row(flag)
        lines.append(f"| `--{row['name']}` | {row['type']} | {row['default']} "
                     f"| {_cell(row['help'])} |")
    return lines


def markdown() -> str:
    """The page, as Markdown: a section and a flag table per binary, then the aliases."""
    lines = [_PAGE_INTRO]
    for name in binaries():
        module = importlib.import_module(name)
        summary = (module.__doc__ or "").strip().splitlines()[0]
        lines += [f"## {name.rsplit('.', 1)[-1]}", "", f"    python -m {name}", "",
                  _cell(summary), ""]
        lines += _table(binary_flags(name)) + [""]
    lines += ["## Aliases", "", "Accepted where the flag they stand for is.", ""]
    lines += _table(aliases()) + [""]
    return "\n".join(lines)
