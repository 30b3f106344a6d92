"""Records how public libraries use the original tf.estimator's internals.

The census of issue 44, part 2. It reads the Python source of libraries built on
tf.estimator (their released wheels, and the test files of their repositories at the
release tag) and records, per library:

* `import`: a module or name imported from `tensorflow_estimator.python.estimator.*`
  or from the pre-split `tensorflow.python.estimator.*`;
* `attribute`: a name read as an attribute of such a module (`head_lib._Head`);
* `subclass-override`: a class whose base is one of the original's classes (reached
  by those paths or by `tf.estimator`, `tf.compat.v1.estimator`, `tf_estimator`), with
  the methods it defines that the original base also defines (its overrides);
* `private-assignment`: an assignment to a private attribute of an estimator, head,
  hook or config: `est._model_fn = ...` on an object, or `self._config = ...` in a
  subclass whose original base reads that attribute.

Then, run with the original installed, it records what the original had at each path:
the kind of object (module, class, function, constant) and, for callables and for
the overridden methods, the parameters (name, kind, default). No source of the original
or of the libraries is kept: names, paths and signatures only.

    TF_CPP_MIN_LOG_LEVEL=2 /tmp/tf215/bin/python tests/data/make_estimator_census.py SRC

SRC holds one folder per source (the names in `SOURCES`): the unpacked wheels
(`pip download --no-deps NAME==VERSION`, unzipped into `SRC/<name>-<version>`) and the
repository test trees (`git archive TAG` into `SRC/<name>-<version>-repo`). Writes
tests/data/estimator_census.json (about 1 min). `tests/estimator_lib/legacy/
census_test.py` reads it.
"""

import ast
import collections
import importlib
import inspect
import json
import os
import re
import sys
from typing import Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
OUTPUT = os.path.join(HERE, "estimator_census.json")

# folder under SRC -> (library, version or commit, where it came from)
SOURCES = {
    "adanet-0.9.0": ("adanet", "0.9.0", "pypi"),
    "adanet-0.9.0-repo": ("adanet", "v0.9.0 (e524035b)", "github:tensorflow/adanet"),
    "deepctr-0.9.4": ("deepctr", "0.9.4", "pypi"),
    "deepctr-0.9.4-repo": ("deepctr", "v0.9.4 (694d6d99)", "github:shenweichen/DeepCTR"),
    "gin_config-0.5.0": ("gin-config", "0.5.0", "pypi"),
    "gin_config-repo": ("gin-config", "8ebbd2a7", "github:google/gin-config"),
    "horovod-0.28.1": ("horovod", "0.28.1", "pypi (sdist)"),
    "lingvo-0.14.2": ("lingvo", "0.14.2", "pypi"),
    "magenta-2.1.4": ("magenta", "2.1.4", "pypi"),
    "mesh_tensorflow-0.1.21": ("mesh-tensorflow", "0.1.21", "pypi"),
    "model_card_toolkit-2.0.0": ("model-card-toolkit", "2.0.0", "pypi"),
    "neural_structured_learning-1.4.0": ("neural-structured-learning", "1.4.0", "pypi"),
    "tensor2tensor-1.15.7": ("tensor2tensor", "1.15.7", "pypi"),
    "tensorflow_constrained_optimization-0.2": (
        "tensorflow-constrained-optimization", "0.2", "pypi"),
    "tensorflow_gan-2.1.0": ("tensorflow-gan", "2.1.0", "pypi"),
    "tensorflow_hub-0.15.0": ("tensorflow-hub", "0.15.0", "pypi"),
    "tensorflow_hub-0.15.0-repo": ("tensorflow-hub", "v0.15.0 (e8e37d97)",
                                   "github:tensorflow/hub"),
    "tensorflow_lattice-2.0.13": ("tensorflow-lattice", "2.0.13", "pypi"),
    "tensorflow_model_analysis-0.52.0": ("tensorflow-model-analysis", "0.52.0", "pypi"),
    "tensorflow_model_remediation-0.1.7.1": (
        "tensorflow-model-remediation", "0.1.7.1", "pypi"),
    "tensorflow_privacy-0.9.0": ("tensorflow-privacy", "0.9.0", "pypi"),
    "tensorflow_probability-0.23.0": ("tensorflow-probability", "0.23.0", "pypi"),
    "tensorflow_ranking-0.5.5": ("tensorflow-ranking", "0.5.5", "pypi"),
    "tensorflow_ranking-0.5.5-repo": ("tensorflow-ranking", "0.5.5 (5b1d1338)",
                                      "github:tensorflow/ranking"),
    "tensorflow_transform-1.21.0": ("tensorflow-transform", "1.21.0", "pypi"),
    "tf_models_official-2.15.0": ("tf-models-official", "2.15.0", "pypi"),
    "tfseqestimator-2.2.1": ("tfseqestimator", "2.2.1", "pypi (sdist)"),
    "tfx-1.21.0": ("tfx", "1.21.0", "pypi"),
    "deepmatch-0.3.2": ("deepmatch", "0.3.2", "pypi"),
}

# Lines of public GitHub code found with the search tools (find_string ids), outside
# the packages above: (where, line).
GITHUB_LINES = [
    ("github (find_string 17002440404)",
     "from tensorflow.python.estimator.export import export"),
    ("github (find_string 399090734)",
     "from tensorflow.python.estimator import model_fn as model_fn_lib"),
    ("github (find_string 2773465559)",
     "from tensorflow.python.estimator.estimator import Estimator"),
    ("github (find_string 28894793939)",
     "from tensorflow.python.estimator.inputs.queues.feeding_queue_runner import "
     "_FeedingQueueRunner as FeedingQueueRunner"),
    ("github (find_string 60086683529)",
     "from tensorflow.python.estimator.estimator import WarmStartSettings"),
    ("github (find_string 13120215974)",
     "from tensorflow.python.estimator.run_config import RunConfig"),
    ("github (find_string 35335379699)", "from tensorflow.python.estimator import keras"),
    ("github (find_string 37494012014)",
     "from tensorflow.python.estimator.canned import optimizers"),
    ("github (find_string 44327526350)",
     "from tensorflow_estimator.python.estimator.canned.dnn import dnn_logit_fn_builder"),
    ("github (find_string 922511906)",
     "from tensorflow.python.estimator.export.export_output import PredictOutput"),
    ("github (find_string 31823430686)",
     "from tensorflow_estimator.python.estimator import estimator as estimator_lib"),
    ("github (find_string 20161859561)",
     "from tensorflow.python.estimator.canned import head as head_lib\n"
     "class _RegressionHeadWithLaplaceNLL(head_lib._Head):\n"
     "  def __init__(self, m=1, logits_dimension=1, loss_reduction=None, name=None):\n"
     "    pass\n"),
    ("github (find_string 343655559: SparseML's Modifier.modify_estimator)",
     "import tensorflow as tf\n"
     "estimator._model_fn = _model_func\n"),
    ("github (find_string 31193698726)",
     "import tensorflow as tf\n"
     "class DeepFMAdaptor(tf.estimator.Estimator):\n"
     "  def model_fn(self, features, labels, mode, params):\n"
     "    return self.estimator._model_fn(features, labels, mode, self.run_config)\n"),
]

ORIGINAL_PACKAGES = ("tensorflow_estimator.python.estimator", "tensorflow.python.estimator")
# Public routes to the original's classes a base may be written with.
PUBLIC_ROUTES = {
    "tensorflow.estimator": "tensorflow_estimator.python.estimator.api._v2.estimator",
    "tensorflow.compat.v1.estimator":
        "tensorflow_estimator.python.estimator.api._v1.estimator",
    "tensorflow.compat.v2.estimator":
        "tensorflow_estimator.python.estimator.api._v2.estimator",
}
TENSORFLOW_MODULES = ("tensorflow", "tensorflow.compat.v1", "tensorflow.compat.v2")


def _dotted(node) -> Optional[str]:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _is_original(path: str) -> bool:
    return any(path == p or path.startswith(p + ".") for p in ORIGINAL_PACKAGES)


class _FileScan(ast.NodeVisitor):
    """The uses in one file: imports, attribute reads, subclasses, private writes."""

    def __init__(self):
        self.aliases: Dict[str, str] = {}  # local name -> dotted original path
        # local name -> public module (tensorflow, its compat modules, tf.estimator)
        self.routes: Dict[str, str] = {"tf": "tensorflow"}
        self.uses: List[dict] = []
        self.class_bases: Dict[str, str] = {}  # local class -> original base path
        self._class_stack: List[str] = []

    # -- names -------------------------------------------------------------------
    def _resolve(self, dotted: Optional[str]) -> Optional[str]:
        if not dotted:
            return None
        head, _, rest = dotted.partition(".")
        if head in self.aliases:
            return self.aliases[head] + ("." + rest if rest else "")
        if head in self.routes:
            full = self.routes[head] + ("." + rest if rest else "")
            for route, target in PUBLIC_ROUTES.items():
                if full.startswith(route + "."):
                    return target + full[len(route):]
            return None
        if head in self.class_bases and not rest:
            return "local:" + head
        return None

    def visit_Import(self, node):
        for alias in node.names:
            if _is_original(alias.name):
                self.uses.append({"kind": "import", "path": alias.name, "line": node.lineno})
                if alias.asname:
                    self.aliases[alias.asname] = alias.name
            elif alias.name in TENSORFLOW_MODULES and alias.asname:
                self.routes[alias.asname] = alias.name

    def visit_ImportFrom(self, node):
        module = node.module or ""
        for alias in node.names:
            local = alias.asname or alias.name
            if _is_original(module):
                path = module + "." + alias.name
                self.uses.append({"kind": "import", "path": path, "line": node.lineno})
                self.aliases[local] = path
            elif module in TENSORFLOW_MODULES and alias.name == "estimator":
                self.routes[local] = module + ".estimator"
            elif module == "tensorflow.compat" and alias.name in ("v1", "v2"):
                self.routes[local] = "tensorflow.compat." + alias.name

    def visit_Attribute(self, node):
        dotted = _dotted(node)
        if dotted:
            head = dotted.partition(".")[0]
            if head in self.aliases and _is_original(self.aliases[head]):
                self.uses.append({"kind": "attribute", "path": self._resolve(dotted),
                                  "line": node.lineno})
                return  # the longest chain only
        self.generic_visit(node)

    # -- classes -----------------------------------------------------------------
    def visit_ClassDef(self, node):
        original = None
        for base in node.bases:
            resolved = self._resolve(_dotted(base))
            if resolved and resolved.startswith("local:"):
                resolved = self.class_bases[resolved[len("local:"):]]
            if resolved:
                original = resolved
                break
        if original:
            self.class_bases[node.name] = original
            methods = sorted(item.name for item in node.body
                             if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)))
            self.uses.append({"kind": "subclass-override", "path": original,
                              "class": node.name, "methods": methods,
                              "line": node.lineno})
        self._class_stack.append(node.name if original else "")
        self.generic_visit(node)
        self._class_stack.pop()

    # -- private writes ------------------------------------------------------------
    def _private_target(self, target, line):
        if not (isinstance(target, ast.Attribute) and target.attr.startswith("_")
                and not target.attr.startswith("__")):
            return
        owner = _dotted(target.value)
        if owner == "self":
            klass = self._class_stack[-1] if self._class_stack else ""
            if klass:
                self.uses.append({"kind": "private-assignment", "target": "self",
                                  "attribute": target.attr,
                                  "path": self.class_bases[klass], "line": line})
        elif owner and owner not in ("cls",) and not owner.startswith("self._"):
            self.uses.append({"kind": "private-assignment", "target": owner,
                              "attribute": target.attr, "path": None, "line": line})

    def visit_Assign(self, node):
        for target in node.targets:
            self._private_target(target, node.lineno)
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        self._private_target(node.target, node.lineno)
        self.generic_visit(node)


def scan_text(text: str) -> List[dict]:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    scanner = _FileScan()
    scanner.visit(tree)
    uses = scanner.uses
    # A private write on an object counts only in files that name the estimator.
    if "estimator" not in text:
        uses = []
    return uses


def scan_sources(src: str) -> List[dict]:
    found = []
    for folder, (library, version, origin) in sorted(SOURCES.items()):
        root = os.path.join(src, folder)
        if not os.path.isdir(root):
            print(f"missing source folder {root}", file=sys.stderr)
            continue
        for dirpath, _, files in os.walk(root):
            for name in sorted(files):
                if not name.endswith(".py"):
                    continue
                full = os.path.join(dirpath, name)
                with open(full, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                for use in scan_text(text):
                    use.update(library=library, version=version, origin=origin,
                               file=os.path.relpath(full, root))
                    found.append(use)
    for where, text in GITHUB_LINES:
        for use in scan_text(text):
            use.update(library=where, version=None, origin="github", file=None)
            found.append(use)
    return found


# -- what the original had ---------------------------------------------------------

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def default_repr(value) -> str:
    if inspect.isfunction(value) or inspect.isbuiltin(value):
        return f"<function {value.__name__}>"
    if inspect.isclass(value):
        return f"<class {value.__name__}>"
    return _ADDRESS.sub("", repr(value))


def parameters(func) -> Optional[List[list]]:
    """[[name, kind, default repr or None], ...], or None when Python cannot tell."""
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return None
    return [[p.name, p.kind.name,
             None if p.default is inspect.Parameter.empty else default_repr(p.default)]
            for p in signature.parameters.values()]


def kind_of(obj) -> str:
    if inspect.ismodule(obj):
        return "module"
    if inspect.isclass(obj):
        return "class"
    if inspect.isfunction(obj) or inspect.isbuiltin(obj) or inspect.ismethod(obj):
        return "function"
    if callable(obj):
        return "callable"
    return "constant"


def resolve(path: str):
    """The object at a dotted path: the longest importable module, then attributes."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(path)


def describe(obj) -> dict:
    kind = kind_of(obj)
    description = {"kind": kind}
    if kind in ("function", "callable"):
        description["parameters"] = parameters(obj)
    elif kind == "class":
        description["constructor"] = parameters(obj.__init__)
    elif kind == "constant" and isinstance(obj, (str, bytes, int, float, bool, type(None))):
        description["value"] = repr(obj)
    return description


def _owner(cls, name):
    return next((k for k in cls.__mro__ if name in vars(k)), None)


def _raw_function(raw):
    if isinstance(raw, (staticmethod, classmethod)):
        return raw.__func__
    if isinstance(raw, property):
        return raw.fget
    return raw if callable(raw) else None


def overrides(cls, methods: List[str]) -> Dict[str, dict]:
    """For each method the original class (or a base of it) defines: owner, signature."""
    result = {}
    for name in methods:
        owner = _owner(cls, name)
        if owner is None or owner is object or owner.__module__ == "builtins":
            continue
        raw = vars(owner)[name]
        if not (inspect.isfunction(raw) or isinstance(raw, (property, staticmethod,
                                                            classmethod))):
            continue  # a slot of a builtin (object.__init__ through an ABC): no code
        if getattr(raw, "__qualname__", "") == "object.__init__":
            continue  # TF 2.15's deprecation wrapper around object.__init__: no code
        kind = ("property" if isinstance(raw, property) else
                "staticmethod" if isinstance(raw, staticmethod) else
                "classmethod" if isinstance(raw, classmethod) else "method")
        # A property's getter takes only the instance, whatever its name.
        function = None if kind == "property" else _raw_function(raw)
        result[name] = {"owner": f"{owner.__module__}.{owner.__qualname__}",
                        "kind": kind,
                        "parameters": parameters(function) if function else None}
    return result


def _self_reads(cls) -> set:
    """The `self.<name>` attributes the original's classes in cls's MRO mention."""
    names = set()
    for klass in cls.__mro__:
        if not klass.__module__.startswith(("tensorflow_estimator", "tensorflow.")):
            continue
        try:
            source = inspect.getsource(klass)
        except (OSError, TypeError):
            continue
        names.update(re.findall(r"self\.(_[A-Za-z0-9_]+)", source))
    return names


def _instance_attributes() -> Dict[str, List[str]]:
    """Private attribute -> the original classes whose methods read it on self."""
    roots = ["estimator.Estimator", "estimator.EstimatorV2", "canned.head._Head",
             "head.base_head.Head", "run_config.RunConfig", "tpu.tpu_estimator.TPUEstimator",
             "tpu.tpu_config.RunConfig", "exporter.Exporter",
             "canned.dnn.DNNClassifierV2", "canned.linear.LinearClassifierV2"]
    result = collections.defaultdict(list)
    for root in roots:
        cls = resolve("tensorflow_estimator.python.estimator." + root)
        for name in _self_reads(cls):
            result[name].append(root)
    return result


def record(uses: List[dict]) -> List[dict]:
    """Groups the uses by (library, kind, path, ...) and adds the original's side."""
    groups = collections.OrderedDict()
    for use in uses:
        key = (use["library"], use["kind"], use.get("path"), use.get("attribute"),
               use.get("class"))
        group = groups.setdefault(key, {k: v for k, v in use.items()
                                        if k not in ("file", "line", "methods")})
        group.setdefault("files", [])
        if use.get("file") and len(group["files"]) < 5 and use["file"] not in group["files"]:
            group["files"].append(use["file"])
        if "methods" in use:
            group["methods"] = sorted(set(group.get("methods", [])) | set(use["methods"]))
    attributes = _instance_attributes()
    records = []
    for entry in groups.values():
        kind = entry["kind"]
        path = entry.get("path")
        if kind == "private-assignment":
            attribute = entry["attribute"]
            if entry["target"] == "self":
                try:
                    cls = resolve(path)
                except (ImportError, AttributeError):
                    continue
                if not inspect.isclass(cls) or attribute not in _self_reads(cls):
                    continue  # the subclass's own attribute: nothing of the original
                entry["original"] = {"read_by": [path]}
            else:
                if attribute not in attributes:
                    continue
                entry["original"] = {"read_by": sorted(attributes[attribute])}
            records.append(entry)
            continue
        try:
            obj = resolve(path)
        except (ImportError, AttributeError):
            # A local name shadowing an imported module (`head = ...` after
            # `from ...canned import head`): nothing of the original.
            continue
        if kind == "subclass-override":
            if not inspect.isclass(obj):
                continue
            methods = entry.pop("methods", [])
            entry["original"] = {"kind": "class",
                                 "type": f"{obj.__module__}.{obj.__qualname__}",
                                 "overrides": overrides(obj, methods)}
            entry["new_methods"] = sorted(set(methods) - set(entry["original"]["overrides"]))
        else:
            entry["original"] = describe(obj)
        records.append(entry)
    return records


def _probes():
    """tests/estimator_lib/legacy/census_probes.py, loaded by path."""
    import importlib.util  # pylint: disable=import-outside-toplevel
    path = os.path.join(HERE, os.pardir, "estimator_lib", "legacy", "census_probes.py")
    spec = importlib.util.spec_from_file_location("census_probes", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def add_probe_results(records: List[dict], tf) -> None:
    """Runs each private assignment's probe on the original and records its result."""
    probes = _probes()
    for entry in records:
        if entry["kind"] == "private-assignment":
            entry["original"]["probe"] = probes.probe(tf, entry)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    uses = scan_sources(sys.argv[1])
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    import importlib.metadata  # pylint: disable=import-outside-toplevel
    records = record(uses)
    add_probe_results(records, tf)
    libraries = sorted({r["library"] for r in records})
    data = {
        "generator": "tests/data/make_estimator_census.py",
        "recorded_with": {"tensorflow": tf.__version__,
                          "tensorflow_estimator": importlib.metadata.version(
                              "tensorflow-estimator")},
        "libraries": libraries,
        "sources": {folder: {"library": lib, "version": ver, "origin": origin}
                    for folder, (lib, ver, origin) in sorted(SOURCES.items())},
        "uses": records,
    }
    with open(OUTPUT, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    counts = collections.Counter(r["kind"] for r in records)
    print(f"wrote {OUTPUT}: {len(records)} uses from {len(libraries)} sources {dict(counts)}")


if __name__ == "__main__":
    main()
