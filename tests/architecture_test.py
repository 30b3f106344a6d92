"""docs/architecture.md's claims, pinned: each one a test here or elsewhere (named).

Every check walks the whole package (bin/, datasets/ and flags/ included); the size
check also walks bench/.

- every module the doc names exists (here);
- the top level of estimator_lib/ is the public face alone (here);
- every environment variable is read in core/environment.py (here; the exceptions
  named, each with its reason);
- every session the library runs a model in is made in training/session.py (here);
- the job's kind is decided in distribute/ alone: no other module reads a config's
  strategy, cluster or task (or TF_CONFIG) except the reads listed here, each with
  its reason (here);
- no module over 400 lines, in the package and in bench/, docstrings not counted: the
  API reference is built from them (issue 38), and a module's size is its code (here);
- the layers, and bench/ importing no binary: tests/build_test.py; the TensorFlow
  internals: tests/estimator_lib/tf_internals/registry_test.py; the hook order and
  hook_plan.plan's purity: tests/estimator_lib/training/hook_plan_test.py.
"""

import ast
import os
import re
import unittest

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_LIBRARY = os.path.join(_REPO, "src", "estimator_lib")
_DOC = os.path.join(_REPO, "docs", "architecture.md")
_BENCH = os.path.join(_REPO, "bench")
_PUBLIC_FACE = {"__init__.py", "_api.py", "_keras_route.py", "_lazy_api.py", "compat.py",
                "experimental.py", "launch.py", "run.py"}
_MAX_LINES = 400

# What a config (or TF_CONFIG) says about the kind of job: its strategy, its cluster,
# this task. Read from anything named `*config` (config, self._config, run_config...).
_JOB_KIND_FIELDS = {"train_distribute", "eval_distribute", "cluster_spec", "task_type",
                    "task_id", "is_chief", "num_worker_replicas", "num_ps_replicas",
                    "global_id_in_cluster"}
_JOB_KIND_CALLS = {"read_tf_config", "tf_config_text", "cluster_settings", "local_settings"}
_EVERYTHING = frozenset(_JOB_KIND_FIELDS | _JOB_KIND_CALLS)
# Outside distribute/, who may read them, what, and why that decides no kind of job.
_JOB_KIND_READERS = {
    "core/run_config.py": (_EVERYTHING, "RunConfig itself (tf.estimator API): it exposes "
                           "these, and computes its own public session_config from them at "
                           "construction, as the original's did"),
    "core/tf_config.py": (_EVERYTHING, "parses TF_CONFIG into the cluster and task RunConfig "
                          "exposes"),
    "tpu/tpu_config.py": ({"read_tf_config"}, "TF_CONFIG's service.tpu_worker_job_name: "
                          "TPUConfig's job name, not the job's kind"),
    "canned/dnn.py": ({"num_ps_replicas"}, "the partitioner's shard count, as the original's "
                      "model_fn read it"),
    "canned/linear.py": ({"num_ps_replicas"}, "the partitioner's shard count, as the "
                         "original's"),
    "canned/dnn_linear_combined.py": ({"num_ps_replicas"}, "the partitioner's shard count, as "
                                      "the original's"),
    "canned/kmeans.py": ({"is_chief"}, "the original's model_fn passes config.is_chief to its "
                         "cluster-initialising hook"),
    "hooks/global_batch.py": ({"train_distribute"}, "the strategy a batch spans, from the "
                              "caller's config when none is given: arithmetic"),
    "engine/training_executor.py": ({"tf_config_text"}, "the original's private "
                                   "training._is_google_env, for libraries that call it: "
                                   "TF_CONFIG's `environment` key, not the job's kind"),
}
# Environment reads outside core/environment.py, and why.
_ENVIRONMENT_READERS = {
    "core/environment.py": "every variable the library reads",
    "core/keras_switch.py": "writes TF_USE_LEGACY_KERAS before TensorFlow loads; reads none",
    "legacy/activation_hook.py": "the environment hook: sets TF_USE_LEGACY_KERAS as TensorFlow "
                                 "starts to load (standard library only: importing core/ would "
                                 "load TensorFlow first)",
    "bin/scaling_benchmark.py": "a binary: passes its environment on to the runs it starts",
    "launcher/main.py": "the local launcher: passes its environment on to the tasks it starts",
    "datasets/kaggle_download.py": "the Kaggle credentials (datasets/ imports nothing of the "
                                   "library)",
}
# Sessions made outside training/session.py: none runs a model.
_OTHER_SESSIONS = {
    "distribute/parameter_servers.py": "the ps tasks' queue sessions",
    "datasets/synthetic.py": "materialises synthetic arrays in a private graph",
}


def _sources(root):
    for directory, _, files in os.walk(root):
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(directory, name)
                with open(path) as f:
                    yield os.path.relpath(path, root).replace(os.sep, "/"), f.read()


def docstring_lines(tree) -> int:
    """How many lines of `tree`'s source are module, class and function docstrings."""
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                    and isinstance(body[0].value.value, str)):
                count += body[0].end_lineno - body[0].lineno + 1
    return count


def code_lines(text: str) -> int:
    """The size the limit counts: a module's lines, less its docstrings' lines."""
    return text.count("\n") - docstring_lines(ast.parse(text))


def _library_sources():
    """(path relative to estimator_lib/, AST) of every module of the package."""
    for relative, text in _sources(_LIBRARY):
        yield relative, ast.parse(text)


def job_kind_reads(tree):
    """[(name, line)]: where `tree` reads a config's strategy, cluster or task, or TF_CONFIG."""
    found = []

    def is_config(node):
        return bool(re.search(r"config$", ast.unparse(node), re.I))

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in _JOB_KIND_FIELDS and isinstance(
                node.ctx, ast.Load) and is_config(node.value):
            found.append((node.attr, node.lineno))
        elif isinstance(node, ast.Call):
            function = ast.unparse(node.func)
            if function.split(".")[-1] in _JOB_KIND_CALLS:
                found.append((function.split(".")[-1], node.lineno))
            elif (function in ("getattr", "hasattr") and len(node.args) >= 2
                  and isinstance(node.args[1], ast.Constant)
                  and node.args[1].value in _JOB_KIND_FIELDS and is_config(node.args[0])):
                found.append((node.args[1].value, node.lineno))
    return sorted(found, key=lambda read: read[1])


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
        self.assertEqual(sorted(readers), sorted(_ENVIRONMENT_READERS))

    def test_model_sessions_are_made_in_training_session(self):
        makers = {}
        pattern = re.compile(r"(Session|MonitoredSession|SessionCreator)$")
        for relative, tree in _library_sources():
            lines = _calls(tree, lambda f: bool(pattern.search(f)) and "Log" not in f
                           and (f.startswith("tf.") or f.startswith("super")
                                or f[:1].isupper()))
            if lines:
                makers[relative] = lines
        # None of the others runs a model (docs/architecture.md says so).
        self.assertEqual(sorted(makers), sorted(["training/session.py", *_OTHER_SESSIONS]),
                         makers)

    def test_no_thread_local_carries_values_between_modules(self):
        # A thread-local is a hidden argument: what one layer needs is passed to it. The
        # ones left are one module's own per-thread state, set and read by that module's
        # own functions: patches (which threads are inside an Estimator call, read by its
        # replacements) and strategies (the AutoGraph status of the replica call running
        # on a thread: MirroredStrategy calls each replica on a thread of its own, and
        # the hook point `_call_model_fn(features, labels, mode, config)` in between has
        # no argument for it).
        owners = {relative for relative, tree in _library_sources()
                  if _calls(tree, lambda f: f in ("threading.local", "local"))}
        self.assertEqual(sorted(owners), ["distribute/strategies.py", "tf_internals/patches.py"])

    def test_the_job_shape_is_decided_in_one_module(self):
        deciders = [relative for relative, tree in _library_sources()
                    if _calls(tree, lambda f: f.split(".")[-1] in (
                        "is_ps_training", "is_multi_worker", "mode_of"))]
        self.assertEqual(deciders, ["distribute/job_shape.py"])

    def test_no_module_outside_distribute_decides_the_kind_of_job(self):
        unexpected, unused = {}, set(_JOB_KIND_READERS)
        for relative, tree in _library_sources():
            if relative.startswith("distribute/"):
                continue
            allowed = _JOB_KIND_READERS.get(relative, ((), ""))[0]
            reads = job_kind_reads(tree)
            if reads:
                unused.discard(relative)
            bad = [f"{name} (line {line})" for name, line in reads if name not in allowed]
            if bad:
                unexpected[relative] = bad
        self.assertEqual(unexpected, {}, "Ask distribute/job_shape (decide, role_of) instead, "
                         "or list the read in _JOB_KIND_READERS with why it decides nothing.")
        self.assertEqual(sorted(unused), [], "Listed readers that read nothing: drop them.")

    def test_the_job_kind_check_sees_a_read(self):
        tree = ast.parse("def make(estimator, role):\n"
                         "    if estimator.config.train_distribute is not None:\n"
                         "        return getattr(self._config, 'task_type') + role.task_type\n"
                         "    return tf_config.read_tf_config()\n")
        self.assertEqual(job_kind_reads(tree), [
            ("train_distribute", 2), ("task_type", 3), ("read_tf_config", 4)])

    def test_no_module_over_the_size_limit(self):
        long = {}
        for root in (_LIBRARY, _BENCH):
            for relative, text in _sources(root):
                lines = code_lines(text)
                if lines > _MAX_LINES:
                    long[os.path.join(os.path.basename(root), relative)] = lines
        self.assertEqual(long, {}, f"Split modules over {_MAX_LINES} lines (docstrings "
                         "not counted).")

    def test_the_size_check_counts_code_not_docstrings(self):
        text = ('"""Module.\n\nMore.\n"""\n\n\nclass A:\n    """A.\n\n    Args:\n'
                '        x: y.\n    """\n\n    def f(self):\n        """F."""\n'
                '        return 1\n')
        self.assertEqual(text.count("\n"), 16)
        self.assertEqual(code_lines(text), 16 - 4 - 5 - 1)


if __name__ == "__main__":
    unittest.main()
