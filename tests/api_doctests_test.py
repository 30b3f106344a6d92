"""The examples in estimator_lib's docstrings run, as doctests (issue 38).

Every module of the package whose source holds a `>>>` example is imported and its
docstrings' examples run with `doctest`; each must pass, and the search must find
them (so that an example cannot silently stop running). Examples are small and
fast: plain values, or a couple of training steps on tiny data in a temporary
model_dir (Estimator, the canned classifiers, model_to_estimator,
train_and_evaluate, KMeans).

Every `Example:` / `Examples:` section of the package is a doctest (issue 47): it
holds `>>>` lines, which run here, and the built reference renders it as code
(tools/api_docs_examples.py; tools/build_api_docs.py --strict fails otherwise).
"""

import doctest
import importlib
import os
import re

import tensorflow as tf

_SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
_PACKAGE = os.path.join(_SRC, "estimator_lib")


def modules_with_examples(root=_PACKAGE):
    """Dotted names of the modules under `root` whose source holds a `>>>` example."""
    names = []
    for directory, _, files in os.walk(root):
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            path = os.path.join(directory, name)
            with open(path, encoding="utf-8") as f:
                if ">>>" not in f.read():
                    continue
            relative = os.path.relpath(path, os.path.dirname(root))[:-3]
            names.append(relative.replace(os.sep, ".").removesuffix(".__init__"))
    return sorted(names)


_EXAMPLE_SECTION = re.compile(r"^([ \t]*)Examples?:[ \t]*\n((?:\1[ \t]+.*\n|[ \t]*\n)*)", re.M)


def examples_without_doctests(root=_PACKAGE):
    """'path:line' of each Example(s) section under `root` with no `>>>` line."""
    found = []
    for directory, _, files in os.walk(root):
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                for match in _EXAMPLE_SECTION.finditer(text):
                    if ">>>" not in match.group(2):
                        line = text.count("\n", 0, match.start()) + 1
                        found.append(f"{os.path.relpath(path, root)}:{line}")
    return found


class ApiDoctestsTest(tf.test.TestCase):

    def test_every_example_section_is_a_doctest(self):
        self.assertEqual([], examples_without_doctests())
        root = os.path.join(self.get_temp_dir(), "pkg")
        os.makedirs(root, exist_ok=True)
        with open(os.path.join(root, "m.py"), "w", encoding="utf-8") as f:
            f.write('def f():\n    """F.\n\n    Example:\n        f()\n    """\n\n\n'
                    'def g():\n    """G.\n\n    Examples:\n        >>> 1\n        1\n    """\n')
        self.assertEqual(["m.py:4"], examples_without_doctests(root))


    def test_the_examples_run(self):
        names = modules_with_examples()
        self.assertGreaterEqual(len(names), 13, msg=names)
        results = {}
        for name in names:
            module = importlib.import_module(name)
            result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False,
                                     report=True)
            results[name] = (result.failed, result.attempted)
        self.assertEqual({}, {n: r for n, r in results.items() if r[0] or not r[1]})
        # The examples of the most used entry points (RunConfig, EstimatorSpec, TrainSpec,
        # EvalSpec, the parse-spec helpers, numpy_input_fn, a dataset builder's argument
        # checks, the flags) are among them: none can silently stop running.
        self.assertGreaterEqual(sum(attempted for _, attempted in results.values()), 40)
        for name in ("estimator_lib.core.run_config", "estimator_lib.core.model_fn",
                     "estimator_lib.engine.train_eval", "estimator_lib.head.parsing",
                     "estimator_lib.legacy.numpy_io", "estimator_lib.datasets.fashion_mnist",
                     "estimator_lib.flags.definitions", "estimator_lib.bin.cli",
                     # issue 47: the entry points users look up.
                     "estimator_lib.engine.estimator", "estimator_lib.keras.conversion",
                     "estimator_lib.canned.dnn", "estimator_lib.canned.linear",
                     "estimator_lib.canned.baseline", "estimator_lib.canned.dnn_linear_combined",
                     "estimator_lib.export.receivers", "estimator_lib.hooks.early_stopping"):
            self.assertIn(name, results)

    def test_a_wrong_example_fails(self):
        def documented():
            """>>> 1 + 1
            3
            """

        finder = doctest.DocTestFinder()
        runner = doctest.DocTestRunner(verbose=False)
        for test in finder.find(documented, "documented", globs={}):
            runner.run(test, out=lambda _: None)
        self.assertEqual(1, runner.summarize(verbose=False).failed)


if __name__ == "__main__":
    tf.test.main()
