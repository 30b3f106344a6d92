"""DNNLinearCombined{Classifier,Regressor,Estimator}: wide (linear) and deep (DNN) logits, summed.

Each part has its own optimizer (Ftrl for the linear part, Adagrad for the
DNN by default, at the original's learning rates: 0.001 for the DNN, min(0.005,
1/sqrt(number of linear columns)) for the linear part). Variables are those of
`dnn` and `linear` under the same names.
"""

import math

import tensorflow as tf

from estimator_lib.engine.estimator import Estimator
from estimator_lib.engine.estimator_v1 import EstimatorV1
from estimator_lib.core.model_fn import ModeKeys
from estimator_lib.canned import args as canned_args
from estimator_lib.canned import dnn
from estimator_lib.canned import feature_inputs
from estimator_lib.canned import heads
from estimator_lib.canned import linear
from estimator_lib.canned import optimizers
from estimator_lib.canned.bound_model_fn import bind_model_fn
# The original module's private helpers, at its path (libraries import them).
from estimator_lib.canned.original_helpers import (  # noqa: F401
    _add_layer_summary, _init_dnn_linear_combined_estimator, _linear_learning_rate,
    _validate_feature_columns)


_DNN_LEARNING_RATE = 0.001
_LINEAR_LEARNING_RATE = 0.005


def linear_learning_rate(num_linear_feature_columns: int) -> float:
    """The original's default learning rate of the linear part."""
    return min(_LINEAR_LEARNING_RATE, 1.0 / math.sqrt(num_linear_feature_columns))


def _check_no_sync_replicas_optimizer(optimizer) -> None:
    if isinstance(optimizer, tf.compat.v1.train.SyncReplicasOptimizer):
        raise ValueError(
            "SyncReplicasOptimizer does not support multi optimizers case. Therefore, it is "
            "not supported in DNNLinearCombined model. If you want to use this optimizer, "
            "please use either DNN or Linear model.")


def _check_model_fn_args(features, linear_feature_columns, dnn_feature_columns,
                         dnn_hidden_units):
    if not linear_feature_columns and not dnn_feature_columns:
        raise ValueError(
            "Either linear_feature_columns or dnn_feature_columns must be defined.")
    if dnn_feature_columns and not dnn_hidden_units:
        raise ValueError(
            "dnn_hidden_units must be defined when dnn_feature_columns is specified.")
    feature_inputs.check_features(
        features, tuple(linear_feature_columns or ()) + tuple(dnn_feature_columns or ()))


def _dnn_linear_combined_model_fn_v2(
        features, labels, mode, head, linear_feature_columns=None, linear_optimizer="Ftrl",
        dnn_feature_columns=None, dnn_optimizer="Adagrad", dnn_hidden_units=None,
        dnn_activation_fn=tf.nn.relu, dnn_dropout=None, config=None, batch_norm=False,
        linear_sparse_combiner="sum",
        loss_reduction=tf.losses.Reduction.SUM_OVER_BATCH_SIZE):
    """The v2 model_fn: Keras DNN + LinearModel, one tf_keras optimizer each."""
    del config
    _check_model_fn_args(features, linear_feature_columns, dnn_feature_columns,
                         dnn_hidden_units)
    training = mode == ModeKeys.TRAIN
    dnn_logits = linear_logits = None
    if dnn_feature_columns:
        if training:
            dnn_optimizer = optimizers.keras_optimizer_for_graph(
                dnn_optimizer, learning_rate=_DNN_LEARNING_RATE)
        dnn_logits, dnn_variables, dnn_update_ops = dnn.dnn_logits_v2(
            features, mode, units=head.logits_dimension, hidden_units=dnn_hidden_units,
            feature_columns=dnn_feature_columns, activation_fn=dnn_activation_fn,
            dropout=dnn_dropout, batch_norm=batch_norm)
    if linear_feature_columns:
        if training:
            # The DNN's optimizer advances the global step when there is one.
            linear_optimizer = optimizers.keras_optimizer_for_graph(
                linear_optimizer,
                learning_rate=linear_learning_rate(len(linear_feature_columns)),
                bind_global_step=dnn_logits is None)
        linear_logits, linear_variables = linear.linear_logits_v2(
            features, units=head.logits_dimension, feature_columns=linear_feature_columns,
            sparse_combiner=linear_sparse_combiner)
        dnn.add_layer_summary(linear_logits, "linear")

    if dnn_logits is not None and linear_logits is not None:
        logits = dnn_logits + linear_logits
    else:
        logits = dnn_logits if dnn_logits is not None else linear_logits

    def _train_op_fn(loss):
        if loss_reduction == tf.losses.Reduction.SUM_OVER_BATCH_SIZE:
            replicas = tf.distribute.get_strategy().num_replicas_in_sync
            if replicas > 1:
                loss *= 1.0 / replicas
        train_ops = []
        if dnn_logits is not None:
            train_ops.extend(dnn_optimizer.get_updates(loss, dnn_variables))
            train_ops.extend(dnn_update_ops or [])
        if linear_logits is not None:
            train_ops.extend(linear_optimizer.get_updates(loss, linear_variables))
        return tf.group(*train_ops)

    return head.create_estimator_spec(features=features, mode=mode, labels=labels,
                                      train_op_fn=_train_op_fn, logits=logits)


def _dnn_linear_combined_model_fn(
        features, labels, mode, head, linear_feature_columns=None, linear_optimizer="Ftrl",
        dnn_feature_columns=None, dnn_optimizer="Adagrad", dnn_hidden_units=None,
        dnn_activation_fn=tf.nn.relu, dnn_dropout=None, input_layer_partitioner=None,
        config=None, batch_norm=False, linear_sparse_combiner="sum"):
    """The v1 model_fn: scopes `dnn` and `linear`, one tf.compat.v1 optimizer each."""
    _check_model_fn_args(features, linear_feature_columns, dnn_feature_columns,
                         dnn_hidden_units)
    num_ps_replicas = config.num_ps_replicas if config else 0
    input_layer_partitioner = input_layer_partitioner or (
        tf.compat.v1.min_max_variable_partitioner(
            max_partitions=num_ps_replicas, min_slice_size=64 << 20))
    dnn_logits = linear_logits = None
    if dnn_feature_columns:
        dnn_optimizer = optimizers.get_optimizer_instance(
            dnn_optimizer, learning_rate=_DNN_LEARNING_RATE)
        _check_no_sync_replicas_optimizer(dnn_optimizer)
        with tf.compat.v1.variable_scope(
                "dnn", values=tuple(features.values()),
                partitioner=tf.compat.v1.min_max_variable_partitioner(
                    max_partitions=num_ps_replicas)) as scope:
            dnn_scope = scope.name
            dnn_logits = dnn.dnn_logit_fn_builder(
                units=head.logits_dimension, hidden_units=dnn_hidden_units,
                feature_columns=dnn_feature_columns, activation_fn=dnn_activation_fn,
                dropout=dnn_dropout, batch_norm=batch_norm,
                input_layer_partitioner=input_layer_partitioner)(features, mode)
    if linear_feature_columns:
        linear_optimizer = optimizers.get_optimizer_instance(
            linear_optimizer,
            learning_rate=linear_learning_rate(len(linear_feature_columns)))
        _check_no_sync_replicas_optimizer(linear_optimizer)
        with tf.compat.v1.variable_scope("linear", values=tuple(features.values()),
                                         partitioner=input_layer_partitioner) as scope:
            linear_scope = scope.name
            linear_logits = linear.linear_logit_fn_builder(
                units=head.logits_dimension, feature_columns=linear_feature_columns,
                sparse_combiner=linear_sparse_combiner)(features)
            dnn.add_layer_summary(linear_logits, scope.name)

    if dnn_logits is not None and linear_logits is not None:
        logits = dnn_logits + linear_logits
    else:
        logits = dnn_logits if dnn_logits is not None else linear_logits

    def _train_op_fn(loss):
        train_ops = []
        trainable = tf.compat.v1.GraphKeys.TRAINABLE_VARIABLES
        if dnn_logits is not None:
            train_ops.append(dnn_optimizer.minimize(
                loss, var_list=tf.compat.v1.get_collection(trainable, scope=dnn_scope)))
        if linear_logits is not None:
            train_ops.append(linear_optimizer.minimize(
                loss, var_list=tf.compat.v1.get_collection(trainable, scope=linear_scope)))
        with tf.control_dependencies([tf.group(*train_ops)]):
            return tf.compat.v1.assign_add(tf.compat.v1.train.get_global_step(), 1).op

    spec = head.create_estimator_spec(features=features, mode=mode, labels=labels,
                                      train_op_fn=_train_op_fn, logits=logits)
    return spec


def _combined_args(linear_feature_columns, dnn_feature_columns, dnn_hidden_units,
                   linear_optimizer, dnn_optimizer, dnn_activation_fn, dnn_dropout,
                   linear_sparse_combiner, *, v2):
    linear_feature_columns = canned_args.feature_columns(
        linear_feature_columns, v2=v2, arg_name="linear_feature_columns", required=False)
    dnn_feature_columns = canned_args.feature_columns(
        dnn_feature_columns, v2=v2, arg_name="dnn_feature_columns", required=False)
    if not linear_feature_columns and not dnn_feature_columns:
        raise ValueError(
            "Either linear_feature_columns or dnn_feature_columns must be defined.")
    if dnn_feature_columns:
        if not dnn_hidden_units:
            raise ValueError(
                "dnn_hidden_units must be defined when dnn_feature_columns is specified. "
                f"Received: dnn_hidden_units={dnn_hidden_units!r}.")
        dnn_hidden_units = canned_args.hidden_units(dnn_hidden_units)
    canned_args.activation(dnn_activation_fn)
    canned_args.dropout(dnn_dropout, arg_name="dnn_dropout")
    canned_args.sparse_combiner(linear_sparse_combiner, arg_name="linear_sparse_combiner")
    optimizers.check_optimizer_name(linear_optimizer, arg_name="linear_optimizer")
    optimizers.check_optimizer_name(dnn_optimizer, arg_name="dnn_optimizer")
    if v2:
        dnn_optimizer = optimizers.KerasOptimizerArg(dnn_optimizer,
                                                     learning_rate=_DNN_LEARNING_RATE)
        if linear_feature_columns:
            linear_optimizer = optimizers.KerasOptimizerArg(
                linear_optimizer,
                learning_rate=linear_learning_rate(len(linear_feature_columns)))
    return (linear_feature_columns, dnn_feature_columns, dnn_hidden_units, linear_optimizer,
            dnn_optimizer)


class _CombinedBase(Estimator):
    """Shared construction of the six classes (v1 / v2 x classifier, regressor, estimator)."""

    _V2 = True

    def _init_combined(self, *, head, model_dir, linear_feature_columns, linear_optimizer,
                       dnn_feature_columns, dnn_optimizer, dnn_hidden_units,
                       dnn_activation_fn, dnn_dropout, config, warm_start_from, batch_norm,
                       linear_sparse_combiner, loss_reduction=None,
                       input_layer_partitioner=None):
        (linear_feature_columns, dnn_feature_columns, dnn_hidden_units, linear_optimizer,
         dnn_optimizer) = _combined_args(
             linear_feature_columns, dnn_feature_columns, dnn_hidden_units, linear_optimizer,
             dnn_optimizer, dnn_activation_fn, dnn_dropout, linear_sparse_combiner,
             v2=self._V2)
        self._feature_columns = list(linear_feature_columns) + list(dnn_feature_columns)
        common = dict(
            head=head, linear_feature_columns=linear_feature_columns,
            linear_optimizer=linear_optimizer, dnn_feature_columns=dnn_feature_columns,
            dnn_optimizer=dnn_optimizer, dnn_hidden_units=dnn_hidden_units,
            dnn_activation_fn=dnn_activation_fn, dnn_dropout=dnn_dropout,
            batch_norm=batch_norm, linear_sparse_combiner=linear_sparse_combiner)
        if self._V2:
            if loss_reduction is None:
                loss_reduction = tf.losses.Reduction.SUM_OVER_BATCH_SIZE
            model_fn = bind_model_fn(_dnn_linear_combined_model_fn_v2,
                                     loss_reduction=loss_reduction, **common)
        else:
            model_fn = bind_model_fn(_dnn_linear_combined_model_fn,
                                     input_layer_partitioner=input_layer_partitioner, **common)
        Estimator.__init__(self, model_fn=model_fn, model_dir=model_dir, config=config,
                           warm_start_from=warm_start_from)


class DNNLinearCombinedClassifierV2(_CombinedBase):
    """Wide & deep classifier (tf.estimator.DNNLinearCombinedClassifier).

    Examples:
        Two steps of training on four examples, then one evaluation:

        >>> import tempfile
        >>> import numpy as np
        >>> import tensorflow as tf
        >>> import estimator_lib
        >>> def input_fn():
        ...     x = np.array([[0.0], [1.0], [2.0], [3.0]], np.float32)
        ...     y = np.array([[0], [1], [1], [0]])
        ...     return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(4)
        >>> x_column = tf.feature_column.numeric_column("x")
        >>> est = estimator_lib.DNNLinearCombinedClassifier(
        ...     linear_feature_columns=[x_column], dnn_feature_columns=[x_column],
        ...     dnn_hidden_units=[4], model_dir=tempfile.mkdtemp())
        >>> est = est.train(input_fn, steps=2)
        >>> metrics = est.evaluate(input_fn, steps=1)
        >>> int(metrics["global_step"]), bool(0.0 <= metrics["accuracy"] <= 1.0)
        (2, True)

    Args:
        model_dir: Where checkpoints and summaries go; None takes `config.model_dir` or a
            new temporary directory.
        linear_feature_columns: The feature columns of the linear (wide) part.
        linear_optimizer: The linear part's optimizer, as `optimizer` elsewhere (a name,
            instance or callable).
        dnn_feature_columns: The feature columns of the deep part.
        dnn_optimizer: The deep part's optimizer, as `optimizer` elsewhere.
            Deliberate difference 15: an instance survives a second `train()`.
        dnn_hidden_units: Units per hidden layer of the deep part.
        dnn_activation_fn: The deep part's activation function.
        dnn_dropout: The deep part's dropout probability while training, or None.
        n_classes: How many classes the labels take (at least 2; 2 gives a binary head).
        weight_column: A feature key, or a numeric column, giving per-example weights; None
            weighs all examples 1.
        label_vocabulary: The string labels, in class-id order; None means labels are class
            ids.
        config: A `RunConfig`.
        warm_start_from: A checkpoint path or `WarmStartSettings` to warm-start from.
        loss_reduction: How the per-example losses are reduced over the batch (a
            `tf.losses.Reduction`); v1 classes sum them, v2 classes average them by default.
        batch_norm: Whether to apply batch normalization after each hidden layer.
        linear_sparse_combiner: How the linear part combines a sparse column's values:
            'sum', 'mean' or 'sqrtn'.

    Raises:
        ValueError: If an argument is invalid (for example a bad `n_classes`, an
            unknown optimizer name or, in a v2 class, a v1-only feature column).
            Deliberate difference 14: raised as the estimator is built, not at `train()`.
    """

    def __init__(self, model_dir=None, linear_feature_columns=None, linear_optimizer="Ftrl",
                 dnn_feature_columns=None, dnn_optimizer="Adagrad", dnn_hidden_units=None,
                 dnn_activation_fn=tf.nn.relu, dnn_dropout=None, n_classes=2,
                 weight_column=None, label_vocabulary=None, config=None, warm_start_from=None,
                 loss_reduction=tf.losses.Reduction.SUM_OVER_BATCH_SIZE, batch_norm=False,
                 linear_sparse_combiner="sum"):
        head = heads.classifier_head_v2(n_classes, weight_column=weight_column,
                                        label_vocabulary=label_vocabulary,
                                        loss_reduction=loss_reduction)
        self._init_combined(
            head=head, model_dir=model_dir, linear_feature_columns=linear_feature_columns,
            linear_optimizer=linear_optimizer, dnn_feature_columns=dnn_feature_columns,
            dnn_optimizer=dnn_optimizer, dnn_hidden_units=dnn_hidden_units,
            dnn_activation_fn=dnn_activation_fn, dnn_dropout=dnn_dropout, config=config,
            warm_start_from=warm_start_from, batch_norm=batch_norm,
            linear_sparse_combiner=linear_sparse_combiner, loss_reduction=loss_reduction)


class DNNLinearCombinedClassifier(_CombinedBase, EstimatorV1):
    """tf.compat.v1.estimator.DNNLinearCombinedClassifier (v1 columns, optimizers, SUM).

    Examples:
        Two steps of training on four examples, then one evaluation; the v1 loss
        is the batch's sum, four times the average:

        >>> import tempfile
        >>> import numpy as np
        >>> import tensorflow as tf
        >>> import estimator_lib
        >>> def input_fn():
        ...     x = np.array([[0.0], [1.0], [2.0], [3.0]], np.float32)
        ...     y = np.array([[0], [1], [1], [0]])
        ...     return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(4)
        >>> x_column = tf.feature_column.numeric_column("x")
        >>> est = estimator_lib.canned.DNNLinearCombinedClassifier(
        ...     linear_feature_columns=[x_column], dnn_feature_columns=[x_column],
        ...     dnn_hidden_units=[4], model_dir=tempfile.mkdtemp())
        >>> est = est.train(input_fn, steps=2)
        >>> metrics = est.evaluate(input_fn, steps=1)
        >>> int(metrics["global_step"]), bool(np.isclose(metrics["loss"],
        ...                                               4 * metrics["average_loss"]))
        (2, True)

    Args:
        model_dir: Where checkpoints and summaries go; None takes `config.model_dir` or a
            new temporary directory.
        linear_feature_columns: The feature columns of the linear (wide) part.
        linear_optimizer: The linear part's optimizer, as `optimizer` elsewhere (a name,
            instance or callable).
        dnn_feature_columns: The feature columns of the deep part.
        dnn_optimizer: The deep part's optimizer, as `optimizer` elsewhere.
        dnn_hidden_units: Units per hidden layer of the deep part.
        dnn_activation_fn: The deep part's activation function.
        dnn_dropout: The deep part's dropout probability while training, or None.
        n_classes: How many classes the labels take (at least 2; 2 gives a binary head).
        weight_column: A feature key, or a numeric column, giving per-example weights; None
            weighs all examples 1.
        label_vocabulary: The string labels, in class-id order; None means labels are class
            ids.
        input_layer_partitioner: The partitioner of the input layer's variables; None gives
            the default (by the number of parameter servers).
        config: A `RunConfig`.
        warm_start_from: A checkpoint path or `WarmStartSettings` to warm-start from.
        loss_reduction: How the per-example losses are reduced over the batch (a
            `tf.losses.Reduction`); v1 classes sum them, v2 classes average them by default.
        batch_norm: Whether to apply batch normalization after each hidden layer.
        linear_sparse_combiner: How the linear part combines a sparse column's values:
            'sum', 'mean' or 'sqrtn'.

    Raises:
        ValueError: If an argument is invalid (for example a bad `n_classes`, an
            unknown optimizer name or, in a v2 class, a v1-only feature column).
            Deliberate difference 14: raised as the estimator is built, not at `train()`.
    """

    _V2 = False

    def __init__(self, model_dir=None, linear_feature_columns=None, linear_optimizer="Ftrl",
                 dnn_feature_columns=None, dnn_optimizer="Adagrad", dnn_hidden_units=None,
                 dnn_activation_fn=tf.nn.relu, dnn_dropout=None, n_classes=2,
                 weight_column=None, label_vocabulary=None, input_layer_partitioner=None,
                 config=None, warm_start_from=None,
                 loss_reduction=tf.compat.v1.losses.Reduction.SUM, batch_norm=False,
                 linear_sparse_combiner="sum"):
        head = heads.classifier_head_v1(n_classes, weight_column=weight_column,
                                        label_vocabulary=label_vocabulary,
                                        loss_reduction=loss_reduction)
        self._init_combined(
            head=head, model_dir=model_dir, linear_feature_columns=linear_feature_columns,
            linear_optimizer=linear_optimizer, dnn_feature_columns=dnn_feature_columns,
            dnn_optimizer=dnn_optimizer, dnn_hidden_units=dnn_hidden_units,
            dnn_activation_fn=dnn_activation_fn, dnn_dropout=dnn_dropout, config=config,
            warm_start_from=warm_start_from, batch_norm=batch_norm,
            linear_sparse_combiner=linear_sparse_combiner,
            input_layer_partitioner=input_layer_partitioner)


class DNNLinearCombinedRegressorV2(_CombinedBase):
    """Wide & deep regressor (tf.estimator.DNNLinearCombinedRegressor).

    Examples:
        Two steps of training on four examples (y = 2x), then one evaluation:

        >>> import tempfile
        >>> import numpy as np
        >>> import tensorflow as tf
        >>> import estimator_lib
        >>> def input_fn():
        ...     x = np.array([[0.0], [1.0], [2.0], [3.0]], np.float32)
        ...     return tf.data.Dataset.from_tensor_slices(({"x": x}, 2.0 * x)).repeat().batch(4)
        >>> x_column = tf.feature_column.numeric_column("x")
        >>> est = estimator_lib.DNNLinearCombinedRegressor(
        ...     linear_feature_columns=[x_column], dnn_feature_columns=[x_column],
        ...     dnn_hidden_units=[4], model_dir=tempfile.mkdtemp())
        >>> est = est.train(input_fn, steps=2)
        >>> metrics = est.evaluate(input_fn, steps=1)
        >>> int(metrics["global_step"]), sorted(metrics)
        (2, ['average_loss', 'global_step', 'label/mean', 'loss', 'prediction/mean'])

    Args:
        model_dir: Where checkpoints and summaries go; None takes `config.model_dir` or a
            new temporary directory.
        linear_feature_columns: The feature columns of the linear (wide) part.
        linear_optimizer: The linear part's optimizer, as `optimizer` elsewhere (a name,
            instance or callable).
        dnn_feature_columns: The feature columns of the deep part.
        dnn_optimizer: The deep part's optimizer, as `optimizer` elsewhere.
            Deliberate difference 15: an instance survives a second `train()`.
        dnn_hidden_units: Units per hidden layer of the deep part.
        dnn_activation_fn: The deep part's activation function.
        dnn_dropout: The deep part's dropout probability while training, or None.
        label_dimension: How many regression targets each example has.
        weight_column: A feature key, or a numeric column, giving per-example weights; None
            weighs all examples 1.
        config: A `RunConfig`.
        warm_start_from: A checkpoint path or `WarmStartSettings` to warm-start from.
        loss_reduction: How the per-example losses are reduced over the batch (a
            `tf.losses.Reduction`); v1 classes sum them, v2 classes average them by default.
        batch_norm: Whether to apply batch normalization after each hidden layer.
        linear_sparse_combiner: How the linear part combines a sparse column's values:
            'sum', 'mean' or 'sqrtn'.

    Raises:
        ValueError: If an argument is invalid (for example a bad `n_classes`, an
            unknown optimizer name or, in a v2 class, a v1-only feature column).
            Deliberate difference 14: raised as the estimator is built, not at `train()`.
    """

    def __init__(self, model_dir=None, linear_feature_columns=None, linear_optimizer="Ftrl",
                 dnn_feature_columns=None, dnn_optimizer="Adagrad", dnn_hidden_units=None,
                 dnn_activation_fn=tf.nn.relu, dnn_dropout=None, label_dimension=1,
                 weight_column=None, config=None, warm_start_from=None,
                 loss_reduction=tf.losses.Reduction.SUM_OVER_BATCH_SIZE, batch_norm=False,
                 linear_sparse_combiner="sum"):
        head = heads.regression_head_v2(label_dimension=label_dimension,
                                        weight_column=weight_column,
                                        loss_reduction=loss_reduction)
        self._init_combined(
            head=head, model_dir=model_dir, linear_feature_columns=linear_feature_columns,
            linear_optimizer=linear_optimizer, dnn_feature_columns=dnn_feature_columns,
            dnn_optimizer=dnn_optimizer, dnn_hidden_units=dnn_hidden_units,
            dnn_activation_fn=dnn_activation_fn, dnn_dropout=dnn_dropout, config=config,
            warm_start_from=warm_start_from, batch_norm=batch_norm,
            linear_sparse_combiner=linear_sparse_combiner, loss_reduction=loss_reduction)


class DNNLinearCombinedRegressor(_CombinedBase, EstimatorV1):
    """tf.compat.v1.estimator.DNNLinearCombinedRegressor (v1 columns, optimizers, SUM).

    Examples:
        Two steps of training on four examples (y = 2x), then one evaluation; the
        v1 loss is the batch's sum, four times the average:

        >>> import tempfile
        >>> import numpy as np
        >>> import tensorflow as tf
        >>> import estimator_lib
        >>> def input_fn():
        ...     x = np.array([[0.0], [1.0], [2.0], [3.0]], np.float32)
        ...     return tf.data.Dataset.from_tensor_slices(({"x": x}, 2.0 * x)).repeat().batch(4)
        >>> x_column = tf.feature_column.numeric_column("x")
        >>> est = estimator_lib.canned.DNNLinearCombinedRegressor(
        ...     linear_feature_columns=[x_column], dnn_feature_columns=[x_column],
        ...     dnn_hidden_units=[4], model_dir=tempfile.mkdtemp())
        >>> est = est.train(input_fn, steps=2)
        >>> metrics = est.evaluate(input_fn, steps=1)
        >>> int(metrics["global_step"]), bool(np.isclose(metrics["loss"],
        ...                                               4 * metrics["average_loss"]))
        (2, True)

    Args:
        model_dir: Where checkpoints and summaries go; None takes `config.model_dir` or a
            new temporary directory.
        linear_feature_columns: The feature columns of the linear (wide) part.
        linear_optimizer: The linear part's optimizer, as `optimizer` elsewhere (a name,
            instance or callable).
        dnn_feature_columns: The feature columns of the deep part.
        dnn_optimizer: The deep part's optimizer, as `optimizer` elsewhere.
        dnn_hidden_units: Units per hidden layer of the deep part.
        dnn_activation_fn: The deep part's activation function.
        dnn_dropout: The deep part's dropout probability while training, or None.
        label_dimension: How many regression targets each example has.
        weight_column: A feature key, or a numeric column, giving per-example weights; None
            weighs all examples 1.
        input_layer_partitioner: The partitioner of the input layer's variables; None gives
            the default (by the number of parameter servers).
        config: A `RunConfig`.
        warm_start_from: A checkpoint path or `WarmStartSettings` to warm-start from.
        loss_reduction: How the per-example losses are reduced over the batch (a
            `tf.losses.Reduction`); v1 classes sum them, v2 classes average them by default.
        batch_norm: Whether to apply batch normalization after each hidden layer.
        linear_sparse_combiner: How the linear part combines a sparse column's values:
            'sum', 'mean' or 'sqrtn'.

    Raises:
        ValueError: If an argument is invalid (for example a bad `n_classes`, an
            unknown optimizer name or, in a v2 class, a v1-only feature column).
            Deliberate difference 14: raised as the estimator is built, not at `train()`.
    """

    _V2 = False

    def __init__(self, model_dir=None, linear_feature_columns=None, linear_optimizer="Ftrl",
                 dnn_feature_columns=None, dnn_optimizer="Adagrad", dnn_hidden_units=None,
                 dnn_activation_fn=tf.nn.relu, dnn_dropout=None, label_dimension=1,
                 weight_column=None, input_layer_partitioner=None, config=None,
                 warm_start_from=None, loss_reduction=tf.compat.v1.losses.Reduction.SUM,
                 batch_norm=False, linear_sparse_combiner="sum"):
        head = heads.regression_head_v1(label_dimension=label_dimension,
                                        weight_column=weight_column,
                                        loss_reduction=loss_reduction)
        self._init_combined(
            head=head, model_dir=model_dir, linear_feature_columns=linear_feature_columns,
            linear_optimizer=linear_optimizer, dnn_feature_columns=dnn_feature_columns,
            dnn_optimizer=dnn_optimizer, dnn_hidden_units=dnn_hidden_units,
            dnn_activation_fn=dnn_activation_fn, dnn_dropout=dnn_dropout, config=config,
            warm_start_from=warm_start_from, batch_norm=batch_norm,
            linear_sparse_combiner=linear_sparse_combiner,
            input_layer_partitioner=input_layer_partitioner)


class DNNLinearCombinedEstimatorV2(_CombinedBase):
    """Wide & deep model with a head you give (tf.estimator.DNNLinearCombinedEstimator).

    As in the original, it takes no `warm_start_from`.

    Deliberate difference 16: the replica scaling follows the head's own reduction.

    Examples:
        A multi-label head (three labels per example): two steps of training on four
        examples, then one evaluation:

        >>> import tempfile
        >>> import numpy as np
        >>> import tensorflow as tf
        >>> import estimator_lib
        >>> def input_fn():
        ...     x = np.array([[0.0], [1.0], [2.0], [3.0]], np.float32)
        ...     y = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 1]])
        ...     return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(4)
        >>> x_column = tf.feature_column.numeric_column("x")
        >>> head = estimator_lib.MultiLabelHead(n_classes=3)
        >>> est = estimator_lib.DNNLinearCombinedEstimator(
        ...     head=head, linear_feature_columns=[x_column], dnn_feature_columns=[x_column],
        ...     dnn_hidden_units=[4], model_dir=tempfile.mkdtemp())
        >>> est = est.train(input_fn, steps=2)
        >>> metrics = est.evaluate(input_fn, steps=1)
        >>> int(metrics["global_step"]), "auc" in metrics
        (2, True)

    Args:
        head: The `Head` (v2 classes) or v1 head that turns logits into loss, metrics and
            predictions.
        model_dir: Where checkpoints and summaries go; None takes `config.model_dir` or a
            new temporary directory.
        linear_feature_columns: The feature columns of the linear (wide) part.
        linear_optimizer: The linear part's optimizer, as `optimizer` elsewhere (a name,
            instance or callable).
        dnn_feature_columns: The feature columns of the deep part.
        dnn_optimizer: The deep part's optimizer, as `optimizer` elsewhere.
            Deliberate difference 15: an instance survives a second `train()`.
        dnn_hidden_units: Units per hidden layer of the deep part.
        dnn_activation_fn: The deep part's activation function.
        dnn_dropout: The deep part's dropout probability while training, or None.
        config: A `RunConfig`.
        batch_norm: Whether to apply batch normalization after each hidden layer.
        linear_sparse_combiner: How the linear part combines a sparse column's values:
            'sum', 'mean' or 'sqrtn'.

    Raises:
        ValueError: If an argument is invalid (for example a bad `n_classes`, an
            unknown optimizer name or, in a v2 class, a v1-only feature column).
            Deliberate difference 14: raised as the estimator is built, not at `train()`.
    """

    def __init__(self, head, model_dir=None, linear_feature_columns=None,
                 linear_optimizer="Ftrl", dnn_feature_columns=None, dnn_optimizer="Adagrad",
                 dnn_hidden_units=None, dnn_activation_fn=tf.nn.relu, dnn_dropout=None,
                 config=None, batch_norm=False, linear_sparse_combiner="sum"):
        self._init_combined(
            head=head, model_dir=model_dir, linear_feature_columns=linear_feature_columns,
            linear_optimizer=linear_optimizer, dnn_feature_columns=dnn_feature_columns,
            dnn_optimizer=dnn_optimizer, dnn_hidden_units=dnn_hidden_units,
            dnn_activation_fn=dnn_activation_fn, dnn_dropout=dnn_dropout, config=config,
            warm_start_from=None, batch_norm=batch_norm,
            linear_sparse_combiner=linear_sparse_combiner,
            loss_reduction=getattr(head, "loss_reduction", None))


class DNNLinearCombinedEstimator(_CombinedBase, EstimatorV1):
    """tf.compat.v1.estimator.DNNLinearCombinedEstimator: a v1 head you give.

    Examples:
        A v1 head (`estimator_lib.head.make_v1_head`: binary, the loss summed): two
        steps of training on four examples, then one evaluation:

        >>> import tempfile
        >>> import numpy as np
        >>> import tensorflow as tf
        >>> import estimator_lib
        >>> def input_fn():
        ...     x = np.array([[0.0], [1.0], [2.0], [3.0]], np.float32)
        ...     y = np.array([[0], [1], [1], [0]])
        ...     return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(4)
        >>> x_column = tf.feature_column.numeric_column("x")
        >>> head = estimator_lib.head.make_v1_head(n_classes=2)
        >>> est = estimator_lib.canned.DNNLinearCombinedEstimator(
        ...     head=head, linear_feature_columns=[x_column], dnn_feature_columns=[x_column],
        ...     dnn_hidden_units=[4], model_dir=tempfile.mkdtemp())
        >>> est = est.train(input_fn, steps=2)
        >>> metrics = est.evaluate(input_fn, steps=1)
        >>> int(metrics["global_step"]), bool(np.isclose(metrics["loss"],
        ...                                               4 * metrics["average_loss"]))
        (2, True)

    Args:
        head: The `Head` (v2 classes) or v1 head that turns logits into loss, metrics and
            predictions.
        model_dir: Where checkpoints and summaries go; None takes `config.model_dir` or a
            new temporary directory.
        linear_feature_columns: The feature columns of the linear (wide) part.
        linear_optimizer: The linear part's optimizer, as `optimizer` elsewhere (a name,
            instance or callable).
        dnn_feature_columns: The feature columns of the deep part.
        dnn_optimizer: The deep part's optimizer, as `optimizer` elsewhere.
        dnn_hidden_units: Units per hidden layer of the deep part.
        dnn_activation_fn: The deep part's activation function.
        dnn_dropout: The deep part's dropout probability while training, or None.
        input_layer_partitioner: The partitioner of the input layer's variables; None gives
            the default (by the number of parameter servers).
        config: A `RunConfig`.
        batch_norm: Whether to apply batch normalization after each hidden layer.
        linear_sparse_combiner: How the linear part combines a sparse column's values:
            'sum', 'mean' or 'sqrtn'.

    Raises:
        ValueError: If an argument is invalid (for example a bad `n_classes`, an
            unknown optimizer name or, in a v2 class, a v1-only feature column).
            Deliberate difference 14: raised as the estimator is built, not at `train()`.
    """

    _V2 = False

    def __init__(self, head, model_dir=None, linear_feature_columns=None,
                 linear_optimizer="Ftrl", dnn_feature_columns=None, dnn_optimizer="Adagrad",
                 dnn_hidden_units=None, dnn_activation_fn=tf.nn.relu, dnn_dropout=None,
                 input_layer_partitioner=None, config=None, batch_norm=False,
                 linear_sparse_combiner="sum"):
        self._init_combined(
            head=head, model_dir=model_dir, linear_feature_columns=linear_feature_columns,
            linear_optimizer=linear_optimizer, dnn_feature_columns=dnn_feature_columns,
            dnn_optimizer=dnn_optimizer, dnn_hidden_units=dnn_hidden_units,
            dnn_activation_fn=dnn_activation_fn, dnn_dropout=dnn_dropout, config=config,
            warm_start_from=None, batch_norm=batch_norm,
            linear_sparse_combiner=linear_sparse_combiner,
            input_layer_partitioner=input_layer_partitioner)
