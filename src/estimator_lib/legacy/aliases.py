"""install(): the legacy estimator import surfaces, resolved to estimator_lib.

TensorFlow 2.16 removed `tf.estimator` and the `tensorflow_estimator` package no
longer imports, so a legacy program stops at its first import. After
`install()` these resolve to estimator_lib:

- `tf.estimator` (and `tf.compat.v2.estimator`): the TF2 names;
- `tf.compat.v1.estimator`: the v1 names — `Estimator` with the deprecated
  `export_savedmodel(..., strip_default_attrs=False)`, `inputs.numpy_input_fn`,
  `inputs.pandas_input_fn`, `tpu.*`;
- `tf.keras.estimator.model_to_estimator`, `tf.compat.v1.keras.estimator.
  model_to_estimator` and `tf_keras.estimator.model_to_estimator`: tf_keras
  imports `tensorflow_estimator.python.estimator.keras_lib` when called, which
  now exists (the v1 surface keeps its `checkpoint_format='saver'` default);
- `import tensorflow_estimator`, the common `tensorflow_estimator.python.
  estimator.*` module paths, and the older `tensorflow.python.estimator.*` ones;
  with the rest of the original's public names at their paths (original_paths.py:
  `util`, `gc`, `export.function`, `tools.checkpoint_converter`, ...).

Classes legacy libraries subclass at import time (SessionRunHook, Exporter,
RunConfig, ...) are the library's own; so are the canned estimators, heads and
TPUEstimator, whose module paths resolve to the real modules (module_aliases).
What is not re-provided (BoostedTrees*) is importable and raises
NotImplementedError naming the alternative when built (legacy.unsupported). `install()` is idempotent; `uninstall()` undoes it.
"""

import importlib.machinery
import sys
import threading
import types
from typing import Dict, Mapping, Tuple

import tensorflow as tf

from estimator_lib.hooks import early_stopping
from estimator_lib import canned
from estimator_lib.canned import linear_sdca
from estimator_lib.canned import rnn
from estimator_lib.engine import estimator as estimator_module
from estimator_lib.engine.estimator_v1 import EstimatorV1
from estimator_lib import export
from estimator_lib.export import receivers
from estimator_lib.export import exporters
from estimator_lib.export import v1_export
from estimator_lib.engine import extenders
from estimator_lib import hooks
from estimator_lib import keras as keras_module
from estimator_lib.core import model_fn
from estimator_lib.legacy import module_aliases
from estimator_lib.legacy import numpy_io
from estimator_lib.legacy import original_paths
from estimator_lib.core import run_config
from estimator_lib.engine import train_eval
from estimator_lib.legacy import unsupported
from estimator_lib.tf_internals import module_attributes
from estimator_lib.graph import warm_starting

logging = tf.compat.v1.logging

Estimator = estimator_module.Estimator

# The version of the original API these surfaces reproduce (some libraries read it).
API_VERSION = "2.15.0"

_SESSION_RUN_HOOK = ("SessionRunHook", "SessionRunArgs", "SessionRunContext",
                     "SessionRunValues")
_BASIC_HOOKS = ("LoggingTensorHook", "StopAtStepHook", "CheckpointSaverHook",
                "CheckpointSaverListener", "StepCounterHook", "NanTensorHook",
                "NanLossDuringTrainingError", "SummarySaverHook", "GlobalStepWaiterHook",
                "FinalOpsHook", "FeedFnHook", "ProfilerHook", "SecondOrStepTimer")
_EXPORT = ("ServingInputReceiver", "TensorServingInputReceiver",
           "build_parsing_serving_input_receiver_fn", "build_raw_serving_input_receiver_fn",
           "ExportOutput", "ClassificationOutput", "RegressionOutput", "PredictOutput",
           "EvalOutput")
_EXPERIMENTAL = ("InMemoryEvaluatorHook", "make_early_stopping_hook",
                 "make_stop_at_checkpoint_step_hook", "read_eval_metrics",
                 "stop_if_higher_hook", "stop_if_lower_hook", "stop_if_no_decrease_hook",
                 "stop_if_no_increase_hook", "build_raw_supervised_input_receiver_fn",
                 "call_logit_fn", "LinearSDCA")
# tf.estimator.experimental only (the original exported them with v1=[]).
_EXPERIMENTAL_V2 = ("RNNClassifier", "RNNEstimator")
# export/export.py's helpers that its other modules (SavedModelEstimator) call.
_EXPORT_HELPERS = ("build_supervised_input_receiver_fn_from_input_fn",
                   "wrap_and_check_input_tensors")


# tf.estimator.experimental's names, from the modules that define them (the public
# estimator_lib.experimental re-exports the same; legacy/ sits below the public face).
experimental = types.SimpleNamespace(
    **{name: getattr(module, name) for module, names in (
        (early_stopping, _EXPERIMENTAL[:8]),
        (receivers, ("build_raw_supervised_input_receiver_fn",)),
        (model_fn, ("call_logit_fn",)),
        (linear_sdca, ("LinearSDCA",)),
        (rnn, _EXPERIMENTAL_V2)) for name in names})


def keras_lib_model_to_estimator(keras_model=None, keras_model_path=None, custom_objects=None,
                                 model_dir=None, config=None, checkpoint_format="saver",
                                 use_v2_estimator=False, metric_names_map=None,
                                 export_outputs=None):
    """`tensorflow_estimator.python.estimator.keras_lib.model_to_estimator`.

    What tf_keras' `model_to_estimator` functions call; the v1 estimator is returned
    unless `use_v2_estimator`.
    """
    result = keras_module.model_to_estimator(
        keras_model=keras_model, keras_model_path=keras_model_path,
        custom_objects=custom_objects, model_dir=model_dir, config=config,
        checkpoint_format=checkpoint_format, metric_names_map=metric_names_map,
        export_outputs=export_outputs)
    if not use_v2_estimator:
        result.__class__ = EstimatorV1  # Only adds methods; the state is the same.
    return result


def _names(module, names) -> Dict[str, object]:
    return {name: getattr(module, name) for name in names}


def _unsupported(names) -> Dict[str, object]:
    return {name: getattr(unsupported, name) for name in names}


def _api_attributes(*, v1: bool) -> Dict[str, object]:
    """The top-level names of tf.estimator (v1=False) or tf.compat.v1.estimator."""
    attributes = dict(
        Estimator=EstimatorV1 if v1 else Estimator,
        EstimatorSpec=model_fn.EstimatorSpec, ModeKeys=model_fn.ModeKeys,
        RunConfig=run_config.RunConfig, TrainSpec=train_eval.TrainSpec,
        EvalSpec=train_eval.EvalSpec, train_and_evaluate=train_eval.train_and_evaluate,
        Exporter=exporters.Exporter, LatestExporter=exporters.LatestExporter,
        FinalExporter=exporters.FinalExporter, BestExporter=exporters.BestExporter,
        WarmStartSettings=warm_starting.WarmStartSettings, VocabInfo=warm_starting.VocabInfo,
        add_metrics=extenders.add_metrics)
    attributes.update(_names(hooks, _SESSION_RUN_HOOK + _BASIC_HOOKS))
    attributes.update(module_aliases.api_names(v1=v1))
    attributes.update(_unsupported(unsupported.CANNED_NAMES))
    return attributes


def _api_children(*, v1: bool) -> Dict[str, Dict[str, object]]:
    """The sub-namespaces (export, experimental, and for v1 inputs and tpu)."""
    children = {
        "export": _names(export, _EXPORT),
        "experimental": dict(
            _names(experimental, _EXPERIMENTAL),
            **(canned.TF_COMPAT_V1_ESTIMATOR_EXPERIMENTAL if v1
               else _names(experimental, _EXPERIMENTAL_V2)),
            **_unsupported(unsupported.V1_EXPERIMENTAL_NAMES if v1
                           else unsupported.EXPERIMENTAL_NAMES)),
    }
    if v1:
        children["inputs"] = _names(numpy_io, ("numpy_input_fn", "pandas_input_fn"))
        children["tpu"] = module_aliases.real_modules()["tpu"]
    return children


def _package_tree(v1_api, v2_api) -> Dict[str, Mapping[str, object]]:
    """Module path under `tensorflow_estimator.` -> its attributes (modules added later)."""
    estimator_names = dict(Estimator=EstimatorV1, EstimatorV2=Estimator,
                           VocabInfo=warm_starting.VocabInfo,
                           WarmStartSettings=warm_starting.WarmStartSettings)
    model_fn_names = dict(EstimatorSpec=model_fn.EstimatorSpec, ModeKeys=model_fn.ModeKeys,
                          call_logit_fn=model_fn.call_logit_fn)
    basic_hooks = _names(hooks, _BASIC_HOOKS)
    session_run_hook = _names(hooks, _SESSION_RUN_HOOK)
    keras_lib = dict(model_to_estimator=keras_lib_model_to_estimator)
    exporter_names = _names(exporters, ("Exporter", "LatestExporter", "FinalExporter",
                                        "BestExporter"))
    inputs = _names(numpy_io, ("numpy_input_fn", "pandas_input_fn"))
    supervised = dict(_names(experimental, ("build_raw_supervised_input_receiver_fn",)),
                      **_names(export.receivers, _EXPORT_HELPERS))
    prefix = "python.estimator."
    tree = {
        "": dict(estimator=v1_api, __version__=API_VERSION),
        "python": {},
        "python.estimator": {},
        "python.estimator.api": {},
        "python.estimator.api._v1": dict(estimator=v1_api),
        "python.estimator.api._v2": dict(estimator=v2_api),
        prefix + "estimator": estimator_names,
        prefix + "estimator_lib": dict(vars(v1_api)),
        prefix + "run_config": _names(run_config, ("RunConfig", "TaskType")),
        prefix + "model_fn": model_fn_names,
        prefix + "mode_keys": dict(ModeKeys=model_fn.ModeKeys),
        prefix + "training": _names(train_eval, ("TrainSpec", "EvalSpec",
                                               "train_and_evaluate")),
        prefix + "exporter": exporter_names,
        prefix + "export": dict(vars(v1_api.export)),
        prefix + "export.export": dict(_names(export, _EXPORT[:4]), **supervised),
        prefix + "export.export_lib": dict(_names(export, _EXPORT), **supervised),
        prefix + "export.export_output": _names(export, _EXPORT[4:]),
        prefix + "hooks": dict(session_run_hook, **basic_hooks),
        prefix + "hooks.session_run_hook": session_run_hook,
        prefix + "hooks.basic_session_run_hooks": basic_hooks,
        prefix + "hooks.hooks": _names(early_stopping, ("InMemoryEvaluatorHook",
                                                        "make_stop_at_checkpoint_step_hook")),
        prefix + "early_stopping": _names(experimental, _EXPERIMENTAL[1:8]),
        prefix + "keras": keras_lib,
        prefix + "keras_lib": keras_lib,
        prefix + "warm_starting_util": estimator_names,
        prefix + "inputs": inputs,
        prefix + "inputs.inputs": inputs,
        prefix + "inputs.numpy_io": dict(numpy_input_fn=numpy_io.numpy_input_fn),
        prefix + "inputs.pandas_io": dict(pandas_input_fn=numpy_io.pandas_input_fn),
        prefix + "canned": dict(module_aliases.api_names(v1=True),
                                **_unsupported(unsupported.CANNED_NAMES)),
        prefix + "canned.boosted_trees": _unsupported(unsupported.CANNED_NAMES),
        prefix + "head": {name: getattr(v2_api, name) for name in module_aliases.HEAD_NAMES},
    }
    original_paths.extend_tree(tree, v1_api, v2_api)
    return {path: {k: v for k, v in attrs.items() if not k.startswith("__") or
                   k == "__version__"} for path, attrs in tree.items()}


def _new_module(name: str, attributes: Mapping[str, object], *, package: bool,
                doc: str = "Resolved to estimator_lib by estimator_lib.compat.install()."
                ) -> types.ModuleType:
    module = types.ModuleType(name, doc)
    module.__spec__ = importlib.machinery.ModuleSpec(name, loader=None, is_package=package)
    module.__package__ = name if package else name.rpartition(".")[0]
    if package:
        module.__path__ = []
    for key, value in attributes.items():
        setattr(module, key, value)
    return module


def _api_namespace(name: str, *, v1: bool) -> types.ModuleType:
    children = {child: attrs if isinstance(attrs, types.ModuleType)
                else _new_module(f"{name}.{child}", attrs, package=False)
                for child, attrs in _api_children(v1=v1).items()}
    return _new_module(name, dict(_api_attributes(v1=v1), **children), package=True)


def _build_modules() -> Tuple[types.ModuleType, types.ModuleType, Dict[str, types.ModuleType]]:
    """(tf.estimator, tf.compat.v1.estimator, {sys.modules name: module})."""
    api_root = "tensorflow_estimator.python.estimator.api"
    v2_api = _api_namespace(f"{api_root}._v2.estimator", v1=False)
    v1_api = _api_namespace(f"{api_root}._v1.estimator", v1=True)
    tree = _package_tree(v1_api, v2_api)
    real_modules = dict(module_aliases.real_modules(), **original_paths.real_modules())
    all_paths = list(tree) + ["python.estimator." + path for path in real_modules]
    paths = sorted(tree, key=lambda p: p.count("."))
    modules: Dict[str, types.ModuleType] = {}
    for path in paths:
        full = "tensorflow_estimator" + ("." + path if path else "")
        is_package = any(other.startswith(path + ".") or (not path and other)
                         for other in all_paths)
        modules[full] = _new_module(full, tree[path], package=is_package)
        if path:
            parent, _, leaf = full.rpartition(".")
            setattr(modules[parent], leaf, modules[full])
    # Real modules: set as attributes of their parents, not as synthetic copies.
    for path, module in sorted(real_modules.items()):
        full = "tensorflow_estimator.python.estimator." + path
        modules[full] = module
        parent, _, leaf = full.rpartition(".")
        _set_module_attribute(modules[parent], leaf, module)
    for api_name, api in ((f"{api_root}._v1.estimator", v1_api),
                          (f"{api_root}._v2.estimator", v2_api)):
        _add_namespace(modules, api_name, api)
        _add_namespace(modules, "tensorflow.estimator" if api is v2_api
                       else "tensorflow.compat.v1.estimator", api)
    _add_namespace(modules, "tensorflow.compat.v2.estimator", v2_api)
    original_paths.link(modules)
    # The pre-split path, still imported by some libraries.
    for full in [name for name in modules if name.startswith(
            "tensorflow_estimator.python.estimator")]:
        old = "tensorflow.python.estimator" + full[len("tensorflow_estimator.python.estimator"):]
        modules[old] = modules[full]
    return v2_api, v1_api, modules


def _set_module_attribute(parent: types.ModuleType, leaf: str,
                          module: types.ModuleType) -> None:
    """`parent.leaf = module`, unless it would overwrite a module of our own package."""
    if getattr(parent, "__name__", "").startswith("tensorflow_estimator"):
        setattr(parent, leaf, module)


def _add_namespace(modules: Dict[str, types.ModuleType], name: str,
                   api: types.ModuleType) -> None:
    modules[name] = api
    for child in _api_children(v1=hasattr(api, "inputs")):
        modules[f"{name}.{child}"] = getattr(api, child)


_lock = threading.Lock()
_assignments = module_attributes.Assignments()
_installed_api: Dict[str, types.ModuleType] = {}


def install() -> None:
    """Makes the legacy estimator import surfaces resolve to estimator_lib.

    Sets `tf.estimator`, `tf.compat.v1.estimator` and `tf.compat.v2.estimator`, and
    registers `tensorflow_estimator` (with its common `python.estimator.*` modules,
    also under the old `tensorflow.python.estimator.*` names) in `sys.modules`.
    Calling it again does nothing; never touches `tf.keras` (that would fix the
    Keras version before the program chooses it).
    """
    with _lock:
        if _installed_api and getattr(tf, "estimator", None) is _installed_api["v2"]:
            return
        v2_api, v1_api, modules = _build_modules()
        import tensorflow.python as tf_python  # pylint: disable=import-outside-toplevel
        _assignments.set(tf, "estimator", v2_api)
        _assignments.set(tf.compat.v1, "estimator", v1_api)
        _assignments.set(tf.compat.v2, "estimator", v2_api)
        _assignments.set(tf_python, "estimator", modules["tensorflow.python.estimator"])
        for name, module in modules.items():
            _assignments.set(sys.modules, name, module)
        _installed_api.update(v1=v1_api, v2=v2_api)
        logging.debug("estimator_lib.compat: installed %d legacy module paths.", len(modules))


def uninstall() -> None:
    """Undoes `install()`: the attributes and sys.modules entries it set are restored."""
    with _lock:
        _assignments.undo()
        _installed_api.clear()


def is_installed() -> bool:
    """True while `install()`'s surfaces are in place."""
    return bool(_installed_api) and getattr(tf, "estimator", None) is _installed_api["v2"]
