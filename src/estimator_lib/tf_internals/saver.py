"""Rebuilding a tf.compat.v1 Saver over new saveables (the steps_per_run loop's need).

A Saver built inside the in-graph loop's body must save and restore the variables
from the outer graph. `Saver` has no public way to swap its saveables and rebuild:
this sets its private `_var_list` and `_is_built` (present since TF 1.x; registry.py
lists them) and builds it again in `graph`.
"""

from typing import Callable

import tensorflow as tf


def rebuild(saver: tf.compat.v1.train.Saver, graph: tf.Graph,
            saveable_outside: Callable) -> None:
    """Rebuilds `saver` in `graph`, each saveable of its var_list mapped by
    `saveable_outside` (list, tuple or dict var_lists).

    Args:
        saver: The `Saver` to rebuild.
        graph: The graph to rebuild it in.
        saveable_outside: Maps each saveable of its var_list to the one in `graph`.
    """
    var_list = saver._var_list  # pylint: disable=protected-access
    if isinstance(var_list, (list, tuple)):
        var_list = [saveable_outside(s) for s in var_list]
    elif isinstance(var_list, dict):
        var_list = {k: saveable_outside(s) for k, s in var_list.items()}
    saver._var_list = var_list  # pylint: disable=protected-access
    saver.saver_def = None
    saver._is_built = False  # pylint: disable=protected-access
    with graph.as_default():
        saver.build()


def var_list(saver: tf.compat.v1.train.Saver):
    """The saveables `saver` was given (its private `_var_list`)."""
    return getattr(saver, "_var_list", None)
