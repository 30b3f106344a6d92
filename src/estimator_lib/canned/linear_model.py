"""The linear model of the canned Linear estimators: layer, logits and their summaries.

`LinearModel` (a tf_keras model, the v2 path) and the v1 `linear_model` scope build
the original's variables, `linear/linear_model/<column>/weights` and
`linear/linear_model/bias_weights`; `linear.py` turns them into estimators.
"""

import math
from typing import Sequence

import tensorflow as tf
import tf_keras
# TensorFlow's own feature-column helpers (weighted sums, column state): the
# linear model is built on them as tf.compat.v1.feature_column.linear_model is.
# pylint: disable=g-direct-tensorflow-import,protected-access
from tensorflow.python.feature_column import feature_column_v2 as fc_v2
from tensorflow.python.feature_column import serialization
from tensorflow.python.ops import variable_scope

from estimator_lib.canned import feature_inputs

_normalize_columns = fc_v2._normalize_feature_columns
_scope_name = fc_v2._sanitize_column_name_for_variable_scope
_weighted_sum = fc_v2._create_weighted_sum
_check_batch_sizes = fc_v2._verify_static_batch_size_equality
_pure_variable_scope = variable_scope._pure_variable_scope
_StateManager = fc_v2._StateManagerImpl
# pylint: enable=g-direct-tensorflow-import,protected-access

# The original's (canned/linear.py) learning rate for an optimizer given by
# name (the constructors' default is the name 'Ftrl'), and the cap of the Ftrl
# made for `optimizer=None`: min(0.2, 1/sqrt(number of columns)).
# tests/estimator_lib/trajectory_test.py pins both.
LEARNING_RATE = 0.2


def default_learning_rate(num_columns: int) -> float:
    """The learning rate of the Ftrl the linear estimators make for `optimizer=None`."""
    return min(LEARNING_RATE, 1.0 / math.sqrt(num_columns))


def fraction_of_zero(variables) -> tf.Tensor:
    """Fraction of zero entries over all `variables` (the model's sparsity)."""
    variables = tf.nest.flatten(variables)
    with tf.compat.v1.name_scope("zero_fraction"):
        sizes = [tf.size(v, out_type=tf.int64) for v in variables]
        total = tf.cast(tf.math.add_n(sizes), tf.float32)
        zeros = tf.math.add_n([
            tf.cast(tf.size(v), tf.float32) * tf.math.zero_fraction(v)
            if v.shape.num_elements() != 0 else tf.constant(0.0) for v in variables])
        return tf.identity(zeros / total, name="zero_fraction_or_nan")


def _expand(variables):
    """Partitioned variables as their parts."""
    out = []
    for v in variables:
        if isinstance(v, (tf.Variable, tf.Tensor)):
            out.append(v)
        else:
            out.extend(list(v))
    return out


def _add_summaries(bias_parts, other_variables, units) -> None:
    if units > 1:
        tf.compat.v1.summary.histogram("bias", bias_parts)
    else:
        tf.compat.v1.summary.scalar("bias", tf.reshape(bias_parts[0], [-1])[0])
    if other_variables:
        tf.compat.v1.summary.scalar("fraction_of_zero_weights", fraction_of_zero(other_variables))


class _LinearModelLayer(tf_keras.layers.Layer):
    """Weighted sums of v2 feature columns, one (num_buckets or width, units) weight each."""

    def __init__(self, feature_columns, units=1, sparse_combiner="sum", trainable=True,
                 name=None, **kwargs):
        super().__init__(name=name, trainable=trainable, **kwargs)
        self._feature_columns = _normalize_columns(feature_columns)
        for column in self._feature_columns:
            if not isinstance(column, (tf.compat.v2.__internal__.feature_column.DenseColumn,
                                       fc_v2.CategoricalColumn)):
                raise ValueError("Items of feature_columns must be either a DenseColumn or "
                                 f"CategoricalColumn. Given: {column}")
        self._units = units
        self._sparse_combiner = sparse_combiner
        self._state_manager = _StateManager(self, self.trainable)
        self.bias = None

    @property
    def state_manager(self):
        """The columns' state (their weight variables), as LinearSDCA reads it."""
        return self._state_manager

    def build(self, _):
        # get_variable under the layer's variable scope: the names are
        # <name>/<column>/weights and <name>/bias_weights, and a partitioner of
        # an enclosing scope applies (v1 estimators).
        with _pure_variable_scope(self.name):
            for column in self._feature_columns:
                with _pure_variable_scope(_scope_name(column.name)):
                    column.create_state(self._state_manager)
                    if isinstance(column, fc_v2.CategoricalColumn):
                        rows = column.num_buckets
                    else:
                        rows = column.variable_shape.num_elements()
                    self._state_manager.create_variable(
                        column, name="weights", dtype=tf.float32, shape=(rows, self._units),
                        initializer=tf_keras.initializers.zeros(), trainable=self.trainable)
            self.bias = self.add_weight(
                name="bias_weights", dtype=tf.float32, shape=[self._units],
                initializer=tf_keras.initializers.zeros(), trainable=self.trainable,
                use_resource=True, getter=tf.compat.v1.get_variable)
        super().build(None)

    def call(self, features):
        if not isinstance(features, dict):
            raise ValueError(f"We expected a dictionary here. Instead we got: {features}")
        with tf.name_scope(self.name):
            cache = tf.compat.v2.__internal__.feature_column.FeatureTransformationCache(features)
            sums = []
            for column in self._feature_columns:
                with tf.name_scope(_scope_name(column.name)):
                    sums.append(_weighted_sum(
                        column=column, transformation_cache=cache,
                        state_manager=self._state_manager,
                        sparse_combiner=self._sparse_combiner,
                        weight_var=self._state_manager.get_variable(column, "weights")))
            _check_batch_sizes(sums, self._feature_columns)
            no_bias = tf.math.add_n(sums, name="weighted_sum_no_bias")
            return tf.nn.bias_add(no_bias, self.bias, name="weighted_sum")

    def get_config(self):
        config = dict(super().get_config())
        config.update(feature_columns=serialization.serialize_feature_columns(
            self._feature_columns), units=self._units, sparse_combiner=self._sparse_combiner)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        columns = serialization.deserialize_feature_columns(
            config.pop("feature_columns"), custom_objects=custom_objects)
        return cls(feature_columns=columns, **config)


class LinearModel(tf_keras.Model):
    """A Keras model of a linear prediction over v2 feature columns.

    Categorical columns act as indicator columns (one weight per bucket),
    combined per example with `sparse_combiner` ('sum', 'mean' or 'sqrtn');
    dense columns get one weight per element. Output: (batch, units).

    Args:
        feature_columns: The feature columns the model reads.
        units: The size of the logits' last dimension.
        sparse_combiner: How a sparse column's values per example combine: 'sum', 'mean' or
            'sqrtn'.
        trainable: Whether the model's variables are trainable.
        name: The model's name (its variable scope).
        **kwargs: Other Keras `Model` arguments.
    """

    def __init__(self, feature_columns, units=1, sparse_combiner="sum", trainable=True,
                 name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.layer = _LinearModelLayer(feature_columns, units, sparse_combiner, trainable,
                                       name=self.name, **kwargs)

    def call(self, features):
        """The logits of a batch: the columns' weighted sum plus the bias.

        Args:
            features: A dict of feature key to tensor, read by the feature columns.

        Returns:
            The logits, [batch_size, units].
        """
        return self.layer(features)

    @property
    def bias(self):
        """The bias variable (`bias_weights`, [units]); None until the model is built."""
        return self.layer.bias


# ---------------------------------------------------------------------------- logits


def _keras_linear_logits(features, *, units, feature_columns, sparse_combiner, name):
    model = LinearModel(feature_columns=feature_columns, units=units,
                        sparse_combiner=sparse_combiner, name=name)
    logits = model(features)
    bias = model.bias
    others = [v for v in model.variables if v is not bias]
    return logits, model.variables, bias, others


def linear_logit_fn_builder_v2(units, feature_columns, sparse_combiner="sum"):
    """Returns `logit_fn(features)` of the v2 linear model (named `linear_model`).

    Args:
        units: The size of the logits' last dimension.
        feature_columns: The feature columns the model reads.
        sparse_combiner: How a sparse column's values per example combine: 'sum', 'mean' or
            'sqrtn'.

    Returns:
        A function `logit_fn(features)` returning the logits tensor.
    """

    def linear_logit_fn(features):
        feature_inputs.require_v2(feature_columns)
        logits, _, bias, others = _keras_linear_logits(
            features, units=units, feature_columns=feature_columns,
            sparse_combiner=sparse_combiner, name="linear_model")
        _add_summaries(_expand([bias]), _expand(others), units)
        return logits

    return linear_logit_fn


def linear_logits_v2(features, *, units, feature_columns, sparse_combiner="sum"):
    """(logits, variables) of the v2 estimators' model `linear/linear_model`.

    Args:
        features: The dict of feature tensors.
        units: The size of the logits' last dimension.
        feature_columns: The feature columns the model reads.
        sparse_combiner: How a sparse column's values per example combine: 'sum', 'mean' or
            'sqrtn'.

    Returns:
        The pair `(logits, the model's variables)`.
    """
    feature_inputs.require_v2(feature_columns)
    # The model's name carries the `linear/` prefix: its variables come from
    # get_variable, which name scopes do not reach.
    logits, variables, bias, others = _keras_linear_logits(
        features, units=units, feature_columns=feature_columns,
        sparse_combiner=sparse_combiner, name="linear/linear_model")
    _add_summaries([bias], others, units)
    return logits, variables


def linear_logit_fn_builder(units, feature_columns, sparse_combiner="sum"):
    """Returns `logit_fn(features)` of the v1 linear model (tf.compat.v1.estimator.experimental).

    Built in the current variable scope (`linear` in the estimators): a Keras
    LinearModel for v2 columns, tf.compat.v1.feature_column.linear_model otherwise.

    Args:
        units: The size of the logits' last dimension (the head's `logits_dimension`).
        feature_columns: The feature columns the model reads.
        sparse_combiner: How a sparse column's several values per example combine: 'sum', 'mean'
            or 'sqrtn'.

    Returns:
        A function `logit_fn(features)` returning the logits tensor.

    Examples:
        The logits of a batch of two, built in a graph (in a model_fn, pass the
        function to `call_logit_fn`). Under `estimator_lib.compat.install()` it is
        `tf.compat.v1.estimator.experimental.linear_logit_fn_builder`:

        >>> import estimator_lib
        >>> from estimator_lib.canned.linear_model import linear_logit_fn_builder
        >>> logit_fn = linear_logit_fn_builder(
        ...     units=1, feature_columns=[tf.feature_column.numeric_column("x")])
        >>> with tf.Graph().as_default():
        ...     logits = logit_fn({"x": tf.constant([[1.0], [2.0]])})
        >>> logits.shape.as_list()
        [2, 1]
    """

    def linear_logit_fn(features):
        if feature_inputs.is_v2(feature_columns):
            logits, _, bias, others = _keras_linear_logits(
                features, units=units, feature_columns=feature_columns,
                sparse_combiner=sparse_combiner, name="linear_model")
            bias_parts = _expand([bias])
            others = [v for v in _expand(others) if all(v is not b for b in bias_parts)]
        else:
            cols_to_vars = {}
            logits = tf.compat.v1.feature_column.linear_model(
                features, list(feature_columns), units=units,
                sparse_combiner=sparse_combiner, cols_to_vars=cols_to_vars)
            bias_parts = _expand(cols_to_vars.pop("bias"))
            others = _expand([v for vs in cols_to_vars.values() for v in vs])
        _add_summaries(bias_parts, others, units)
        return logits

    return linear_logit_fn


# ---------------------------------------------------------------------------- model_fns
