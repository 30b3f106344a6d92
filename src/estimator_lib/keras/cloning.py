"""A compiled Keras model cloned and built in the Estimator's graph, as the original did.

Each Estimator call builds the clone in its fresh graph (a v1 graph model): the
features and labels the input_fn gave become the clone's inputs and targets, and the
clone is compiled with the captured optimizer config and the global step as its
iteration counter. Used by keras/conversion.py (the model_fn, the first checkpoint).
"""

import contextlib

import numpy as np
import tensorflow as tf
import tf_keras
from tensorflow.python.checkpoint import graph_view
from tf_keras.src import backend as keras_backend

from estimator_lib.core.model_fn import ModeKeys
from estimator_lib.tf_internals import process_swaps


class FormattedKeyError(KeyError):
    """A KeyError whose message prints its newlines (KeyError quotes its argument)."""

    def __init__(self, message):  # pylint: disable=useless-super-delegation
        super().__init__(message)  # The original's signature: (message).

    @property
    def message(self) -> str:
        """The message, as the original's `message` attribute."""
        return str(self.args[0])

    def __str__(self):
        return str(self.args[0])


def is_graph_network(model) -> bool:
    """Whether `model` is a graph network (a functional or Sequential model with known inputs).

    A subclassed model, or a Sequential one not yet built, is not.

    Args:
        model: A Keras model.

    Returns:
        The model's `_is_graph_network` flag; False where it has none.
    """
    return bool(getattr(model, "_is_graph_network", False))


def _names(model, attribute, prefix):
    names = getattr(model, attribute, None)
    if is_graph_network(model) and names:
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
        if what == "features" and not is_graph_network(model) and \
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


def estimator_io_to_keras(model, features, labels):
    """Returns (input_tensors, target_tensors, sample_weight_tensors).

    Args:
        model: The Keras model.
        features: The input_fn's features (a tensor, or a dict by input name), or None.
        labels: The input_fn's labels (a tensor, or a dict by output name), or None.
    """
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
def explain_rebuild_failures():
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


def clone_and_build(mode, keras_model, custom_objects, optimizer_config, features=None,
                     labels=None):
    """Clones `keras_model` into the current graph; compiled unless PREDICT.

    Args:
        mode: The `ModeKeys` mode.
        keras_model: The Keras model to clone.
        custom_objects: The custom objects cloning needs, or None.
        optimizer_config: The optimizer's config to compile the clone with (a fresh optimizer
            per graph).
        features: The input_fn's features (a tensor, or a dict by input name), or None.
        labels: The input_fn's labels (a tensor, or a dict by output name), or None.

    Returns:
        The cloned `tf.keras` model, built on the features.
    """
    # set_learning_phase is deprecated, and needed here.
    with process_swaps.ignoring_warnings(
            "`tf.keras.backend.set_learning_phase` is deprecated"):
        keras_backend.set_learning_phase(mode == ModeKeys.TRAIN)
    inputs, targets, sample_weights = estimator_io_to_keras(keras_model, features, labels)
    compile_clone = mode != ModeKeys.PREDICT
    global_step = None
    if compile_clone:
        global_step = tf.compat.v1.train.get_or_create_global_step()
        keras_backend.track_variable(global_step)
    with explain_rebuild_failures():
        clone = tf_keras.__internal__.models.clone_and_build_model(
            keras_model, inputs, targets, custom_objects=custom_objects,
            compile_clone=compile_clone, in_place_reset=not is_graph_network(keras_model),
            optimizer_iterations=global_step, optimizer_config=optimizer_config)
    if sample_weights is not None:
        clone._compile_weights_loss_and_weighted_metrics(sample_weights)
    return clone


def object_based_saver(model, *, sharded: bool = True):
    """A Saver writing TF2 object-based keys (checkpoint_format='checkpoint')."""
    model._track_trackable(tf.compat.v1.train.get_global_step(), "estimator_global_step",
                           overwrite=True)
    view = graph_view.ObjectGraphView(model)
    return tf.compat.v1.train.Saver(var_list=view.frozen_saveable_objects(), sharded=sharded)
