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
    """`tensorflow_estimator.python.estimator.keras_lib.model_to_estimator`."""
    result = keras_module.model_to_estimator(
        keras_model=keras_model, keras_model_path=keras_model_path,
        custom_objects=custom_objects, model_dir=model_dir, config=config,
        checkpoint_format=checkpoint_format, metric_names_map=metric_names_map,
        export_outputs=export_outputs)
    if not use_v2_estimator:
        result.__class__ = EstimatorV1  # Only adds methods; the state is the same.
    return result
