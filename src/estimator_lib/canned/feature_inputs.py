"""Feature columns at the canned estimators' input: checks and the DNN input layer.

The checks run inside the model_fn, while the graph is built, so a bad column
or a missing feature stops train() before a session starts or a checkpoint is
written, with the column and the keys that did arrive named.
"""

from typing import Iterable, List, Mapping, Sequence

import tensorflow as tf
import tf_keras
# pylint: disable=g-direct-tensorflow-import
from tensorflow.python.feature_column import feature_column as fc_v1
from tensorflow.python.feature_column import feature_column_lib
# pylint: enable=g-direct-tensorflow-import

V1_COLUMN_IN_V2_ESTIMATOR = (
    "Received a feature column from TensorFlow v1, but this is a TensorFlow v2 "
    "Estimator. Please either use v2 feature columns (accessible via "
    "tf.feature_column.* in TF 2.x) with this Estimator, or switch to a v1 "
    "Estimator for use with v1 feature columns (accessible via "
    "tf.compat.v1.estimator.* and tf.compat.v1.feature_column.*, respectively.")


def is_v2(columns: Iterable) -> bool:
    """True when every column is a v2 feature column (`tf.feature_column.*`)."""
    return feature_column_lib.is_feature_column_v2(list(columns))


def require_v2(columns: Sequence, *, estimator: str = "") -> None:
    """Refuses v1-only columns in a v2 estimator, with the original's message."""
    if not is_v2(columns):
        v1_only = [getattr(c, "name", repr(c)) for c in columns if not is_v2([c])]
        where = f"{estimator}: " if estimator else ""
        raise ValueError(f"{where}{V1_COLUMN_IN_V2_ESTIMATOR} v1 columns: {v1_only}.")


def _raw_keys(column) -> List[str]:
    """The input_fn feature keys a column reads (its parse spec's keys)."""
    for attr in ("parse_example_spec", "_parse_example_spec"):
        try:
            spec = getattr(column, attr)
        except (AttributeError, NotImplementedError, ValueError):
            continue
        if isinstance(spec, Mapping):
            return [k for k in spec if isinstance(k, str)]
    return []


def check_features(features, columns: Sequence, *, ignore_keys: Iterable[str] = ()) -> None:
    """Checks that `features` is a dict holding every key `columns` read.

    Args:
        features: The dict of feature tensors.
        columns: The feature columns given (any iterable).
        ignore_keys: Keys that need not be present (e.g. the weight column).

    Raises:
        ValueError: `features` is not a dict, or a column's key is missing; the
            message names the column and lists the keys that arrived.
    """
    if not isinstance(features, dict):
        raise ValueError("features should be a dictionary of `Tensor`s. "
                         f"Given type: {type(features)}")
    ignored = set(ignore_keys)
    for column in columns:
        for key in _raw_keys(column):
            if key not in features and key not in ignored:
                raise ValueError(
                    f"Feature {key} is not in features dictionary. Feature column "
                    f"'{getattr(column, 'name', column)}' reads the feature '{key}'; the "
                    f"input_fn's features have the keys {sorted(map(str, features))}.")


def check_columns(columns, *, arg_name: str = "feature_columns") -> tuple:
    """Normalises the columns argument to a tuple, refusing what is not a column."""
    if columns is None:
        return ()
    if isinstance(columns, (str, bytes)) or not isinstance(columns, Iterable):
        columns = [columns]
    columns = tuple(columns)
    base_types = (tf.compat.v2.__internal__.feature_column.FeatureColumn,
                  fc_v1._FeatureColumn)  # pylint: disable=protected-access
    for column in columns:
        if not isinstance(column, base_types):
            raise ValueError(
                f"Items of `{arg_name}` must be feature columns (tf.feature_column.*). "
                f"Given: {column!r}")
    return columns


def v1_input_layer(features, columns: Sequence, *, training: bool) -> tf.Tensor:
    """The v1 DNN's input layer: dense tensors of all columns, concatenated.

    Called inside variable scope `<dnn>/input_from_feature_columns`, it makes the
    original's variables (`.../input_layer/<column>_embedding/embedding_weights`).

    Args:
        features: The dict of feature tensors.
        columns: The feature columns given (any iterable).
        training: Whether the layer is built for training.

    Returns:
        A float tensor `[batch, total width of the columns]`.
    """
    if is_v2(columns):
        dense_features = tf.compat.v1.keras.layers.DenseFeatures(columns, name="input_layer")
        try:
            return dense_features(features, training=training)
        except TypeError:
            return dense_features(features)
    return tf.compat.v1.feature_column.input_layer(features, list(columns))


def v2_input_layer(columns: Sequence):
    """The v2 DNN's input layer (a tf_keras DenseFeatures), named as the original's."""
    return tf_keras.layers.DenseFeatures(
        feature_columns=list(columns), name="input_from_feature_columns/input_layer")
