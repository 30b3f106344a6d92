"""Models the binaries train, built as compiled tf.keras (tf_keras) models."""

import tensorflow as tf
import tf_keras

INPUT_NAME = "images"


def make_cnn(*, learning_rate: float = 0.001) -> tf_keras.Model:
    """The seed program's Fashion-MNIST CNN, compiled with a TF1 Adam optimizer."""
    model = tf_keras.Sequential([
        tf_keras.layers.InputLayer(input_shape=(28, 28, 1), name=INPUT_NAME),
        tf_keras.layers.Conv2D(32, 3, activation="relu"),
        tf_keras.layers.MaxPooling2D(),
        tf_keras.layers.Conv2D(64, 3, activation="relu"),
        tf_keras.layers.MaxPooling2D(),
        tf_keras.layers.Conv2D(64, 3, activation="relu"),
        tf_keras.layers.Flatten(),
        tf_keras.layers.Dense(64, activation="relu"),
        tf_keras.layers.Dense(10, activation="softmax"),
    ])
    model.compile(optimizer=tf.compat.v1.train.AdamOptimizer(learning_rate=learning_rate),
                  loss="categorical_crossentropy", metrics=["accuracy"])
    return model
