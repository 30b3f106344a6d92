"""DNNClassifier, DNNRegressor and DNNEstimator: fully connected networks over feature columns.

The v2 classes (`tf.estimator.*`) build tf_keras layers inside a Keras model named
`dnn` and train with a tf_keras legacy optimizer whose `iterations` is the
global step; the v1 classes (`tf.compat.v1.estimator.*`) build tf.compat.v1
layers in variable scope `dnn` (with the original's partitioners) and train with
a tf.compat.v1 optimizer. Either way the variables are the original's:

    dnn/input_from_feature_columns/input_layer/<column>_embedding/embedding_weights
    dnn/hiddenlayer_<i>/{kernel,bias}      dnn/hiddenlayer_<i>/batchnorm_<i>/...
    dnn/logits/{kernel,bias}
"""

from typing import Callable, Optional, Sequence

import tensorflow as tf
import tf_keras

from estimator_lib.engine.estimator import Estimator
from estimator_lib.engine.estimator_v1 import EstimatorV1
from estimator_lib.core.model_fn import ModeKeys
from estimator_lib.core.run_config import RunConfig
from estimator_lib.canned import args as canned_args
from estimator_lib.canned import feature_inputs
from estimator_lib.canned import heads
from estimator_lib.canned import optimizers
from estimator_lib.canned.bound_model_fn import bind_model_fn
# The original module's private helpers, at its path (libraries import them).
from estimator_lib.canned.original_helpers import (  # noqa: F401
    _add_hidden_layer_summary, _dnn_model_fn_builder_v2, _get_dnn_estimator_spec,
    _get_previous_name_scope, _name_from_scope_name, _validate_features)


# The original's default learning rate for an optimizer given by name.
_LEARNING_RATE = 0.05


def add_layer_summary(value: tf.Tensor, tag: str) -> None:
    """The original's per-layer summaries: fraction of zeros and a histogram."""
    tf.compat.v1.summary.scalar(f"{tag}/fraction_of_zero_values", tf.math.zero_fraction(value))
    tf.compat.v1.summary.histogram(f"{tag}/activation", value)


def _check_units(units) -> None:
    if isinstance(units, bool) or not isinstance(units, int):
        raise ValueError(f"units must be an int.  Given type: {type(units)}")


# ---------------------------------------------------------------------------- v1


def _v1_dnn_logits(features, mode, *, units, hidden_units, feature_columns, activation_fn,
                   dropout, input_layer_partitioner, batch_norm):
    """Logits of the v1 network, built in the current variable scope (`dnn`)."""
    training = mode == ModeKeys.TRAIN
    scope_name = tf.compat.v1.get_variable_scope().name
    with tf.compat.v1.variable_scope("input_from_feature_columns",
                                     partitioner=input_layer_partitioner):
        net = feature_inputs.v1_input_layer(features, feature_columns, training=training)
    for i, width in enumerate(hidden_units):
        name = f"hiddenlayer_{i}"
        net = tf.compat.v1.layers.Dense(
            units=width, activation=activation_fn,
            kernel_initializer=tf.compat.v1.glorot_uniform_initializer(), name=name)(net)
        if dropout is not None and training:
            net = tf.compat.v1.layers.Dropout(rate=dropout)(net, training=True)
        if batch_norm:
            # The original put the batch norm variables under the hidden layer:
            # dnn/hiddenlayer_<i>/batchnorm_<i>/...
            with tf.compat.v1.variable_scope(name):
                # Momentum 0.999 (tf.contrib.layers.batch_norm's), as the original.
                net = tf.compat.v1.layers.BatchNormalization(
                    momentum=0.999, trainable=True, name=f"batchnorm_{i}")(
                        net, training=training)
        add_layer_summary(net, f"{scope_name}/{name}" if scope_name else name)
    logits = tf.compat.v1.layers.Dense(
        units=units, activation=None,
        kernel_initializer=tf.compat.v1.glorot_uniform_initializer(), name="logits")(net)
    add_layer_summary(logits, f"{scope_name}/logits" if scope_name else "logits")
    return logits


def dnn_logit_fn_builder(units, hidden_units, feature_columns, activation_fn, dropout,
                         input_layer_partitioner, batch_norm):
    """Returns `logit_fn(features, mode)` of the v1 DNN (tf.compat.v1.estimator.experimental).

    The logit_fn builds its variables in the current variable scope; the v1
    estimators call it in scope `dnn`.

    Args:
        units: The size of the logits' last dimension (the head's `logits_dimension`).
        hidden_units: Units per hidden layer, first layer first.
        feature_columns: The feature columns the model reads.
        activation_fn: The hidden layers' activation function.
        dropout: The probability of dropping a hidden unit while training, or None.
        input_layer_partitioner: The partitioner of the input layer's variables, or None.
        batch_norm: Whether to apply batch normalization after each hidden layer.

    Returns:
        A function `logit_fn(features, mode)` returning the logits tensor.

    Raises:
        ValueError: If `units` is not an int.

    Examples:
        The logits of a batch of two, built in a graph (in a model_fn, pass the
        function to `call_logit_fn`). Under `estimator_lib.compat.install()` it is
        `tf.compat.v1.estimator.experimental.dnn_logit_fn_builder`:

        >>> import estimator_lib
        >>> from estimator_lib.canned.dnn import dnn_logit_fn_builder
        >>> logit_fn = dnn_logit_fn_builder(
        ...     units=3, hidden_units=[4], feature_columns=[
        ...         tf.feature_column.numeric_column("x")], activation_fn=tf.nn.relu,
        ...     dropout=None, input_layer_partitioner=None, batch_norm=False)
        >>> with tf.Graph().as_default():
        ...     logits = logit_fn({"x": tf.constant([[1.0], [2.0]])}, estimator_lib.ModeKeys.TRAIN)
        >>> logits.shape.as_list()
        [2, 3]
    """
    _check_units(units)

    def dnn_logit_fn(features, mode):
        return _v1_dnn_logits(
            features, mode, units=units, hidden_units=hidden_units,
            feature_columns=feature_columns, activation_fn=activation_fn, dropout=dropout,
            input_layer_partitioner=input_layer_partitioner, batch_norm=batch_norm)

    return dnn_logit_fn


def _default_partitioners(config, input_layer_partitioner):
    num_ps_replicas = config.num_ps_replicas if config else 0
    layer_partitioner = tf.compat.v1.min_max_variable_partitioner(max_partitions=num_ps_replicas)
    input_partitioner = input_layer_partitioner or tf.compat.v1.min_max_variable_partitioner(
        max_partitions=num_ps_replicas, min_slice_size=64 << 20)
    return layer_partitioner, input_partitioner


def _dnn_model_fn(features, labels, mode, head, hidden_units, feature_columns,
                  optimizer="Adagrad", activation_fn=tf.nn.relu, dropout=None,
                  input_layer_partitioner=None, config=None, use_tpu=False, batch_norm=False):
    """The v1 DNN model_fn: variable scope `dnn`, a tf.compat.v1 optimizer."""
    del use_tpu  # No TPU here.
    optimizer = optimizers.get_optimizer_instance(optimizer, learning_rate=_LEARNING_RATE)
    feature_inputs.check_features(features, feature_columns)
    layer_partitioner, input_partitioner = _default_partitioners(config, input_layer_partitioner)
    with tf.compat.v1.variable_scope("dnn", values=tuple(features.values()),
                                     partitioner=layer_partitioner):
        logits = dnn_logit_fn_builder(
            units=head.logits_dimension, hidden_units=hidden_units,
            feature_columns=feature_columns, activation_fn=activation_fn, dropout=dropout,
            input_layer_partitioner=input_partitioner, batch_norm=batch_norm)(features, mode)
        # Inside the scope, as the original: its slot variables are saved as
        # `<variable>/t_0/Adagrad` (a quirk that checkpoints carry).
        spec = head.create_estimator_spec(features=features, mode=mode, labels=labels,
                                          optimizer=optimizer, logits=logits)
    return spec


# ---------------------------------------------------------------------------- v2


class _DNNModelV2(tf_keras.Model):
    """The v2 network: DenseFeatures, Dense (+ dropout, batch norm) layers, logits."""

    def __init__(self, units, hidden_units, feature_columns, activation_fn, dropout,
                 batch_norm, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        feature_inputs.require_v2(feature_columns)
        self._input_layer = feature_inputs.v2_input_layer(feature_columns)
        self._dropout = dropout
        self._batch_norm = batch_norm
        self._hidden_layers, self._dropout_layers, self._batch_norm_layers = [], [], []
        self._layer_names = []
        for i, width in enumerate(hidden_units):
            name_i = f"hiddenlayer_{i}"
            self._layer_names.append(name_i)
            self._hidden_layers.append(tf_keras.layers.Dense(
                units=width, activation=activation_fn,
                kernel_initializer=tf.compat.v1.glorot_uniform_initializer(), name=name_i))
            if dropout is not None:
                self._dropout_layers.append(tf_keras.layers.Dropout(rate=dropout))
            if batch_norm:
                self._batch_norm_layers.append(tf_keras.layers.BatchNormalization(
                    momentum=0.999, trainable=True, name=f"{name_i}/batchnorm_{i}"))
        self._logits_layer = tf_keras.layers.Dense(
            units=units, activation=None,
            kernel_initializer=tf.compat.v1.glorot_uniform_initializer(), name="logits")

    def call(self, features, mode):
        training = mode == ModeKeys.TRAIN
        try:
            net = self._input_layer(features, training=training)
        except TypeError:
            net = self._input_layer(features)
        for i, layer in enumerate(self._hidden_layers):
            net = layer(net)
            if self._dropout is not None and training:
                net = self._dropout_layers[i](net, training=True)
            if self._batch_norm:
                net = self._batch_norm_layers[i](net, training=training)
            add_layer_summary(net, self._layer_names[i])
        logits = self._logits_layer(net)
        add_layer_summary(logits, "logits")
        return logits


def dnn_logit_fn_builder_v2(units, hidden_units, feature_columns, activation_fn, dropout,
                            batch_norm):
    """Returns `logit_fn(features, mode)` of the v2 DNN (a Keras model named `dnn`).

    Args:
        units: The size of the logits' last dimension.
        hidden_units: Units per hidden layer, first layer first.
        feature_columns: The feature columns the model reads.
        activation_fn: The hidden layers' activation function.
        dropout: The probability of dropping a hidden unit while training, or None.
        batch_norm: Whether to apply batch normalization after each hidden layer.

    Returns:
        A function `logit_fn(features, mode)` returning the logits tensor.
    """
    _check_units(units)

    def dnn_logit_fn(features, mode):
        model = _DNNModelV2(units, hidden_units, feature_columns, activation_fn, dropout,
                            batch_norm, name="dnn")
        return model(features, mode)

    return dnn_logit_fn


def dnn_logits_v2(features, mode, *, units, hidden_units, feature_columns, activation_fn,
                  dropout, batch_norm):
    """(logits, trainable variables, update ops) of the v2 network.

    Args:
        features: The dict of feature tensors.
        mode: The `ModeKeys` mode.
        units: The size of the logits' last dimension.
        hidden_units: Units per hidden layer, first layer first.
        feature_columns: The feature columns the model reads.
        activation_fn: The hidden layers' activation function.
        dropout: The probability of dropping a hidden unit while training, or None.
        batch_norm: Whether to apply batch normalization after each hidden layer.

    Returns:
        The triple `(logits, trainable variables, update ops)`.
    """
    _check_units(units)
    model = _DNNModelV2(units, hidden_units, feature_columns, activation_fn, dropout,
                        batch_norm, name="dnn")
    logits = model(features, mode)
    return logits, model.trainable_variables, model.updates


def dnn_model_fn_v2(features, labels, mode, head, hidden_units, feature_columns,
                    optimizer="Adagrad", activation_fn=tf.nn.relu, dropout=None, config=None,
                    use_tpu=False, batch_norm=False):
    """The v2 DNN model_fn: Keras layers, a tf_keras legacy optimizer on the global step.

    A name gives the optimizer's own default learning rate (0.05 where it has none).

    Args:
        features: The dict of feature tensors.
        labels: The labels tensor (None in PREDICT).
        mode: The `ModeKeys` mode.
        head: The `Head` turning the logits into loss, metrics and predictions.
        hidden_units: Units per hidden layer, first layer first.
        feature_columns: The feature columns the model reads.
        optimizer: The optimizer (name, instance or callable).
        activation_fn: The hidden layers' activation function.
        dropout: The probability of dropping a hidden unit while training, or None.
        config: The `RunConfig`.
        use_tpu: Whether the spec is for TPUEstimator (a `TPUEstimatorSpec`).
        batch_norm: Whether to apply batch normalization after each hidden layer.

    Returns:
        The `EstimatorSpec` for `mode` (a `TPUEstimatorSpec` when `use_tpu`).
    """
    del config, use_tpu
    feature_inputs.check_features(features, feature_columns)
    logits, trainable_variables, update_ops = dnn_logits_v2(
        features, mode, units=head.logits_dimension, hidden_units=hidden_units,
        feature_columns=feature_columns, activation_fn=activation_fn, dropout=dropout,
        batch_norm=batch_norm)
    if mode == ModeKeys.TRAIN:
        optimizer = optimizers.keras_optimizer_for_graph(optimizer)
    return head.create_estimator_spec(
        features=features, mode=mode, labels=labels, optimizer=optimizer, logits=logits,
        trainable_variables=trainable_variables, update_ops=update_ops)


# ---------------------------------------------------------------------------- classes


def _dnn_args(hidden_units, feature_columns, activation_fn, dropout, optimizer, batch_norm,
              *, v2, **v1_args):
    """The checked keyword arguments of the model_fn (all but the head and the batch)."""
    hidden_units = canned_args.hidden_units(hidden_units)
    feature_columns = canned_args.feature_columns(feature_columns, v2=v2)
    canned_args.activation(activation_fn)
    canned_args.dropout(dropout)
    optimizer = canned_args.optimizer(optimizer, v2=v2)
    return dict(hidden_units=hidden_units, feature_columns=feature_columns,
                optimizer=optimizer, activation_fn=activation_fn, dropout=dropout,
                batch_norm=batch_norm, **v1_args)


class DNNClassifierV2(Estimator):
    """A classifier for TensorFlow DNN models (tf.estimator.DNNClassifier).

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
        >>> est = estimator_lib.DNNClassifier(hidden_units=[4], feature_columns=[x_column],
        ...                                   model_dir=tempfile.mkdtemp())
        >>> est = est.train(input_fn, steps=2)
        >>> metrics = est.evaluate(input_fn, steps=1)
        >>> int(metrics["global_step"]), bool(0.0 <= metrics["accuracy"] <= 1.0)
        (2, True)

    Args:
        hidden_units: Units per hidden layer, e.g. `[64, 32]`.
        feature_columns: v2 feature columns the network reads.
        model_dir: Where checkpoints and summaries go.
        n_classes: Number of classes (> 1); 2 gives a logistic head.
        weight_column: A key or a numeric column giving example weights.
        label_vocabulary: String labels, in class-id order.
        optimizer: 'Adagrad' (default), 'Adam', 'Ftrl', 'RMSProp', 'SGD', a
            tf.keras legacy optimizer instance, or a callable returning one.
            Deliberate difference 15: an instance survives a second `train()`.
        activation_fn: Hidden layers' activation (default relu).
        dropout: Probability of dropping a hidden unit while training, or None.
        config: An `RunConfig`.
        warm_start_from: A checkpoint path or `WarmStartSettings`.
        loss_reduction: How the training loss is reduced over the batch.
        batch_norm: Batch normalization after each hidden layer.

    Raises:
        ValueError: If an argument is invalid (for example a bad `n_classes`, an
            unknown optimizer name or, in a v2 class, a v1-only feature column).
            Deliberate difference 14: raised as the estimator is built, not at `train()`.
    """

    def __init__(self, hidden_units, feature_columns, model_dir=None, n_classes=2,
                 weight_column=None, label_vocabulary=None, optimizer="Adagrad",
                 activation_fn=tf.nn.relu, dropout=None, config=None, warm_start_from=None,
                 loss_reduction=tf.losses.Reduction.SUM_OVER_BATCH_SIZE, batch_norm=False):
        model_args = _dnn_args(hidden_units, feature_columns, activation_fn, dropout,
                               optimizer, batch_norm, v2=True)
        head = heads.classifier_head_v2(n_classes, weight_column=weight_column,
                                        label_vocabulary=label_vocabulary,
                                        loss_reduction=loss_reduction)
        super().__init__(model_fn=bind_model_fn(dnn_model_fn_v2, head=head, **model_args),
                         model_dir=model_dir, config=config, warm_start_from=warm_start_from)


class DNNClassifier(EstimatorV1):
    """tf.compat.v1.estimator.DNNClassifier: v1 columns and optimizers, loss reduced with SUM.

    Takes DNNClassifierV2's arguments plus `input_layer_partitioner`.

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
        >>> est = estimator_lib.canned.DNNClassifier(hidden_units=[4], feature_columns=[x_column],
        ...                                          model_dir=tempfile.mkdtemp())
        >>> est = est.train(input_fn, steps=2)
        >>> metrics = est.evaluate(input_fn, steps=1)
        >>> int(metrics["global_step"]), bool(np.isclose(metrics["loss"],
        ...                                               4 * metrics["average_loss"]))
        (2, True)

    Args:
        hidden_units: Units per hidden layer, first layer first, e.g. `[64, 32]`.
        feature_columns: The feature columns the model reads (each a `FeatureColumn`).
        model_dir: Where checkpoints and summaries go; None takes `config.model_dir` or a
            new temporary directory.
        n_classes: How many classes the labels take (at least 2; 2 gives a binary head).
        weight_column: A feature key, or a numeric column, giving per-example weights; None
            weighs all examples 1.
        label_vocabulary: The string labels, in class-id order; None means labels are class
            ids.
        optimizer: The optimizer: a name ('Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD'), an
            optimizer instance, or a callable returning one.
        activation_fn: The hidden layers' activation function.
        dropout: The probability of dropping a hidden unit while training; None for no
            dropout.
        input_layer_partitioner: The partitioner of the input layer's variables; None gives
            the default (by the number of parameter servers).
        config: A `RunConfig`.
        warm_start_from: A checkpoint path or `WarmStartSettings` to warm-start from.
        loss_reduction: How the per-example losses are reduced over the batch (a
            `tf.losses.Reduction`); v1 classes sum them, v2 classes average them by default.
        batch_norm: Whether to apply batch normalization after each hidden layer.

    Raises:
        ValueError: If an argument is invalid (for example a bad `n_classes`, an
            unknown optimizer name or, in a v2 class, a v1-only feature column).
            Deliberate difference 14: raised as the estimator is built, not at `train()`.
    """

    def __init__(self, hidden_units, feature_columns, model_dir=None, n_classes=2,
                 weight_column=None, label_vocabulary=None, optimizer="Adagrad",
                 activation_fn=tf.nn.relu, dropout=None, input_layer_partitioner=None,
                 config=None, warm_start_from=None,
                 loss_reduction=tf.compat.v1.losses.Reduction.SUM, batch_norm=False):
        model_args = _dnn_args(hidden_units, feature_columns, activation_fn, dropout,
                               optimizer, batch_norm, v2=False,
                               input_layer_partitioner=input_layer_partitioner)
        head = heads.classifier_head_v1(n_classes, weight_column=weight_column,
                                        label_vocabulary=label_vocabulary,
                                        loss_reduction=loss_reduction)
        super().__init__(model_fn=bind_model_fn(_dnn_model_fn, head=head, **model_args),
                         model_dir=model_dir, config=config, warm_start_from=warm_start_from)


class DNNRegressorV2(Estimator):
    """A regressor for TensorFlow DNN models (tf.estimator.DNNRegressor).

    Takes DNNClassifierV2's arguments with `label_dimension` (targets per
    example) in place of `n_classes` and `label_vocabulary`.

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
        >>> est = estimator_lib.DNNRegressor(hidden_units=[4], feature_columns=[x_column],
        ...                                  model_dir=tempfile.mkdtemp())
        >>> est = est.train(input_fn, steps=2)
        >>> metrics = est.evaluate(input_fn, steps=1)
        >>> int(metrics["global_step"]), sorted(metrics)
        (2, ['average_loss', 'global_step', 'label/mean', 'loss', 'prediction/mean'])

    Args:
        hidden_units: Units per hidden layer, first layer first, e.g. `[64, 32]`.
        feature_columns: The feature columns the model reads (each a `FeatureColumn`).
        model_dir: Where checkpoints and summaries go; None takes `config.model_dir` or a
            new temporary directory.
        label_dimension: How many regression targets each example has.
        weight_column: A feature key, or a numeric column, giving per-example weights; None
            weighs all examples 1.
        optimizer: The optimizer: a name ('Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD'), an
            optimizer instance, or a callable returning one.
            Deliberate difference 15: an instance survives a second `train()`.
        activation_fn: The hidden layers' activation function.
        dropout: The probability of dropping a hidden unit while training; None for no
            dropout.
        config: A `RunConfig`.
        warm_start_from: A checkpoint path or `WarmStartSettings` to warm-start from.
        loss_reduction: How the per-example losses are reduced over the batch (a
            `tf.losses.Reduction`); v1 classes sum them, v2 classes average them by default.
        batch_norm: Whether to apply batch normalization after each hidden layer.

    Raises:
        ValueError: If an argument is invalid (for example a bad `n_classes`, an
            unknown optimizer name or, in a v2 class, a v1-only feature column).
            Deliberate difference 14: raised as the estimator is built, not at `train()`.
    """

    def __init__(self, hidden_units, feature_columns, model_dir=None, label_dimension=1,
                 weight_column=None, optimizer="Adagrad", activation_fn=tf.nn.relu,
                 dropout=None, config=None, warm_start_from=None,
                 loss_reduction=tf.losses.Reduction.SUM_OVER_BATCH_SIZE, batch_norm=False):
        model_args = _dnn_args(hidden_units, feature_columns, activation_fn, dropout,
                               optimizer, batch_norm, v2=True)
        head = heads.regression_head_v2(label_dimension=label_dimension,
                                        weight_column=weight_column,
                                        loss_reduction=loss_reduction)
        super().__init__(model_fn=bind_model_fn(dnn_model_fn_v2, head=head, **model_args),
                         model_dir=model_dir, config=config, warm_start_from=warm_start_from)


class DNNRegressor(EstimatorV1):
    """tf.compat.v1.estimator.DNNRegressor: v1 columns and optimizers, loss reduced with SUM.

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
        >>> est = estimator_lib.canned.DNNRegressor(hidden_units=[4], feature_columns=[x_column],
        ...                                         model_dir=tempfile.mkdtemp())
        >>> est = est.train(input_fn, steps=2)
        >>> metrics = est.evaluate(input_fn, steps=1)
        >>> int(metrics["global_step"]), bool(np.isclose(metrics["loss"],
        ...                                               4 * metrics["average_loss"]))
        (2, True)

    Args:
        hidden_units: Units per hidden layer, first layer first, e.g. `[64, 32]`.
        feature_columns: The feature columns the model reads (each a `FeatureColumn`).
        model_dir: Where checkpoints and summaries go; None takes `config.model_dir` or a
            new temporary directory.
        label_dimension: How many regression targets each example has.
        weight_column: A feature key, or a numeric column, giving per-example weights; None
            weighs all examples 1.
        optimizer: The optimizer: a name ('Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD'), an
            optimizer instance, or a callable returning one.
        activation_fn: The hidden layers' activation function.
        dropout: The probability of dropping a hidden unit while training; None for no
            dropout.
        input_layer_partitioner: The partitioner of the input layer's variables; None gives
            the default (by the number of parameter servers).
        config: A `RunConfig`.
        warm_start_from: A checkpoint path or `WarmStartSettings` to warm-start from.
        loss_reduction: How the per-example losses are reduced over the batch (a
            `tf.losses.Reduction`); v1 classes sum them, v2 classes average them by default.
        batch_norm: Whether to apply batch normalization after each hidden layer.

    Raises:
        ValueError: If an argument is invalid (for example a bad `n_classes`, an
            unknown optimizer name or, in a v2 class, a v1-only feature column).
            Deliberate difference 14: raised as the estimator is built, not at `train()`.
    """

    def __init__(self, hidden_units, feature_columns, model_dir=None, label_dimension=1,
                 weight_column=None, optimizer="Adagrad", activation_fn=tf.nn.relu,
                 dropout=None, input_layer_partitioner=None, config=None,
                 warm_start_from=None, loss_reduction=tf.compat.v1.losses.Reduction.SUM,
                 batch_norm=False):
        model_args = _dnn_args(hidden_units, feature_columns, activation_fn, dropout,
                               optimizer, batch_norm, v2=False,
                               input_layer_partitioner=input_layer_partitioner)
        head = heads.regression_head_v1(label_dimension=label_dimension,
                                        weight_column=weight_column,
                                        loss_reduction=loss_reduction)
        super().__init__(model_fn=bind_model_fn(_dnn_model_fn, head=head, **model_args),
                         model_dir=model_dir, config=config, warm_start_from=warm_start_from)


class DNNEstimatorV2(Estimator):
    """A DNN with a head you give (tf.estimator.DNNEstimator), e.g. a MultiLabelHead.

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
        >>> est = estimator_lib.DNNEstimator(head=head, hidden_units=[4],
        ...                                  feature_columns=[x_column],
        ...                                  model_dir=tempfile.mkdtemp())
        >>> est = est.train(input_fn, steps=2)
        >>> metrics = est.evaluate(input_fn, steps=1)
        >>> int(metrics["global_step"]), "auc" in metrics
        (2, True)

    Args:
        head: The `Head` (v2 classes) or v1 head that turns logits into loss, metrics and
            predictions.
        hidden_units: Units per hidden layer, first layer first, e.g. `[64, 32]`.
        feature_columns: The feature columns the model reads (each a `FeatureColumn`).
        model_dir: Where checkpoints and summaries go; None takes `config.model_dir` or a
            new temporary directory.
        optimizer: The optimizer: a name ('Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD'), an
            optimizer instance, or a callable returning one.
            Deliberate difference 15: an instance survives a second `train()`.
        activation_fn: The hidden layers' activation function.
        dropout: The probability of dropping a hidden unit while training; None for no
            dropout.
        config: A `RunConfig`.
        warm_start_from: A checkpoint path or `WarmStartSettings` to warm-start from.
        batch_norm: Whether to apply batch normalization after each hidden layer.

    Raises:
        ValueError: If an argument is invalid (for example a bad `n_classes`, an
            unknown optimizer name or, in a v2 class, a v1-only feature column).
            Deliberate difference 14: raised as the estimator is built, not at `train()`.
    """

    def __init__(self, head, hidden_units, feature_columns, model_dir=None,
                 optimizer="Adagrad", activation_fn=tf.nn.relu, dropout=None, config=None,
                 warm_start_from=None, batch_norm=False):
        model_args = _dnn_args(hidden_units, feature_columns, activation_fn, dropout,
                               optimizer, batch_norm, v2=True)
        super().__init__(model_fn=bind_model_fn(dnn_model_fn_v2, head=head, **model_args),
                         model_dir=model_dir, config=config, warm_start_from=warm_start_from)


class DNNEstimator(EstimatorV1):
    """tf.compat.v1.estimator.DNNEstimator: a DNN with a v1 head you give.

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
        >>> est = estimator_lib.canned.DNNEstimator(head=head, hidden_units=[4],
        ...                                         feature_columns=[x_column],
        ...                                         model_dir=tempfile.mkdtemp())
        >>> est = est.train(input_fn, steps=2)
        >>> metrics = est.evaluate(input_fn, steps=1)
        >>> int(metrics["global_step"]), bool(np.isclose(metrics["loss"],
        ...                                               4 * metrics["average_loss"]))
        (2, True)

    Args:
        head: The `Head` (v2 classes) or v1 head that turns logits into loss, metrics and
            predictions.
        hidden_units: Units per hidden layer, first layer first, e.g. `[64, 32]`.
        feature_columns: The feature columns the model reads (each a `FeatureColumn`).
        model_dir: Where checkpoints and summaries go; None takes `config.model_dir` or a
            new temporary directory.
        optimizer: The optimizer: a name ('Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD'), an
            optimizer instance, or a callable returning one.
        activation_fn: The hidden layers' activation function.
        dropout: The probability of dropping a hidden unit while training; None for no
            dropout.
        input_layer_partitioner: The partitioner of the input layer's variables; None gives
            the default (by the number of parameter servers).
        config: A `RunConfig`.
        warm_start_from: A checkpoint path or `WarmStartSettings` to warm-start from.
        batch_norm: Whether to apply batch normalization after each hidden layer.

    Raises:
        ValueError: If an argument is invalid (for example a bad `n_classes`, an
            unknown optimizer name or, in a v2 class, a v1-only feature column).
            Deliberate difference 14: raised as the estimator is built, not at `train()`.
    """

    def __init__(self, head, hidden_units, feature_columns, model_dir=None,
                 optimizer="Adagrad", activation_fn=tf.nn.relu, dropout=None,
                 input_layer_partitioner=None, config=None, warm_start_from=None,
                 batch_norm=False):
        model_args = _dnn_args(hidden_units, feature_columns, activation_fn, dropout,
                               optimizer, batch_norm, v2=False,
                               input_layer_partitioner=input_layer_partitioner)
        super().__init__(model_fn=bind_model_fn(_dnn_model_fn, head=head, **model_args),
                         model_dir=model_dir, config=config, warm_start_from=warm_start_from)
