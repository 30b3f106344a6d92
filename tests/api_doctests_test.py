"""The examples in estimator_lib's docstrings run, as doctests (issue 38).

Every module of the package whose source holds a `>>>` example is imported and its
docstrings' examples run with `doctest`; each must pass, and the search must find
them (so that an example cannot silently stop running). Examples are small and
fast: plain values, no training (numpy_input_fn's runs one batch in a session).
"""

import doctest
import importlib
import os

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


class ApiDoctestsTest(tf.test.TestCase):

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
                     "estimator_lib.flags.definitions", "estimator_lib.bin.cli"):
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
