"""Keeps `tf.keras` on Keras 2 (tf_keras), which graph-mode Estimators need.

TensorFlow resolves `tf.keras` lazily, on first use, from the environment
variable TF_USE_LEGACY_KERAS. estimator_lib sets it when it is imported before
that first use; `check_not_keras3` turns a Keras 3 object that reaches the
library anyway into one clear error.
"""

import os

LEGACY_KERAS_VARIABLE = "TF_USE_LEGACY_KERAS"

os.environ.setdefault(LEGACY_KERAS_VARIABLE, "1")


def use_keras2() -> None:
    """Sets TF_USE_LEGACY_KERAS=1 even where the caller set it otherwise (the legacy
    runner: a legacy program needs Keras 2; tf.keras resolves on first use)."""
    os.environ[LEGACY_KERAS_VARIABLE] = "1"

_FIX = (
    "estimator_lib runs Keras 2 (the `tf_keras` package) in graph mode. Import "
    "estimator_lib (or set TF_USE_LEGACY_KERAS=1) before TensorFlow first "
    "touches `tf.keras`, and build the model with `tf.keras` or `tf_keras`, "
    "not with `keras` 3.")


def is_keras3_object(obj) -> bool:
    """True when `obj` is an instance of a Keras 3 class (module `keras.*`)."""
    module = type(obj).__module__ or ""
    return module == "keras" or module.startswith("keras.")


def check_not_keras3(obj, *, argument: str) -> None:
    """Raises a ValueError naming `argument` if `obj` is a Keras 3 object."""
    if is_keras3_object(obj):
        raise ValueError(
            f"`{argument}` is a Keras 3 object "
            f"({type(obj).__module__}.{type(obj).__name__}). {_FIX}")


def keras3_in_use() -> bool:
    """True when `tf.keras` resolves to Keras 3 in this process."""
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    # What tf.keras's layers really are, not the module's name: `from
    # tensorflow.keras.layers import Dense` rebinds `tf.keras` to a module named
    # `tensorflow.keras` whose layers are still tf_keras's.
    layer = getattr(getattr(tf.keras, "layers", None), "Layer", None)
    module = getattr(layer, "__module__", None) or ""
    return module == "keras" or module.startswith("keras.")


def keras3_message(context: str) -> str:
    """The message for a failure that Keras 3 in `tf.keras` explains."""
    return f"{context} failed while `tf.keras` is Keras 3. {_FIX}"
