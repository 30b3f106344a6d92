"""Optimizers of the canned estimators: by name, instance or callable.

v1 estimators take `tf.compat.v1.train.Optimizer`s, v2 estimators tf_keras'
legacy (OptimizerV2) optimizers; the defaults and learning rates are the
original's (`_LEARNING_RATE` when a name is given without one).
"""

import inspect
from typing import Any, Callable, Dict, Optional, Union

from absl import logging
import tensorflow as tf
import tf_keras

# The original's default learning rate for a name given without one.
_LEARNING_RATE = 0.05

_OPTIMIZER_CLS_NAMES: Dict[str, Callable[..., Any]] = {
    "Adagrad": tf.compat.v1.train.AdagradOptimizer,
    "Adam": tf.compat.v1.train.AdamOptimizer,
    "Ftrl": tf.compat.v1.train.FtrlOptimizer,
    "RMSProp": tf.compat.v1.train.RMSPropOptimizer,
    "SGD": tf.compat.v1.train.GradientDescentOptimizer,
}

_OPTIMIZER_CLS_NAMES_V2: Dict[str, Callable[..., Any]] = {
    "Adagrad": tf_keras.optimizers.legacy.Adagrad,
    "Adam": tf_keras.optimizers.legacy.Adam,
    "Ftrl": tf_keras.optimizers.legacy.Ftrl,
    "RMSProp": tf_keras.optimizers.legacy.RMSprop,
    "SGD": tf_keras.optimizers.legacy.SGD,
}

OptimizerArg = Union[str, Callable[[], Any], Any]


def _unknown_name(opt: str, names) -> ValueError:
    return ValueError(
        f"Unsupported optimizer name: {opt}. Supported names are: "
        f"{tuple(sorted(names))}")


def get_optimizer_instance(opt: OptimizerArg, learning_rate: Optional[float] = None):
    """Returns a `tf.compat.v1.train.Optimizer` for a name, an instance or a callable.

    Args:
        opt: 'Adagrad', 'Adam', 'Ftrl', 'RMSProp' or 'SGD'; an Optimizer; or a
            callable returning one.
        learning_rate: Required with a name; ignored otherwise.

    Raises:
        ValueError: If the name is unknown, a name comes without a learning
            rate, or the object is not a v1 Optimizer.
    """
    if isinstance(opt, str):
        if opt not in _OPTIMIZER_CLS_NAMES:
            raise _unknown_name(opt, _OPTIMIZER_CLS_NAMES)
        if not learning_rate:
            raise ValueError("learning_rate must be specified when opt is string.")
        return _OPTIMIZER_CLS_NAMES[opt](learning_rate=learning_rate)
    if callable(opt):
        opt = opt()
    if not isinstance(opt, tf.compat.v1.train.Optimizer):
        raise ValueError(f"The given object is not an Optimizer instance. Given: {opt}")
    return opt


def _optimizer_has_default_learning_rate(opt) -> bool:
    """Whether the optimizer class `opt`'s constructor has a default learning_rate."""
    params = inspect.signature(opt.__init__).parameters
    lr = params.get("learning_rate")
    return lr is not None and lr.default is not inspect.Parameter.empty


def is_new_keras_optimizer(opt) -> bool:
    """True for a tf_keras optimizer of the TF 2.11+ kind (not `legacy`)."""
    return isinstance(opt, tf_keras.optimizers.Optimizer) and not isinstance(
        opt, tf_keras.optimizers.legacy.Optimizer)


def to_legacy_if_new(opt):
    """Converts a TF 2.11+ tf_keras optimizer instance to its legacy twin (eagerly).

    The v2 estimators call this when they are constructed (eager), so an
    instance such as `tf.keras.optimizers.Adam()` works; the original only
    converted it when the model_fn ran eagerly, which it never did.
    """
    if is_new_keras_optimizer(opt):
        logging.warning(
            "Converting %s to tf.keras.optimizers.legacy.%s: the Estimator runs "
            "graph-mode training, which takes legacy Keras optimizers.",
            type(opt).__name__, type(opt).__name__)
        return tf_keras.__internal__.optimizers.convert_to_legacy_optimizer(opt)
    return opt


def get_optimizer_instance_v2(opt: OptimizerArg, learning_rate: Optional[float] = None):
    """Returns a tf_keras legacy optimizer for a name, an instance or a callable.

    A name without `learning_rate` gets the optimizer's own default learning
    rate (or 0.05 where it has none), as in the original.

    Raises:
        ValueError: If the name is unknown, the object is not a tf_keras
            optimizer, or it is a TF 2.11+ optimizer met in graph mode.
    """
    if isinstance(opt, str):
        if opt not in _OPTIMIZER_CLS_NAMES_V2:
            raise _unknown_name(opt, _OPTIMIZER_CLS_NAMES_V2)
        cls = _OPTIMIZER_CLS_NAMES_V2[opt]
        if learning_rate:
            return cls(learning_rate=learning_rate)
        if _optimizer_has_default_learning_rate(cls):
            return cls()
        return cls(learning_rate=_LEARNING_RATE)
    if callable(opt) and not isinstance(opt, (tf_keras.optimizers.Optimizer,
                                             tf_keras.optimizers.legacy.Optimizer)):
        opt = opt()
    if is_new_keras_optimizer(opt):
        if tf.executing_eagerly():
            return to_legacy_if_new(opt)
        name = type(opt).__name__
        raise ValueError(
            "Please set your optimizer as an instance of "
            f"`tf.keras.optimizers.legacy.Optimizer`, e.g., `tf.keras.optimizers.legacy.{name}`."
            f" Received optimizer type: {type(opt)}.")
    if not isinstance(opt, (tf_keras.optimizers.legacy.Optimizer, tf_keras.optimizers.Optimizer)):
        raise ValueError(
            f"The given object is not a tf.keras.optimizers.Optimizer instance. Given: {opt}")
    return opt


def check_optimizer_name(opt: OptimizerArg, *, arg_name: str = "optimizer") -> None:
    """Refuses an unknown optimizer name when an estimator is constructed.

    The original only noticed it inside the model_fn, after model_dir was
    created; the message is the same.
    """
    if isinstance(opt, str) and opt not in _OPTIMIZER_CLS_NAMES:
        err = _unknown_name(opt, _OPTIMIZER_CLS_NAMES)
        raise ValueError(f"`{arg_name}`: {err}")


class KerasOptimizerArg:
    """A v2 estimator's optimizer argument, made into one optimizer per graph.

    Every train() builds a new graph. A tf_keras legacy optimizer instance
    binds its `iterations` and hyperparameter variables to the first graph it
    builds in, so the original's second train() with the same instance failed
    ("Cannot set `iterations` to a new Variable ..."). Here the instance serves
    its first graph; later graphs get a fresh optimizer from its config, taken
    when the estimator was built.
    """

    def __init__(self, opt: OptimizerArg, *, learning_rate: Optional[float] = None):
        self._learning_rate = learning_rate
        self.opt = to_legacy_if_new(opt)
        self._config = None
        if isinstance(self.opt, tf_keras.optimizers.legacy.Optimizer):
            try:
                self._config = self.opt.get_config()
            except Exception:  # pylint: disable=broad-except
                self._config = None  # A subclass without a usable config: one graph only.

    def for_graph(self, *, bind_global_step: bool = True):
        """The optimizer for the current graph.

        Args:
            bind_global_step: Make its `iterations` the global step (so applying
                it advances the step), as the original did for one optimizer.
        """
        opt = get_optimizer_instance_v2(self.opt, learning_rate=self._learning_rate)
        used = (getattr(opt, "_iterations", None) is not None
                or getattr(opt, "_hypers_created", False))
        if used and opt is self.opt and self._config is not None:
            opt = type(opt).from_config(dict(self._config))
        if bind_global_step:
            opt.iterations = tf.compat.v1.train.get_or_create_global_step()
        return opt

    def __repr__(self):
        return f"KerasOptimizerArg({self.opt!r})"


def keras_optimizer_for_graph(opt, *, learning_rate: Optional[float] = None,
                              bind_global_step: bool = True):
    """An optimizer (or KerasOptimizerArg) made ready for this graph: see KerasOptimizerArg.

    Args:
        opt: An optimizer instance, a `KerasOptimizerArg`, a name or a callable.
        learning_rate: The learning rate a name is built with; None for the default.
        bind_global_step: Whether the optimizer's iterations are the graph's global step.

    Returns:
        A tf_keras legacy optimizer for the current graph.
    """
    if not isinstance(opt, KerasOptimizerArg):
        opt = KerasOptimizerArg(opt, learning_rate=learning_rate)
    return opt.for_graph(bind_global_step=bind_global_step)
