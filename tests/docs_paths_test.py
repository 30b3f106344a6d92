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
