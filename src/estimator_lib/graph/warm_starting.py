"""WarmStartSettings: initialising a new model from another checkpoint or SavedModel."""

import collections
import os
from typing import Optional, Union

import tensorflow as tf

logging = tf.compat.v1.logging

VocabInfo = tf.compat.v1.train.VocabInfo


class WarmStartSettings(collections.namedtuple("WarmStartSettings", [
        "ckpt_to_initialize_from", "vars_to_warm_start", "var_name_to_vocab_info",
        "var_name_to_prev_var_name"])):
    """Which variables to take from which checkpoint (fields as tf.estimator's).

    Examples:
        A model trained three steps (w from 0 to 0.488), then a second model_dir
        warm-started from it: its first step starts at 0.488, not at 0:

        >>> import tempfile
        >>> import tensorflow as tf
        >>> import estimator_lib
        >>> def model_fn(features, labels, mode):
        ...     w = tf.compat.v1.get_variable("w", [], initializer=tf.compat.v1.zeros_initializer())
        ...     loss = tf.square(w - features["x"][0])
        ...     step = tf.compat.v1.train.get_or_create_global_step()
        ...     train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, step)
        ...     return estimator_lib.EstimatorSpec(mode, loss=loss, train_op=train_op)
        >>> def input_fn():
        ...     return tf.data.Dataset.from_tensors(({"x": [1.0]}, [1.0])).repeat()
        >>> first = estimator_lib.Estimator(model_fn, model_dir=tempfile.mkdtemp())
        >>> first = first.train(input_fn, steps=3)
        >>> settings = estimator_lib.WarmStartSettings(first.model_dir, vars_to_warm_start="w")
        >>> second = estimator_lib.Estimator(model_fn, model_dir=tempfile.mkdtemp(),
        ...                                  warm_start_from=settings)
        >>> second = second.train(input_fn, steps=1)
        >>> round(float(first.get_variable_value("w")), 4), round(float(
        ...     second.get_variable_value("w")), 4)
        (0.488, 0.5904)
    """

    def __new__(cls, ckpt_to_initialize_from, vars_to_warm_start=".*",
                var_name_to_vocab_info=None, var_name_to_prev_var_name=None):
        if not ckpt_to_initialize_from:
            raise ValueError(
                "`ckpt_to_initialize_from` must be a checkpoint path or directory. "
                f"Received: {ckpt_to_initialize_from!r}.")
        return super().__new__(
            cls, os.fspath(ckpt_to_initialize_from), vars_to_warm_start,
            var_name_to_vocab_info or {}, var_name_to_prev_var_name or {})


def _saved_model_variables(path: str) -> Optional[str]:
    index = os.path.join(tf.compat.as_str(path), "variables", "variables.index")
    if tf.io.gfile.exists(index):
        return os.path.join(tf.compat.as_str(path), "variables", "variables")
    return None


def resolve(warm_start_from: Union[None, str, os.PathLike, WarmStartSettings]
            ) -> Optional[WarmStartSettings]:
    """Normalises Estimator's `warm_start_from` argument to WarmStartSettings or None."""
    if warm_start_from is None:
        return None
    if isinstance(warm_start_from, (str, bytes, os.PathLike)):
        path = tf.compat.as_str(os.fspath(warm_start_from))
        variables = _saved_model_variables(path)
        if variables:
            logging.info("Warm-starting from a SavedModel")
            return WarmStartSettings(variables)
        return WarmStartSettings(path)
    if isinstance(warm_start_from, WarmStartSettings):
        variables = _saved_model_variables(warm_start_from.ckpt_to_initialize_from)
        if variables:
            logging.info("Warm-starting from a SavedModel")
            return warm_start_from._replace(ckpt_to_initialize_from=variables)
        return warm_start_from
    raise ValueError(
        "`warm_start_from` must be a string path or a WarmStartSettings. Received: "
        f"{type(warm_start_from).__name__}.")


def apply(settings: WarmStartSettings) -> None:
    """Adds the warm-start initialisers to the current graph.

    A list in `vars_to_warm_start` whose entries match no variable of the graph
    gets a warning naming them: the original skipped them without a word, and a
    weight left at its initial value is a silent wrong answer.
    """
    logging.info("Warm-starting with WarmStartSettings: %s", settings)
    if isinstance(settings.vars_to_warm_start, (list, tuple)):
        unmatched = [pattern for pattern in settings.vars_to_warm_start
                     if isinstance(pattern, str) and not tf.compat.v1.get_collection(
                         tf.compat.v1.GraphKeys.GLOBAL_VARIABLES, scope=pattern)]
        if unmatched:
            logging.warning(
                "Warm-starting: %d of the %d entries of vars_to_warm_start match no variable "
                "of the graph, so nothing is warm-started for them: %s", len(unmatched),
                len(settings.vars_to_warm_start), ", ".join(unmatched))
    tf.compat.v1.train.warm_start(
        ckpt_to_initialize_from=settings.ckpt_to_initialize_from,
        vars_to_warm_start=settings.vars_to_warm_start,
        var_name_to_vocab_info=settings.var_name_to_vocab_info,
        var_name_to_prev_var_name=settings.var_name_to_prev_var_name)
