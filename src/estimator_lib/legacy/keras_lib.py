"""The original's `keras_lib.model_to_estimator`: what tf_keras' own functions call.

tf_keras' `model_to_estimator` (`tf.keras.estimator`, `tf.compat.v1.keras.estimator`)
imports `tensorflow_estimator.python.estimator.keras_lib` when called; compat.install()
puts this function there (legacy/original_tree.py). It returns the v1 estimator unless
`use_v2_estimator`, and keeps the v1 surface's `checkpoint_format='saver'` default.
"""

from estimator_lib import keras as keras_module
from estimator_lib.engine.estimator_v1 import EstimatorV1


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
