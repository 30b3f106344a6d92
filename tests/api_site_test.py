"""The API reference builds from the docstrings, as README says, with no warning.

Runs `tools/build_api_docs.py --strict --fail-undocumented` (pdoc, from the test
extras) in a fresh process, as a user builds it: any pdoc warning (an import that
fails, an annotation it cannot read), a link of the site that leads nowhere, a
docstring cross-reference that names nothing, or a public member without a docstring
fails (tests/api_checks_test.py shows those checks failing on planted mistakes).
"""

import os
import subprocess
import sys
import tempfile
import unittest

import pytest

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.timeout(600)
class ApiSiteTest(unittest.TestCase):

    def test_the_reference_builds_strictly_with_the_guides_linked(self):
        with tempfile.TemporaryDirectory() as output:
            # As README's command runs: no TF_CPP_MIN_LOG_LEVEL of the user's.
            env = {k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"}
            done = subprocess.run(
                [sys.executable, os.path.join(_REPO, "tools", "build_api_docs.py"),
                 "--strict", "--fail-undocumented", "--output", output],
                capture_output=True, text=True, env=env, cwd=_REPO, timeout=540)
            self.assertEqual(done.returncode, 0, done.stdout[-3000:] + done.stderr[-3000:])
            self.assertIn("0 warning(s); 0 broken link(s) or reference(s); 0 public member(s) "
                          "without a docstring", done.stdout)
            # TensorFlow's C++ start-up lines are hidden, as the binaries hide them.
            self.assertNotIn("absl::InitializeLog", done.stderr)
            self.assertNotIn("cudart_stub.cc", done.stderr)
            for page in ("index.html", "estimator_lib.html", "estimator_lib/canned.html",
                         "guides/MIGRATION.html", "guides/binaries.html",
                         "guides/flags.html"):
                self.assertTrue(os.path.exists(os.path.join(output, page)), page)
            with open(os.path.join(output, "estimator_lib.html"), encoding="utf-8") as f:
                page = f.read()
            self.assertIn("guides/MIGRATION.html", page)  # the guides linked
            self.assertIn("train_and_evaluate", page)
            # An alias shows its class (signature and docstring), not `= <class ...>`.
            self.assertNotIn("DNNClassifier</span>        =", page)
            self.assertIn('<span class="def">class</span>\n    <span class="name">'
                          'DNNClassifier</span>', page)
            # Pointers into docs/*.md are links (issue 47): the one-line differences.
            self.assertIn('<a href="guides/estimator.html#deliberate-difference-20">'
                          'Deliberate difference 20</a>', page)
            # A class TensorFlow provides, re-exported as it is (a hook), says its docstring
            # is TensorFlow's and links the example of the module that re-exports it.
            self.assertIn("docstring above is TensorFlow's. Examples:\n                    "
                          '<a href="estimator_lib/hooks.html#examples">estimator_lib.hooks\'s '
                          "Examples</a>.", page)
            # So does an alias of a TensorFlow class (`ModeKeys = EstimatorModeKeys`), shown
            # as the class, not as `ModeKeys = <class ...>`; its example is the top page's.
            self.assertNotIn("EstimatorModeKeys&#39;&gt;</span>", page)
            self.assertIn("ModeKeys is TensorFlow's own class", page)
            self.assertIn('<a href="#examples">estimator_lib\'s Examples</a>', page)
            self.assertLess(page.index('<h6 id="examples">'), page.index('<section id="'))
            with open(os.path.join(output, "estimator_lib", "hooks.html"),
                      encoding="utf-8") as f:
                hooks_page = f.read()
            examples = hooks_page.index('<h6 id="examples">')
            self.assertLess(examples, hooks_page.index('<section id="LoggingTensorHook">'))
            self.assertIn('<span class="n">hooks</span><span class="o">.</span><span class="n">'
                          'LoggingTensorHook</span>', hooks_page[examples:examples + 20000])
            # The canned page shows the 24 canned classes (its __all__), not only the
            # compat layer's mappings (as a newcomer saw it before issue 47's third pass).
            with open(os.path.join(output, "estimator_lib", "canned.html"),
                      encoding="utf-8") as f:
                canned_page = f.read()
            self.assertEqual(24, canned_page.count('<section id="'))
            self.assertIn('<section id="DNNRegressorV2">', canned_page)
            # So does each subpackage page its names (their __all__), not an empty page.
            for name, count in (("experimental", 13), ("export", 9), ("head", 20),
                                ("compat", 5), ("hooks", 24), ("tpu", 5)):
                with open(os.path.join(output, "estimator_lib", name + ".html"),
                          encoding="utf-8") as f:
                    self.assertEqual(count, f.read().count('<section id="'), msg=name)
            with open(os.path.join(output, "guides", "flags.html"), encoding="utf-8") as f:
                flags_page = f.read()
            for flag in ("--train_steps", "--devices", "--num_shards", "--num_gpus"):
                self.assertIn(f"<code>{flag}</code>", flags_page)
            self.assertIn("guides/flags.html", page)


class OneBuildCommandTest(unittest.TestCase):

    def test_readme_and_the_guide_give_the_same_one_command(self):
        commands = set()
        for path in ("README.md", os.path.join("docs", "api_reference.md")):
            with open(os.path.join(_REPO, path), encoding="utf-8") as f:
                text = f.read()
            found = {line.strip().strip("`").split("`")[-1].strip()
                     for line in text.splitlines() if "build_api_docs.py" in line
                     and "python" in line}
            commands |= {c[c.index(".venv"):] if ".venv" in c else c for c in found}
        self.assertEqual({".venv/bin/python tools/build_api_docs.py"}, commands)


if __name__ == "__main__":
    unittest.main()
