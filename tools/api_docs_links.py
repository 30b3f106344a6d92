"""The links of the rendered reference: where a class is rendered, and which links are broken.

`rendered_at` is a template function (tools/api_docs_templates/module.html.jinja2):
for a class pdoc names by (module, qualname), the (module, qualname) of the page
section that documents it, or None; so that an inherited member links to the page
that shows it, or is listed without a link, never to an anchor that is not there.

`broken_links(output)` reads every page of the built site (the API pages and the
guides): each `href` that is neither absolute (`https:`, `mailto:`, ...) nor in a
`<script>` must name a file of the site, and its `#fragment`, if any, an `id` of
that page.
"""

import html
import importlib
import inspect
import os
import re
from typing import List, Optional, Tuple

import jinja2

_SCRIPT = re.compile(r"<script\b.*?</script>", re.S | re.I)
_HREF = re.compile(r"""\bhref=["']([^"']*)["']""")
_ID = re.compile(r"""\bid=["']([^"']+)["']""")
_ABSOLUTE = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|//)")


def _object(modulename: str, qualname: str):
    value = importlib.import_module(modulename)
    for part in qualname.split("."):
        value = getattr(value, part)
    return value


def _public_doc(all_modules, modulename: str, qualname: str):
    module = all_modules.get(modulename)
    doc = module
    for part in qualname.split("."):
        if part.startswith("_") or doc is None or not hasattr(doc, "get"):
            return None
        doc = doc.get(part)
    return doc


@jinja2.pass_context
def rendered_at(context, spec: Tuple[str, str]) -> Optional[Tuple[str, str]]:
    """Where the class `spec` has its own section in the reference, or None.

    Args:
        context: The template's context (its `all_modules`: the rendered modules).
        spec: (module name, qualname) of a class, as pdoc's `inherited_members` names
            a base.

    Returns:
        `spec` itself when its module is rendered and every part of its name is
        public; else the first rendered public class that is the same object (a
        class of an internal module shown where the package exports it); else None.
    """
    all_modules = context["all_modules"]
    if _public_doc(all_modules, *spec) is not None:
        return tuple(spec)
    try:
        target = _object(*spec)
    except (ImportError, AttributeError):
        return None
    if not inspect.isclass(target):
        return None
    for name in sorted(all_modules):
        for member in all_modules[name].own_members:
            if member.obj is target and not member.name.startswith("_"):
                return name, member.qualname
    return None


def alias_class(member):
    """The class an alias variable names, as a pdoc class under the alias's name; or None.

    Args:
        member: A pdoc member of a rendered module.

    Returns:
        For a public module variable bound to a class of estimator_lib
        (`DNNClassifier = DNNClassifierV2`) or of TensorFlow (`ModeKeys =
        EstimatorModeKeys`), a `pdoc.doc.Class` of that class named by the alias, taken
        from the class's own module and qualname; else None.
    """
    import pdoc.doc  # pylint: disable=import-outside-toplevel

    value = getattr(member, "default_value", None)
    if (not isinstance(member, pdoc.doc.Variable) or not inspect.isclass(value)
            or not value.__module__.startswith(("estimator_lib", "tensorflow"))):
        return None
    return pdoc.doc.Class(member.modulename, member.qualname, value,
                          (value.__module__, value.__qualname__))


def _pages(output: str):
    for directory, _, files in os.walk(output):
        for name in sorted(files):
            if name.endswith(".html"):
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8") as f:
                    yield path, _SCRIPT.sub("", f.read())


def broken_links(output: str) -> List[str]:
    """'page: href (why)' for each link of the site that leads nowhere.

    Args:
        output: The folder the site was built into.

    Returns:
        The broken links, one entry per page and href, sorted.
    """
    ids, links = {}, []
    for path, text in _pages(output):
        ids[os.path.normpath(path)] = set(_ID.findall(text))
        links += [(path, html.unescape(href)) for href in _HREF.findall(text)]
    broken = set()
    for page, href in links:
        if _ABSOLUTE.match(href):
            continue
        target, _, fragment = href.partition("#")
        path = os.path.normpath(os.path.join(os.path.dirname(page), target) if target
                                else page)
        where = os.path.relpath(page, output)
        if not os.path.exists(path):
            broken.add(f"{where}: {href} (no such file)")
        elif fragment and path in ids and fragment not in ids[path]:
            broken.add(f"{where}: {href} (no id {fragment!r} on that page)")
    return sorted(broken)


# A pointer into the guides, in a page's text: `docs/NAME.md`, with an optional
# ", deliberate difference N", or "Deliberate difference N" alone (docs/estimator.md's
# numbered items, each an `<a id="deliberate-difference-N">` there).
_POINTER = re.compile(r"\bdocs/(\w+)\.md(?:, deliberate difference (\d+)\b)?"
                      r"|\b[Dd]eliberate difference (\d+)\b")
_TAG = re.compile(r"(<[^>]*>)")
_NO_LINKS_IN = ("pre", "a", "script", "style", "textarea")


def _pointer_href(match: "re.Match", guides: set) -> Optional[str]:
    name, number, alone = match.groups()
    if alone:
        return f"guides/estimator.html#deliberate-difference-{alone}"
    if name not in guides:
        return None
    return f"guides/{name}.html" + (f"#deliberate-difference-{number}" if number else "")


def link_pointers(page: str, guides: set) -> str:
    """Makes each pointer into docs/*.md in `page`'s text a link to its rendered guide.

    Args:
        page: An API page's HTML (its links to the guides relative to the site's top,
            `guides/NAME.html`, as pdoc's pages before tools/build_api_docs.py
            relinks the deeper ones).
        guides: The names of the rendered guides (`estimator` for docs/estimator.md).

    Returns:
        The page with `docs/NAME.md` (optionally `, deliberate difference N`) and
        `Deliberate difference N` linked, except inside `<pre>` (the source view and
        code blocks), an existing link, a script or a style.
    """
    out, closed_by = [], []
    for part in _TAG.split(page):
        if part.startswith("<"):
            tag = re.match(r"<(/?)(\w+)", part)
            if tag and tag.group(2).lower() in _NO_LINKS_IN and not part.endswith("/>"):
                if tag.group(1):
                    if closed_by and closed_by[-1] == tag.group(2).lower():
                        closed_by.pop()
                else:
                    closed_by.append(tag.group(2).lower())
            out.append(part)
        elif closed_by or not part:
            out.append(part)
        else:
            out.append(_POINTER.sub(
                lambda m: (f'<a href="{href}">{m.group(0)}</a>'
                           if (href := _pointer_href(m, guides)) else m.group(0)), part))
    return "".join(out)
