"""Makes a copy of ../shared/conformance that also runs the original's canned/, head/, tpu/ tests.

    python3 conformance/extend.py DEST [HARNESS]   # DEST must not exist yet

HARNESS is the shared conformance harness (run_all.py, run_file.py, original_tests/,
later/), by default ../shared/conformance beside the repository; it is not part of the
repository, and without it the script says so in one line and exits 1.

shared/conformance is read-only and selects only the core test files; its `later/` folder holds
the canned/, head/ and tpu/ test files of the same release. This script copies the harness to
DEST and, in the copy only:

  1. merges later/tensorflow_estimator/ into original_tests/ (so run_all.py finds the files
     where it looks for every test file, and run_file.py finds the test helpers);
  2. appends LATER_FILES to run_all.py's FILES;
  3. adds the original's test-only helpers (dnn/linear testing utils, v1 and v2) to
     run_file.py's TEST_SUPPORT, registered on the acc side only, under a bare `canned.v1`
     package when the alias has none (estimator_lib has no v1 canned package to put them in),
     and the four test helpers of the original's head/head_utils.py (head_test_helpers.py)
     on the aliased head_utils module;
  4. lets report.py take FILE_SUBSTRING filters, as run_all.py does (`report.py canned/`);
  5. copies this folder's results/orig/*.json (the original's recorded outcomes for
     LATER_FILES: TF 2.15.1 + tensorflow-estimator 2.15.0) into DEST/results/orig/;
  6. appends RULES and TESTS below to classification.json.

Every text change is a replacement of an anchor that must occur exactly once, so a change to
the shared harness makes this script fail loudly instead of patching the wrong place.
"""

import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SHARED = os.path.join(REPO, "..", "shared", "conformance")
PKG = "tensorflow_estimator/python/estimator"

# The canned/, head/ and tpu/ test files of later/ for the parts estimator_lib builds.
LATER_FILES = [
    "canned/baseline_estimator_test.py", "canned/baseline_test.py",
    "canned/dnn_estimator_test.py", "canned/dnn_linear_combined_estimator_test.py",
    "canned/dnn_linear_combined_test.py", "canned/linear_estimator_test.py",
    "canned/linear_test.py", "canned/head_test.py", "canned/optimizers_test.py",
    "canned/parsing_utils_test.py", "canned/canned_estimator_ds_integration_test.py",
    "canned/saved_model_estimator_test.py", "canned/linear_model_test.py",
    "canned/rnn_test.py",
    # All of saved_model_estimator_test is @run_v1_only: TF2 mode skips it (as estimator_test@v1).
    "canned/saved_model_estimator_test.py@v1",
    "head/base_head_test.py", "head/binary_class_head_test.py",
    "head/multi_class_head_test.py", "head/multi_head_test.py",
    "head/multi_label_head_test.py", "head/regression_head_test.py",
    "head/sequential_head_test.py",
    "tpu/tpu_config_test.py", "tpu/tpu_estimator_test.py", "tpu/tpu_estimator_export_test.py",
    "tpu/tpu_estimator_evaluation_test.py", "tpu/tpu_estimator_signals_test.py",
    "tpu/error_handling_test.py", "tpu/autotuning_iterations_per_loop_test.py",
    "tpu/tpu_estimator_input_v2_test.py", "tpu/tpu_estimator_integration_test.py",
    "tpu/tpu_estimator_gradients_test.py", "tpu/tpu_estimator_model_parallelism_test.py",
    "tpu/tpu_estimator_embedding_test.py", "tpu/tpu_enqueue_sequence_test.py",
    # KMeans and LinearSDCA. kmeans_test.py imports scikit-learn (for its benchmark only):
    # both sides need it importable (e.g. `pip install --target DIR scikit-learn` and DIR
    # on PYTHONPATH).
    "canned/kmeans_test.py", "canned/linear_optimizer/python/sdca_test.py",
    "canned/linear_optimizer/python/utils/sdca_ops_test.py",
    "canned/linear_optimizer/python/utils/sharded_mutable_dense_hashtable_test.py",
    # canned/timeseries: most of its classes are @run_v1_only (skipped in TF2 mode), so
    # the files also run under v1 behaviour (@v1).
    "canned/timeseries/ar_model_test.py", "canned/timeseries/ar_model_training_test.py",
    "canned/timeseries/estimators_test.py", "canned/timeseries/head_test.py",
    "canned/timeseries/math_utils_test.py",
    "canned/timeseries/ar_model_test.py@v1", "canned/timeseries/ar_model_training_test.py@v1",
    "canned/timeseries/estimators_test.py@v1", "canned/timeseries/head_test.py@v1",
    "canned/timeseries/math_utils_test.py@v1",
]

# Test-only helpers shipped beside the original's canned tests (assert_close, checkpoint
# writers, shared test cases). Module name -> file under original_tests/.
HELPERS = {
    f"tensorflow_estimator.python.estimator.canned.{name}": f"{PKG}/canned/{name}.py"
    for name in ("dnn_testing_utils", "linear_testing_utils")
}
HELPERS.update({
    f"tensorflow_estimator.python.estimator.canned.v1.{name}": f"{PKG}/canned/v1/{name}.py"
    for name in ("dnn_testing_utils_v1", "linear_testing_utils_v1")
})

# Classification of the canned/head/tpu differences (same format as classification.json).
RULES = [
    {
        "name": "private-estimator-lib-name",
        "class": "i",
        "match": r"AttributeError: (module '(tensorflow_estimator|estimator_lib)[\w.]*'|"
                 r"<module '(tensorflow_estimator|estimator_lib)[\w.]*'[^>]*>) "
                 r"(has no attribute|does not have the attribute) '_\w+'",
        "why": "the test reads or mock.patches a private (underscore) name of a canned / head / "
               "tpu module; estimator_lib's modules have their own private names",
    },
    {
        "name": "tpu-private-module",
        "class": "i",
        "file": "tpu/*",
        "match": r"(No module named|cannot import name) '?(tensorflow_estimator\.python\.estimator"
                 r"\.tpu\.)?(_tpu_estimator_embedding|error_handling|iteration_count_estimator)",
        "why": "the test imports a private module of the original's tpu/ package "
               "(_tpu_estimator_embedding, error_handling, iteration_count_estimator)",
    },
    {
        "name": "tf221-no-tpu-embedding",
        "class": "iii",
        "file": "tpu/*",
        "match": r"cannot import name 'tpu_embedding' from 'tensorflow\.python\.tpu'",
        "why": "the test imports TF's own tensorflow.python.tpu.tpu_embedding (the TPUEmbedding "
               "v1 module), which TF 2.21 no longer has (tpu_embedding_v1/v2/v3 remain)",
    },
]
_MONITORED_TRAINING_SESSION = (
    "stated reason: mocks TensorFlow's own tensorflow.python.training.training."
    "MonitoredTrainingSession (TF's private, not the estimator's) to inspect the arguments "
    "the original passed it; estimator_lib makes its training sessions in "
    "training/session.py (docs/estimator.md, deliberate differences 11 and 12), so the mock "
    "is not reached and the test's fake cluster is waited for")

TESTS = {
    # Class (i) tests that still fail, each with its stated reason (docs/estimator.md,
    # "The original's own unit tests").
    "training_test.py::TrainingExecutorRunPsTest::test_std_server": {
        "class": "i",
        "note": "stated reason: docs/estimator.md, deliberate difference 26: run_ps starts "
                "the server as the original, then serves until the job ends instead of "
                "join() forever; the test asserts join()",
    },
    **{f"estimator_test.py::EstimatorTrainTest::{name}": {
        "class": "i", "note": _MONITORED_TRAINING_SESSION} for name in (
            "test_master_distributed_hooks", "test_master_distributed_hooks_for_worker_0",
            "test_master_distributed_hooks_for_worker_nonzero",
            "test_master_hooks_single_replica", "test_master_hooks_single_replica_with_ps")},
    "estimator_test.py@v1::EstimatorTrainTest::test_hooks_with_distributed_collective_ops": {
        "class": "i", "note": _MONITORED_TRAINING_SESSION},
    "export/function_test.py::EstimatorWrappedGraphTest::*": {
        "class": "i",
        "note": "stated reason: the original's export.function._EstimatorWrappedGraph "
                "subclasses TensorFlow's own internal WrappedGraph (tensorflow.python.eager."
                "wrap_function, TF's private); legacy/export_function.py builds "
                "ModelFunction on tf.function (docs/estimator.md, \"Private names\")",
    },
    **{key: {"class": "i",
             "note": "stated reason: TPU-hardware machinery (per-core contexts, infeed/"
                     "outfeed stopping signals, the TPU-only error_handling and "
                     "iteration_count_estimator modules): TPUEstimator runs with "
                     "use_tpu=False here (docs/estimator.md, \"Private names\")"}
       for key in ("tpu/tpu_estimator_test.py::TPUConfigTest::*",
                   "tpu/tpu_estimator_signals_test.py::*", "tpu/error_handling_test.py::*",
                   "tpu/autotuning_iterations_per_loop_test.py::*")},
    "keras_test.py::TestKerasEstimator::test_gpu_config": {
        "class": "i",
        "note": "stated reason: docs/estimator.md, deliberate difference 27: "
                "model_to_estimator leaves the Keras backend's global session alone; the "
                "test reads the session config there",
    },
    "canned/head_test.py::CreateEstimatorSpecTest::*": {
        "class": "i",
        "note": "subclasses the private canned.head._Head (the original's abstract methods: "
                "_create_tpu_estimator_spec, ...); estimator_lib's v1 _Head has its own",
    },
    # The two kept differences listed in docs/estimator.md.
    "head/binary_class_head_test.py::BinaryClassHeadTest::test_float_labels_eval": {
        "class": "ii",
        "note": "a float32 eval metric differs by 6e-8 (the test asks for 7 places): float32 "
                "rounding of another order of operations",
    },
    "head/regression_head_test.py::RegressionHeadForEstimator::test_weighted_multi_batch_eval": {
        "class": "ii",
        "note": "numpy_input_fn reads a tf.data iterator and adds no queue summary "
                "(fraction_of_N_full); the test expects the graph to hold a summary",
    },
}


def _replace_once(text, anchor, replacement, where):
    if text.count(anchor) != 1:
        sys.exit(f"extend.py: anchor not found exactly once in {where}: {anchor!r}")
    return text.replace(anchor, replacement)


def _patch(path, *edits):
    with open(path) as f:
        text = f.read()
    for anchor, replacement in edits:
        text = _replace_once(text, anchor, replacement, path)
    with open(path, "w") as f:
        f.write(text)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.split("\n\n")[1])
    dest = os.path.abspath(sys.argv[1])
    harness = os.path.abspath(sys.argv[2] if len(sys.argv) == 3 else SHARED)
    if not os.path.isfile(os.path.join(harness, "run_all.py")):
        sys.exit(f"extend.py: needs the shared conformance harness (run_all.py, run_file.py, "
                 f"original_tests/ and later/: the tensorflow-estimator v2.15.0 unit tests), "
                 f"which is not part of this repository; {harness} holds none. Put the "
                 f"project's shared/ folder beside the repository, or name the harness: "
                 f"python3 conformance/extend.py DEST HARNESS")
    if os.path.exists(dest):
        sys.exit(f"extend.py: {dest} exists; remove it or name another folder")
    shutil.copytree(harness, dest, ignore=shutil.ignore_patterns("__pycache__", "raw"))
    for root, dirs, files in os.walk(dest):  # shared/ is read-only: the copy must not be
        os.chmod(root, 0o755)
        for name in files:
            os.chmod(os.path.join(root, name), 0o644)

    # 1. later/ joins original_tests/ (in the copy).
    shutil.copytree(os.path.join(dest, "later", "tensorflow_estimator"),
                    os.path.join(dest, "original_tests", "tensorflow_estimator"),
                    dirs_exist_ok=True)

    # 2. FILES.
    anchor = '    "inputs/numpy_io_test.py@v1", "inputs/pandas_io_test.py@v1",\n]\n'
    added = "".join(f"    {rel!r},\n".replace("'", '"') for rel in LATER_FILES)
    _patch(os.path.join(dest, "run_all.py"), (anchor, anchor + (
        "# Added by the project's conformance/extend.py: the canned/, head/ and tpu/ files of\n"
        "# later/ (merged into original_tests/ in this copy).\nFILES += [\n" + added + "]\n")))

    # 3. Test helpers, and a bare canned.v1 package to hold the v1 ones.
    anchor = "TEST_SUPPORT = {\n"
    added = "".join(f"    {name!r}:\n        {rel!r},\n".replace("'", '"')
                    for name, rel in HELPERS.items())
    _patch(os.path.join(dest, "run_file.py"),
           (anchor, "# Added by conformance/extend.py: the canned tests' helpers.\n"
                    + anchor + added),
           ("        try:\n"
            "            parent = importlib.import_module(parent_name)\n"
            "        except ImportError:\n"
            "            continue\n",
            "        try:\n"
            "            parent = importlib.import_module(parent_name)\n"
            "        except ImportError:\n"
            "            if not parent_name.endswith(\".canned.v1\"):\n"
            "                continue\n"
            "            # conformance/extend.py: the alias has no v1 canned package; a bare\n"
            "            # one holds the v1 test helpers and nothing else.\n"
            "            import types  # pylint: disable=import-outside-toplevel\n"
            "            parent = types.ModuleType(parent_name)\n"
            "            parent.__path__ = []\n"
            "            sys.modules[parent_name] = parent\n"
            "            setattr(importlib.import_module(parent_name.rpartition(\".\")[0]),\n"
            "                    \"v1\", parent)\n"))

    # 3b. The head tests' helpers, set on the aliased head_utils (see head_test_helpers.py).
    shutil.copy(os.path.join(HERE, "head_test_helpers.py"), dest)
    _patch(os.path.join(dest, "run_file.py"), (
        "        setattr(parent, leaf, module)\n\n\n",
        "        setattr(parent, leaf, module)\n"
        "    # Added by conformance/extend.py: head_utils' test helpers (head_test_helpers.py).\n"
        "    try:\n"
        "        head_utils = importlib.import_module(\n"
        "            \"tensorflow_estimator.python.estimator.head.head_utils\")\n"
        "    except ImportError:\n"
        "        return\n"
        "    spec = importlib.util.spec_from_file_location(\n"
        "        \"head_test_helpers\", os.path.join(HERE, \"head_test_helpers.py\"))\n"
        "    helpers = importlib.util.module_from_spec(spec)\n"
        "    spec.loader.exec_module(helpers)\n"
        "    for name in helpers.NAMES:\n"
        "        if not hasattr(head_utils, name):\n"
        "            setattr(head_utils, name, getattr(helpers, name))\n\n\n"))

    # 4. report.py FILE_SUBSTRING filters.
    _patch(os.path.join(dest, "report.py"),
           ('    parser.add_argument("--pending", action="store_true")\n',
            '    parser.add_argument("--pending", action="store_true")\n'
            '    parser.add_argument("filters", nargs="*")  # added by conformance/extend.py\n'),
           ("    for rel in FILES:\n",
            "    for rel in [f for f in FILES if not args.filters\n"
            "                or any(s in f for s in args.filters)]:\n"))

    # 5. The original's recorded outcomes for LATER_FILES.
    recorded = os.path.join(HERE, "results", "orig")
    for name in sorted(os.listdir(recorded)) if os.path.isdir(recorded) else []:
        if name.endswith(".json"):
            shutil.copy(os.path.join(recorded, name), os.path.join(dest, "results", "orig"))

    # 6. Classification.
    path = os.path.join(dest, "classification.json")
    with open(path) as f:
        data = json.load(f)
    data["rules"].extend(RULES)
    data["tests"].update(TESTS)
    with open(path, "w") as f:
        json.dump(data, f, indent=1)
    print(f"{dest}: {len(LATER_FILES)} files added to FILES; "
          f"cd {dest} && ACC_PYTHON=... python3 run_all.py --side acc canned/ head/ tpu/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
