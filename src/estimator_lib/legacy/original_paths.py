"""The rest of the original's module surface: every public name at its original path.

`aliases.install()` builds the common `tensorflow_estimator.python.estimator.*`
modules; `extend_tree` adds to them the names third-party code also imported from
there (`estimator.maybe_overwrite_model_dir_and_session_config`, `util.
parse_input_fn_result`, `export.export.UnsupervisedInputReceiver`, the whole
`estimator_lib` re-export module, ...), and `real_modules` the original modules
re-provided as modules of ours (`gc`, `export.function`, `tools.checkpoint_converter`,
`hooks.fake_summary_writer`, ...). tests/data/tf215_names.json records the
original's names; tests/estimator_lib/legacy/original_names_test.py checks them.

Not here: the TPU-hardware internals (infeed/outfeed hooks, TPUContext, TPU
embedding: TF 2.21 removed `tpu_embedding`), and the original's test-only helpers
(`canned/*testing_utils*`: the conformance harness registers the original files
at those paths, so nothing of ours may stand there).
"""

import importlib
import types
from typing import Dict, Optional

from tensorflow.python.saved_model import model_utils
from tensorflow.python.saved_model.model_utils import export_output

from estimator_lib.engine import extenders
from estimator_lib.core import model_fn
from estimator_lib.canned import dnn
from estimator_lib.canned import linear
from estimator_lib.export import receivers
from estimator_lib.hooks import early_stopping
from estimator_lib.keras import cloning
from estimator_lib.legacy import checkpoint_converter
from estimator_lib.legacy import estimator_export
from estimator_lib.legacy import export_function
from estimator_lib.legacy import export_gc
from estimator_lib.legacy import fake_summary_writer
from estimator_lib.legacy import original_helpers as helpers
from estimator_lib.legacy import unsupported
from estimator_lib.tpu import host_helpers
from estimator_lib.tpu import tpu_estimator

_PREFIX = "tensorflow_estimator.python.estimator."

# Original path (under python.estimator.) -> our module, when another branch adds it:
# RNN/SavedModelEstimator/sequential head, KMeans and the SDCA utilities.
_PENDING_MODULES = {
    "canned.rnn": "estimator_lib.canned.rnn",
    "canned.saved_model_estimator": "estimator_lib.canned.saved_model_estimator",
    "canned.kmeans": "estimator_lib.canned.kmeans",
    "canned.linear_optimizer.python.utils.sdca_ops":
        "estimator_lib.canned.linear_optimizer.sdca_ops",
    "canned.linear_optimizer.python.utils.sharded_mutable_dense_hashtable":
        "estimator_lib.canned.linear_optimizer.sharded_mutable_dense_hashtable",
    "head.sequential_head": "estimator_lib.head.sequential_head",
}

# The names of the re-export modules that are modules themselves (set by `link`).
_ESTIMATOR_LIB_MODULES = {
    "basic_session_run_hooks": "hooks.basic_session_run_hooks",
    "hooks": "hooks.hooks", "session_run_hook": "hooks.session_run_hook",
    "inputs": "inputs.inputs", "export": "export.export_lib",
}


def _optional_module(name: str) -> Optional[types.ModuleType]:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name != name and not name.startswith(f"{e.name}."):
            raise  # The module exists but fails on an import of its own.
        return None


def _pending(path: str, name: str, fallback=None):
    """`name` of the pending module for `path`, else `fallback` (None: leave it out)."""
    module = _optional_module(_PENDING_MODULES[path])
    return getattr(module, name, fallback) if module else fallback


def _export_names() -> Dict[str, object]:
    """export/export.py's names beyond the tf.estimator.export ones aliases.py sets."""
    names = dict(
        SupervisedInputReceiver=receivers.SupervisedInputReceiver,
        UnsupervisedInputReceiver=receivers.UnsupervisedInputReceiver,
        build_all_signature_defs=model_utils.build_all_signature_defs,
        get_temp_export_dir=model_utils.get_temp_export_dir,
        get_timestamped_export_dir=model_utils.get_timestamped_export_dir,
        SINGLE_FEATURE_DEFAULT_NAME=receivers.SINGLE_FEATURE_DEFAULT_NAME,
        SINGLE_LABEL_DEFAULT_NAME=receivers.SINGLE_LABEL_DEFAULT_NAME,
        SINGLE_RECEIVER_DEFAULT_NAME=receivers.SINGLE_RECEIVER_DEFAULT_NAME)
    # Being added to receivers.py by the RNN/SavedModelEstimator branch.
    for name in ("wrap_and_check_input_tensors",
                 "build_supervised_input_receiver_fn_from_input_fn"):
        if hasattr(receivers, name):
            names[name] = getattr(receivers, name)
    return names


def _estimator_lib_names(v1_api: types.ModuleType, model_to_estimator) -> Dict[str, object]:
    """The original's `estimator_lib.py`: the public API it re-exported (v1 classes)."""
    names = {name: getattr(v1_api, name) for name in (
        "BaselineClassifier", "BaselineEstimator", "BaselineRegressor", "BinaryClassHead",
        "DNNClassifier", "DNNEstimator", "DNNLinearCombinedClassifier",
        "DNNLinearCombinedEstimator", "DNNLinearCombinedRegressor", "DNNRegressor",
        "Estimator", "EstimatorSpec", "EvalSpec", "Exporter", "FinalExporter", "Head",
        "LatestExporter", "LinearClassifier", "LinearEstimator", "LinearRegressor",
        "LogisticRegressionHead", "ModeKeys", "MultiClassHead", "MultiHead", "MultiLabelHead",
        "PoissonRegressionHead", "RegressionHead", "RunConfig", "TrainSpec", "VocabInfo",
        "WarmStartSettings", "add_metrics", "classifier_parse_example_spec",
        "regressor_parse_example_spec", "train_and_evaluate")}
    names.update({name: getattr(v1_api.experimental, name) for name in (
        "call_logit_fn", "make_early_stopping_hook", "stop_if_higher_hook",
        "stop_if_lower_hook", "stop_if_no_decrease_hook", "stop_if_no_increase_hook")})
    names.update(
        read_eval_metrics=early_stopping.read_eval_metrics,
        TPUEstimator=tpu_estimator.TPUEstimator,
        dnn_logit_fn_builder=dnn.dnn_logit_fn_builder,
        linear_logit_fn_builder=linear.linear_logit_fn_builder,
        model_to_estimator=model_to_estimator,
        KMeansClustering=_pending("canned.kmeans", "KMeansClustering"),
        RNNClassifier=_pending("canned.rnn", "RNNClassifier"),
        RNNEstimator=_pending("canned.rnn", "RNNEstimator"))
    return names


def _additions(v1_api: types.ModuleType, v2_api: types.ModuleType, model_to_estimator
               ) -> Dict[str, Dict[str, object]]:
    """Path under python.estimator. -> names to add to (or the whole of) that module."""
    keras_lib = dict(FormattedKeyError=cloning.FormattedKeyError,
                     standardize_sample_weights=helpers.standardize_sample_weights)
    export_names = _export_names()
    tree = {
        "api": dict(estimator=v1_api),
        "api._v1.v1": dict(estimator=v1_api),
        "api._v2.v2": dict(estimator=v2_api),
        "estimator": dict(
            create_per_replica_ready_for_local_init_op=(
                helpers.create_per_replica_ready_for_local_init_op),
            maybe_overwrite_model_dir_and_session_config=(
                helpers.maybe_overwrite_model_dir_and_session_config)),
        "estimator_lib": _estimator_lib_names(v1_api, model_to_estimator),
        "model_fn": dict(LOSS_METRIC_KEY=helpers.LOSS_METRIC_KEY,
                         AVERAGE_LOSS_METRIC_KEY=helpers.AVERAGE_LOSS_METRIC_KEY,
                         verify_model_fn_args=model_fn.verify_model_fn_args),
        "run_config": dict(get_default_session_config=helpers.get_default_session_config,
                           path_to_str=helpers.path_to_str),
        "keras": keras_lib,
        "keras_lib": keras_lib,
        "util": dict(fn_args=helpers.fn_args,
                     MAX_DIRECTORY_CREATION_ATTEMPTS=helpers.MAX_DIRECTORY_CREATION_ATTEMPTS,
                     parse_input_fn_result=helpers.parse_input_fn_result,
                     parse_iterator_result=helpers.parse_iterator_result,
                     DistributedIteratorInitializerHook=(
                         helpers.DistributedIteratorInitializerHook),
                     MultiHostDatasetInitializerHook=(
                         host_helpers.MultiHostDatasetInitializerHook)),
        "export.export": export_names,
        "export.export_lib": dict(
            export_names, TrainOutput=export_output.TrainOutput,
            EXPORT_TAG_MAP=model_utils.EXPORT_TAG_MAP,
            SIGNATURE_KEY_MAP=model_utils.SIGNATURE_KEY_MAP,
            export_outputs_for_mode=model_utils.export_outputs_for_mode,
            get_export_outputs=model_utils.get_export_outputs),
        "export.export_output": dict(TrainOutput=export_output.TrainOutput),
        "inputs.pandas_io": dict(HAS_PANDAS=helpers.HAS_PANDAS),
        "inputs.queues": {},
        "inputs.queues.feeding_functions": dict(HAS_PANDAS=helpers.HAS_PANDAS),
        "inputs.queues.feeding_queue_runner": {},
        "tools": {},
        "tools.analytics": dict(track_usage=helpers.track_usage,
                                track_numerical_issues=helpers.track_numerical_issues),
        # Parents of modules set in real_modules(); canned.v1 stays empty: the
        # conformance harness puts the original's v1 test helpers in it.
        "canned.v1": {},
        "canned.linear_optimizer": {},
        "canned.linear_optimizer.python": {},
        "canned.linear_optimizer.python.utils": {},
        "canned.timeseries": {},
    }
    return tree


def extend_tree(tree: Dict[str, Dict[str, object]], v1_api: types.ModuleType,
                v2_api: types.ModuleType) -> None:
    """Adds the original's remaining names to aliases' `tree`.

    Args:
        tree: Module path under `tensorflow_estimator.` -> its attributes, as
            `aliases._package_tree` makes it (its `python.estimator.keras_lib` entry
            holds the v1 model_to_estimator).
        v1_api: The tf.compat.v1.estimator namespace.
        v2_api: The tf.estimator namespace.
    """
    model_to_estimator = tree["python.estimator.keras_lib"]["model_to_estimator"]
    for path, names in _additions(v1_api, v2_api, model_to_estimator).items():
        key = "python.estimator." + path
        if path == "estimator_lib":
            tree[key] = dict(names)  # Exactly the original's re-exports.
        else:
            tree.setdefault(key, {}).update(names)


def real_modules() -> Dict[str, types.ModuleType]:
    """Path under python.estimator. -> a module of ours that is the original's module."""
    modules = {
        "gc": export_gc, "extenders": extenders, "estimator_export": estimator_export,
        "export.function": export_function, "hooks.fake_summary_writer": fake_summary_writer,
        "tools.checkpoint_converter": checkpoint_converter,
    }
    for path, name in _PENDING_MODULES.items():
        module = _optional_module(name)
        if module is not None:
            modules[path] = module
    return modules


def link(modules: Dict[str, types.ModuleType]) -> None:
    """Completes aliases' `modules` (sys.modules name -> module) once all are built.

    Sets the module-valued names of the `estimator_lib` re-export module, and adds
    the empty `api._v2.estimator.inputs` module: importable by path, but not an
    attribute of `tf.estimator` until imported, as in the original.
    """
    target = modules[_PREFIX + "estimator_lib"]
    for name, path in _ESTIMATOR_LIB_MODULES.items():
        setattr(target, name, modules[_PREFIX + path])
    inputs = _PREFIX + "api._v2.estimator.inputs"
    modules[inputs] = types.ModuleType(inputs, "tf.estimator.inputs: empty in TF2.")

