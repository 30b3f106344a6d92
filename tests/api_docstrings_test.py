"""Every tf.estimator 2.15 public name, as estimator_lib provides it, has a docstring.

tests/data/tf215_names.json (tests/data/make_tf215_names.py, run with the original)
records the `tf.estimator`, `tf.compat.v1.estimator` and `tf.compat.v2.estimator`
namespaces. After `estimator_lib.compat.install()` each name resolves to estimator_lib's
object (tests/estimator_lib/legacy/original_names_test.py checks that); here each class
and function must have a docstring of its own (a class's own `__doc__`, not one
inherited), and so must each public method, property, classmethod and staticmethod that
estimator_lib defines on those classes or on their estimator_lib bases. Issue 38.

The methods users call most (EXPECTED_SECTIONS) must also document their arguments,
results and errors in Google style; and, over the whole package, at least 95% of the
public functions and methods with three or more parameters have an Args section
(tools/docstring_coverage.py, issue 38's measure), and every public function, class and
method of estimator_lib itself has a docstring (the same tool's second count).

Where estimator_lib differs from the original on purpose, the docstring a user would
look up says so in ONE line (issue 43): `Deliberate difference N: <what differs>.`,
which the built reference links to docs/estimator.md's item N (its
`<a id="deliberate-difference-N">`); the history stays in docs/estimator.md. DIFFERENCES
maps each numbered item of docs/estimator.md's "Deliberate differences" to the public
objects whose docstrings must carry that line; its numbers (with NO_PUBLIC_API's) must be
exactly the section's, so a new difference without docstring coverage fails.

Every public summary line (classes, functions, methods, properties of the package's
rendered modules) starts with a verb, as Orbit's do ("Trains the model..."; issue 43):
SUMMARY_NOT_A_VERB lists the first words that are not verbs. The functions and methods
of estimator_lib.datasets, estimator_lib.flags and estimator_lib.bin(.jobs) are held to
it too (issue 47).
"""

import importlib.util
import inspect
import json
import os
import pkgutil
import re
import types

import tensorflow as tf

import estimator_lib
from estimator_lib import compat

_DATA = os.path.join(os.path.dirname(__file__), "data", "tf215_names.json")
_COVERAGE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools",
                         "docstring_coverage.py")
_MIN_ARGS_SHARE = 0.95

# Objects TensorFlow itself provides (the same object the original exported), each with
# why its docstring is not ours to write.
NOT_OURS = {
    "NanLossDuringTrainingError": (
        "tensorflow.python.training.basic_session_run_hooks' class, which TF 2.15's "
        "tf.estimator exported as is; it has no docstring in TensorFlow either"),
}

# qualified name -> the Google-style sections its docstring must have.
_ARGS_RETURNS_RAISES = ("Args:", "Returns:", "Raises:")
EXPECTED_SECTIONS = {
    "Estimator.train": _ARGS_RETURNS_RAISES,
    "Estimator.evaluate": _ARGS_RETURNS_RAISES,
    "Estimator.predict": ("Args:", "Yields:", "Raises:"),
    "Estimator.export_saved_model": _ARGS_RETURNS_RAISES,
    "Estimator.experimental_export_all_saved_models": _ARGS_RETURNS_RAISES,
    "Estimator.get_variable_value": _ARGS_RETURNS_RAISES,
    "Estimator.get_variable_names": ("Returns:", "Raises:"),
    "Estimator.latest_checkpoint": ("Returns:",),
    "Estimator.eval_dir": ("Args:", "Returns:"),
    "Estimator": ("Args:", "Raises:"),
    "RunConfig": ("Args:", "Raises:"),
    "EstimatorSpec": ("Args:", "Raises:"),
    "TrainSpec": ("Args:", "Raises:"),
    "EvalSpec": ("Args:", "Raises:"),
    "train_and_evaluate": _ARGS_RETURNS_RAISES,
}

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_ESTIMATOR_MD = os.path.join(_ROOT, "docs", "estimator.md")
_CANNED_KINDS = ("DNN", "Linear", "DNNLinearCombined", "Baseline")
_CANNED_V2 = tuple(f"canned.{kind}{role}V2" for kind in _CANNED_KINDS
                   for role in ("Classifier", "Regressor", "Estimator"))
_CANNED_V1 = tuple(name[:-2] for name in _CANNED_V2)
_EARLY_STOPPING = tuple(f"experimental.{name}" for name in (
    "make_early_stopping_hook", "stop_if_higher_hook", "stop_if_lower_hook",
    "stop_if_no_decrease_hook", "stop_if_no_increase_hook"))

# docs/estimator.md's deliberate difference N -> the public objects (paths from
# `estimator_lib`) whose docstrings must carry the one line
# "Deliberate difference N: <what differs>." (the history is in docs/estimator.md).
DIFFERENCES = {
    1: ("Estimator.train",),  # numpy arrays fed, not frozen (the input_fn's)
    2: ("RunConfig",),  # tf_random_seed also seeds tf_keras initializers
    3: ("RunConfig",),  # train_distribute: logical devices reach the session
    4: ("Estimator.train", "Estimator.evaluate"),  # incompatible checkpoint refused
    5: ("Estimator.train",),  # "made no steps" warning
    6: ("model_to_estimator",),  # Keras 3 refused with one error
    7: ("model_to_estimator",),  # Keras loss divided by the replicas once
    8: ("train_and_evaluate",),  # multi-worker: the hooks' step read has no collective
    9: ("Estimator.config",),  # the same RunConfig, not a deep copy
    10: ("model_to_estimator",),  # warm start from every Keras weight
    11: ("train_and_evaluate",),  # distributed sessions close in the background
    12: ("train_and_evaluate",),  # bounded start-up wait
    13: ("model_to_estimator",),  # training loss tagged `loss`
    14: _CANNED_V2 + _CANNED_V1,  # argument errors when the estimator is built
    15: _CANNED_V2 + ("Head.create_estimator_spec",),  # optimizer instances
    16: ("canned.BaselineClassifierV2", "canned.BaselineRegressorV2",
         "canned.BaselineEstimatorV2", "canned.DNNLinearCombinedEstimatorV2"),
    17: ("BinaryClassHead", "MultiClassHead", "RegressionHead"),  # label errors
    18: ("tpu.TPUEstimator",),
    19: ("RunConfig",),  # the `Using config:` line: only steps_per_run adds to it
    20: ("Estimator.train",),  # SIGTERM/SIGINT checkpoint first
    21: ("Estimator.train", "Estimator.evaluate"),  # no tf.data autotune thread
    22: ("Estimator.train",),  # hooks read the step before its increment
    23: _EARLY_STOPPING,  # resuming a model_dir trained without such a hook
    24: ("Estimator.export_saved_model",),  # no TensorFlow deprecation warnings
    25: ("EstimatorSpec",),  # unknown mode (and numpy_input_fn's string x) refused at once
    26: ("train_and_evaluate",),  # ps tasks end
    27: ("model_to_estimator",),  # the Keras backend's session left alone
}
# Differences with no public object a user would look up, each with why. None today.
NO_PUBLIC_API = {}

_CITATION = re.compile(r"\b[Dd]eliberate difference (\d+)\b")
# The one line: "Deliberate difference N: <what differs>." (optionally a list item).
_ONE_LINE = re.compile(r"^(?:- )?Deliberate difference (\d+): \S.*\.$")


def difference_numbers(markdown: str) -> list:
    """The numbers of the items of a "## Deliberate differences" section, in order.

    Each item must start `N. <a id="deliberate-difference-N"></a>**`, the anchor the
    reference's links point at; an item without it (or with another number) is not
    counted, so the table check fails.
    """
    section = re.search(r"^## Deliberate differences[^\n]*\n(.*?)(?=^## |\Z)", markdown,
                        re.M | re.S)
    if not section:
        return []
    return [int(n) for n, anchor in re.findall(
        r'^(\d+)\. <a id="deliberate-difference-(\d+)"></a>\*\*', section.group(1), re.M)
        if n == anchor]


def cited_differences(text: str) -> set:
    """The N of each "deliberate difference N" in text (any wrapping)."""
    return {int(n) for n in _CITATION.findall(" ".join((text or "").split()))}


def one_line_differences(doc: str) -> set:
    """The N of each difference `doc` states in one line of its own.

    The line is `Deliberate difference N: <what differs>.` (or a `- ` item of that
    form), and the next line, if any, is blank, less indented, or another item: a
    citation wrapped over two lines, or with history prose after it, does not count.
    """
    lines = (doc or "").splitlines()
    found = set()
    for i, line in enumerate(lines):
        match = _ONE_LINE.match(line.strip())
        if not match:
            continue
        indent = len(line) - len(line.lstrip())
        after = lines[i + 1] if i + 1 < len(lines) else ""
        if (not after.strip() or len(after) - len(after.lstrip()) < indent
                or after.strip().startswith(("- ", "Deliberate difference "))):
            found.add(int(match.group(1)))
    return found


def resolve(path: str):
    """The object at `path` from `estimator_lib` (a class's member as the class holds it)."""
    value = estimator_lib
    for part in path.split("."):
        value = inspect.getattr_static(value, part) if inspect.isclass(value) else getattr(
            value, part)
    return value


def _namespace(path):
    module = tf
    for part in path.split(".")[1:]:
        module = getattr(module, part)
    return module


def public_objects():
    """{id: (first path reached, object)} for every class and function of the namespaces."""
    with open(_DATA) as f:
        api = json.load(f)["api"]
    found = {}
    for path, names in sorted(api.items()):
        module = _namespace(path)
        for name, kind in sorted(names.items()):
            if kind == "module":
                continue
            value = getattr(module, name)
            found.setdefault(id(value), (f"{path}.{name}", value))
    return found


def own_doc(value) -> str:
    """The object's own docstring: for a class, not one inherited from a base."""
    doc = value.__dict__.get("__doc__") if inspect.isclass(value) else value.__doc__
    return (doc or "").strip()


def _ours(value) -> bool:
    return (getattr(value, "__module__", None) or "").startswith("estimator_lib")


def _member_function(member):
    """The function a class member documents itself with, or None if it is no method."""
    if getattr(member, "_estimator_hidden_from_api", False):
        return None  # present only to raise the original's AttributeError
    if isinstance(member, (staticmethod, classmethod)):
        return member.__func__
    if isinstance(member, property):
        return member
    return member if inspect.isfunction(member) else None


def undocumented_members(cls):
    """'Class.member' for each public member estimator_lib defines on cls or its bases."""
    missing = set()
    for base in cls.__mro__:
        if not _ours(base):
            continue
        for name, member in vars(base).items():
            if name.startswith("_"):
                continue
            function = _member_function(member)
            if function is not None and not (function.__doc__ or "").strip():
                missing.add(f"{base.__module__}.{base.__qualname__}.{name}")
    return missing


def _load_coverage():
    """tools/docstring_coverage.py as a module."""
    spec = importlib.util.spec_from_file_location("docstring_coverage", _COVERAGE)
    coverage = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(coverage)
    return coverage


# First words that end in "s" and are no verb (a summary starting so is not a verb's).
SUMMARY_NOT_A_VERB = ("This", "Its", "Is", "Was", "Class", "Process", "Access", "Status")


def starts_with_a_verb(doc: str) -> bool:
    """Whether a summary starts with a verb in the third person ("Trains the model...").

    The rule as a check: the first word (less a trailing comma, colon or semicolon:
    "Trains, evaluates and exports...") is capitalised, ends in "s" and is not one of
    SUMMARY_NOT_A_VERB ("Returns", "Makes"). A noun phrase ("The directory",
    "A hook that...") fails.
    """
    words = (doc or "").split()
    word = words[0].rstrip(",:;") if words else ""
    return (word[:1].isupper() and word.isalpha() and word.endswith("s")
            and word not in SUMMARY_NOT_A_VERB)


def summaries_without_a_verb(objects) -> list:
    """'path: first line' of each public function or method (not property, not class)
    of `objects` ({id: (path, object)}) whose summary does not start with a verb."""
    found = set()
    for path, value in objects.values():
        if inspect.isfunction(value) and _ours(value):
            if not starts_with_a_verb(value.__doc__):
                found.add(f"{path}: {(value.__doc__ or '').strip()[:60]}")
        if not inspect.isclass(value):
            continue
        for base in value.__mro__:
            if not _ours(base):
                continue
            for name, member in vars(base).items():
                function = _member_function(member)
                if name.startswith("_") or function is None or isinstance(member, property):
                    continue
                if not starts_with_a_verb(function.__doc__):
                    found.add(f"{base.__module__}.{base.__qualname__}.{name}: "
                              f"{(function.__doc__ or '').strip()[:60]}")
    return sorted(found)


# Packages beyond tf.estimator's names whose public functions and methods are held to
# the same summary rule (issue 47: the input_fn builders, the binaries' flags, the
# binaries and their jobs).
SUMMARY_PACKAGES = ("estimator_lib.datasets", "estimator_lib.flags", "estimator_lib.bin",
                    "estimator_lib.bin.jobs")


def package_objects(package: str) -> dict:
    """{id: (path, object)} of the public functions and classes that the package's public
    modules (the package itself and each module not named `_*`) define."""
    root = importlib.import_module(package)
    names = [package] + [f"{package}.{info.name}" for info in pkgutil.iter_modules(
        root.__path__) if not info.name.startswith("_")]
    found = {}
    for name in names:
        module = importlib.import_module(name)
        for attr, value in sorted(vars(module).items()):
            if (not attr.startswith("_") and getattr(value, "__module__", None) == name
                    and (inspect.isfunction(value) or inspect.isclass(value))):
                found.setdefault(id(value), (f"{name}.{attr}", value))
    return found


def missing_sections(doc: str, sections) -> list:
    return [s for s in sections if not re.search(rf"^\s*{re.escape(s)}\s*$", doc, re.M)]


class ApiDocstringsTest(tf.test.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.was_installed = compat.is_installed()
        compat.install()
        cls.objects = public_objects()

    @classmethod
    def tearDownClass(cls):
        if not cls.was_installed:
            compat.uninstall()

    def test_every_name_has_a_docstring_of_its_own(self):
        missing = sorted(path for path, value in self.objects.values()
                         if not own_doc(value) and path.rsplit(".", 1)[-1] not in NOT_OURS)
        self.assertEqual([], missing)

    def test_not_ours_are_tensorflows(self):
        for path, value in self.objects.values():
            if path.rsplit(".", 1)[-1] in NOT_OURS:
                self.assertFalse(_ours(value), msg=f"{path} is ours now: document it")

    def test_every_public_method_defined_here_has_a_docstring(self):
        missing = set()
        for _, value in self.objects.values():
            if inspect.isclass(value):
                missing |= undocumented_members(value)
        self.assertEqual([], sorted(missing))

    def test_the_most_used_have_google_sections(self):
        by_name = {name: getattr(tf.estimator, name) for name in dir(tf.estimator)}
        gaps = {}
        for qualified, sections in EXPECTED_SECTIONS.items():
            owner, _, member = qualified.partition(".")
            value = getattr(by_name[owner], member) if member else by_name[owner]
            doc = own_doc(value) if not member else inspect.getdoc(value) or ""
            if missing_sections(doc, sections):
                gaps[qualified] = missing_sections(doc, sections)
        self.assertEqual({}, gaps)

    def test_args_sections_cover_the_package(self):
        coverage = _load_coverage()
        rows, _, _ = coverage.survey()
        missing = [f"{path}:{line} {name}" for path, line, name, _, has_args in rows
                   if not has_args]
        share = 1 - len(missing) / len(rows)
        self.assertGreaterEqual(share, _MIN_ARGS_SHARE, msg=missing)
        self.assertGreater(len(rows), 250)
        # The measure sees what it should: a 3-parameter function without Args counts.
        root = os.path.join(self.get_temp_dir(), "estimator_lib")
        os.makedirs(root, exist_ok=True)
        with open(os.path.join(root, "m.py"), "w") as f:
            f.write('def bare(a, b, c):\n    """No sections."""\n\n\n'
                    'def two(a, b):\n    pass\n\n\n'
                    'class K:\n    """K.\n\n    Args:\n        a: A.\n    """\n\n'
                    '    def __init__(self, a, b, *, c):\n        pass\n')
        rows, documented, public = coverage.survey(root=root)
        self.assertEqual([("bare", False), ("K.__init__", True)],
                         [(row[2], row[4]) for row in rows])
        self.assertEqual((2, 3), (documented, public))
        self.assertEqual([f"estimator_lib{os.sep}m.py:5 two"], coverage.undocumented(root))

    def test_every_public_name_of_the_package_has_a_docstring(self):
        # estimator_lib's own public functions, classes and methods, all of them
        # (tools/docstring_coverage.py's second line: N of N).
        coverage = _load_coverage()
        _, documented, public = coverage.survey()
        self.assertEqual([], coverage.undocumented())
        self.assertEqual(documented, public)
        self.assertGreater(public, 800)

    def test_the_checks_can_fail(self):
        class Bare:
            pass

        class Documented(Bare):
            """Has one."""

            def method(self):
                pass

            @property
            def value(self):
                return 1

        Documented.__module__ = Bare.__module__ = "estimator_lib.fake"
        self.assertEqual("", own_doc(Bare))
        self.assertEqual("", own_doc(type("Child", (Documented,), {})))
        self.assertEqual({"estimator_lib.fake.ApiDocstringsTest.test_the_checks_can_fail."
                          "<locals>.Documented.method",
                          "estimator_lib.fake.ApiDocstringsTest.test_the_checks_can_fail."
                          "<locals>.Documented.value"}, undocumented_members(Documented))
        self.assertEqual(["Raises:"], missing_sections("X.\n\nArgs:\n  a: b.\n",
                                                       ("Args:", "Raises:")))

    def test_summaries_start_with_a_verb(self):
        # tf.estimator's functions and the public methods of its classes, as users look
        # them up (issue 43: "Trains the model...", as Orbit's); properties and classes
        # are described by what they are.
        self.assertEqual([], summaries_without_a_verb(self.objects))

    def test_summaries_of_the_datasets_flags_and_binaries_start_with_a_verb(self):
        # Issue 47: the packages a binary's user reads next (input_fn builders, flags,
        # the binaries themselves).
        for package in SUMMARY_PACKAGES:
            objects = package_objects(package)
            self.assertEqual([], summaries_without_a_verb(objects), msg=package)
        # The survey sees them: 22 summaries were rewritten in datasets and flags, 38 in
        # bin (shard_name's and stamp's among them).
        self.assertGreater(len(package_objects("estimator_lib.datasets")), 40)
        self.assertIn("estimator_lib.datasets.tfrecords.shard_name", {
            path for path, _ in package_objects("estimator_lib.datasets").values()})
        self.assertIn("estimator_lib.flags.definitions.on_bad_file_value", {
            path for path, _ in package_objects("estimator_lib.flags").values()})
        self.assertIn("estimator_lib.bin.jobs.provenance.stamp", {
            path for path, _ in package_objects("estimator_lib.bin.jobs").values()})

    def test_the_verb_check_can_fail(self):
        self.assertTrue(starts_with_a_verb("Trains the model."))
        self.assertTrue(starts_with_a_verb("Returns the directory."))
        self.assertTrue(starts_with_a_verb("Trains, evaluates and exports."))
        for summary in ("The directory evaluate writes to.", "A hook that stops.",
                        "This is it.", "(a, b) of the run.", "", "trains lowercase."):
            self.assertFalse(starts_with_a_verb(summary), summary)

        def noun_phrase():
            """The value of nothing."""

        noun_phrase.__module__ = "estimator_lib.fake"
        self.assertEqual(["tf.estimator.fake: The value of nothing."],
                         summaries_without_a_verb({1: ("tf.estimator.fake", noun_phrase)}))

    def test_the_survey_sees_every_namespace(self):
        paths = {path.rsplit(".", 1)[0] for path, _ in self.objects.values()}
        self.assertIn("tf.compat.v1.estimator.tpu", paths)
        self.assertIn("tf.compat.v1.estimator.inputs", paths)
        self.assertGreater(len(self.objects), 90)
        self.assertTrue(all(isinstance(v, type) or callable(v) and not isinstance(
            v, types.ModuleType) for _, v in self.objects.values()))


class DeliberateDifferencesTest(tf.test.TestCase):
    """docs/estimator.md's deliberate differences are stated where users look them up."""

    @classmethod
    def setUpClass(cls):
        with open(_ESTIMATOR_MD) as f:
            cls.numbers = difference_numbers(f.read())

    def test_the_table_covers_exactly_the_documented_differences(self):
        self.assertEqual(list(range(1, len(self.numbers) + 1)), self.numbers)
        self.assertGreaterEqual(len(self.numbers), 24)
        self.assertEqual(set(), set(DIFFERENCES) & set(NO_PUBLIC_API))
        self.assertEqual(sorted(self.numbers), sorted(set(DIFFERENCES) | set(NO_PUBLIC_API)))

    def test_each_difference_is_stated_in_its_docstrings(self):
        missing = {}
        for number, paths in DIFFERENCES.items():
            for path in paths:
                doc = own_doc(resolve(path))
                if number not in one_line_differences(doc):
                    missing.setdefault(number, []).append(path)
        self.assertEqual({}, missing)

    def test_every_citation_names_a_documented_difference(self):
        # Comments and docstrings alike: a renumbered or removed item fails here.
        unknown = []
        package = os.path.dirname(os.path.abspath(estimator_lib.__file__))
        for directory, _, files in os.walk(package):
            for name in sorted(f for f in files if f.endswith(".py")):
                path = os.path.join(directory, name)
                with open(path) as f:
                    text = f.read()
                unknown += [f"{os.path.relpath(path, os.path.dirname(package))}: {n}"
                            for n in sorted(cited_differences(text) - set(self.numbers))]
        self.assertEqual([], unknown)

    def test_the_difference_checks_can_fail(self):
        self.assertEqual({14}, cited_differences(
            "refused (docs/estimator.md,\n    deliberate difference 14)."))
        self.assertEqual(set(), cited_differences("docs/estimator.md, deliberate difference"))
        self.assertNotIn(1, cited_differences("docs/estimator.md, deliberate difference 14"))
        self.assertEqual({14, 15, 4}, one_line_differences(
            "Summary.\n\n    Deliberate difference 14: raised when built.\n\n"
            "    - Deliberate difference 15: copied.\n    - Deliberate difference 4: refused.\n"
            "  Args:\n"))
        # Wrapped, followed by more prose, or without its period: not one line.
        self.assertEqual(set(), one_line_differences(
            "Deliberate difference 14: raised when built, where\nthe original raised later.\n"
            "(docs/estimator.md, deliberate difference 15).\n"
            "Deliberate difference 16: no period\n"))
        anchor = '<a id="deliberate-difference-{}"></a>'
        markdown = (f"# T\n\n## Deliberate differences (x)\n\n1. {anchor.format(1)}**A.** a\n"
                    f"   b\n2. {anchor.format(2)}**B.** c\n3. {anchor.format(4)}**C.** d\n"
                    f"4. **D.** no anchor\n\n## Next\n\n5. {anchor.format(5)}**E.** not one\n")
        self.assertEqual([1, 2], difference_numbers(markdown))
        self.assertEqual([], difference_numbers("# T\n"))
        self.assertIsInstance(resolve("Estimator.config"), property)
        self.assertIs(estimator_lib.RunConfig, resolve("RunConfig"))


if __name__ == "__main__":
    tf.test.main()
