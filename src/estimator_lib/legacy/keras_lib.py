"""The original's `keras_lib.model_to_estimator`: what tf_keras' own functions call.

tf_keras' `model_to_estimator` (`tf.keras.estimator`, `tf.compat.v1.keras.estimator`)
imports `tensorflow_estimator.python.estimator.keras_lib` when called; compat.install()
puts this function there (legacy/original_tree.py). It returns the v1 estimator unless
`use_v2_estimator`, and keeps the v1 surface's `checkpoint_format='saver'` default.
"""

import tensorflow as tf

from estimator_lib import keras as keras_module
from estimator_lib.engine.estimator_v1 import EstimatorV1
from estimator_lib.keras import cloning
from estimator_lib.keras.conversion import _estimator_metrics


def model_to_estimator(keras_model=None, keras_model_path=None, custom_objects=None,
                       model_dir=None, config=None, checkpoint_format="saver",
                       use_v2_estimator=False, metric_names_map=None, export_outputs=None):
    """`tensorflow_estimator.python.estimator.keras_lib.model_to_estimator`.

    Args:
        keras_model: A compiled `tf.keras` model (Keras 2, tf_keras). Exclusive with
            `keras_model_path`.
        keras_model_path: The path of a saved model (SavedModel or HDF5) to load instead.
        custom_objects: A dict of the custom classes and functions the model needs to load or
            clone.
        model_dir: The Estimator's directory; None takes `config.model_dir` or a new temporary
            one. The Keras weights are written there as the first checkpoint.
        config: A `RunConfig`.
        checkpoint_format: How the initial weights are saved: 'checkpoint' (object-based,
            `tf.train.Checkpoint`) or 'saver' (name-based, `tf.compat.v1.train.Saver`).
        use_v2_estimator: Whether to return the v2 `Estimator` class; False gives the v1 class
            (with `export_savedmodel`).
        metric_names_map: A dict renaming the model's metrics in the Estimator's evaluation
            results (Keras name to Estimator name).
        export_outputs: A dict of signature name to `ExportOutput` class for the exported
            SavedModel; None gives one `PredictOutput` of the model's outputs.

    Returns:
        An `Estimator` (v1 class unless `use_v2_estimator`).

    Raises:
        ValueError: If neither or both of `keras_model` and `keras_model_path` are given, the
            model is not compiled, or `checkpoint_format` is unknown.
    """
    result = keras_module.model_to_estimator(
        keras_model=keras_model, keras_model_path=keras_model_path,
        custom_objects=custom_objects, model_dir=model_dir, config=config,
        checkpoint_format=checkpoint_format, metric_names_map=metric_names_map,
        export_outputs=export_outputs)
    if not use_v2_estimator:
        result.__class__ = EstimatorV1  # Only adds methods; the state is the same.
    return result


# The original keras_lib's private helpers, by their names and signatures.
_DEFAULT_SERVING_KEY = "serving_default"


def _cast_tensor_to_floatx(x):
    """`x` cast to Keras' floatx, unless it is of that dtype already."""
    floatx = tf.keras.backend.floatx()
    return x if x.dtype == floatx else tf.cast(x, floatx)


def _convert_tensor(x):
    """`x` as a Tensor or SparseTensor (converted when not a tensor already)."""
    if not tf.is_tensor(x):
        x = tf.compat.v1.convert_to_tensor_or_sparse_tensor(x)
    return x


def _extract_sample_weight_tensors(features):
    """(features, sample weights) of a `{'features', 'sample_weights'}` dict; else (features,
    None)."""
    if isinstance(features, dict) and set(features) == {"features", "sample_weights"}:
        return features["features"], features["sample_weights"]
    return features, None


def _convert_estimator_io_to_keras(keras_model, features, labels):
    """(input tensors, target tensors, sample weights) of the Estimator's features and
    labels, as the Keras model's inputs and outputs take them."""
    return cloning.estimator_io_to_keras(keras_model, features, labels)


def _clone_and_build_model(mode, keras_model, custom_objects, features=None, labels=None,
                           optimizer_config=None):
    """The Keras model cloned into the current graph on `features`, compiled unless PREDICT."""
    return cloning.clone_and_build(mode, keras_model, custom_objects, optimizer_config,
                                   features=features, labels=labels)


def _convert_keras_metrics_to_estimator(model, metric_names_map=None):
    """{name: metric} of the compiled model's metrics, renamed by `metric_names_map`."""
    return _estimator_metrics(model, metric_names_map)
