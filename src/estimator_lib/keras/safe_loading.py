"""Loading a saved Keras model for model_to_estimator, in Keras' safe mode.

A Lambda layer saved with a Python `lambda` holds bytecode that loading would run;
it is refused unless the caller passes safe_mode=False.
"""

import os
import re

import tensorflow as tf

_PYTHON_LAMBDA = re.compile(rb'"function_type":\s*"lambda"')


def _saved_configs(path):
    """The model configs a saved Keras model holds (HDF5 attribute, SavedModel metadata)."""
    path = os.fspath(path)
    metadata = os.path.join(path, "keras_metadata.pb")
    if tf.io.gfile.isdir(path):
        if tf.io.gfile.exists(metadata):
            with tf.io.gfile.GFile(metadata, "rb") as f:
                yield f.read()
        return
    try:
        import h5py  # pylint: disable=import-outside-toplevel
    except ImportError:
        return
    if h5py.is_hdf5(path):
        with h5py.File(path, "r") as f:
            config = f.attrs.get("model_config")
            if config is not None:
                yield config if isinstance(config, bytes) else str(config).encode()


def refuse_python_lambdas(path) -> None:
    """Refuses a saved model whose Lambda layers hold Python bytecode (Keras safe mode)."""
    for config in _saved_configs(path):
        if _PYTHON_LAMBDA.search(config):
            raise ValueError(
                f"The model at {path} has a Lambda layer holding a Python `lambda`: loading "
                "it deserializes bytecode, which can run arbitrary code. If you trust the "
                "file's source, pass safe_mode=False; better, replace the lambda with a "
                "named function passed in custom_objects.")
