"""Tests for the datasets package's boundaries and public names."""

import ast
import os

import tensorflow as tf

from estimator_lib import datasets

PACKAGE = os.path.dirname(datasets.__file__)
OWN = "estimator_lib.datasets"  # Its installed name; the rest of estimator_lib is forbidden.
FORBIDDEN = ("estimator_lib", "flags", "absl.flags", "kaggle")


def _imports(path):
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            yield module, node
            for alias in node.names:
                yield f"{module}.{alias.name}", node


class PackageTest(tf.test.TestCase):

    def test_never_imports_the_library_flags_or_kaggle_at_top_level(self):
        for name in sorted(os.listdir(PACKAGE)):
            if not name.endswith(".py"):
                continue
            path = os.path.join(PACKAGE, name)
            with open(path) as f:
                top_level = ast.parse(f.read(), path).body
            for module, node in _imports(path):
                own = module == OWN or module.startswith(OWN + ".")
                root_match = not own and any(module == bad or module.startswith(bad + ".")
                                             for bad in FORBIDDEN)
                if module == "kaggle" and node not in top_level:
                    continue  # The lazy import inside a function.
                self.assertFalse(root_match,
                                 f"{name} imports {module} (line "
                                 f"{node.lineno})")

    def test_public_names(self):
        for name in datasets.__all__:
            self.assertTrue(hasattr(datasets, name), name)
        self.assertEqual((datasets.TRAIN, datasets.EVAL, datasets.PREDICT),
                         ("train", "eval", "infer"))


if __name__ == "__main__":
    tf.test.main()
