"""The API reference's own checks fail on what they exist to catch (issue 38).

tools/build_api_docs.py --strict fails on a broken link of the built site
(tools/api_docs_links.py) and on a docstring cross-reference that names nothing
(tools/api_docs_references.py). Here each is shown failing on a planted mistake, in
temporary files (a tiny site, a tiny module), never in the package itself; and a
reference that is not one by the rule (code in backticks) is shown left alone.
"""

import os
import sys
import textwrap

import tensorflow as tf

_TOOLS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools")
sys.path.insert(0, _TOOLS)

import api_docs_links  # noqa: E402  pylint: disable=wrong-import-position
import api_docs_references  # noqa: E402  pylint: disable=wrong-import-position

import estimator_lib  # noqa: E402  pylint: disable=wrong-import-position

_PLANTED = '''\
"""A module with one good and two broken references."""

from estimator_lib import Estimator


def documented():
    """Calls `Estimator.train`, not `Estimator.trian`; see `estimator_lib.RunConfig.nope`.

    Not references: `config.model_dir`, `features["x"]`, `ar_loops.py`, ``Estimator.x``.
    """
'''


class BrokenLinksTest(tf.test.TestCase):

    def _site(self, pages):
        root = self.get_temp_dir()
        for name, text in pages.items():
            path = os.path.join(root, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        return root

    def test_a_missing_page_or_anchor_is_reported(self):
        root = self._site({
            "a.html": '<a href="sub/b.html#here">ok</a><a href="#top">ok</a><p id="top">'
                      '<a href="sub/b.html#gone">1</a><a href="missing.html">2</a>'
                      '<a href="https://example.com/x.html#y">web</a>'
                      '<script>x = `<a href="${url}">`</script>',
            "sub/b.html": '<h2 id="here">B</h2><a href="../a.html">up</a>',
        })
        self.assertEqual(
            ["a.html: missing.html (no such file)",
             "a.html: sub/b.html#gone (no id 'gone' on that page)"],
            api_docs_links.broken_links(root))

    def test_a_clean_site_has_none(self):
        root = self._site({"a.html": '<p id="x"><a href="#x">x</a>'})
        self.assertEqual([], api_docs_links.broken_links(root))


class BrokenReferencesTest(tf.test.TestCase):

    def test_what_counts_as_a_reference(self):
        namespace = {"Estimator": estimator_lib.Estimator, "os": os}
        cases = {
            "Estimator.train": True,
            "Estimator.trian": False,
            "estimator_lib.RunConfig.model_dir": True,
            "estimator_lib.RunConfig.nope": False,
            "estimator_lib.canned": True,
            "RunConfig.steps_per_run": True,  # a class of estimator_lib.__all__
            "EstimatorSpec.predictions": True,  # a namedtuple field
            "config.model_dir": None,  # an argument
            "os.path": None,  # another library's
        }
        self.assertEqual(cases, {ref: api_docs_references.resolves(ref, namespace)
                                 for ref in cases})
        self.assertEqual(["a.b", "a.b", "Estimator.train"], api_docs_references.references(
            "`a.b`, `a.b()`, `Estimator.train()`, `x[0].y`, `ar_loops.py`, ``c.d``"))

    def test_tf_names_resolve_through_tensorflow(self):
        self.assertTrue(api_docs_references.resolves("tf.compat.v1.train.Optimizer", {}, tf))
        self.assertFalse(api_docs_references.resolves("tf.train.Optimizer", {}, tf))
        self.assertIsNone(api_docs_references.resolves("tf.train.Optimizer", {}))

    def test_a_planted_broken_reference_fails(self):
        import pdoc.doc  # pylint: disable=import-outside-toplevel

        root = self.get_temp_dir()
        with open(os.path.join(root, "planted_refs.py"), "w", encoding="utf-8") as f:
            f.write(textwrap.dedent(_PLANTED))
        sys.path.insert(0, root)
        try:
            broken = api_docs_references.check(["planted_refs"], pdoc.doc,
                                               package="planted_refs")
        finally:
            sys.path.remove(root)
            sys.modules.pop("planted_refs", None)
        self.assertEqual(
            ["planted_refs.documented: `Estimator.trian` names nothing",
             "planted_refs.documented: `estimator_lib.RunConfig.nope` names nothing"],
            [str(b) for b in broken])


if __name__ == "__main__":
    tf.test.main()
