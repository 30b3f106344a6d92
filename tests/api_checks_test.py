"""The API reference's own checks fail on what they exist to catch (issue 38).

tools/build_api_docs.py --strict fails on a broken link of the built site
(tools/api_docs_links.py) and on a docstring cross-reference that names nothing
(tools/api_docs_references.py). Here each is shown failing on a planted mistake, in
temporary files (a tiny site, a tiny module), never in the package itself; and a
reference that is not one by the rule (code in backticks) is shown left alone.
"""

import html
import os
import sys
import textwrap
from unittest import mock

import tensorflow as tf

_TOOLS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools")
sys.path.insert(0, _TOOLS)

import api_docs_examples  # noqa: E402  pylint: disable=wrong-import-position
import api_docs_flags  # noqa: E402  pylint: disable=wrong-import-position
import api_docs_links  # noqa: E402  pylint: disable=wrong-import-position
import api_docs_references  # noqa: E402  pylint: disable=wrong-import-position

import estimator_lib  # noqa: E402  pylint: disable=wrong-import-position
from absl import flags as absl_flags  # noqa: E402  pylint: disable=wrong-import-position
from estimator_lib.flags import definitions  # noqa: E402  pylint: disable=wrong-import-position

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


class ExamplesAsCodeTest(tf.test.TestCase):
    """An Example section renders as code; the strict build fails on one that does not."""

    def test_doctest_lines_and_indented_blocks_become_code(self):
        markdown = api_docs_examples.example_section("Examples", """
            Trains it:

            >>> x = 1
            >>> x + 1
            2

                est.train(input_fn)
        """)
        self.assertEqual("\n###### Examples:\nTrains it:\n\n\n```python\n>>> x = 1\n"
                         ">>> x + 1\n2\n```\n\n\n\n```python\nest.train(input_fn)\n```\n\n",
                         markdown)

    def test_a_planted_example_that_is_not_code_fails(self):
        root = self.get_temp_dir()
        pages = {
            "good.html": '<h6 id="examples">Examples:</h6>\n<div class="pdoc-code"><pre>'
                         '&gt;&gt;&gt; 1</pre></div></section>',
            # pdoc's own rendering of an Example section: a quoted run-on paragraph.
            "bad.html": '<h6 id="example">Example:</h6>\n<blockquote><p>classifier = '
                        'DNNClassifier( feature_columns=[...]) classifier.train(input_fn)'
                        '</p></blockquote></section>',
            "quoted.html": '<h6 id="examples">Examples:</h6><blockquote><div><pre>x</pre>'
                           '</div></blockquote></section>',
            "loose.html": '<h6 id="examples">Examples:</h6><pre>a</pre><p>&gt;&gt;&gt; 1 + 1'
                          '</p></section>',
        }
        for name, text in pages.items():
            with open(os.path.join(root, name), "w", encoding="utf-8") as f:
                f.write(text)
        self.assertEqual(["bad.html: Example section 1 (no code block)",
                          "loose.html: Examples section 1 (>>> outside a code block)",
                          "quoted.html: Examples section 1 (a quoted paragraph)"],
                         api_docs_examples.bad_examples(root))


class DocsPointersTest(tf.test.TestCase):

    def test_pointers_into_the_guides_become_links(self):
        page = ('<p>See docs/estimator.md, deliberate difference 14 and docs/binaries.md; '
                'Deliberate difference 9: same. docs/nowhere.md stays text.</p>'
                '<pre>docs/estimator.md in the source</pre><a href="x">docs/MIGRATION.md</a>')
        linked = api_docs_links.link_pointers(page, {"estimator", "binaries", "MIGRATION"})
        self.assertIn('<a href="guides/estimator.html#deliberate-difference-14">'
                      'docs/estimator.md, deliberate difference 14</a>', linked)
        self.assertIn('<a href="guides/binaries.html">docs/binaries.md</a>', linked)
        self.assertIn('<a href="guides/estimator.html#deliberate-difference-9">'
                      'Deliberate difference 9</a>: same', linked)
        self.assertIn(" docs/nowhere.md stays text", linked)
        self.assertIn("<pre>docs/estimator.md in the source</pre>", linked)
        self.assertIn('<a href="x">docs/MIGRATION.md</a>', linked)

    def test_a_link_to_a_missing_difference_is_broken(self):
        root = self.get_temp_dir()
        os.makedirs(os.path.join(root, "guides"), exist_ok=True)
        with open(os.path.join(root, "guides", "estimator.html"), "w") as f:
            f.write('<li><a id="deliberate-difference-1"></a>One</li>')
        with open(os.path.join(root, "a.html"), "w") as f:
            f.write(api_docs_links.link_pointers(
                "<p>Deliberate difference 1: a. Deliberate difference 2: b.</p>",
                {"estimator"}))
        self.assertEqual(["a.html: guides/estimator.html#deliberate-difference-2 "
                          "(no id 'deliberate-difference-2' on that page)"],
                         api_docs_links.broken_links(root))


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


def _sections(page: str) -> dict:
    """'## name' heading -> the text under it."""
    return {part.split("\n", 1)[0]: part for part in page.split("\n## ")[1:]}


class FlagsPageTest(tf.test.TestCase):

    def test_every_flag_of_every_binary_is_on_the_page(self):
        import markdown2  # pdoc's dependency  pylint: disable=import-outside-toplevel

        sections = _sections(api_docs_flags.markdown())
        self.assertEqual(["train", "scaling_benchmark", "input_benchmark", "download_oct",
                          "make_tfrecords", "Aliases"], list(sections))
        missing = []
        for binary in api_docs_flags.binaries():
            section = sections[binary.rsplit(".", 1)[-1]]
            self.assertIn(f"python -m {binary}", section)
            flags = api_docs_flags.binary_flags(binary)
            self.assertGreater(len(flags), 2, binary)
            # Each help as the rendered page shows it: verbatim, on one line.
            shown = html.unescape(markdown2.markdown(section, extras=["tables"]))
            for flag in flags:
                cell = f"<td><code>--{flag.name}</code></td>"
                if cell not in shown or " ".join(flag.help.split()) not in shown:
                    missing.append(f"{binary}: --{flag.name}")
        self.assertEqual([], missing)

    def test_every_defined_flag_is_on_the_page(self):
        page = api_docs_flags.markdown()
        defined = [flag.name for flag in
                   absl_flags.FLAGS.get_flags_for_module(definitions.__name__)]
        self.assertIn("num_gpus", defined)  # the alias
        self.assertEqual([], [name for name in defined if f"`--{name}`" not in page])

    def test_defaults_and_types_are_the_definitions(self):
        rows = {flag.name: api_docs_flags.flag_row(flag)
                for flag in api_docs_flags.binary_flags("estimator_lib.bin.train")}
        self.assertEqual("`64`", rows["batch_size"]["default"])
        self.assertEqual("(none)", rows["model_dir"]["default"])
        self.assertEqual("true", rows["eval"]["default"])
        self.assertEqual("one of `cnn`, `vgg16`", rows["model"]["type"])
        self.assertEqual(absl_flags.FLAGS["batch_size"].help, rows["batch_size"]["help"])

    def test_the_page_follows_the_definitions(self):
        # Generated, not copied: a flag a binary starts reading appears under it.
        from estimator_lib.bin import download_oct  # pylint: disable=import-outside-toplevel

        self.assertNotIn("`--devices`", _sections(api_docs_flags.markdown())["download_oct"])
        with mock.patch.object(download_oct, "KEY_FLAGS",
                               download_oct.KEY_FLAGS + (definitions.DEVICES,)):
            self.assertIn("`--devices`", _sections(api_docs_flags.markdown())["download_oct"])


if __name__ == "__main__":
    tf.test.main()
