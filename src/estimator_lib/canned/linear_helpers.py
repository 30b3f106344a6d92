"""The original `canned/linear.py`'s private helpers, by their names and signatures.

canned/linear.py imports them, so they stand at
`tensorflow_estimator.python.estimator.canned.linear` after compat.install(), where
libraries built on the linear estimators import them. Each is ours under the
original's name and arguments (linear_model.py and linear_sdca.py hold the models).
"""

import tensorflow as tf
import tf_keras

from estimator_lib.canned import linear_model
from estimator_lib.canned import linear_sdca
from estimator_lib.canned.linear_model import _expand

# The learning rate of an optimizer given by name; the Ftrl made for None is capped by it.
_LEARNING_RATE = linear_model.LEARNING_RATE
_LinearModelLayer = linear_model._LinearModelLayer  # pylint: disable=protected-access
_SDCAUpdateWeightsHook = linear_sdca._SDCAUpdateWeightsHook  # pylint: disable=protected-access


def _get_default_optimizer(feature_columns):
    """The v1 default: Ftrl at min(0.2, 1 / sqrt(number of columns))."""
    return tf.compat.v1.train.FtrlOptimizer(
        learning_rate=linear_model.default_learning_rate(len(feature_columns)))


def _get_default_optimizer_v2(feature_columns):
    """The v2 default: tf_keras' legacy Ftrl at min(0.2, 1 / sqrt(number of columns))."""
    return tf_keras.optimizers.legacy.Ftrl(
        learning_rate=linear_model.default_learning_rate(len(feature_columns)))


def _compute_fraction_of_zero(variables):
    """The fraction of zero weights over `variables` (a list, or a list of lists)."""
    return linear_model.fraction_of_zero(variables)


def _get_expanded_variable_list(var_list):
    """`var_list` with each partitioned variable replaced by its parts."""
    return _expand(var_list)


def _validate_linear_sdca_optimizer_for_linear_classifier(
        feature_columns, n_classes, optimizer, sparse_combiner):
    """Checks a LinearClassifier's arguments when `optimizer` is a LinearSDCA (ValueError)."""
    linear_sdca.check_sdca_arguments(optimizer, feature_columns, sparse_combiner,
                                     n_classes=n_classes)


def _validate_linear_sdca_optimizer_for_linear_regressor(
        feature_columns, label_dimension, optimizer, sparse_combiner):
    """Checks a LinearRegressor's arguments when `optimizer` is a LinearSDCA (ValueError)."""
    linear_sdca.check_sdca_arguments(optimizer, feature_columns, sparse_combiner,
                                     label_dimension=label_dimension)


def _linear_model_fn_builder_v2(units, feature_columns, sparse_combiner="sum",
                                features=None):
    """(logits, the model's variables) of the v2 model `linear/linear_model` on `features`.

    Raises:
        ValueError: If a feature column is a v1 one.
    """
    return linear_model.linear_logits_v2(
        features, units=units, feature_columns=feature_columns,
        sparse_combiner=sparse_combiner)


def _sdca_model_fn(features, labels, mode, head, feature_columns, optimizer):
    """The linear model_fn when `optimizer` is a `LinearSDCA`."""
    return linear_sdca.sdca_model_fn(features, labels, mode, head, feature_columns,
                                     optimizer)

