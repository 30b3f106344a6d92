"""Builds estimator_lib's API reference (HTML) from its docstrings, with pdoc.

    .venv/bin/python tools/build_api_docs.py [--output DIR] [--strict]
                                             [--fail-undocumented]

(the one command README and docs/api_reference.md give; pdoc==16.0.0 comes with the
test extras).

Renders the public tree as users import it: `estimator_lib` and the subpackages its
`__all__` names (canned, compat, experimental, export, head, hooks, tpu), with their
public modules; Google-style docstrings (`-d google`). The guides in docs/ (and the
README) are rendered beside it under `guides/` and linked from every page, with
`guides/flags.html`: each `python -m estimator_lib.bin.*` binary's absl flags (name,
type, default, help), generated from the flag definitions at each build
(tools/api_docs_flags.py).

Writes to DIR (default: <temp dir>/estimator_lib_api, outside the repository) and
prints the index page's path. Every warning pdoc raises while reading the modules
(an import that fails, a type annotation it cannot parse, a member it cannot read)
is printed; with --strict any such warning makes the build fail (exit status 1).

With --strict the build also fails on an `Example:` section that does not render as
code (tools/api_docs_examples.py), on a link of the site that leads nowhere (a
page or `#anchor` that is not there; tools/api_docs_links.py) and on a docstring
cross-reference that names nothing (tools/api_docs_references.py says which
backticked names are references); each is printed as `broken link: ...` or
`broken reference: ...`. pdoc itself leaves an unresolved name as plain code.

It also lists, in DIR/undocumented.txt, every public class, function, method and
property of estimator_lib shown in the reference with no docstring at all (none of
its own and none inherited), and prints how many; --fail-undocumented makes any of
them fail the build too. (tests/api_docstrings_test.py already fails on any of
tf.estimator's names without one.)

Why pdoc (docs/api_reference.md): no configuration file, it imports the package and
renders what the import gives (the lazy names included), and reads Google style.
"""

import argparse
import html
import os
import pathlib
import re
import sys
import tempfile
import warnings

import api_docs_examples
import api_docs_flags
import api_docs_links
import api_docs_references

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_DOCS = os.path.join(_REPO, "docs")
_TEMPLATES = os.path.join(_REPO, "tools", "api_docs_templates")
# The guides the reference links first (issue 38), then the rest of docs/ by name.
_FIRST_GUIDES = ("MIGRATION", "estimator", "binaries", "datasets", "multi_worker",
                 "benchmarks")
# The generated page of the binaries' flags (tools/api_docs_flags.py), among the guides.
FLAGS_PAGE = "flags"
_MD_LINK = re.compile(r'href="(?!https?:|#)([^"#]*?)\.md(#[^"]*)?"')


def _guides():
    """[(name, Markdown)] of the README, docs/*.md (the issue's guides first) and the
    binaries' flags page, generated from the flag definitions after `binaries`."""
    names = sorted(n[:-3] for n in os.listdir(_DOCS) if n.endswith(".md"))
    ordered = [n for n in _FIRST_GUIDES if n in names] + [
        n for n in names if n not in _FIRST_GUIDES]
    paths = [("README", os.path.join(_REPO, "README.md"))] + [
        (n, os.path.join(_DOCS, n + ".md")) for n in ordered]
    guides = []
    for name, path in paths:
        with open(path, encoding="utf-8") as f:
            guides.append((name, f.read()))
        if name == "binaries":
            guides.append((FLAGS_PAGE, api_docs_flags.markdown()))
    return guides


def _render_guides(output: str) -> str:
    """Writes guides/<name>.html for each guide; returns the navigation's HTML."""
    import markdown2  # pdoc's own dependency  pylint: disable=import-outside-toplevel

    directory = os.path.join(output, "guides")
    os.makedirs(directory, exist_ok=True)
    links = []
    for name, text in _guides():
        body = markdown2.markdown(text, extras=["fenced-code-blocks", "tables", "header-ids"])
        # Links between guides stay links between the rendered pages.
        body = _MD_LINK.sub(lambda m: f'href="{os.path.basename(m.group(1))}.html'
                            f'{m.group(2) or ""}"', body)
        with open(os.path.join(directory, name + ".html"), "w", encoding="utf-8") as f:
            f.write(f"<!doctype html><meta charset='utf-8'><title>{html.escape(name)}"
                    "</title><style>body{max-width:52em;margin:2em auto;font-family:"
                    "sans-serif}pre{background:#f4f4f4;padding:.5em;overflow:auto}"
                    "table{border-collapse:collapse}td,th{border:1px solid #ccc;"
                    f"padding:.2em .4em}}</style><p><a href='../estimator_lib.html'>API "
                    f"reference</a></p>{body}")
        links.append(f'<li><a href="{{root}}guides/{name}.html">{html.escape(name)}</a></li>')
    return "<h2>Guides</h2><ul>" + "".join(links) + "</ul>"


def _undocumented(pdoc_doc, module_names) -> list:
    """'module.qualname' of each public member defined in estimator_lib without a docstring."""
    found = set()

    def ours(member) -> bool:
        return member.taken_from[0].startswith("estimator_lib")

    def visit(member) -> None:
        if member.name.startswith("_") or not ours(member):
            return
        if isinstance(member, (pdoc_doc.Class, pdoc_doc.Function)) and not member.docstring:
            found.add(".".join(member.taken_from))
        if isinstance(member, pdoc_doc.Variable) and isinstance(
                getattr(member, "default_value", None), property) and not member.docstring:
            found.add(".".join(member.taken_from))
        if isinstance(member, pdoc_doc.Class):
            for child in member.own_members:
                visit(child)
            # Members of a private base class are rendered with the subclass's own
            # (tools/api_docs_templates/module.html.jinja2): they count here too.
            for base, members in member.inherited_members.items():
                if any(part.startswith("_") for part in base[1].split(".")):
                    for child in members:
                        visit(child)

    for name in module_names:
        for member in pdoc_doc.Module.from_name(name).own_members:
            visit(member)
    return sorted(found)


def build(output: str, strict: bool, fail_undocumented: bool = False) -> int:
    """Renders the reference and the guides into `output`; returns the exit status."""
    import pdoc  # pylint: disable=import-outside-toplevel
    import pdoc.render  # pylint: disable=import-outside-toplevel

    _import_estimator_lib_quietly()  # TensorFlow loads here, not under pdoc's watch.

    nav = _render_guides(output)
    _render_examples_as_code()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pdoc.render.configure(docformat="google", footer_text=nav.replace("{root}", ""),
                              template_directory=_TEMPLATES, show_source=True)
        pdoc.render.env.globals["rendered_at"] = api_docs_links.rendered_at
        pdoc.render.env.globals["alias_class"] = api_docs_links.alias_class
        pdoc.render.env.globals["examples_link"] = api_docs_examples.examples_link
        pdoc.pdoc("estimator_lib", output_directory=pathlib.Path(output))
    # Pointers into docs/*.md become links to the rendered guides; then pages one
    # level down link the guides relative to themselves.
    _link_docs_pointers(output)
    _relink_guides(output)
    ours = [w for w in caught if "pdoc" in (w.filename or "")]
    for w in ours:
        print(f"warning: {w.message}", file=sys.stderr)
    import pdoc.doc  # pylint: disable=import-outside-toplevel
    import pdoc.extract  # pylint: disable=import-outside-toplevel
    modules = list(pdoc.extract.walk_specs(["estimator_lib"]))
    undocumented = _undocumented(pdoc.doc, modules)
    with open(os.path.join(output, "undocumented.txt"), "w", encoding="utf-8") as f:
        f.write("".join(name + "\n" for name in undocumented))
    broken = [f"broken link: {link}" for link in api_docs_links.broken_links(output)]
    broken += [f"broken reference: {ref}" for ref in _broken_references(pdoc.doc, modules)]
    broken += [f"broken example: {e}" for e in api_docs_examples.bad_examples(output)]
    for line in broken:
        print(line, file=sys.stderr)
    print(os.path.join(output, "index.html"))
    print(f"{len(ours)} warning(s); {len(broken)} broken link(s) or reference(s); "
          f"{len(undocumented)} public member(s) without a docstring (listed in "
          f"{os.path.join(output, 'undocumented.txt')})")
    failed = (strict and (ours or broken)) or (fail_undocumented and undocumented)
    return 1 if failed else 0


def _import_estimator_lib_quietly() -> None:
    """Imports estimator_lib, and TensorFlow with it, without TF's C++ start-up lines.

    As the binaries do (estimator_lib/core/quiet_start.py): TF 2.21 writes them
    (`I0000 ... cudart_stub.cc ... Could not find cuda drivers`, twice) through absl
    before its log is initialised, where TF_CPP_MIN_LOG_LEVEL does not reach, so stderr
    is captured while the package loads and passed on less those lines. A user who sets
    TF_CPP_MIN_LOG_LEVEL gets every line as TensorFlow writes it.
    """
    if "TF_CPP_MIN_LOG_LEVEL" in os.environ:
        import estimator_lib  # noqa: F401  pylint: disable=import-outside-toplevel
        return
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
    sys.stderr.flush()
    saved = os.dup(2)
    loaded = False
    with tempfile.TemporaryFile() as captured:
        os.dup2(captured.fileno(), 2)
        try:
            import estimator_lib  # noqa: F401  pylint: disable=import-outside-toplevel
            loaded = True
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            captured.seek(0)
            text = captured.read().decode(errors="replace")
            if not loaded:  # The import failed: every line may help.
                sys.stderr.write(text)
    from estimator_lib.core import quiet_start  # pylint: disable=import-outside-toplevel
    quiet_start.write_without_noise(text, gpu_expected=quiet_start.nvidia_devices_present())


def _broken_references(pdoc_doc, modules) -> list:
    """api_docs_references.check, with tf.estimator resolving to estimator_lib meanwhile."""
    from estimator_lib import compat  # pylint: disable=import-outside-toplevel
    import tensorflow as tf  # pylint: disable=import-outside-toplevel

    was_installed = compat.is_installed()
    compat.install()
    try:
        return api_docs_references.check(modules, pdoc_doc, tf)
    finally:
        if not was_installed:
            compat.uninstall()


def _render_examples_as_code() -> None:
    """Has pdoc render `Example:`/`Examples:` sections as code (tools/api_docs_examples.py)."""
    import pdoc.docstrings  # pylint: disable=import-outside-toplevel

    pdoc_section = getattr(pdoc.docstrings._google_section, "__wrapped__",  # pylint: disable=protected-access
                           pdoc.docstrings._google_section)  # pylint: disable=protected-access

    def section(match):
        if match.group("name") in api_docs_examples.EXAMPLE_SECTIONS:
            return api_docs_examples.example_section(match.group("name"),
                                                     match.group("contents"))
        return pdoc_section(match)

    section.__wrapped__ = pdoc_section
    pdoc.docstrings._google_section = section  # pylint: disable=protected-access


def _link_docs_pointers(output: str) -> None:
    """Links each `docs/NAME.md` and `Deliberate difference N` of the API pages."""
    guides = {name for name, _ in _guides()}
    for directory, _, files in os.walk(output):
        if os.path.basename(directory) == "guides":
            continue
        for name in files:
            if name.endswith(".html"):
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                with open(path, "w", encoding="utf-8") as f:
                    f.write(api_docs_links.link_pointers(text, guides))


def _relink_guides(output: str) -> None:
    """Prefixes the guides' links on the pages below the top with the way back up."""
    for directory, _, files in os.walk(output):
        depth = os.path.relpath(directory, output).count(os.sep) + (directory != output)
        if depth == 0 or os.path.basename(directory) == "guides":
            continue
        for name in files:
            if name.endswith(".html"):
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text.replace('href="guides/', f'href="{"../" * depth}guides/'))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default=os.path.join(tempfile.gettempdir(),
                                                         "estimator_lib_api"))
    parser.add_argument("--strict", action="store_true",
                        help="fail (exit status 1) on any pdoc warning, broken link or "
                             "broken cross-reference")
    parser.add_argument("--fail-undocumented", action="store_true",
                        help="fail (exit status 1) on any public member without a docstring")
    options = parser.parse_args(argv)
    return build(os.path.abspath(options.output), options.strict,
                 options.fail_undocumented)


if __name__ == "__main__":
    sys.exit(main())
