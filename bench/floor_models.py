"""The models bench/floor.py measures (not a test): each setup returns the Estimator
class, its keyword arguments, the input_fn and the table's label.

`cnn` the seed CNN (custom model_fn, batch 512, 1 or 2 devices), `resnet` a small
ResNet (3 stages of 1 basic block, 16/32/64 filters, 32x32x3, batch 64), the canned
`dnn` and `linear` (bench/canned.py's census-style columns, batch 256), and `tiny`,
bench/steps_per_run.py's MLP (batch 32).
"""

import os
import sys

_CNN_BATCH = 512
_RESNET_BATCH = 64
_EXAMPLES = 4096

def _cnn_setup(tf, el, devices):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import compare_run  # pylint: disable=import-outside-toplevel
    import numpy as np  # pylint: disable=import-outside-toplevel
    rng = np.random.RandomState(0)
    images = rng.rand(_EXAMPLES, 28, 28, 1).astype(np.float32)
    labels = np.eye(10, dtype=np.float32)[rng.randint(0, 10, _EXAMPLES)]
    model_fn = compare_run.make_model_fn(tf, compare_run.keras_module(tf), el)

    def input_fn():
        return compare_run.make_dataset(tf, images, labels, _CNN_BATCH // devices)
    return el.Estimator, {"model_fn": model_fn}, input_fn, f"seed CNN, batch {_CNN_BATCH}"


def _resnet_logits(keras, images, training):
    layers = keras.layers
    x = layers.Conv2D(16, 3, padding="same", use_bias=False)(images)
    x = layers.ReLU()(layers.BatchNormalization()(x, training=training))
    for filters, stride in ((16, 1), (32, 2), (64, 2)):
        shortcut = x
        y = layers.Conv2D(filters, 3, strides=stride, padding="same", use_bias=False)(x)
        y = layers.ReLU()(layers.BatchNormalization()(y, training=training))
        y = layers.Conv2D(filters, 3, padding="same", use_bias=False)(y)
        y = layers.BatchNormalization()(y, training=training)
        if stride != 1 or shortcut.shape[-1] != filters:
            shortcut = layers.Conv2D(filters, 1, strides=stride, use_bias=False)(shortcut)
        x = layers.ReLU()(layers.Add()([y, shortcut]))
    x = layers.GlobalAveragePooling2D()(x)
    return layers.Dense(10)(x)


def _resnet_setup(tf, el, devices):
    import numpy as np  # pylint: disable=import-outside-toplevel
    import tf_keras  # pylint: disable=import-outside-toplevel
    rng = np.random.RandomState(0)
    images = rng.rand(_EXAMPLES, 32, 32, 3).astype(np.float32)
    labels = rng.randint(0, 10, _EXAMPLES).astype(np.int32)

    def model_fn(features, labels, mode):
        logits = _resnet_logits(tf_keras, features, mode == "train")
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        optimizer = tf.compat.v1.train.MomentumOptimizer(0.01, 0.9)
        update_ops = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)
        with tf.control_dependencies(update_ops):
            train_op = optimizer.minimize(
                loss, global_step=tf.compat.v1.train.get_global_step())
        return el.EstimatorSpec(mode, loss=loss, train_op=train_op)

    def input_fn():
        dataset = tf.data.Dataset.from_tensor_slices((images, labels))
        return dataset.repeat().batch(_RESNET_BATCH // devices, drop_remainder=True).prefetch(2)
    return el.Estimator, {"model_fn": model_fn}, input_fn, f"ResNet-8, 32x32x3, batch {_RESNET_BATCH}"


def _canned_setup(tf, el, model):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import canned as canned_bench  # pylint: disable=import-outside-toplevel
    wide, deep = canned_bench._columns(tf)  # pylint: disable=protected-access
    input_fn = canned_bench._input_fn(tf)  # pylint: disable=protected-access
    if model == "dnn":
        return (el.DNNClassifier, {"hidden_units": [100, 75, 50, 25], "feature_columns": deep},
                input_fn, f"DNNClassifier [100, 75, 50, 25], census, batch {canned_bench.BATCH}")
    return (el.LinearClassifier, {"feature_columns": wide}, input_fn,
            f"LinearClassifier, census, batch {canned_bench.BATCH}")


def _tiny_setup(tf, el):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import steps_per_run  # pylint: disable=import-outside-toplevel
    return (el.Estimator, {"model_fn": steps_per_run._model_fn},  # pylint: disable=protected-access
            lambda: steps_per_run._dataset("x"),  # pylint: disable=protected-access
            f"tiny MLP 4-16-2, batch {steps_per_run.BATCH}")


def setup(tf, el, model, devices):
    """(Estimator class, its kwargs, input_fn, label) for `model` on `devices` replicas."""
    if model == "cnn":
        return _cnn_setup(tf, el, devices)
    if model == "tiny":
        return _tiny_setup(tf, el)
    if model == "resnet":
        return _resnet_setup(tf, el, devices)
    return _canned_setup(tf, el, model)
