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
