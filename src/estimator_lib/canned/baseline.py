"""BaselineClassifier, BaselineRegressor and BaselineEstimator: one learned bias per output.

The classifier learns the class prior (the logits ignore the features), the
regressor the label mean: a yardstick for other models. Variable
`baseline/bias`; the default optimizer is Ftrl at learning rate 0.3.
"""

import tensorflow as tf

from estimator_lib.engine.estimator import Estimator
from estimator_lib.engine.estimator_v1 import EstimatorV1
from estimator_lib.core.model_fn import ModeKeys
from estimator_lib.canned import heads
from estimator_lib.canned import optimizers
from estimator_lib.canned.bound_model_fn import bind_model_fn
# The original module's private helpers, at its path (libraries import them).
from estimator_lib.canned.original_helpers import (  # noqa: F401
    _baseline_logit_fn_builder, _baseline_model_fn_builder_v2,
    _get_batch_size_and_size_checks, _get_weight_column_key, _get_weight_column_key_v2)


_LEARNING_RATE = 0.3


def _weight_column_key(weight_column):
    if weight_column is None:
        return None
    if isinstance(weight_column, str):
        return weight_column
    key = getattr(weight_column, "key", None)
    if not isinstance(key, str) or not hasattr(weight_column, "normalizer_fn"):
        raise TypeError("Weight column must be either a string or NumericColumn. "
                        f"Given type: {type(weight_column)}.")
    return key


def _batch_size_and_checks(features, weight_key):
    """The batch size (first dimension of the features) and checks that they agree."""
    if not isinstance(features, dict):
        features = {"": features}
    checks, batch_size = [], None
    for key, value in features.items():
        if key == weight_key:
            continue
        first = tf.compat.v1.shape(value)[0] if not isinstance(value, tf.SparseTensor) \
            else value.dense_shape[0]
        first = tf.cast(first, tf.int32)
        if batch_size is None:
            batch_size = first
        else:
            checks.append(tf.compat.v1.debugging.assert_equal(
                batch_size, first, message="All features must have the same batch size."))
    if batch_size is None:
        raise ValueError("features must hold at least one feature besides the weight "
                         f"column; received keys {sorted(features)}.")
    return batch_size, checks


def _baseline_logits_v1(features, num_outputs, weight_column):
    batch_size, checks = _batch_size_and_checks(features, _weight_column_key(weight_column))
    with tf.control_dependencies(checks):
        with tf.compat.v1.variable_scope("baseline"):
            bias = tf.compat.v1.get_variable("bias", shape=[num_outputs],
                                             initializer=tf.compat.v1.zeros_initializer())
            return bias * tf.ones(tf.stack([batch_size, num_outputs]))


def _baseline_logits_v2(features, num_outputs, weight_column):
    batch_size, checks = _batch_size_and_checks(features, _weight_column_key(weight_column))
    with tf.name_scope("baseline"):
        # Made outside the checks' control dependencies: the original made it
        # inside, so its initializer waited on the input and, with two features
        # or more, session start-up failed (FailedPreconditionError).
        with tf.control_dependencies(None):
            bias = tf.Variable(initial_value=tf.zeros([num_outputs]), name="bias")
        with tf.control_dependencies(checks):
            return [bias], bias * tf.ones(tf.stack([batch_size, num_outputs]))


def _baseline_model_fn(features, labels, mode, head, optimizer, weight_column=None,
                       config=None):
    """v1: `baseline/bias` by get_variable, a tf.compat.v1 optimizer."""
    del config
    logits = _baseline_logits_v1(features, head.logits_dimension, weight_column)

    def train_op_fn(loss):
        opt = optimizers.get_optimizer_instance(optimizer, learning_rate=_LEARNING_RATE)
        return opt.minimize(loss, global_step=tf.compat.v1.train.get_global_step())

    return head.create_estimator_spec(features=features, mode=mode, logits=logits,
                                      labels=labels, train_op_fn=train_op_fn)


def _baseline_model_fn_v2(features, labels, mode, head, optimizer, weight_column=None,
                          config=None, loss_reduction=tf.losses.Reduction.SUM_OVER_BATCH_SIZE):
    """v2: `baseline/bias` as a tf.Variable, a tf_keras optimizer on the global step."""
    del config
    variables, logits = _baseline_logits_v2(features, head.logits_dimension, weight_column)
    opt = None
    if mode == ModeKeys.TRAIN:
        opt = optimizers.keras_optimizer_for_graph(optimizer, learning_rate=_LEARNING_RATE)

    def train_op_fn(loss):
        if loss_reduction == tf.losses.Reduction.SUM_OVER_BATCH_SIZE:
            replicas = tf.distribute.get_strategy().num_replicas_in_sync
            if replicas > 1:
                loss *= 1.0 / replicas
        return opt.get_updates(loss, variables)[0]

    return head.create_estimator_spec(features=features, mode=mode, logits=logits,
                                      labels=labels, train_op_fn=train_op_fn)


def _optimizer_arg(optimizer, *, v2):
    optimizers.check_optimizer_name(optimizer)
    if v2:
        return optimizers.KerasOptimizerArg(optimizer, learning_rate=_LEARNING_RATE)
    return optimizer


class BaselineClassifierV2(Estimator):
    """Predicts the class prior (tf.estimator.BaselineClassifier).

    The optimizer is 'Ftrl' at learning rate 0.3 by default, as the original's.

    Deliberate difference 16: with several features it trains (the original failed).

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
        >>> est = estimator_lib.BaselineClassifier(model_dir=tempfile.mkdtemp())
        >>> est = est.train(input_fn, steps=2)
        >>> metrics = est.evaluate(input_fn, steps=1)
        >>> int(metrics["global_step"]), bool(0.0 <= metrics["accuracy"] <= 1.0)
        (2, True)

    Args:
        model_dir: Where checkpoints and summaries go; None takes `config.model_dir` or a
            new temporary directory.
        n_classes: How many classes the labels take (at least 2; 2 gives a binary head).
        weight_column: A feature key, or a numeric column, giving per-example weights; None
            weighs all examples 1.
        label_vocabulary: The string labels, in class-id order; None means labels are class
            ids.
        optimizer: The optimizer: a name ('Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD'), an
            optimizer instance, or a callable returning one.
            Deliberate difference 15: an instance survives a second `train()`.
        config: A `RunConfig`.
        loss_reduction: How the per-example losses are reduced over the batch (a
            `tf.losses.Reduction`); v1 classes sum them, v2 classes average them by default.

    Raises:
        ValueError: If an argument is invalid (for example a bad `n_classes`, an
            unknown optimizer name or, in a v2 class, a v1-only feature column).
            Deliberate difference 14: raised as the estimator is built, not at `train()`.
    """

    def __init__(self, model_dir=None, n_classes=2, weight_column=None, label_vocabulary=None,
                 optimizer="Ftrl", config=None,
                 loss_reduction=tf.losses.Reduction.SUM_OVER_BATCH_SIZE):
        head = heads.classifier_head_v2(n_classes, weight_column=weight_column,
                                        label_vocabulary=label_vocabulary,
                                        loss_reduction=loss_reduction)
        optimizer = _optimizer_arg(optimizer, v2=True)
        model_fn = bind_model_fn(_baseline_model_fn_v2, head=head, optimizer=optimizer,
                                 weight_column=weight_column, loss_reduction=loss_reduction)
        super().__init__(model_fn=model_fn, model_dir=model_dir, config=config)


class BaselineClassifier(EstimatorV1):
    """tf.compat.v1.estimator.BaselineClassifier (v1 optimizers, SUM loss).

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
        >>> est = estimator_lib.canned.BaselineClassifier(model_dir=tempfile.mkdtemp())
        >>> est = est.train(input_fn, steps=2)
        >>> metrics = est.evaluate(input_fn, steps=1)
        >>> int(metrics["global_step"]), bool(np.isclose(metrics["loss"],
        ...                                               4 * metrics["average_loss"]))
        (2, True)

    Args:
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
        loss_reduction: How the per-example losses are reduced over the batch (a
            `tf.losses.Reduction`); v1 classes sum them, v2 classes average them by default.

    Raises:
        ValueError: If an argument is invalid (for example a bad `n_classes`, an
            unknown optimizer name or, in a v2 class, a v1-only feature column).
            Deliberate difference 14: raised as the estimator is built, not at `train()`.
    """

    def __init__(self, model_dir=None, n_classes=2, weight_column=None, label_vocabulary=None,
                 optimizer="Ftrl", config=None,
                 loss_reduction=tf.compat.v1.losses.Reduction.SUM):
        head = heads.classifier_head_v1(n_classes, weight_column=weight_column,
                                        label_vocabulary=label_vocabulary,
                                        loss_reduction=loss_reduction)
        optimizer = _optimizer_arg(optimizer, v2=False)
        model_fn = bind_model_fn(_baseline_model_fn, head=head, optimizer=optimizer,
                                 weight_column=weight_column)
        super().__init__(model_fn=model_fn, model_dir=model_dir, config=config)


class BaselineRegressorV2(Estimator):
    """Predicts the label mean (tf.estimator.BaselineRegressor).

    Deliberate difference 16: with several features it trains (the original failed).

    Examples:
        Two steps of training on four examples (y = 2x), then one evaluation:

        >>> import tempfile
        >>> import numpy as np
        >>> import tensorflow as tf
        >>> import estimator_lib
        >>> def input_fn():
        ...     x = np.array([[0.0], [1.0], [2.0], [3.0]], np.float32)
        ...     return tf.data.Dataset.from_tensor_slices(({"x": x}, 2.0 * x)).repeat().batch(4)
        >>> est = estimator_lib.BaselineRegressor(model_dir=tempfile.mkdtemp())
        >>> est = est.train(input_fn, steps=2)
        >>> metrics = est.evaluate(input_fn, steps=1)
        >>> int(metrics["global_step"]), sorted(metrics)
        (2, ['average_loss', 'global_step', 'label/mean', 'loss', 'prediction/mean'])

    Args:
        model_dir: Where checkpoints and summaries go; None takes `config.model_dir` or a
            new temporary directory.
        label_dimension: How many regression targets each example has.
        weight_column: A feature key, or a numeric column, giving per-example weights; None
            weighs all examples 1.
        optimizer: The optimizer: a name ('Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD'), an
            optimizer instance, or a callable returning one.
            Deliberate difference 15: an instance survives a second `train()`.
        config: A `RunConfig`.
        loss_reduction: How the per-example losses are reduced over the batch (a
            `tf.losses.Reduction`); v1 classes sum them, v2 classes average them by default.

    Raises:
        ValueError: If an argument is invalid (for example a bad `n_classes`, an
            unknown optimizer name or, in a v2 class, a v1-only feature column).
            Deliberate difference 14: raised as the estimator is built, not at `train()`.
    """

    def __init__(self, model_dir=None, label_dimension=1, weight_column=None, optimizer="Ftrl",
                 config=None, loss_reduction=tf.losses.Reduction.SUM_OVER_BATCH_SIZE):
        head = heads.regression_head_v2(label_dimension=label_dimension,
                                        weight_column=weight_column,
                                        loss_reduction=loss_reduction)
        optimizer = _optimizer_arg(optimizer, v2=True)
        model_fn = bind_model_fn(_baseline_model_fn_v2, head=head, optimizer=optimizer,
                                 weight_column=weight_column, loss_reduction=loss_reduction)
        super().__init__(model_fn=model_fn, model_dir=model_dir, config=config)


class BaselineRegressor(EstimatorV1):
    """tf.compat.v1.estimator.BaselineRegressor (v1 optimizers, SUM loss).

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
        >>> est = estimator_lib.canned.BaselineRegressor(model_dir=tempfile.mkdtemp())
        >>> est = est.train(input_fn, steps=2)
        >>> metrics = est.evaluate(input_fn, steps=1)
        >>> int(metrics["global_step"]), bool(np.isclose(metrics["loss"],
        ...                                               4 * metrics["average_loss"]))
        (2, True)

    Args:
        model_dir: Where checkpoints and summaries go; None takes `config.model_dir` or a
            new temporary directory.
        label_dimension: How many regression targets each example has.
        weight_column: A feature key, or a numeric column, giving per-example weights; None
            weighs all examples 1.
        optimizer: The optimizer: a name ('Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD'), an
            optimizer instance, or a callable returning one.
        config: A `RunConfig`.
        loss_reduction: How the per-example losses are reduced over the batch (a
            `tf.losses.Reduction`); v1 classes sum them, v2 classes average them by default.

    Raises:
        ValueError: If an argument is invalid (for example a bad `n_classes`, an
            unknown optimizer name or, in a v2 class, a v1-only feature column).
            Deliberate difference 14: raised as the estimator is built, not at `train()`.
    """

    def __init__(self, model_dir=None, label_dimension=1, weight_column=None, optimizer="Ftrl",
                 config=None, loss_reduction=tf.compat.v1.losses.Reduction.SUM):
        head = heads.regression_head_v1(label_dimension=label_dimension,
                                        weight_column=weight_column,
                                        loss_reduction=loss_reduction)
        optimizer = _optimizer_arg(optimizer, v2=False)
        model_fn = bind_model_fn(_baseline_model_fn, head=head, optimizer=optimizer,
                                 weight_column=weight_column)
        super().__init__(model_fn=model_fn, model_dir=model_dir, config=config)


class BaselineEstimatorV2(Estimator):
    """A learned bias with a head you give (tf.estimator.BaselineEstimator).

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
        >>> head = estimator_lib.MultiLabelHead(n_classes=3)
        >>> est = estimator_lib.BaselineEstimator(head=head, model_dir=tempfile.mkdtemp())
        >>> est = est.train(input_fn, steps=2)
        >>> metrics = est.evaluate(input_fn, steps=1)
        >>> int(metrics["global_step"]), "auc" in metrics
        (2, True)

    Args:
        head: The `Head` (v2 classes) or v1 head that turns logits into loss, metrics and
            predictions.
        model_dir: Where checkpoints and summaries go; None takes `config.model_dir` or a
            new temporary directory.
        optimizer: The optimizer: a name ('Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD'), an
            optimizer instance, or a callable returning one.
            Deliberate difference 15: an instance survives a second `train()`.
        config: A `RunConfig`.

    Raises:
        ValueError: If an argument is invalid (for example a bad `n_classes`, an
            unknown optimizer name or, in a v2 class, a v1-only feature column).
            Deliberate difference 14: raised as the estimator is built, not at `train()`.
    """

    def __init__(self, head, model_dir=None, optimizer="Ftrl", config=None):
        optimizer = _optimizer_arg(optimizer, v2=True)
        reduction = getattr(head, "loss_reduction", tf.losses.Reduction.SUM_OVER_BATCH_SIZE)
        model_fn = bind_model_fn(_baseline_model_fn_v2, head=head, optimizer=optimizer,
                                 loss_reduction=reduction)
        super().__init__(model_fn=model_fn, model_dir=model_dir, config=config)


class BaselineEstimator(EstimatorV1):
    """tf.compat.v1.estimator.BaselineEstimator: a learned bias with a v1 head you give.

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
        >>> head = estimator_lib.head.make_v1_head(n_classes=2)
        >>> est = estimator_lib.canned.BaselineEstimator(head=head,
        ...                                              model_dir=tempfile.mkdtemp())
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
        optimizer: The optimizer: a name ('Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD'), an
            optimizer instance, or a callable returning one.
        config: A `RunConfig`.

    Raises:
        ValueError: If an argument is invalid (for example a bad `n_classes`, an
            unknown optimizer name or, in a v2 class, a v1-only feature column).
            Deliberate difference 14: raised as the estimator is built, not at `train()`.
    """

    def __init__(self, head, model_dir=None, optimizer="Ftrl", config=None):
        optimizer = _optimizer_arg(optimizer, v2=False)
        model_fn = bind_model_fn(_baseline_model_fn, head=head, optimizer=optimizer)
        super().__init__(model_fn=model_fn, model_dir=model_dir, config=config)
