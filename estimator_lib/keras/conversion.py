"""model_to_estimator: a compiled tf.keras (tf_keras) model as an Estimator.

Each Estimator call clones the Keras model into its fresh graph (a v1 graph
model, as the original did), re-compiles the clone with the captured optimizer
config and the global step as its iteration counter, and returns the compiled
loss, update op, metrics and outputs as an EstimatorSpec. The model's current
weights reach the Estimator through a first checkpoint in `model_dir/keras/`
that the Estimator warm-starts from: all of them, trainable or not (the
original took trainable ones only: BatchNormalization's moving statistics were lost).
"""

import contextlib
import os
import re
import time
import warnings
from typing import Dict, List, Optional, Tuple

import numpy as np
import tensorflow as tf
import tf_keras
from tensorflow.python.checkpoint import graph_view
from tf_keras.src import backend as keras_backend
from tf_keras.src.mixed_precision import autocast_variable

from estimator_lib import _keras_switch
from estimator_lib import estimator as estimator_lib
from estimator_lib.distribute import strategies
from estimator_lib.export import PredictOutput
from estimator_lib.keras import safe_loading
from estimator_lib.model_fn import EstimatorSpec
from estimator_lib.model_fn import ModeKeys
from estimator_lib.run_config import RunConfig
from estimator_lib.warm_starting import WarmStartSettings

logging = tf.compat.v1.logging

_CHECKPOINT_FORMATS = ("checkpoint", "saver")
_KERAS_DIR = "keras"
_KERAS_CHECKPOINT = "keras_model.ckpt"


class FormattedKeyError(KeyError):
    """A KeyError whose message prints its newlines (KeyError quotes its argument)."""

    @property
    def message(self) -> str:
        """The message, as the original's `message` attribute."""
        return str(self.args[0])

    def __str__(self):
        return str(self.args[0])


def _is_graph_network(model) -> bool:
    return bool(getattr(model, "_is_graph_network", False))


def _names(model, attribute, prefix):
    names = getattr(model, attribute, None)
    if _is_graph_network(model) and names:
        return list(names)
    count = len(getattr(model, attribute.replace("_names", "s"), None) or []) or 1
    return [f"{prefix}_{i + 1}" for i in range(count)]


def _tensor(value):
    """An input_fn may return numpy arrays (the original converted them too)."""
    return tf.convert_to_tensor(value) if isinstance(value, np.ndarray) else value


def _as_keras_list(model, values, names, what):
    """Orders Estimator features/labels as the Keras model's inputs/outputs."""
    if values is None:
        return None
    if isinstance(values, dict):
        values = {key: _tensor(value) for key, value in values.items()}
        if model._is_graph_network and getattr(model, "_nested_inputs", None) is not None \
                and what == "features" and isinstance(model._nested_inputs, dict):
            return values  # Models built on a dict of Inputs take the dict itself.
        if what == "features" and not _is_graph_network(model) and \
                getattr(model, "inputs", None) is None:
            return values  # Input structure unknown (a subclassed model): as given.
        missing = [name for name in names if name not in values]
        if missing:
            raise FormattedKeyError(
                f"The dictionary passed into {what} does not have the expected "
                f"{'inputs' if what == 'features' else 'outputs'} keys defined in the keras "
                f"model.\n\tExpected keys: {set(names)}\n\t{what} keys: {set(values)}\n\t"
                f"Difference: {set(missing)}")
        return [values[name] for name in names]
    if isinstance(values, (list, tuple)):
        return [_tensor(value) for value in values]
    return [_tensor(values)]


def _estimator_io_to_keras(model, features, labels):
    """Returns (input_tensors, target_tensors, sample_weight_tensors)."""
    sample_weights = None
    if isinstance(features, dict) and set(features) == {"features", "sample_weights"}:
        features, sample_weights = features["features"], features["sample_weights"]
    inputs = _as_keras_list(model, features, _names(model, "input_names", "input"), "features")
    targets = _as_keras_list(model, labels, _names(model, "output_names", "output"), "labels")
    if sample_weights is not None:
        sample_weights = _as_keras_list(model, sample_weights,
                                        _names(model, "output_names", "output"),
                                        "sample_weights")
    return inputs, targets, sample_weights


@contextlib.contextmanager
def _explain_rebuild_failures():
    """Turns 'eager tensor in a graph' failures of a rebuilt model into one clear error."""
    try:
        yield
    except (RuntimeError, TypeError, ValueError) as e:
        if "EagerTensor" not in str(e):
            raise
        raise ValueError(
            "model_to_estimator could not rebuild the compiled model in the Estimator's "
            f"graph ({type(e).__name__}: {str(e).strip().splitlines()[-1]}). Its loss, "
            "metrics and layers are rebuilt in a new graph for every call, so they cannot "
            "capture eager tensors or variables made outside the model; compute such values "
            "inside the loss function, or use tf.keras loss and metric objects.") from e


def _clone_and_build(mode, keras_model, custom_objects, optimizer_config, features=None,
                     labels=None):
    """Clones `keras_model` into the current graph; compiled unless PREDICT."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # set_learning_phase is deprecated, and needed here.
        keras_backend.set_learning_phase(mode == ModeKeys.TRAIN)
    inputs, targets, sample_weights = _estimator_io_to_keras(keras_model, features, labels)
    compile_clone = mode != ModeKeys.PREDICT
    global_step = None
    if compile_clone:
        global_step = tf.compat.v1.train.get_or_create_global_step()
        keras_backend.track_variable(global_step)
    with _explain_rebuild_failures():
        clone = tf_keras.__internal__.models.clone_and_build_model(
            keras_model, inputs, targets, custom_objects=custom_objects,
            compile_clone=compile_clone, in_place_reset=not _is_graph_network(keras_model),
            optimizer_iterations=global_step, optimizer_config=optimizer_config)
    if sample_weights is not None:
        clone._compile_weights_loss_and_weighted_metrics(sample_weights)
    return clone


def _estimator_metrics(model, metric_names_map):
    metrics = {m.name: m for m in getattr(model, "_compile_metric_functions", [])}
    if not metric_names_map:
        return metrics
    if set(metric_names_map) != set(metrics):
        raise ValueError(
            "Invalid `metric_names_map`. The keys of the map must be exactly the model's "
            f"metric names {sorted(metrics)}: the keras model metric names "
            f"{sorted(set(metrics) - set(metric_names_map))} do not exist in the map; "
            f"unexpected keys: {sorted(set(metric_names_map) - set(metrics))}.")
    return {metric_names_map[name]: metric for name, metric in metrics.items()}


def _object_based_saver(model, *, sharded: bool = True):
    """A Saver writing TF2 object-based keys (checkpoint_format='checkpoint')."""
    model._track_trackable(tf.compat.v1.train.get_global_step(), "estimator_global_step",
                           overwrite=True)
    view = graph_view.ObjectGraphView(model)
    return tf.compat.v1.train.Saver(var_list=view.frozen_saveable_objects(), sharded=sharded)


@tf.__internal__.tracking.no_automatic_dependency_tracking  # Not a checkpoint dependency.
def _unwrap_autocast_for_optimizer(model):
    """Hands the optimizer the variables a mixed-precision policy wraps for casting.

    Each replica's clone wraps the shared MirroredVariable in its own AutoCastVariable,
    so the optimizer's cross-replica step receives a different object per replica and
    cannot find one variable to update (TF1 optimizers: `'PerReplica' object has no
    attribute 'name'`; Keras ones: `colocate_vars_with` refuses it). The layers still
    read through their wrappers, in the compute dtype; gradients reach the same float32
    variable either way.
    """
    model._collected_trainable_weights = [
        variable._variable if isinstance(variable, autocast_variable.AutoCastVariable)
        else variable for variable in model._collected_trainable_weights]


def _make_model_fn(keras_model, custom_objects, save_object_ckpt, metric_names_map,
                   export_outputs, optimizer_config):

    def model_fn(features, labels, mode):
        model = _clone_and_build(mode, keras_model, custom_objects, optimizer_config,
                                 features, labels)
        if tf.distribute.has_strategy():
            # Replicas add `_N` suffixes to output names; strip them as the original did.
            output_names = [re.sub(r"_\d+$", "", n) for n in model.output_names]
        else:
            output_names = model.output_names
        predictions = dict(zip(output_names, model.outputs))
        loss = train_op = None
        metrics = None
        replicas = tf.distribute.get_strategy().num_replicas_in_sync
        if mode != ModeKeys.PREDICT:
            if replicas > 1:
                # Keras already divided its loss by the replica count; a wrapped
                # tf.compat.v1 optimizer would divide it again unless told the loss is
                # summed (the original did divide twice: gradients 1/N too small).
                tf.compat.v1.get_default_graph()._last_loss_reduction = (  # pylint: disable=protected-access
                    tf.compat.v1.losses.Reduction.SUM)
            with _explain_rebuild_failures():
                if mode == ModeKeys.TRAIN:
                    _unwrap_autocast_for_optimizer(model)
                    model._make_train_function()
                else:
                    model._make_test_function()
            loss = model.total_loss
            if mode == ModeKeys.EVAL and replicas > 1:
                loss = loss * replicas  # Report each batch's own mean loss, not 1/N of it.
            metrics = _estimator_metrics(model, metric_names_map)
        if mode == ModeKeys.TRAIN:
            train_op = model.train_function.updates_op
        scaffold = None
        if save_object_ckpt:
            scaffold = tf.compat.v1.train.Scaffold(saver=_object_based_saver(model))
        # As the original: the default serving signature always, plus the custom ones.
        outputs = {"serving_default": PredictOutput(predictions)}
        for name in export_outputs or {}:
            outputs[name] = (export_outputs[name](predictions[name])
                             if isinstance(export_outputs[name], type) else export_outputs[name])
        return EstimatorSpec(mode, predictions=predictions, loss=loss, train_op=train_op,
                             eval_metric_ops=metrics, export_outputs=outputs,
                             scaffold=scaffold)

    # Not converted by AutoGraph under a strategy: this is estimator_lib's code, and the
    # Keras layers convert their own `call` (as they did under the original).
    return strategies.run_as_written(model_fn)


def _save_first_checkpoint(keras_model, custom_objects, config, save_object_ckpt,
                           optimizer_config) -> Tuple[Optional[str], List[str]]:
    """Writes the Keras weights to model_dir/keras once; returns its path, weight names.

    The path is None where model_dir holds the Estimator's own checkpoint; the names
    are the clone's, as the Estimator's graph names them (`dense/kernel:0`).
    """
    keras_dir = os.path.join(config.model_dir, _KERAS_DIR)
    existing = tf.train.latest_checkpoint(keras_dir)
    if existing:
        with tf.Graph().as_default():  # Only the weights' names are needed.
            model = _clone_and_build(ModeKeys.PREDICT, keras_model, custom_objects,
                                     optimizer_config)
            return existing, [weight.name for weight in model.weights]
    if tf.train.latest_checkpoint(config.model_dir):
        return None, []  # The Estimator restores its own checkpoint; warm start is not used.
    # Read the eager variables directly: after a first conversion the model refuses
    # get_weights() (tf_keras then sees it as a half-v1 model). A model built in a graph
    # (TF1 style, eager execution disabled) is read through the Keras session.
    if tf.executing_eagerly():
        weights = [variable.numpy() for variable in keras_model.weights]
    else:
        weights = tf_keras.backend.batch_get_value(keras_model.weights)
    with tf.Graph().as_default():
        tf.compat.v1.train.create_global_step()
        model = _clone_and_build(ModeKeys.TRAIN, keras_model, custom_objects, optimizer_config)
        with _explain_rebuild_failures():
            # The optimizer's slots and hyperparameters belong in the file: the original
            # wrote them (its key set equals the Estimator's checkpoints').
            model._make_train_function()
        # Build everything before the session's one run: ops added to a graph the session
        # already ran extend it again at every run (initialising variable by variable and
        # calling set_weights twice took about 0.5 s of 1 s here).
        init_op = tf.compat.v1.variables_initializer(
            tf.compat.v1.global_variables() + model.weights)
        # The initialisers assign the Keras weights: feed them in place of the clone's
        # initial values (one run, no assign ops or placeholders).
        feed = {variable.initial_value: value for variable, value in zip(model.weights, weights)}
        # One data file, keras_model.ckpt.data-00000-of-00001, as the original's
        # save_weights / Saver wrote (a sharded Saver writes one file per device string).
        saver = (_object_based_saver(model, sharded=False) if save_object_ckpt
                 else tf.compat.v1.train.Saver(sharded=False))
        tf.io.gfile.makedirs(keras_dir)
        with tf.compat.v1.Session(config=config.session_config) as session:
            session.run(init_op, feed_dict=feed)
            path = saver.save(session, os.path.join(keras_dir, _KERAS_CHECKPOINT),
                              write_meta_graph=not save_object_ckpt, write_state=True)
        return path, [weight.name for weight in model.weights]


def _multi_worker_worker(config) -> bool:
    """A non-chief training task of a multi-worker (MultiWorkerMirroredStrategy) job."""
    return (config.train_distribute is not None and config.task_type == "worker"
            and config.num_worker_replicas > 1 and not config.num_ps_replicas)


def _wait_for_first_checkpoint(config) -> None:
    """Waits until the chief wrote model_dir/keras (or model_dir has a checkpoint).

    Bounded as the strategy's wait for the cluster (ESTIMATOR_LIB_CLUSTER_WAIT_SECS).
    """
    from estimator_lib.distribute import cluster_wait  # pylint: disable=import-outside-toplevel
    bound = cluster_wait.cluster_wait_secs(os.environ)
    keras_dir = os.path.join(config.model_dir, _KERAS_DIR)
    deadline = None if bound is None else time.time() + bound
    while not (tf.train.latest_checkpoint(keras_dir)
               or tf.train.latest_checkpoint(config.model_dir)):
        if deadline is not None and time.time() > deadline:
            raise RuntimeError(
                f"model_to_estimator on {config.task_type}:{config.task_id} waited {bound:.0f} s "
                f"for the chief's first checkpoint in {keras_dir}. model_dir must be storage "
                "every task shares; set ESTIMATOR_LIB_CLUSTER_WAIT_SECS to wait longer.")
        time.sleep(0.05)  # Written by the chief, in another process.


def _warm_start_settings(path: str, weight_names: List[str]) -> WarmStartSettings:
    """Warm-starts every model weight, trainable or not, and no optimizer state.

    A single regex (the original's '.*') selects TRAINABLE_VARIABLES only, leaving
    moving statistics at their initial values; a list selects from GLOBAL_VARIABLES.
    Object-based checkpoints map these graph names to their keys themselves.
    """
    return WarmStartSettings(path, vars_to_warm_start=[
        f"{re.escape(name)}$" for name in weight_names])


def _legacy_optimizer(model):
    """Converts new-style tf_keras optimizers to their legacy class (the original's way).

    Returns the optimizer's config (a list of configs for a model compiled with several
    optimizers, such as a WideDeepModel's two), or None for a wrapped TF1 optimizer.
    """
    from tf_keras.src.optimizers import optimizer as new_optimizer  # pylint: disable=g-import-not-at-top
    from tf_keras.src import optimizers as optimizers_lib  # pylint: disable=g-import-not-at-top
    from tf_keras.src.optimizers import optimizer_v1  # pylint: disable=g-import-not-at-top
    several = isinstance(model.optimizer, (list, tuple))
    optimizers = list(model.optimizer) if several else [model.optimizer]
    if any(isinstance(optimizer, new_optimizer.Optimizer) for optimizer in optimizers):
        logging.warning(
            "You are using a new-style tf.keras.optimizers.Optimizer with model_to_estimator, "
            "which needs the legacy optimizer path. Automatically converting your optimizer to "
            "tf.keras.optimizers.legacy.Optimizer.")
        optimizers = [optimizers_lib.convert_to_legacy_optimizer(optimizer)
                      if isinstance(optimizer, new_optimizer.Optimizer) else optimizer
                      for optimizer in optimizers]
        model.optimizer = optimizers if several else optimizers[0]
    if any(isinstance(optimizer, optimizer_v1.TFOptimizer) for optimizer in optimizers):
        return None  # A wrapped TF1 optimizer (TFOptimizer) is cloned by the cloning code.
    configs = [optimizer.get_config() for optimizer in optimizers]
    return configs if several else configs[0]


def _freeze_compile_args(model):
    """Caches the compile arguments, as clone_and_build_model does at a compiled clone.

    A model built in a graph swaps tf_keras' model classes to their v1 bases, after
    which the original cannot report them; a PREDICT clone (not compiled) may come first.
    """
    if "_get_compile_args" in vars(model):
        return  # Cached already, by a compiled clone.
    compile_args = {flag: model._get_compile_args(user_metrics=flag) for flag in (True, False)}
    model._get_compile_args = lambda user_metrics=True: compile_args[user_metrics]


def model_to_estimator(keras_model=None, keras_model_path=None, custom_objects=None,
                       model_dir=None, config: Optional[RunConfig] = None,
                       checkpoint_format: str = "checkpoint",
                       metric_names_map: Optional[Dict[str, str]] = None,
                       export_outputs: Optional[dict] = None, *,
                       safe_mode: bool = True) -> estimator_lib.Estimator:
    """Builds an Estimator from a compiled tf.keras model (or a saved one at a path).

    Arguments and behaviour as `tf.keras.estimator.model_to_estimator`, plus
    `safe_mode`: a model loaded from `keras_model_path` may not deserialize Python
    `lambda` bytecode (Lambda layers), which can run arbitrary code, unless
    `safe_mode=False` says its source is trusted — Keras' safe mode, applied to the
    HDF5 and SavedModel formats too (the original loaded them unchecked).
    """
    if (keras_model is None) == (keras_model_path is None):
        raise ValueError(
            "Either `keras_model` or `keras_model_path` needs to be provided, not both. "
            f"Received: keras_model={type(keras_model).__name__}, "
            f"keras_model_path={keras_model_path!r}.")
    if checkpoint_format not in _CHECKPOINT_FORMATS:
        raise ValueError(
            f"Unknown checkpoint format {checkpoint_format!r}. Expected one of "
            f"{list(_CHECKPOINT_FORMATS)}.")
    if keras_model is not None:
        logging.info("Using the Keras model provided.")
    else:
        logging.info("Loading models from %s", keras_model_path)
        if safe_mode:
            safe_loading.refuse_python_lambdas(keras_model_path)
        from tf_keras.src.saving import serialization_lib  # pylint: disable=g-import-not-at-top
        with serialization_lib.SafeModeScope(safe_mode):
            keras_model = tf_keras.models.load_model(keras_model_path,
                                                     custom_objects=custom_objects,
                                                     safe_mode=safe_mode)
    _keras_switch.check_not_keras3(keras_model, argument="keras_model")
    if not isinstance(keras_model, tf_keras.Model):
        raise ValueError(
            f"`keras_model` must be a compiled tf.keras (tf_keras) Model. Received: "
            f"{type(keras_model).__module__}.{type(keras_model).__name__}.")
    if not getattr(keras_model, "optimizer", None):
        raise ValueError(
            "The given keras model has not been compiled yet. Please compile the model with "
            "`model.compile()` before calling `model_to_estimator()`.")
    save_object_ckpt = checkpoint_format == "checkpoint"
    if save_object_ckpt and not _is_graph_network(keras_model):
        raise ValueError(
            "Subclassed models cannot be converted with checkpoint_format='checkpoint'; pass "
            "checkpoint_format='saver' (name-based checkpoints) instead.")
    if not _is_graph_network(keras_model):
        try:
            keras_model.get_config()
        except NotImplementedError:
            raise ValueError(
                f"Subclassed models must implement `get_config` and `from_config` to be "
                f"cloned into the Estimator's graph; {type(keras_model).__name__} does not.") \
                from None
    if export_outputs is not None:
        unknown = set(export_outputs) - set(keras_model.output_names or [])
        if unknown:
            raise ValueError(
                f"`export_outputs` keys must be the model's output names "
                f"{keras_model.output_names}. Unknown: {sorted(unknown)}.")
    optimizer_config = _legacy_optimizer(keras_model)
    _freeze_compile_args(keras_model)
    if getattr(keras_model, "_jit_compile", None):
        logging.warning(
            "model_to_estimator does not apply compile(jit_compile=True): the model is "
            "rebuilt in a TF1 graph, which XLA compiles by auto-clustering. Pass a "
            "RunConfig session_config whose graph_options.optimizer_options.global_jit_level "
            "is ON_1, or call tf.config.optimizer.set_jit('autoclustering') (on CPU, also "
            "TF_XLA_FLAGS=--tf_xla_cpu_global_jit before TensorFlow starts).")

    config = estimator_lib.resolve_config(config, model_dir)
    model_fn = _make_model_fn(keras_model, custom_objects, save_object_ckpt, metric_names_map,
                              export_outputs, optimizer_config)
    warm_start = None
    if _is_graph_network(keras_model) and (config.is_chief or _multi_worker_worker(config)):
        if not config.is_chief:
            # Every task of a multi-worker job must warm-start alike: a warm-started
            # variable's initializer restores the file instead of receiving the chief's
            # broadcast, so a worker initialising from the broadcast waits forever.
            _wait_for_first_checkpoint(config)
        path, weight_names = _save_first_checkpoint(keras_model, custom_objects, config,
                                                    save_object_ckpt, optimizer_config)
        if path:
            warm_start = _warm_start_settings(path, weight_names)
    elif keras_model.built:
        logging.warning(
            "You are creating an Estimator from a Keras model manually subclassed from "
            "`Model`, that was already called on some inputs (and thus already had weights). "
            "We are currently unable to preserve the model's state (its weights) as part of "
            "the estimator in this case. Be warned that the estimator has been created using "
            "a freshly initialized version of your model.")
    return estimator_lib.Estimator(model_fn, config=config, warm_start_from=warm_start)
