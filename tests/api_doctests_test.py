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

Every tf.estimator class and function a user looks up has an example (issue 47): ours
in its own docstring's Examples section; a class TensorFlow provides, re-exported as it
is (the hooks), in the Examples of the docstring of an estimator_lib module that
re-exports it under that name, which its reference page links
(tools/api_docs_examples.py's `example_home`). NO_EXAMPLE_YET names those still
without one; it only shrinks.
"""

import doctest
import importlib
import inspect
import os
import re
import sys

import tensorflow as tf

import estimator_lib
from estimator_lib import compat
from tests import api_docstrings_test

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tools"))
import api_docs_examples  # noqa: E402  pylint: disable=wrong-import-position

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


# tf.estimator's classes and functions (tests/data/tf215_names.json, each by the first
# path that reaches it) with no example yet, each with why (none today). Fill one in and
# take it off; never add (test_every_looked_up_name_has_an_example fails both ways).
NO_EXAMPLE_YET = frozenset(())


def example_modules():
    """The modules whose docstrings may hold a re-exported class's example: the package
    and the subpackages its `__all__` names (the reference's top pages)."""
    return ["estimator_lib"] + sorted(
        f"estimator_lib.{name}" for name in estimator_lib.__all__
        if inspect.ismodule(getattr(estimator_lib, name)))


def names_without_an_example(objects, modules) -> list:
    """The path of each of `objects` ({id: (path, object)}) that no example shows.

    Ours needs an Examples section with `>>>` lines in its own docstring; a class or
    function of another library (TensorFlow's hooks), an Examples section of one of
    `modules` that binds it under its public name and uses that name in a `>>>` line.
    """
    missing = []
    for path, value in objects.values():
        name = path.rsplit(".", 1)[-1]
        if api_docstrings_test._ours(value):  # pylint: disable=protected-access
            doc = api_docstrings_test.own_doc(value) + "\n"
            if not any(">>>" in m.group(2) for m in _EXAMPLE_SECTION.finditer(doc)):
                missing.append(path)
        elif api_docs_examples.example_home(value, name, modules) is None:
            missing.append(path)
    return sorted(missing)


class LookedUpNamesTest(tf.test.TestCase):
    """Every tf.estimator class and function a user looks up has an example (issue 47)."""

    @classmethod
    def setUpClass(cls):
        cls.was_installed = compat.is_installed()
        compat.install()
        cls.objects = api_docstrings_test.public_objects()

    @classmethod
    def tearDownClass(cls):
        if not cls.was_installed:
            compat.uninstall()

    def test_every_looked_up_name_has_an_example(self):
        missing = names_without_an_example(self.objects, example_modules())
        self.assertEqual([], sorted(set(missing) - NO_EXAMPLE_YET),
                         msg="give these an Examples section (doctest)")
        self.assertEqual([], sorted(NO_EXAMPLE_YET - set(missing)),
                         msg="these have an example now: take them off NO_EXAMPLE_YET")
        # The ones issue 47 names are covered: the canned regressors (v2, v1), the hooks
        # TensorFlow provides (shown in estimator_lib.hooks' Examples), the core names.
        paths = {path.rsplit(".", 1)[-1] for path, _ in self.objects.values()
                 if path not in missing}
        for name in ("Estimator", "RunConfig", "EstimatorSpec", "train_and_evaluate",
                     "DNNRegressor", "LinearRegressor", "DNNLinearCombinedRegressor",
                     "BaselineRegressor", "LoggingTensorHook", "StopAtStepHook",
                     "CheckpointSaverHook", "CheckpointSaverListener", "StepCounterHook",
                     "NanTensorHook", "SummarySaverHook", "GlobalStepWaiterHook",
                     "FinalOpsHook", "FeedFnHook", "ProfilerHook", "SecondOrStepTimer",
                     "SessionRunHook", "SessionRunArgs", "SessionRunContext",
                     "SessionRunValues"):
            self.assertIn(name, paths)
        self.assertIn("tf.compat.v1.estimator.DNNRegressor", {
            path for path, _ in self.objects.values()} - set(missing))

    def test_the_example_check_can_fail(self):
        def bare():
            """Does nothing."""

        def described():
            """Does nothing.

            Examples:
                Described, not run.
            """

        def shown():
            """Does nothing.

            Examples:
                >>> shown()
            """

        for function in (bare, described, shown):
            function.__module__ = "estimator_lib.fake"
        objects = {1: ("tf.estimator.bare", bare), 2: ("tf.estimator.described", described),
                   3: ("tf.estimator.shown", shown),
                   4: ("tf.estimator.VocabInfo", tf.compat.v1.train.VocabInfo),
                   5: ("tf.estimator.LoggingTensorHook", tf.compat.v1.train.LoggingTensorHook)}
        self.assertEqual(["tf.estimator.VocabInfo", "tf.estimator.bare",
                          "tf.estimator.described"],
                         names_without_an_example(objects, ["estimator_lib.hooks"]))
        # A module's Examples count only where it binds the name to that very object.
        self.assertIsNone(api_docs_examples.example_home(
            object(), "LoggingTensorHook", ["estimator_lib.hooks"]))
        self.assertFalse(api_docs_examples.examples_use(
            "X.\n\nExamples:\n    >>> MyLoggingTensorHook()\n", "LoggingTensorHook"))
        self.assertFalse(api_docs_examples.examples_use(
            "X.\n\nExamples:\n    Uses LoggingTensorHook in prose.\n", "LoggingTensorHook"))


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
