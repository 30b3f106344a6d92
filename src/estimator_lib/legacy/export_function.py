"""The original's `export/function.py`: a model_fn as tf.functions, one per mode.

`ModelFunction.from_function(model_fn)` holds one `EstimatorSpecFunction` per mode;
`predict(features)`, `train(features, labels)`, `evaluate(...)` call the mode's
function eagerly. Each is a `tf.function` of the model_fn with `mode`, `params` and
`config` bound (the arguments checked as the Estimator checks them).

As in tensorflow-estimator 2.15, the model_fn is traced by tf.function itself: it
must return tensors (or nests of them, such as a dict of predictions). A model_fn
returning an `EstimatorSpec` fails the trace with tf.function's TypeError, as it
did there (2.15's hook that turned the spec into its predictions and train_op was
no longer called by TensorFlow's tf.function), and `variables` stays empty.
"""

from typing import Callable, Iterable, Optional

import tensorflow as tf
from tensorflow.python.util import function_utils

from estimator_lib.core.model_fn import ModeKeys
from estimator_lib.core.model_fn import verify_model_fn_args

# tf.function's class, which the original subclassed; reached through TensorFlow's
# `__internal__` namespace as the original did (public `tf.function` returns
# instances of it but does not name it).
_Function = tf.compat.v2.__internal__.function.Function
_AutoTrackable = tf.compat.v2.__internal__.tracking.AutoTrackable


class ModelFunction(_AutoTrackable):
    """A trackable object holding a model_fn's tf.function for each mode."""

    def __init__(self, config=None, params=None):
        self._config = config
        self._params = params
        self._functions = {}
        # AutoTrackable wraps the dict in a trackable Mapping, as the original's was.
        self._variables_by_name = {}

    @staticmethod
    def from_function(model_fn: Callable, all_modes: Optional[Iterable[str]] = None,
                      config=None, params=None) -> "ModelFunction":
        """A ModelFunction with `model_fn` added for each of `all_modes` (default: all three).

        Args:
            model_fn: The model_fn.
            all_modes: The modes to add; None for TRAIN, EVAL and PREDICT.
            config: The `RunConfig` passed to the model_fn.
            params: The params passed to the model_fn.

        Returns:
            The `ModelFunction`.
        """
        if all_modes is None:
            all_modes = [ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT]
        obj = ModelFunction(config=config, params=params)
        for mode in all_modes:
            obj.add_mode(model_fn, mode)
        return obj

    @property
    def variables(self):
        """The variables the functions created, by name (a trackable dict).

        It stays empty, as in tensorflow-estimator 2.15: the model_fn is traced by
        tf.function itself (see the module's docstring).
        """
        return self._variables_by_name

    def add_mode(self, fn: Callable, mode: str, input_signature=None) -> None:
        """Adds `fn` as the function of `mode`.

        Args:
            fn: The function (a model_fn bound to a mode).
            mode: The `ModeKeys` mode.
            input_signature: The function's input signature, or None.

        Raises:
            ValueError: If `mode` already has a function.
        """
        if mode in self._functions:
            raise ValueError(f"ModelFunction object has multiple functions with name {mode}.")
        self._functions[mode] = EstimatorSpecFunction(
            fn, mode, config=self._config, params=self._params,
            input_signature=input_signature)

    def train(self, features, labels):
        """Calls the TRAIN function.

        Args:
            features: The features.
            labels: The labels.

        Returns:
            What the TRAIN function returns.

        Raises:
            ValueError: If no TRAIN function was added.
        """
        return self.call(ModeKeys.TRAIN, features, labels)

    def evaluate(self, features, labels):
        """Calls the EVAL function.

        Args:
            features: The features.
            labels: The labels.

        Returns:
            What the EVAL function returns.

        Raises:
            ValueError: If no EVAL function was added.
        """
        return self.call(ModeKeys.EVAL, features, labels)

    def predict(self, features):
        """Calls the PREDICT function (without labels).

        Args:
            features: The features.

        Returns:
            What the PREDICT function returns.

        Raises:
            ValueError: If no PREDICT function was added.
        """
        return self.call(ModeKeys.PREDICT, features)

    def call(self, mode: str, features, labels=None):
        """Calls the function of `mode` (with `labels` only if the model_fn takes them).

        Args:
            mode: The `ModeKeys` mode.
            features: The features.
            labels: The labels, or None.

        Returns:
            What the mode's function returns.

        Raises:
            ValueError: If no function was added for `mode`.
        """
        if mode not in self._functions:
            raise ValueError(
                f"Mode {mode} is not defined the ModelFunction. To add modes, use the "
                f"`add_mode()` function. Available modes: {self._functions.keys()}")
        fn = self._functions[mode]
        if fn.expects_labels:
            return fn(features, labels)
        return fn(features)


def _wrap_and_verify_model_fn(model_fn, mode=None, config=None, params=None,
                              input_signature=None):
    """(a function of the tensor arguments only, whether model_fn takes `labels`)."""
    verify_model_fn_args(model_fn, params)
    args = function_utils.fn_args(model_fn)
    kwargs = {}
    if "mode" in args:
        kwargs["mode"] = mode
    if "params" in args:
        kwargs["params"] = params
    if "config" in args:
        kwargs["config"] = config

    if "labels" in args:
        if input_signature is None or len(input_signature) == 2:

            def wrapped_model_fn(features, labels=None):
                return model_fn(features=features, labels=labels, **kwargs)
        else:

            def wrapped_model_fn(features):
                return model_fn(features=features, labels=None, **kwargs)
    else:

        def wrapped_model_fn(features):
            return model_fn(features=features, **kwargs)

    return wrapped_model_fn, "labels" in args


class EstimatorSpecFunction(_Function):
    """A tf.function of a model_fn for one mode, named after the mode."""

    def __init__(self, fn: Callable, mode: str, config=None, params=None,
                 variable_holder=None, **kwargs):
        """Wraps `fn`.

        Args:
            fn: The model_fn (Estimator contract: features, labels, mode, params, config).
            mode: The mode passed to it, also the function's name.
            config: Passed as `config` if fn takes it.
            params: Passed as `params` if fn takes it.
            variable_holder: Kept for the original's signature; unused.
            **kwargs: tf.function options (e.g. `input_signature`).
        """
        python_function, self.expects_labels = _wrap_and_verify_model_fn(
            fn, mode=mode, config=config, params=params,
            input_signature=kwargs.get("input_signature", None))
        super().__init__(python_function, mode, **kwargs)
        self._variable_holder = variable_holder
