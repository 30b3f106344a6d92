"""Every TensorFlow private estimator_lib touches is in tf_internals/registry.py.

The source is walked (ast): imports of `tensorflow.python`/`tensorflow.core`/
`tf_keras.src` modules, `obj._name` attributes (and getattr/setattr/hasattr with a
`_name` string) of objects that are not the code's own, names under TensorFlow's and
tf_keras' `__internal__` namespaces (`tf.__internal__.x.y`: no public promise either),
assignments into TensorFlow's modules, and writes to attributes of objects other than
`self` (a TensorFlow or user object's public attribute: `opt.iterations = ...`; our own
objects' are listed in `_OWN_WRITES`). Each must be a registry entry that names the file among its
users; writes must be in tf_internals/. An entry naming a file that no longer touches
it fails too, so the list stays exact.
"""

import ast
import os
from unittest import mock

from absl.testing import absltest

from estimator_lib.tf_internals import registry
from estimator_lib.tf_internals import versions

_ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..", "src", "estimator_lib")
_PRIVATE_MODULES = ("tensorflow.python", "tensorflow.core", "tensorflow.compiler",
                    "tensorflow.tsl", "tf_keras.src", "keras.src")
_TF_PACKAGES = ("tensorflow", "tf_keras", "keras")
# Python's own underscore names (namedtuple API, os/sys), not TensorFlow's.
_PYTHON = {"_exit", "_getframe", "_replace", "_asdict", "_fields", "_make",
           "_current_frames", "_field_defaults"}
# Our own objects' private names read across our modules (file, name).
_OWN = {("engine/extenders.py", "_warm_start_settings"),  # Estimator's settings
        ("head/base_head.py", "_summary_key"),  # a head's summary key
        ("canned/linear_sdca.py", "_weight_column"),  # our head's weight column
        # The Estimator's hook points, called on the owner (graph/model_graph.GraphOwner).
        ("graph/inputs.py", "_call_input_fn"),
        ("graph/inputs.py", "_get_features_from_input_fn"),
        ("graph/inputs.py", "_get_features_and_labels_from_input_fn"),
        ("graph/inputs.py", "_get_iterator_from_input_fn"),
        # The original canned modules' private helpers, under their names: ours, reached
        # on call (those modules import this one).
        ("canned/original_helpers.py", "_create_tpu_estimator_spec"),  # a head's TPU spec
        ("canned/original_helpers.py", "_dnn_linear_combined_model_fn"),
        ("canned/original_helpers.py", "_weight_column_key"),
        ("canned/original_helpers.py", "_batch_size_and_checks"),
        ("canned/original_helpers.py", "_baseline_logits_v1"),
        ("canned/original_helpers.py", "_baseline_logits_v2"),
        # The Estimator's config views and a head's key and vocabulary descriptors: our
        # own objects' attributes, by the original's names.
        ("engine/construction.py", "_config"),
        ("head/fixed_keys.py", "_summary_key"),
        ("head/vocabulary.py", "_label_vocabulary")}


# Attribute writes (outside tf_internals/) to objects that are the library's own, not
# TensorFlow's or the user's: (file, "object.attribute" as written).
_OWN_WRITES = {
    ("_lazy_api.py", "package.*"),  # estimator_lib's own module: names loaded on first use
    ("_keras_route.py", "keras_lib.model_to_estimator"),  # the keras_lib route's modules,
    ("_keras_route.py", "route.keras_lib"),  # made by us
    ("distribute/strategies.py", "_replica_call.conversion"),  # its own per-thread state
    ("training/preemption.py", "request.previous"),  # our StopRequest
    ("engine/construction.py", "instance._config"),  # the Estimator's config (a view)
    ("head/fixed_keys.py", "head.*"),  # our head's metric keys, fixed at construction
    ("legacy/aliases.py", "modules[path].__getattr__"),  # a module we made
    ("training/preemption.py", "request.signum"),
    ("training/preemption.py", "request.frame"),
    ("engine/evaluation.py", "parsed_value.tag"),  # a Summary.Value proto we parsed
    ("training/graph_text.py", "tensor.tensor_content"),  # in the GraphDef copy we parsed
    ("datasets/image_folder.py", "input_fn.listing"),  # the input_fn we return
    ("legacy/numpy_io.py", "input_fn.*"),  # its Dataset form (graph/inputs.DATASET_INPUT_FN)
    ("datasets/tfrecord_reader.py", "input_fn.metadata"),
    ("datasets/pipeline.py", "input_fn.__name__"),
    ("datasets/pipeline.py", "input_fn.__qualname__"),
    ("datasets/pipeline.py", "options.deterministic"),  # a tf.data.Options we made
    ("datasets/pipeline.py", "options.threading.private_threadpool_size"),
    ("datasets/pipeline.py", "options.threading.max_intra_op_parallelism"),
    ("keras/hook_callback.py", "self.model.stop_training"),  # Keras' callback protocol
    # legacy/: the alias modules we create and our own modules' attributes.
    ("legacy/aliases.py", "module.__spec__"),
    ("legacy/aliases.py", "module.__package__"),
    ("legacy/aliases.py", "module.__path__"),
    ("legacy/aliases.py", "modules[parent].*"),
    ("legacy/aliases.py", "modules[path].*"),  # the alias modules build_tree() makes
    ("legacy/keras_lib.py", "result.__class__"),  # our Estimator, as our v1 class
    # The environment hook: its own state, and the import spec its finder returns (whose
    # loader it wraps for one exec, then puts the real loader back on spec and module).
    ("legacy/activation_hook.py", "STATE.busy"),
    ("legacy/activation_hook.py", "STATE.installed"),
    ("legacy/activation_hook.py", "STATE.error"),
    ("legacy/activation_hook.py", "spec.loader"),
    ("legacy/activation_hook.py", "module.__loader__"),
    ("legacy/estimator_export.py", "func.*"),  # the decorated function: its API names
    ("legacy/estimator_export.py", "module.*"),
    ("legacy/runner.py", "sys.argv"),  # the legacy script runs as __main__ with its argv
    ("core/run_config.py", "RunConfig.*"),  # our class's field properties
    ("distribute/cluster_wait.py", "initialize_multi_worker.bounded_by_estimator_lib"),
    ("bin/train.py", "logger.propagate"),  # a binary owns its process's logging
    ("bin/jobs/job.py", "session_config.graph_options.optimizer_options.global_jit_level"),
}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _called(call) -> str:
    """The name a call's function is known by: `f(...)` and `m.f(...)` give "f"."""
    func = call.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def _own_names(tree) -> set:
    """Private names the file defines itself: functions, classes, attributes it sets."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return {name for name in names if _private(name)}


def _dotted(node):
    """["tf", "compat", "v2", ...] for an attribute chain on a name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id] + parts[::-1]


def _internal_uses(tree, packages):
    """[(name, line)] of the longest `x.__internal__.y` chains: x's package spelled out
    (`tf.compat.v2.__internal__.ops.f` -> "tensorflow.compat.v2.__internal__.ops.f")."""
    inner = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and id(node) not in inner:
            parts = _dotted(node)
            if parts and "__internal__" in parts:
                parts[0] = packages.get(parts[0], parts[0])
                found.append((".".join(parts), node.lineno))
    return found


def _attribute_writes(tree):
    """[(target, line)]: writes to an attribute of anything but self/cls, as written
    ("opt.iterations"; a setattr/delattr with a computed name gives "obj.*")."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) \
                else [node.target]
            flat = []
            for target in targets:
                flat += target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
            found += [(ast.unparse(t), node.lineno) for t in flat
                      if isinstance(t, ast.Attribute) and not (
                          isinstance(t.value, ast.Name) and t.value.id in ("self", "cls"))]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("setattr", "delattr") and len(node.args) >= 2:
            name = node.args[1]
            name = name.value if isinstance(name, ast.Constant) else "*"
            found.append((f"{ast.unparse(node.args[0])}.{name}", node.lineno))
    return found


def scan(source: str, path: str = "<source>", *, skip_own: bool = True):
    """[(kind, name, line)] of the TensorFlow privates `source` touches.

    kind: 'import' (a private module, or a name imported from one), 'read' or 'write'
    (a `_name` attribute), 'module-write' (an assignment into a TensorFlow module),
    'internal' (a name under `__internal__`, spelled from its package), 'attribute-write'
    (an attribute of an object other than self/cls assigned, as written).
    """
    tree = ast.parse(source, path)
    own = _own_names(tree) if skip_own else set()
    tf_modules, packages, found = set(), {}, []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(_PRIVATE_MODULES):
                    found.append(("import", alias.name, node.lineno))
                if alias.name.split(".")[0] in _TF_PACKAGES:
                    tf_modules.add(alias.asname or alias.name.split(".")[0])
                    packages[alias.asname or alias.name.split(".")[0]] = (
                        alias.name if alias.asname else alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.startswith(_PRIVATE_MODULES):
                found.extend(("import", f"{node.module}.{alias.name}", node.lineno)
                             for alias in node.names)
                tf_modules.update(alias.asname or alias.name for alias in node.names)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr) \
                and node.attr not in _PYTHON and node.attr not in own:
            base = node.value
            if isinstance(base, ast.Name) and base.id in ("self", "cls"):
                continue
            kind = "write" if isinstance(node.ctx, (ast.Store, ast.Del)) else "read"
            found.append((kind, node.attr, node.lineno))
        elif isinstance(node, ast.Call) and _called(node) == "SharedSwap" \
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
                and _private(str(node.args[1].value)):
            # process_swaps.SharedSwap(owner, "_name", make): a write of owner._name.
            found.append(("write", node.args[1].value, node.lineno))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("getattr", "setattr", "hasattr", "delattr") \
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
                and isinstance(node.args[1].value, str):
            name, base = node.args[1].value, node.args[0]
            writes = node.func.id in ("setattr", "delattr")
            if _private(name) and name not in own and not (
                    isinstance(base, ast.Name) and base.id in ("self", "cls")):
                found.append(("write" if writes else "read", name, node.lineno))
            elif writes and isinstance(base, ast.Name) and base.id in tf_modules:
                found.append(("module-write", f"{base.id}.{name}", node.lineno))
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
            targets = node.target if isinstance(node, ast.AugAssign) else node.targets
            for target in targets if isinstance(targets, list) else [targets]:
                root = target
                while isinstance(root, ast.Attribute):
                    root = root.value
                if isinstance(target, ast.Attribute) and isinstance(root, ast.Name) \
                        and root.id in tf_modules:
                    found.append(("module-write", ast.unparse(target), node.lineno))
    found += [("internal", name, line) for name, line in _internal_uses(tree, packages)]
    found += [("attribute-write", target, line) for target, line in _attribute_writes(tree)
              if not any(kind == "module-write" and name == target
                         for kind, name, _ in found)]
    return found


def _library_files():
    for directory, _, files in os.walk(_ROOT):
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(directory, name)
                yield os.path.relpath(path, _ROOT).replace(os.sep, "/"), path


def _unregistered(relative: str, findings):
    """The findings of file `relative` that the registry does not cover."""
    problems = []
    for kind, name, line in findings:
        where = f"estimator_lib/{relative}:{line}"
        if kind == "import":
            entries = [p for p in registry.PRIVATES
                       if name in (p.module, p.name) and relative in p.users]
        elif kind == "internal":
            entries = [p for p in registry.PRIVATES if p.name == name and relative in p.users]
        elif kind == "attribute-write":
            leaf = name.rsplit(".", 1)[-1]
            if relative.startswith("tf_internals/") or (relative, name) in _OWN_WRITES \
                    or (_private(leaf) and leaf not in _PYTHON):  # 'write' covers those.
                continue
            entries = [p for p in registry.PRIVATES
                       if p.leaf == leaf and p.writes and relative in p.users]
            if not entries:
                problems.append(f"{where}: writes {name} (a TensorFlow or user object's "
                                "attribute?): register it (writes=True) in "
                                "tf_internals/registry.py, or list our own object in "
                                "_OWN_WRITES")
                continue
        elif kind == "module-write":
            entries = [True] if relative.startswith("tf_internals/") else []
        else:
            if (relative, name) in _OWN:
                continue
            entries = [p for p in registry.PRIVATES
                       if p.leaf == name and relative in p.users]
            if kind == "write" and entries and (
                    not relative.startswith("tf_internals/")
                    or not any(p.writes for p in entries)):
                problems.append(f"{where}: writes {name} outside tf_internals/ (or its "
                                "entry lacks writes=True)")
                continue
        if not entries:
            problems.append(f"{where}: {kind} {name} is not in tf_internals/registry.py "
                            "for this file")
    return problems


class RegistryTest(absltest.TestCase):

    def test_every_private_touched_is_registered_for_its_file(self):
        problems = []
        for relative, path in _library_files():
            with open(path) as f:
                problems += _unregistered(relative, scan(f.read(), path))
        self.assertEqual(problems, [], "\n".join(problems))

    def test_every_entry_is_touched_by_each_file_it_names(self):
        touched = {}
        for relative, path in _library_files():
            with open(path) as f:
                touched[relative] = {
                    name.rsplit(".", 1)[-1] if kind == "attribute-write" else name
                    for kind, name, _ in scan(f.read(), path, skip_own=False)}
        stale = [f"{p.name}: {user}" for p in registry.PRIVATES for user in p.users
                 if not ({p.name, p.module, p.leaf} & touched.get(user, set()))]
        self.assertEqual(stale, [], "registry entries whose file no longer touches them")

    def test_every_own_write_listed_is_still_made(self):
        made = set()
        for relative, path in _library_files():
            with open(path) as f:
                made |= {(relative, target) for target, _ in _attribute_writes(ast.parse(
                    f.read()))}
        self.assertEqual(sorted(_OWN_WRITES - made), [])

    def test_an_internal_name_or_attribute_write_unregistered_is_caught(self):
        # Added on purpose: each fails the walk until registered.
        source = ("import tensorflow as tf\n"
                  "import tf_keras as k\n"
                  "@tf.__internal__.tracking.no_automatic_dependency_tracking\n"
                  "def f(opt, model):\n"
                  "    tf.compat.v2.__internal__.ops.broadcast_weights(1, 2)\n"
                  "    k.__internal__.models.clone_and_build_model(model)\n"
                  "    opt.iterations = 1\n"
                  "    setattr(model, 'optimizer', opt)\n")
        problems = _unregistered("training/example.py", scan(source))
        self.assertLen(problems, 5, problems)
        for name in ("tensorflow.__internal__.tracking.no_automatic_dependency_tracking",
                     "tensorflow.compat.v2.__internal__.ops.broadcast_weights",
                     "tf_keras.__internal__.models.clone_and_build_model",
                     "opt.iterations", "model.optimizer"):
            self.assertTrue(any(name in p for p in problems), (name, problems))
        # The same uses, registered for the file that makes them, pass.
        self.assertEqual(_unregistered("canned/rnn.py", scan(
            "import tensorflow as tf\n"
            "def f(opt):\n"
            "    opt.iterations = tf.__internal__.feature_column.serialize_feature_column\n")),
            [])

    def test_an_unregistered_private_is_caught(self):
        # Added on purpose: each kind of touch outside the registry fails the walk.
        source = ("import tensorflow as tf\n"
                  "from tensorflow.python.ops import gen_sdca_ops\n"
                  "from tf_keras.src.engine import base_layer_utils\n"
                  "def f(session, layer):\n"
                  "    session._extend_graph()\n"
                  "    layer._dtype_policy = None\n"
                  "    getattr(session, '_session')\n"
                  "    tf.estimator = object()\n")
        problems = _unregistered("training/example.py", scan(source))
        self.assertLen(problems, 6, problems)
        for name in ("gen_sdca_ops", "base_layer_utils", "_extend_graph", "_dtype_policy",
                     "_session", "tf.estimator"):
            self.assertTrue(any(name in p for p in problems), (name, problems))

    def test_own_private_names_are_not_tensorflow_s(self):
        source = ("class A:\n"
                  "    def _helper(self):\n"
                  "        return self._x\n"
                  "def g(a, b):\n"
                  "    a._helper()\n"
                  "    return b._replace(x=1)\n")
        self.assertEqual(scan(source), [])

    def test_every_import_entry_resolves_on_this_tensorflow(self):
        self.assertEqual(registry.missing(), [])

    def test_entries_are_asked_for_only_on_their_releases(self):
        old = registry.Private("tensorflow.python.training.saver", "Saver._gone_in_2_99",
                               ("training/x.py",), "test", until="2.18")
        new = registry.Private("tensorflow.python.training.saver", "Saver._new_in_2_99",
                               ("training/x.py",), "test", since="2.99")
        with mock.patch.object(registry, "PRIVATES", [old, new]):
            self.assertEqual(registry.missing("2.18.1"), [old.name])
            self.assertEqual(registry.missing("2.19.0"), [])
            self.assertEqual(registry.missing("2.99.0-dev20990101"), [new.name])
        self.assertTrue(old.on("2.15.1") and old.on("2.18.0") and not old.on("2.19.0"))
        self.assertTrue(new.on("3.0.0") and not new.on("2.21.0"))

    def test_each_moved_private_has_one_place_on_every_release(self):
        # Entries of one use with version ranges: on each release 2.15..2.21 exactly one
        # of them applies (the ranges meet, none overlap).
        ranged = [p for p in registry.PRIVATES if p.since != "2.15" or p.until]
        by_attribute = {}
        for private in ranged:
            by_attribute.setdefault((private.attribute, private.users), []).append(private)
        for places in by_attribute.values():
            if len(places) < 2:
                continue
            for minor in range(15, 22):
                applying = [p.name for p in places if p.on(f"2.{minor}.0")]
                self.assertLen(applying, 1, (minor, applying))

    def test_the_profile_converter_is_the_one_this_release_has(self):
        # hooks/profiler.py imports whichever place this release keeps the converter in;
        # tests/estimator_lib/hooks/profiler_test.py (in the quick subset, run on every
        # release by tools/test_tf_versions.sh) converts a real profile through it.
        from estimator_lib.hooks import profiler  # pylint: disable=import-outside-toplevel
        version = versions.tensorflow_version()
        (place,) = [p.module for p in registry.PRIVATES
                    if p.attribute == "xspace_to_tools_data" and p.on(version)]
        self.assertEqual(profiler.converter_module(), place)

    def test_a_tf_keras_of_another_minor_is_refused_in_one_line(self):
        versions.check_keras_matches("2.18.1", "2.18.0")
        versions.check_keras_matches("2.23.0-dev20261026", "2.23.0.dev2026102618")
        with self.assertRaises(ImportError) as raised:
            versions.check_keras_matches("2.18.1", "2.21.0")
        message = str(raised.exception)
        self.assertNotIn("\n", message)
        self.assertIn("TensorFlow 2.18.1 with tf_keras 2.21.0", message)
        self.assertIn('pip install "tf-keras==2.18.*"', message)
        with mock.patch.object(versions, "tf_keras_version", return_value="2.10.0"):
            with self.assertRaisesRegex(ImportError, "tf_keras 2.10.0"):
                registry.check()

    def test_a_missing_private_fails_in_one_line_naming_the_version(self):
        gone = registry.Private("tensorflow.python.training.saver", "Saver._gone_in_2_99",
                                ("training/x.py",), "test")
        with mock.patch.object(registry, "PRIVATES", registry.PRIVATES + [gone]):
            with self.assertRaises(ImportError) as raised:
                registry.check()
        message = str(raised.exception)
        self.assertNotIn("\n", message)
        self.assertRegex(message, r"TensorFlow 2\.\d+.*tensorflow\.python\.training\.saver\."
                                  r"Saver\._gone_in_2_99")


if __name__ == "__main__":
    absltest.main()
