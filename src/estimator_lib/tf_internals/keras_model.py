"""model_to_estimator's writes into tf_keras objects: the model clone and the graph.

tf_keras offers no public way to do these three things, which the conversion needs;
each is a private attribute tf_keras 2.15-2.21 has (registry.py lists them).
"""

import tensorflow as tf
from tf_keras.src.mixed_precision import autocast_variable


@tf.__internal__.tracking.no_automatic_dependency_tracking  # Not a checkpoint dependency.
def unwrap_autocast_trainable_weights(model) -> None:
    """Hands the optimizer the variables a mixed-precision policy wraps for casting
    (the model's private `_collected_trainable_weights`).

    Each replica's clone wraps the shared MirroredVariable in its own AutoCastVariable,
    so the optimizer's cross-replica step receives a different object per replica and
    cannot find one variable to update (TF1 optimizers: `'PerReplica' object has no
    attribute 'name'`; Keras ones: `colocate_vars_with` refuses it). The layers still
    read through their wrappers, in the compute dtype; gradients reach the same float32
    variable either way.
    """
    model._collected_trainable_weights = [  # pylint: disable=protected-access
        variable._variable  # pylint: disable=protected-access
        if isinstance(variable, autocast_variable.AutoCastVariable) else variable
        for variable in model._collected_trainable_weights]  # pylint: disable=protected-access


def freeze_compile_args(model) -> None:
    """Caches `model._get_compile_args` on the instance, as tf_keras' own
    clone_and_build_model does at a compiled clone (after a graph-mode build, the model
    classes swap to their v1 bases, which cannot report them)."""
    if "_get_compile_args" in vars(model):
        return  # Cached already, by a compiled clone.
    compile_args = {flag: model._get_compile_args(user_metrics=flag)  # pylint: disable=protected-access
                    for flag in (True, False)}
    model._get_compile_args = lambda user_metrics=True: compile_args[user_metrics]  # pylint: disable=protected-access


def mark_loss_summed(graph: tf.Graph) -> None:
    """Tells a wrapped tf.compat.v1 optimizer that the loss in `graph` is already divided
    by the replica count (the graph's private `_last_loss_reduction`, which
    `tf.compat.v1.losses` sets and the optimizer reads)."""
    graph._last_loss_reduction = tf.compat.v1.losses.Reduction.SUM  # pylint: disable=protected-access
