"""`pytest --quick` (tests/quick.txt) stays runnable, and CI runs what README says.

Under --quick, tests/conftest.py already fails on an entry that selects no test; this
checks the list without running it: every entry names a test file (and class) that
exists, and .ci/run runs README's test command, and the subset on TensorFlow 2.16 and on
Python 3.13.
"""

import ast
import os
import tempfile
import unittest

from tests import conftest

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _classes(path):
    with open(path) as f:
        return {node.name for node in ast.parse(f.read()).body if isinstance(node, ast.ClassDef)}


class QuickSubsetTest(unittest.TestCase):

    def test_every_entry_names_an_existing_test_file_and_class(self):
        entries = conftest.quick_entries()
        self.assertGreaterEqual(len(entries), 6)
        for entry in entries:
            path, *names = entry.split("::")
            self.assertTrue(path.endswith("_test.py"), entry)
            self.assertTrue(os.path.isfile(os.path.join(_ROOT, path)), entry)
            if names:
                self.assertIn(names[0], _classes(os.path.join(_ROOT, path)), entry)

    def test_comments_and_blank_lines_are_not_entries(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "quick.txt")
            with open(path, "w") as f:
                f.write("# a comment\n\ntests/a_test.py   # why\n  tests/b_test.py::C\n")
            self.assertEqual(conftest.quick_entries(path),
                             ["tests/a_test.py", "tests/b_test.py::C"])

    def test_ci_runs_readmes_test_command_and_the_subset_on_tf_2_16_and_python_3_13(self):
        with open(os.path.join(_ROOT, "README.md")) as f:
            readme = f.read()
        with open(os.path.join(_ROOT, ".ci", "run")) as f:
            ci = [line.strip() for line in f if line.strip() and not line.startswith("#")]
        command = ("python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]' && "
                   ".venv/bin/python -m pytest")
        self.assertIn("    " + command + "\n", readme)
        self.assertIn(command, [line.split(" || ")[0] for line in ci])
        self.assertTrue(any(".venv313/bin/python -m pytest --quick" in line for line in ci), ci)
        self.assertTrue(any(".venv216/bin/python -m pytest --quick" in line for line in ci), ci)
        self.assertTrue(any('"tensorflow==2.16.*" "tf-keras==2.16.*"' in line for line in ci),
                        ci)


if __name__ == "__main__":
    unittest.main()
