"""Models the binaries train, built as compiled tf.keras (tf_keras) models.

Both are the seed programs': the Fashion-MNIST CNN and the OCT transfer model
(VGG16 with only its last layers trainable), compiled with the TF1 Adam
optimizer the seed passes to `compile()`.
"""

import os
from typing import Optional, Sequence, Tuple

import tensorflow as tf
import tf_keras

INPUT_NAME = "images"
# The VGG16 layers left trainable, as the seed: block5_conv1..3 and block5_pool.
VGG16_TRAINABLE_LAYERS = 4
# ImageNet's mean RGB pixel: VGG16's ImageNet weights expect it subtracted.
_IMAGENET_MEAN_RGB = (123.68, 116.779, 103.939)


class WeightsError(ValueError):
    """`weights` cannot be loaded; the message is one line saying what to do."""


def make_optimizer(learning_rate: float, *, dtype: str = "float32"):
    """Makes the seed's TF1 Adam; a tf_keras Adam under mixed_float16, which needs loss scaling.

    Keras wraps a Keras optimizer in a LossScaleOptimizer under mixed_float16 and
    refuses a TF1 one.
    """
    if dtype == "mixed_float16":
        return tf_keras.optimizers.legacy.Adam(learning_rate=learning_rate)
    return tf.compat.v1.train.AdamOptimizer(learning_rate=learning_rate)


def _head(x, num_classes: int, dtype: str):
    if dtype == "float32":
        return tf_keras.layers.Dense(num_classes, activation="softmax")(x)
    # Mixed precision: the softmax in float32, so the loss stays accurate.
    x = tf_keras.layers.Dense(num_classes)(x)
    return tf_keras.layers.Activation("softmax", dtype="float32")(x)


def _compile(model: tf_keras.Model, learning_rate: float, dtype: str) -> tf_keras.Model:
    model.compile(optimizer=make_optimizer(learning_rate, dtype=dtype),
                  loss="categorical_crossentropy", metrics=["accuracy"])
    return model


def make_cnn(*, input_shape: Tuple[int, int, int] = (28, 28, 1), num_classes: int = 10,
             learning_rate: float = 0.001, dtype: str = "float32",
             weights: Optional[str] = None) -> tf_keras.Model:
    """Builds the seed program's Fashion-MNIST CNN, compiled with a TF1 Adam optimizer.

    Args:
        input_shape: (height, width, channels) of an image.
        num_classes: Softmax outputs.
        learning_rate: Adam's learning rate.
        dtype: The Keras policy already set globally ('float32' or 'mixed_*').
        weights: A file of this model's weights (`model.save_weights`), or None.

    Raises:
        WeightsError: If `weights` cannot be loaded into this model.
    """
    inputs = tf_keras.Input(shape=input_shape, name=INPUT_NAME)
    x = tf_keras.layers.Conv2D(32, 3, activation="relu")(inputs)
    x = tf_keras.layers.MaxPooling2D()(x)
    x = tf_keras.layers.Conv2D(64, 3, activation="relu")(x)
    x = tf_keras.layers.MaxPooling2D()(x)
    x = tf_keras.layers.Conv2D(64, 3, activation="relu")(x)
    x = tf_keras.layers.Flatten()(x)
    x = tf_keras.layers.Dense(64, activation="relu")(x)
    model = tf_keras.Model(inputs, _head(x, num_classes, dtype), name="cnn")
    if weights:
        _load(model, weights, what="the cnn model")
    return _compile(model, learning_rate, dtype)


def make_vgg16(*, input_shape: Tuple[int, int, int] = (224, 224, 3), num_classes: int = 4,
               weights: Optional[str] = "imagenet", learning_rate: float = 0.001,
               dtype: str = "float32",
               trainable_layers: int = VGG16_TRAINABLE_LAYERS) -> tf_keras.Model:
    """Builds the seed's OCT transfer model: VGG16 base, its last layers trainable, softmax head.

    Images arrive in [0, 1]; they are scaled to [0, 255] and the ImageNet mean is
    subtracted in the model (what the ImageNet weights were trained on; OCT scans
    are gray, so the channel order does not matter).

    Args:
        input_shape: (height, width, 3), at least 32x32.
        num_classes: Softmax outputs (4 OCT classes).
        weights: 'imagenet' (downloaded once into ~/.keras/models), None for
            random weights, or the path of a VGG16 base (no top) weights file.
        learning_rate: Adam's learning rate.
        dtype: The Keras policy already set globally.
        trainable_layers: Last layers of the base left trainable.

    Raises:
        WeightsError: If the weights cannot be downloaded or loaded.
    """
    inputs = tf_keras.Input(shape=input_shape, name=INPUT_NAME)
    x = tf_keras.layers.Rescaling(255.0, offset=[-m for m in _IMAGENET_MEAN_RGB])(inputs)
    base = _vgg16_base(x, weights)
    for layer in base.layers[:-trainable_layers]:
        layer.trainable = False
    x = tf_keras.layers.Flatten()(base.output)
    model = tf_keras.Model(inputs, _head(x, num_classes, dtype), name="vgg16_transfer")
    return _compile(model, learning_rate, dtype)


def _vgg16_base(x, weights: Optional[str]) -> tf_keras.Model:
    try:
        return tf_keras.applications.VGG16(include_top=False, weights=weights, input_tensor=x)
    except Exception as error:  # pylint: disable=broad-except
        # Keras raises a bare Exception for a failed download, OSError/ValueError for a
        # bad file: each becomes one line.
        if weights == "imagenet":
            raise WeightsError(
                "Could not download VGG16's ImageNet weights "
                f"({_first_line(error)}). Offline, put "
                "vgg16_weights_tf_dim_ordering_tf_kernels_notop.h5 in ~/.keras/models/ or "
                "pass --weights=/path/to/that/file, or --weights=none for random "
                "weights.") from None
        raise WeightsError(
            f"Could not load VGG16 base weights from {weights}: {_first_line(error)}. "
            "It must be a VGG16 no-top weights file (.h5), or use --weights=imagenet or "
            "none.") from None


def _load(model: tf_keras.Model, path: str, *, what: str) -> None:
    try:
        model.load_weights(path)
    except Exception as error:  # pylint: disable=broad-except
        raise WeightsError(
            f"Could not load {what}'s weights from {os.fspath(path)}: "
            f"{_first_line(error)}. Save them with model.save_weights, or use "
            "--weights=none.") from None


def _first_line(error: BaseException) -> str:
    lines: Sequence[str] = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__
