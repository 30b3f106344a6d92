"""`signal_early_stopping/STOP`: the variable the original's early-stopping hooks made.

The original's hooks stopped workers through it, so its checkpoints hold it, and
its graph of a program with an early-stopping hook restores it: a model_dir
written here must hold it too for the original to resume it, and a model_dir
written by the original restores it here (tests/estimator_lib/variable_lists_test.py).
Our hooks decide without reading it; they set it when they stop, to what the
original stored: True, or under a strategy, where the original's hook made an
int32 that each replica's vote to stop added 1 to, the number of replicas that
voted (1 with one replica, as recorded from the original).
"""

from typing import Optional

import tensorflow as tf

from estimator_lib.graph import restore

logging = tf.compat.v1.logging

SCOPE = "signal_early_stopping"
NAME = "STOP"


def _checkpoint_lacks_it(model_dir: Optional[str]) -> bool:
    """Whether the checkpoint training will resume from predates the variable."""
    checkpoint = restore.latest_checkpoint(model_dir)
    if checkpoint is None:
        return False
    try:
        return not tf.train.load_checkpoint(checkpoint).has_tensor(f"{SCOPE}/{NAME}")
    except (tf.errors.OpError, ValueError):  # Unreadable: training's restore reports it.
        return False


def get_or_create(model_dir: Optional[str]) -> tf.Variable:
    """The STOP variable of the current graph, created on first use.

    A global variable (saved), as the original's, unless model_dir's checkpoint was
    written without it (training first ran without early stopping): then a local one,
    initialised rather than restored, so that the resume works (the original's failed
    with "Key signal_early_stopping/STOP not found in checkpoint").
    """
    collection = tf.compat.v1.GraphKeys.GLOBAL_VARIABLES
    if _checkpoint_lacks_it(model_dir):
        logging.info("%s/%s is not in the checkpoint of %s: kept out of its checkpoints.",
                     SCOPE, NAME, model_dir)
        collection = tf.compat.v1.GraphKeys.LOCAL_VARIABLES
    with tf.compat.v1.variable_scope(SCOPE, values=[], reuse=tf.compat.v1.AUTO_REUSE):
        if tf.distribute.has_strategy():
            return tf.compat.v1.get_variable(
                NAME, shape=[], dtype=tf.int32, initializer=tf.compat.v1.zeros_initializer(),
                collections=[collection], trainable=False,
                synchronization=tf.VariableSynchronization.ON_WRITE,
                aggregation=tf.VariableAggregation.SUM)
        return tf.compat.v1.get_variable(
            NAME, shape=[], dtype=tf.bool, initializer=tf.compat.v1.constant_initializer(False),
            collections=[collection], trainable=False)


def assign_stopped(variable: tf.Variable) -> tf.Operation:
    """The op setting the variable as the original left it after stopping early: True,
    or under a strategy 1 per replica (each voted to stop). In the current graph."""
    if variable.dtype.base_dtype == tf.bool:
        return tf.compat.v1.assign(variable, True).op
    replicas = tf.distribute.get_strategy().num_replicas_in_sync
    return tf.compat.v1.assign(variable, tf.constant(replicas, tf.int32)).op
