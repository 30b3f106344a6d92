"""Every repository path that README.md and docs/*.md cite exists (issue #37).

A path is cited as `tests/...`, `src/...`, `docs/...`, `bench/...`, `tools/...` from
the repository root, or `estimator_lib/...` with a file suffix (under src/). Globs
and placeholders (`tests/data/tf215_*`, `<name>`) are not paths.
"""

import glob
import os
import re

import tensorflow as tf

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_FROM_ROOT = re.compile(r"(?<![\w./-])((?:tests|src|docs|bench|tools)/[\w./<>{}*-]*[\w*>}])")
_IN_SRC = re.compile(r"(?<![\w./-])(estimator_lib/[\w./-]*\.(?:py|md|txt|json))")


def cited_paths(text):
    """(path relative to the root) for each path `text` cites; globs left out."""
    paths = [m.group(1) for m in _FROM_ROOT.finditer(text)]
    paths += ["src/" + m.group(1) for m in _IN_SRC.finditer(text)]
    return [p for p in paths if not any(c in p for c in "*<>{}")]


def missing_paths(root=_ROOT):
    """(document, line number, path) for each cited path that does not exist."""
    documents = [os.path.join(root, "README.md")] + sorted(
        glob.glob(os.path.join(root, "docs", "*.md")))
    missing = []
    for document in documents:
        with open(document) as f:
            for number, line in enumerate(f, 1):
                for path in cited_paths(line):
                    if not os.path.exists(os.path.join(root, path)):
                        missing.append((os.path.relpath(document, root), number, path))
    return missing


def benchmark_tables_without_provenance(text):
    """The first row of each table of `text` with no command or date above it in its
    `## ` section (a table in docs/benchmarks.md is printed by a script, issue 43)."""
    bare = []
    for section in re.split(r"^(?=## )", text, flags=re.M):
        seen_provenance = False
        previous = ""
        for line in section.split("\n"):
            if re.search(r"python |Command: |\b20\d\d-\d\d-\d\d\b", line):
                seen_provenance = True
            if line.startswith("|") and not previous.startswith("|") and not seen_provenance:
                bare.append(line)
            previous = line
    return bare


class BenchmarksDocTest(tf.test.TestCase):
    """docs/benchmarks.md: current figures first, the history in an appendix (issue 43)."""

    def test_current_figures_first_and_the_history_apart(self):
        with open(os.path.join(_ROOT, "docs", "benchmarks.md")) as f:
            text = f.read()
        self.assertLess(len(text.splitlines()), 400)
        self.assertIn("docs/benchmarks_history.md", text)
        self.assertTrue(os.path.exists(os.path.join(_ROOT, "docs", "benchmarks_history.md")))
        self.assertEqual([], benchmark_tables_without_provenance(text))
        # The sections the scripts regenerate in place stay here.
        for heading in ("## Per-step and end-to-end", "## Multi-worker (bench/multi_worker.py)",
                        "## Several steps per session run"):
            self.assertIn("\n" + heading, text)

    def test_a_table_without_its_command_is_found(self):
        self.assertEqual(["| a | b |"], benchmark_tables_without_provenance(
            "## Q1\n\n`python bench/x.py` - 2026-01-01\n\n| a |\n|---|\n\n"
            "## Q2\n\nText.\n\n| a | b |\n|---|---|\n"))


class DocsPathsTest(tf.test.TestCase):

    def test_every_cited_path_exists(self):
        self.assertEqual(missing_paths(), [])

    def test_a_stale_path_is_found(self):
        root = self.get_temp_dir()
        os.makedirs(os.path.join(root, "docs"), exist_ok=True)
        os.makedirs(os.path.join(root, "tests", "training"), exist_ok=True)
        open(os.path.join(root, "tests", "training", "loop_test.py"), "w").close()
        with open(os.path.join(root, "README.md"), "w") as f:
            f.write("See tests/training/loop_test.py and `tests/loop_test.py`.\n")
        with open(os.path.join(root, "docs", "a.md"), "w") as f:
            f.write("estimator_lib/gone.py, tests/data/tf215_* and examples/sec.\n")
        self.assertEqual(missing_paths(root), [("README.md", 1, "tests/loop_test.py"),
                                               ("docs/a.md", 1, "src/estimator_lib/gone.py")])


if __name__ == "__main__":
    tf.test.main()
