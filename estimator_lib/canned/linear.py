"""LinearClassifier, LinearRegressor and LinearEstimator: one weight per feature value.

Variables are the original's: `linear/linear_model/<column>/weights` and
`linear/linear_model/bias_weights`. v2 classes build the Keras `LinearModel`
below and train with a tf_keras legacy optimizer (Ftrl by default); v1 classes
build in variable scope `linear` (with the original's partitioner) and train with
a tf.compat.v1 optimizer.
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

import estimator_lib
from estimator_lib.canned import args as canned_args
from estimator_lib.canned import feature_inputs
from estimator_lib.canned import heads
from estimator_lib.canned import optimizers

ModeKeys = estimator_lib.ModeKeys

_normalize_columns = fc_v2._normalize_feature_columns
_scope_name = fc_v2._sanitize_column_name_for_variable_scope
_weighted_sum = fc_v2._create_weighted_sum
_check_batch_sizes = fc_v2._verify_static_batch_size_equality
_pure_variable_scope = variable_scope._pure_variable_scope
_StateManager = fc_v2._StateManagerImpl
# pylint: enable=g-direct-tensorflow-import,protected-access

# The original's learning rate for a name given without one, and the cap of
# the default Ftrl's 1/sqrt(number of columns).
_LEARNING_RATE = 0.05


def default_learning_rate(num_columns: int) -> float:
    return min(_LEARNING_RATE, 1.0 / math.sqrt(num_columns))


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
    """

    def __init__(self, feature_columns, units=1, sparse_combiner="sum", trainable=True,
                 name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.layer = _LinearModelLayer(feature_columns, units, sparse_combiner, trainable,
                                       name=self.name, **kwargs)

    def call(self, features):
        return self.layer(features)

    @property
    def bias(self):
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
    """Returns `logit_fn(features)` of the v2 linear model (named `linear_model`)."""

    def linear_logit_fn(features):
        feature_inputs.require_v2(feature_columns)
        logits, _, bias, others = _keras_linear_logits(
            features, units=units, feature_columns=feature_columns,
            sparse_combiner=sparse_combiner, name="linear_model")
        _add_summaries(_expand([bias]), _expand(others), units)
        return logits

    return linear_logit_fn


def linear_logits_v2(features, *, units, feature_columns, sparse_combiner="sum"):
    """(logits, variables) of the v2 estimators' model `linear/linear_model`."""
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


def _linear_model_fn_v2(features, labels, mode, head, feature_columns, optimizer, config,
                        sparse_combiner="sum"):
    """The v2 linear model_fn: LinearModel `linear/linear_model`, a tf_keras optimizer."""
    del config
    feature_inputs.check_features(features, feature_columns)
    logits, variables = linear_logits_v2(
        features, units=head.logits_dimension, feature_columns=feature_columns,
        sparse_combiner=sparse_combiner)
    if mode == ModeKeys.TRAIN:
        optimizer = optimizers.keras_optimizer_for_graph(
            optimizer or tf_keras.optimizers.legacy.Ftrl(
                learning_rate=default_learning_rate(len(feature_columns))),
            learning_rate=_LEARNING_RATE)
    return head.create_estimator_spec(features=features, mode=mode, labels=labels,
                                      optimizer=optimizer, trainable_variables=variables,
                                      logits=logits)


def _linear_model_fn(features, labels, mode, head, feature_columns, optimizer, partitioner,
                     config, sparse_combiner="sum"):
    """The v1 linear model_fn: variable scope `linear`, a tf.compat.v1 optimizer."""
    feature_inputs.check_features(features, feature_columns)
    num_ps_replicas = config.num_ps_replicas if config else 0
    partitioner = partitioner or tf.compat.v1.min_max_variable_partitioner(
        max_partitions=num_ps_replicas, min_slice_size=64 << 20)
    with tf.compat.v1.variable_scope("linear", values=tuple(features.values()),
                                     partitioner=partitioner):
        logits = linear_logit_fn_builder(
            units=head.logits_dimension, feature_columns=feature_columns,
            sparse_combiner=sparse_combiner)(features)
        optimizer = optimizers.get_optimizer_instance(
            optimizer or tf.compat.v1.train.FtrlOptimizer(
                learning_rate=default_learning_rate(len(feature_columns))),
            learning_rate=_LEARNING_RATE)
        spec = head.create_estimator_spec(features=features, mode=mode, labels=labels,
                                          optimizer=optimizer, logits=logits)
    return spec


# ---------------------------------------------------------------------------- classes


def _linear_args(feature_columns, optimizer, sparse_combiner, *, v2):
    feature_columns = canned_args.feature_columns(feature_columns, v2=v2)
    canned_args.sparse_combiner(sparse_combiner)
    _refuse_sdca(optimizer)
    if v2:
        optimizers.check_optimizer_name(optimizer)
        # The default optimizer (None) is made per graph in the model_fn.
        if optimizer is not None:
            optimizer = optimizers.KerasOptimizerArg(optimizer, learning_rate=_LEARNING_RATE)
    else:
        optimizers.check_optimizer_name(optimizer)
    return feature_columns, optimizer


def _refuse_sdca(optimizer) -> None:
    if type(optimizer).__name__ == "LinearSDCA":
        raise ValueError(
            "LinearSDCA is not supported by estimator_lib: use a gradient optimizer "
            "('Ftrl', the default) or tf.keras.experimental.LinearModel.")


class LinearClassifierV2(estimator_lib.Estimator):
    """Linear classifier (tf.estimator.LinearClassifier).

    Args:
        feature_columns: v2 feature columns; categorical ones act as indicators.
        model_dir: Where checkpoints and summaries go.
        n_classes: Number of classes (> 1).
        weight_column: A key or a numeric column giving example weights.
        label_vocabulary: String labels, in class-id order.
        optimizer: 'Ftrl' (default), another name, a tf.keras legacy optimizer
            or a callable returning one.
        config: An `estimator_lib.RunConfig`.
        warm_start_from: A checkpoint path or `WarmStartSettings`.
        loss_reduction: How the training loss is reduced over the batch.
        sparse_combiner: 'sum' (default), 'mean' or 'sqrtn' for multivalent
            categorical features.
    """

    def __init__(self, feature_columns, model_dir=None, n_classes=2, weight_column=None,
                 label_vocabulary=None, optimizer="Ftrl", config=None, warm_start_from=None,
                 loss_reduction=tf.losses.Reduction.SUM_OVER_BATCH_SIZE,
                 sparse_combiner="sum"):
        feature_columns, optimizer = _linear_args(feature_columns, optimizer,
                                                  sparse_combiner, v2=True)
        head = heads.classifier_head_v2(n_classes, weight_column=weight_column,
                                        label_vocabulary=label_vocabulary,
                                        loss_reduction=loss_reduction)

        def _model_fn(features, labels, mode, config):
            return _linear_model_fn_v2(features=features, labels=labels, mode=mode, head=head,
                                       feature_columns=feature_columns, optimizer=optimizer,
                                       config=config, sparse_combiner=sparse_combiner)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)


class LinearClassifier(estimator_lib.Estimator):
    """tf.compat.v1.estimator.LinearClassifier: v1 columns and optimizers, SUM loss.

    Takes LinearClassifierV2's arguments plus `partitioner`.
    """

    def __init__(self, feature_columns, model_dir=None, n_classes=2, weight_column=None,
                 label_vocabulary=None, optimizer="Ftrl", config=None, partitioner=None,
                 warm_start_from=None, loss_reduction=tf.compat.v1.losses.Reduction.SUM,
                 sparse_combiner="sum"):
        feature_columns, optimizer = _linear_args(feature_columns, optimizer,
                                                  sparse_combiner, v2=False)
        head = heads.classifier_head_v1(n_classes, weight_column=weight_column,
                                        label_vocabulary=label_vocabulary,
                                        loss_reduction=loss_reduction)

        def _model_fn(features, labels, mode, config):
            return _linear_model_fn(features=features, labels=labels, mode=mode, head=head,
                                    feature_columns=feature_columns, optimizer=optimizer,
                                    partitioner=partitioner, config=config,
                                    sparse_combiner=sparse_combiner)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)


class LinearRegressorV2(estimator_lib.Estimator):
    """Linear regressor (tf.estimator.LinearRegressor); `label_dimension` targets."""

    def __init__(self, feature_columns, model_dir=None, label_dimension=1, weight_column=None,
                 optimizer="Ftrl", config=None, warm_start_from=None,
                 loss_reduction=tf.losses.Reduction.SUM_OVER_BATCH_SIZE,
                 sparse_combiner="sum"):
        feature_columns, optimizer = _linear_args(feature_columns, optimizer,
                                                  sparse_combiner, v2=True)
        head = heads.regression_head_v2(label_dimension=label_dimension,
                                        weight_column=weight_column,
                                        loss_reduction=loss_reduction)

        def _model_fn(features, labels, mode, config):
            return _linear_model_fn_v2(features=features, labels=labels, mode=mode, head=head,
                                       feature_columns=feature_columns, optimizer=optimizer,
                                       config=config, sparse_combiner=sparse_combiner)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)


class LinearRegressor(estimator_lib.Estimator):
    """tf.compat.v1.estimator.LinearRegressor: v1 columns and optimizers, SUM loss."""

    def __init__(self, feature_columns, model_dir=None, label_dimension=1, weight_column=None,
                 optimizer="Ftrl", config=None, partitioner=None, warm_start_from=None,
                 loss_reduction=tf.compat.v1.losses.Reduction.SUM, sparse_combiner="sum"):
        feature_columns, optimizer = _linear_args(feature_columns, optimizer,
                                                  sparse_combiner, v2=False)
        head = heads.regression_head_v1(label_dimension=label_dimension,
                                        weight_column=weight_column,
                                        loss_reduction=loss_reduction)

        def _model_fn(features, labels, mode, config):
            return _linear_model_fn(features=features, labels=labels, mode=mode, head=head,
                                    feature_columns=feature_columns, optimizer=optimizer,
                                    partitioner=partitioner, config=config,
                                    sparse_combiner=sparse_combiner)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)


class LinearEstimatorV2(estimator_lib.Estimator):
    """A linear model with a head you give (tf.estimator.LinearEstimator)."""

    def __init__(self, head, feature_columns, model_dir=None, optimizer="Ftrl", config=None,
                 sparse_combiner="sum", warm_start_from=None):
        feature_columns, optimizer = _linear_args(feature_columns, optimizer,
                                                  sparse_combiner, v2=True)

        def _model_fn(features, labels, mode, config):
            return _linear_model_fn_v2(features=features, labels=labels, mode=mode, head=head,
                                       feature_columns=feature_columns, optimizer=optimizer,
                                       config=config, sparse_combiner=sparse_combiner)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)


class LinearEstimator(estimator_lib.Estimator):
    """tf.compat.v1.estimator.LinearEstimator: a linear model with a v1 head you give."""

    def __init__(self, head, feature_columns, model_dir=None, optimizer="Ftrl", config=None,
                 partitioner=None, sparse_combiner="sum", warm_start_from=None):
        feature_columns, optimizer = _linear_args(feature_columns, optimizer,
                                                  sparse_combiner, v2=False)

        def _model_fn(features, labels, mode, config):
            return _linear_model_fn(features=features, labels=labels, mode=mode, head=head,
                                    feature_columns=feature_columns, optimizer=optimizer,
                                    partitioner=partitioner, config=config,
                                    sparse_combiner=sparse_combiner)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)
