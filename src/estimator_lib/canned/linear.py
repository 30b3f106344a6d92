"""LinearClassifier, LinearRegressor and LinearEstimator: one weight per feature value.

Variables are the original's: `linear/linear_model/<column>/weights` and
`linear/linear_model/bias_weights`. v2 classes build the Keras `LinearModel`
below and train with a tf_keras legacy optimizer (Ftrl by default); v1 classes
build in variable scope `linear` (with the original's partitioner) and train with
a tf.compat.v1 optimizer. With `optimizer=LinearSDCA(...)` (binary classification or
one-dimensional regression) both train with SDCA instead (linear_sdca.py).
"""

from typing import Sequence

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
from estimator_lib.canned.linear_sdca import LinearSDCA
from estimator_lib.canned.linear_sdca import check_sdca_arguments
from estimator_lib.canned.linear_sdca import sdca_model_fn
# The linear model; its public names are this module's too, as in the original.
from estimator_lib.canned.linear_model import LEARNING_RATE
from estimator_lib.canned.linear_model import LinearModel  # noqa: F401
from estimator_lib.canned.linear_model import default_learning_rate  # noqa: F401
from estimator_lib.canned.linear_model import fraction_of_zero  # noqa: F401
from estimator_lib.canned.linear_model import linear_logit_fn_builder  # noqa: F401
from estimator_lib.canned.linear_model import linear_logit_fn_builder_v2  # noqa: F401
from estimator_lib.canned.linear_model import linear_logits_v2  # noqa: F401
# The original module's private helpers, at its path (libraries import them).
from estimator_lib.canned.linear_helpers import (  # noqa: F401
    _LEARNING_RATE, _LinearModelLayer, _SDCAUpdateWeightsHook, _compute_fraction_of_zero,
    _get_default_optimizer, _get_default_optimizer_v2, _get_expanded_variable_list,
    _linear_model_fn_builder_v2, _sdca_model_fn,
    _validate_linear_sdca_optimizer_for_linear_classifier,
    _validate_linear_sdca_optimizer_for_linear_regressor)


def _linear_model_fn_v2(features, labels, mode, head, feature_columns, optimizer, config,
                        sparse_combiner="sum"):
    """The v2 linear model_fn: LinearModel `linear/linear_model`, a tf_keras optimizer."""
    del config
    feature_inputs.check_features(features, feature_columns)
    if isinstance(optimizer, LinearSDCA):
        return sdca_model_fn(features, labels, mode, head, feature_columns, optimizer)
    logits, variables = linear_logits_v2(
        features, units=head.logits_dimension, feature_columns=feature_columns,
        sparse_combiner=sparse_combiner)
    if mode == ModeKeys.TRAIN:
        optimizer = optimizers.keras_optimizer_for_graph(
            optimizer or tf_keras.optimizers.legacy.Ftrl(
                learning_rate=default_learning_rate(len(feature_columns))),
            learning_rate=LEARNING_RATE)
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
        if isinstance(optimizer, LinearSDCA):
            return sdca_model_fn(features, labels, mode, head, feature_columns, optimizer)
        logits = linear_logit_fn_builder(
            units=head.logits_dimension, feature_columns=feature_columns,
            sparse_combiner=sparse_combiner)(features)
        optimizer = optimizers.get_optimizer_instance(
            optimizer or tf.compat.v1.train.FtrlOptimizer(
                learning_rate=default_learning_rate(len(feature_columns))),
            learning_rate=LEARNING_RATE)
        spec = head.create_estimator_spec(features=features, mode=mode, labels=labels,
                                          optimizer=optimizer, logits=logits)
    return spec


# ---------------------------------------------------------------------------- classes


def _linear_args(feature_columns, optimizer, sparse_combiner, *, v2, **v1_args):
    """The checked keyword arguments of the model_fn (all but the head and the batch)."""
    feature_columns = canned_args.feature_columns(feature_columns, v2=v2)
    canned_args.sparse_combiner(sparse_combiner)
    if isinstance(optimizer, LinearSDCA):
        return dict(feature_columns=feature_columns, optimizer=optimizer,
                    sparse_combiner=sparse_combiner, **v1_args)
    if v2:
        optimizers.check_optimizer_name(optimizer)
        # The default optimizer (None) is made per graph in the model_fn.
        if optimizer is not None:
            optimizer = optimizers.KerasOptimizerArg(optimizer, learning_rate=LEARNING_RATE)
    else:
        optimizers.check_optimizer_name(optimizer)
    return dict(feature_columns=feature_columns, optimizer=optimizer,
                sparse_combiner=sparse_combiner, **v1_args)


class LinearClassifierV2(Estimator):
    """Linear classifier (tf.estimator.LinearClassifier).

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
        >>> est = estimator_lib.LinearClassifier(feature_columns=[x_column],
        ...                                      model_dir=tempfile.mkdtemp())
        >>> est = est.train(input_fn, steps=2)
        >>> metrics = est.evaluate(input_fn, steps=1)
        >>> int(metrics["global_step"]), bool(0.0 <= metrics["accuracy"] <= 1.0)
        (2, True)

    Args:
        feature_columns: v2 feature columns; categorical ones act as indicators.
        model_dir: Where checkpoints and summaries go.
        n_classes: Number of classes (> 1).
        weight_column: A key or a numeric column giving example weights.
        label_vocabulary: String labels, in class-id order.
        optimizer: 'Ftrl' (default), another name, a tf.keras legacy optimizer,
            a callable returning one, or a `LinearSDCA` (binary classification).
            Deliberate difference 15: an instance survives a second `train()`.
        config: An `RunConfig`.
        warm_start_from: A checkpoint path or `WarmStartSettings`.
        loss_reduction: How the training loss is reduced over the batch.
        sparse_combiner: 'sum' (default), 'mean' or 'sqrtn' for multivalent
            categorical features.

    Raises:
        ValueError: If an argument is invalid (for example a bad `n_classes`, an
            unknown optimizer name or, in a v2 class, a v1-only feature column).
            Deliberate difference 14: raised as the estimator is built, not at `train()`.
    """

    def __init__(self, feature_columns, model_dir=None, n_classes=2, weight_column=None,
                 label_vocabulary=None, optimizer="Ftrl", config=None, warm_start_from=None,
                 loss_reduction=tf.losses.Reduction.SUM_OVER_BATCH_SIZE,
                 sparse_combiner="sum"):
        check_sdca_arguments(optimizer, feature_columns, sparse_combiner, n_classes=n_classes)
        model_args = _linear_args(feature_columns, optimizer, sparse_combiner, v2=True)
        head = heads.classifier_head_v2(n_classes, weight_column=weight_column,
                                        label_vocabulary=label_vocabulary,
                                        loss_reduction=loss_reduction)
        super().__init__(model_fn=bind_model_fn(_linear_model_fn_v2, head=head, **model_args),
                         model_dir=model_dir, config=config, warm_start_from=warm_start_from)


class LinearClassifier(EstimatorV1):
    """tf.compat.v1.estimator.LinearClassifier: v1 columns and optimizers, SUM loss.

    Takes LinearClassifierV2's arguments plus `partitioner`.

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
        >>> est = estimator_lib.canned.LinearClassifier(feature_columns=[x_column],
        ...                                             model_dir=tempfile.mkdtemp())
        >>> est = est.train(input_fn, steps=2)
        >>> metrics = est.evaluate(input_fn, steps=1)
        >>> int(metrics["global_step"]), bool(np.isclose(metrics["loss"],
        ...                                               4 * metrics["average_loss"]))
        (2, True)

    Args:
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
        config: A `RunConfig`.
        partitioner: The partitioner of the model's variables.
        warm_start_from: A checkpoint path or `WarmStartSettings` to warm-start from.
        loss_reduction: How the per-example losses are reduced over the batch (a
            `tf.losses.Reduction`); v1 classes sum them, v2 classes average them by default.
        sparse_combiner: How a sparse column's several values per example combine: 'sum',
            'mean' or 'sqrtn'.

    Raises:
        ValueError: If an argument is invalid (for example a bad `n_classes`, an
            unknown optimizer name or, in a v2 class, a v1-only feature column).
            Deliberate difference 14: raised as the estimator is built, not at `train()`.
    """

    def __init__(self, feature_columns, model_dir=None, n_classes=2, weight_column=None,
                 label_vocabulary=None, optimizer="Ftrl", config=None, partitioner=None,
                 warm_start_from=None, loss_reduction=tf.compat.v1.losses.Reduction.SUM,
                 sparse_combiner="sum"):
        check_sdca_arguments(optimizer, feature_columns, sparse_combiner, n_classes=n_classes)
        model_args = _linear_args(feature_columns, optimizer, sparse_combiner, v2=False,
                                  partitioner=partitioner)
        head = heads.classifier_head_v1(n_classes, weight_column=weight_column,
                                        label_vocabulary=label_vocabulary,
                                        loss_reduction=loss_reduction)
        super().__init__(model_fn=bind_model_fn(_linear_model_fn, head=head, **model_args),
                         model_dir=model_dir, config=config, warm_start_from=warm_start_from)


class LinearRegressorV2(Estimator):
    """Linear regressor (tf.estimator.LinearRegressor); `label_dimension` targets.

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
        >>> est = estimator_lib.LinearRegressor(feature_columns=[x_column],
        ...                                     model_dir=tempfile.mkdtemp())
        >>> est = est.train(input_fn, steps=2)
        >>> metrics = est.evaluate(input_fn, steps=1)
        >>> int(metrics["global_step"]), sorted(metrics)
        (2, ['average_loss', 'global_step', 'label/mean', 'loss', 'prediction/mean'])

    Args:
        feature_columns: The feature columns the model reads (each a `FeatureColumn`).
        model_dir: Where checkpoints and summaries go; None takes `config.model_dir` or a
            new temporary directory.
        label_dimension: How many regression targets each example has.
        weight_column: A feature key, or a numeric column, giving per-example weights; None
            weighs all examples 1.
        optimizer: The optimizer: a name ('Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD'), an
            optimizer instance, or a callable returning one.
            Deliberate difference 15: an instance survives a second `train()`.
        config: A `RunConfig`.
        warm_start_from: A checkpoint path or `WarmStartSettings` to warm-start from.
        loss_reduction: How the per-example losses are reduced over the batch (a
            `tf.losses.Reduction`); v1 classes sum them, v2 classes average them by default.
        sparse_combiner: How a sparse column's several values per example combine: 'sum',
            'mean' or 'sqrtn'.

    Raises:
        ValueError: If an argument is invalid (for example a bad `n_classes`, an
            unknown optimizer name or, in a v2 class, a v1-only feature column).
            Deliberate difference 14: raised as the estimator is built, not at `train()`.
    """

    def __init__(self, feature_columns, model_dir=None, label_dimension=1, weight_column=None,
                 optimizer="Ftrl", config=None, warm_start_from=None,
                 loss_reduction=tf.losses.Reduction.SUM_OVER_BATCH_SIZE,
                 sparse_combiner="sum"):
        check_sdca_arguments(optimizer, feature_columns, sparse_combiner,
                             label_dimension=label_dimension)
        model_args = _linear_args(feature_columns, optimizer, sparse_combiner, v2=True)
        head = heads.regression_head_v2(label_dimension=label_dimension,
                                        weight_column=weight_column,
                                        loss_reduction=loss_reduction)
        super().__init__(model_fn=bind_model_fn(_linear_model_fn_v2, head=head, **model_args),
                         model_dir=model_dir, config=config, warm_start_from=warm_start_from)


class LinearRegressor(EstimatorV1):
    """tf.compat.v1.estimator.LinearRegressor: v1 columns and optimizers, SUM loss.

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
        >>> est = estimator_lib.canned.LinearRegressor(feature_columns=[x_column],
        ...                                            model_dir=tempfile.mkdtemp())
        >>> est = est.train(input_fn, steps=2)
        >>> metrics = est.evaluate(input_fn, steps=1)
        >>> int(metrics["global_step"]), bool(np.isclose(metrics["loss"],
        ...                                               4 * metrics["average_loss"]))
        (2, True)

    Args:
        feature_columns: The feature columns the model reads (each a `FeatureColumn`).
        model_dir: Where checkpoints and summaries go; None takes `config.model_dir` or a
            new temporary directory.
        label_dimension: How many regression targets each example has.
        weight_column: A feature key, or a numeric column, giving per-example weights; None
            weighs all examples 1.
        optimizer: The optimizer: a name ('Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD'), an
            optimizer instance, or a callable returning one.
        config: A `RunConfig`.
        partitioner: The partitioner of the model's variables.
        warm_start_from: A checkpoint path or `WarmStartSettings` to warm-start from.
        loss_reduction: How the per-example losses are reduced over the batch (a
            `tf.losses.Reduction`); v1 classes sum them, v2 classes average them by default.
        sparse_combiner: How a sparse column's several values per example combine: 'sum',
            'mean' or 'sqrtn'.

    Raises:
        ValueError: If an argument is invalid (for example a bad `n_classes`, an
            unknown optimizer name or, in a v2 class, a v1-only feature column).
            Deliberate difference 14: raised as the estimator is built, not at `train()`.
    """

    def __init__(self, feature_columns, model_dir=None, label_dimension=1, weight_column=None,
                 optimizer="Ftrl", config=None, partitioner=None, warm_start_from=None,
                 loss_reduction=tf.compat.v1.losses.Reduction.SUM, sparse_combiner="sum"):
        check_sdca_arguments(optimizer, feature_columns, sparse_combiner,
                             label_dimension=label_dimension)
        model_args = _linear_args(feature_columns, optimizer, sparse_combiner, v2=False,
                                  partitioner=partitioner)
        head = heads.regression_head_v1(label_dimension=label_dimension,
                                        weight_column=weight_column,
                                        loss_reduction=loss_reduction)
        super().__init__(model_fn=bind_model_fn(_linear_model_fn, head=head, **model_args),
                         model_dir=model_dir, config=config, warm_start_from=warm_start_from)


class LinearEstimatorV2(Estimator):
    """A linear model with a head you give (tf.estimator.LinearEstimator).

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
        >>> est = estimator_lib.LinearEstimator(head=head, feature_columns=[x_column],
        ...                                     model_dir=tempfile.mkdtemp())
        >>> est = est.train(input_fn, steps=2)
        >>> metrics = est.evaluate(input_fn, steps=1)
        >>> int(metrics["global_step"]), "auc" in metrics
        (2, True)

    Args:
        head: The `Head` (v2 classes) or v1 head that turns logits into loss, metrics and
            predictions.
        feature_columns: The feature columns the model reads (each a `FeatureColumn`).
        model_dir: Where checkpoints and summaries go; None takes `config.model_dir` or a
            new temporary directory.
        optimizer: The optimizer: a name ('Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD'), an
            optimizer instance, or a callable returning one.
            Deliberate difference 15: an instance survives a second `train()`.
        config: A `RunConfig`.
        sparse_combiner: How a sparse column's several values per example combine: 'sum',
            'mean' or 'sqrtn'.
        warm_start_from: A checkpoint path or `WarmStartSettings` to warm-start from.

    Raises:
        ValueError: If an argument is invalid (for example a bad `n_classes`, an
            unknown optimizer name or, in a v2 class, a v1-only feature column).
            Deliberate difference 14: raised as the estimator is built, not at `train()`.
    """

    def __init__(self, head, feature_columns, model_dir=None, optimizer="Ftrl", config=None,
                 sparse_combiner="sum", warm_start_from=None):
        model_args = _linear_args(feature_columns, optimizer, sparse_combiner, v2=True)
        super().__init__(model_fn=bind_model_fn(_linear_model_fn_v2, head=head, **model_args),
                         model_dir=model_dir, config=config, warm_start_from=warm_start_from)


class LinearEstimator(EstimatorV1):
    """tf.compat.v1.estimator.LinearEstimator: a linear model with a v1 head you give.

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
        >>> est = estimator_lib.canned.LinearEstimator(head=head, feature_columns=[x_column],
        ...                                            model_dir=tempfile.mkdtemp())
        >>> est = est.train(input_fn, steps=2)
        >>> metrics = est.evaluate(input_fn, steps=1)
        >>> int(metrics["global_step"]), bool(np.isclose(metrics["loss"],
        ...                                               4 * metrics["average_loss"]))
        (2, True)

    Args:
        head: The `Head` (v2 classes) or v1 head that turns logits into loss, metrics and
            predictions.
        feature_columns: The feature columns the model reads (each a `FeatureColumn`).
        model_dir: Where checkpoints and summaries go; None takes `config.model_dir` or a
            new temporary directory.
        optimizer: The optimizer: a name ('Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD'), an
            optimizer instance, or a callable returning one.
        config: A `RunConfig`.
        partitioner: The partitioner of the model's variables.
        sparse_combiner: How a sparse column's several values per example combine: 'sum',
            'mean' or 'sqrtn'.
        warm_start_from: A checkpoint path or `WarmStartSettings` to warm-start from.

    Raises:
        ValueError: If an argument is invalid (for example a bad `n_classes`, an
            unknown optimizer name or, in a v2 class, a v1-only feature column).
            Deliberate difference 14: raised as the estimator is built, not at `train()`.
    """

    def __init__(self, head, feature_columns, model_dir=None, optimizer="Ftrl", config=None,
                 partitioner=None, sparse_combiner="sum", warm_start_from=None):
        model_args = _linear_args(feature_columns, optimizer, sparse_combiner, v2=False,
                                  partitioner=partitioner)
        super().__init__(model_fn=bind_model_fn(_linear_model_fn, head=head, **model_args),
                         model_dir=model_dir, config=config, warm_start_from=warm_start_from)
