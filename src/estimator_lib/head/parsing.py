"""Parse specs for tf.Example input: the model's features plus its label and weight.

`tf.estimator.classifier_parse_example_spec` / `regressor_parse_example_spec`:

    spec = classifier_parse_example_spec(feature_columns, label_key="y",
                                         weight_column="w")
    features = tf.io.parse_example(serialized, spec)
    labels = features.pop("y")
"""

from typing import Dict, Iterable

import tensorflow as tf
from tensorflow.python.feature_column import feature_column_lib


def _add_label_and_weight_to_parsing_spec(parsing_spec: Dict, label_key: str, label_spec,
                                          weight_column=None) -> Dict:
    """`parsing_spec` with the label's spec and the weight column's added (ValueError for
    a key already there, or a weight column that is not a numeric column)."""
    if label_key in parsing_spec:
        raise ValueError(
            "label should not be used as feature. "
            f"label_key: {label_key}, features: {parsing_spec.keys()}")
    parsing_spec[label_key] = label_spec
    if weight_column is None:
        return parsing_spec
    if isinstance(weight_column, str):
        weight_column = tf.feature_column.numeric_column(weight_column)
    if not isinstance(weight_column, feature_column_lib.NumericColumn):
        raise ValueError(
            "weight_column should be an instance of tf.feature_column.numeric_column "
            f"or a feature name. Given type: {type(weight_column)} value: {weight_column}")
    if weight_column.key in parsing_spec:
        raise ValueError(
            "weight_column should not be used as feature. "
            f"weight_column: {weight_column.key}, features: {parsing_spec.keys()}")
    parsing_spec.update(weight_column.parse_example_spec)
    return parsing_spec


def _feature_spec(feature_columns: Iterable) -> Dict:
    # v1 and v2 feature columns both provide what the v1 builder reads; the v2
    # builder refuses v1 columns, so use it only when every column is v2.
    feature_columns = list(feature_columns)
    if all(isinstance(c, tf.__internal__.feature_column.FeatureColumn)
           for c in feature_columns):
        return tf.feature_column.make_parse_example_spec(feature_columns)
    return tf.compat.v1.feature_column.make_parse_example_spec(feature_columns)


def classifier_parse_example_spec(feature_columns: Iterable, label_key: str,
                                  label_dtype: tf.DType = tf.int64, label_default=None,
                                  weight_column=None) -> Dict:
    """Returns the parse spec of `feature_columns` plus a (1,) label and the weight.

    Args:
        feature_columns: Feature columns the model reads.
        label_key: Name of the label in the tf.Example.
        label_dtype: tf.int64 for class ids, tf.string with a label_vocabulary.
        label_default: Value used when an example has no label (None: required).
        weight_column: Feature name or `numeric_column` of the example weights.

    Returns:
        A dict of feature key to `FixedLenFeature`/`VarLenFeature`, for
        `tf.io.parse_example`.

    Raises:
        ValueError: If `label_key` or the weight's key is also a feature, or
            `weight_column` is not a name or numeric column.

    Examples:
        >>> columns = [tf.feature_column.numeric_column("x", shape=(2,))]
        >>> spec = classifier_parse_example_spec(columns, label_key="y")
        >>> sorted(spec)
        ['x', 'y']
        >>> spec["y"]
        FixedLenFeature(shape=(1,), dtype=tf.int64, default_value=None)
    """
    return _add_label_and_weight_to_parsing_spec(
        _feature_spec(feature_columns), label_key,
        tf.io.FixedLenFeature((1,), label_dtype, label_default), weight_column)


def regressor_parse_example_spec(feature_columns: Iterable, label_key: str,
                                 label_dtype: tf.DType = tf.float32, label_default=None,
                                 label_dimension: int = 1, weight_column=None) -> Dict:
    """Returns the parse spec of `feature_columns` plus a (label_dimension,) label.

    Args:
        feature_columns: Feature columns the model reads.
        label_key: Name of the label in the tf.Example.
        label_dtype: The label's dtype (float32 by default).
        label_default: Value used when an example has no label (None: required).
        label_dimension: How many regression targets each example has.
        weight_column: Feature name or `numeric_column` of the example weights.

    Returns:
        A dict of feature key to `FixedLenFeature`/`VarLenFeature`, for
        `tf.io.parse_example`.

    Raises:
        ValueError: If `label_key` or the weight's key is also a feature, or
            `weight_column` is not a name or numeric column.

    Examples:
        >>> columns = [tf.feature_column.numeric_column("x", shape=(2,))]
        >>> spec = regressor_parse_example_spec(columns, label_key="y", label_dimension=3)
        >>> sorted(spec)
        ['x', 'y']
        >>> spec["y"]
        FixedLenFeature(shape=(3,), dtype=tf.float32, default_value=None)
    """
    return _add_label_and_weight_to_parsing_spec(
        _feature_spec(feature_columns), label_key,
        tf.io.FixedLenFeature((label_dimension,), label_dtype, label_default), weight_column)


# The original module's own names for them (tensorflow_estimator...canned.parsing_utils
# exported the v2 functions as tf.estimator.*_parse_example_spec).
classifier_parse_example_spec_v2 = classifier_parse_example_spec
regressor_parse_example_spec_v2 = regressor_parse_example_spec
