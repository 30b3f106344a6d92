"""LinearSDCA: the SDCA optimizer of LinearClassifier / LinearRegressor, and its model_fn.

`tf.estimator.experimental.LinearSDCA(...)` passed as `optimizer=` trains the linear
model with stochastic dual coordinate ascent (linear_optimizer/sdca_ops.py) instead of
gradients: binary classification (logistic loss) or one-dimensional regression
(squared loss), v2 feature columns, `sparse_combiner='sum'`. The model's variables are
the gradient path's (`linear/linear_model/<column>/weights`, `.../bias_weights`); the
solver adds `<variable>_unshrunk` slots and the example-state table
`ShardedMutableHashTable-1-of-<n>`, as the original did.
"""

from typing import Optional

import tensorflow as tf
# The categorical v2 column base class has no public name (DenseColumn has); the SDCA
# batch is built per column kind, as the original's was.
# pylint: disable=g-direct-tensorflow-import
from tensorflow.python.feature_column import feature_column_v2 as fc_v2
# pylint: enable=g-direct-tensorflow-import

from estimator_lib.canned import feature_inputs
from estimator_lib.canned.linear_model import LinearModel
from estimator_lib.canned.linear_model import fraction_of_zero
from estimator_lib.canned.linear_optimizer import partitioned_weights
from estimator_lib.canned.linear_optimizer import sdca_ops
from estimator_lib.head import binary_class_head
from estimator_lib.head import regression_head
from estimator_lib.head import v1_heads
from estimator_lib.core.model_fn import ModeKeys


class LinearSDCA:
    """Stochastic Dual Coordinate Ascent for LinearClassifier and LinearRegressor.

    Not a `tf.compat.v1.train.Optimizer`: pass it as the estimator's `optimizer`.
    Usable with v2 feature columns, `sparse_combiner='sum'`, and a binary label (classifier) or a
    one-dimensional label (regressor).

    The input_fn's features hold `example_id_column`: a string Tensor of shape
    [batch_size] identifying each example (its dual state is kept per id).

    Examples:
        A LinearClassifier trained two steps by SDCA on four examples, then evaluated:

        >>> import tempfile
        >>> import numpy as np
        >>> import tensorflow as tf
        >>> import estimator_lib
        >>> def input_fn():
        ...     features = {"x": np.array([[0.0], [1.0], [2.0], [3.0]], np.float32),
        ...                 "example_id": np.array([b"0", b"1", b"2", b"3"])}
        ...     labels = np.array([[0], [0], [1], [1]])
        ...     return tf.data.Dataset.from_tensor_slices((features, labels)).repeat().batch(4)
        >>> sdca = estimator_lib.experimental.LinearSDCA(
        ...     example_id_column="example_id", symmetric_l2_regularization=2.0)
        >>> est = estimator_lib.LinearClassifier([tf.feature_column.numeric_column("x")],
        ...                                      optimizer=sdca, model_dir=tempfile.mkdtemp())
        >>> metrics = est.train(input_fn, steps=2).evaluate(input_fn, steps=1)
        >>> int(metrics["global_step"]), bool(0.0 <= metrics["accuracy"] <= 1.0)
        (2, True)

    Args:
        example_id_column: The feature key of the example ids.
        num_loss_partitions: sigma' of the distributed SDCA paper: at least the number
            of concurrent train ops (workers) for guaranteed convergence; 1 on one
            machine. Larger values converge more slowly.
        num_table_shards: Shards of the example-state table (e.g. the number of
            parameter servers); None means 1.
        symmetric_l1_regularization: L1 strength, >= 0.
        symmetric_l2_regularization: L2 strength, > 0 (typically > 1).
        adaptive: Whether to sample examples adaptively.
    """

    def __init__(self, example_id_column: str, num_loss_partitions: int = 1,
                 num_table_shards: Optional[int] = None,
                 symmetric_l1_regularization: float = 0.0,
                 symmetric_l2_regularization: float = 1.0, adaptive: bool = False):
        self._example_id_column = example_id_column
        self._num_loss_partitions = num_loss_partitions
        self._num_table_shards = num_table_shards
        self._symmetric_l1_regularization = symmetric_l1_regularization
        self._symmetric_l2_regularization = symmetric_l2_regularization
        self._adaptive = adaptive

    @staticmethod
    def _sparse_column(id_weight_pair) -> sdca_ops.SparseFeatureColumn:
        """A categorical column's ids as SDCA triples: invalid ids dropped, duplicates
        within an example merged (their weights summed)."""
        ids = id_weight_pair.id_tensor
        if id_weight_pair.weight_tensor is not None:
            weights = id_weight_pair.weight_tensor.values
        else:
            weights = tf.ones([tf.compat.v1.shape(ids.indices)[0]], tf.float32)
        example_ids = tf.reshape(ids.indices[:, 0], [-1])
        flat_ids = tf.cast(tf.reshape(ids.values, [-1]), dtype=tf.int64)
        # Out-of-vocabulary lookups give -1: drop them with their example and weight.
        valid = tf.math.greater_equal(flat_ids, 0)
        flat_ids = tf.compat.v1.boolean_mask(flat_ids, valid)
        example_ids = tf.compat.v1.boolean_mask(example_ids, valid)
        weights = tf.compat.v1.boolean_mask(weights, valid)
        # One key per (example, id): duplicates of an id in one example collapse.
        width = tf.math.reduce_max(flat_ids) + 1
        unique_keys, positions = tf.unique(width * example_ids + flat_ids)
        num_unique = tf.compat.v1.shape(unique_keys)[0]
        unique_examples = tf.math.unsorted_segment_min(example_ids, positions, num_unique)
        unique_ids = unique_keys - width * unique_examples
        summed_weights = tf.reshape(
            tf.math.unsorted_segment_sum(weights, positions, num_unique), [-1])
        return sdca_ops.SparseFeatureColumn(unique_examples, unique_ids, summed_weights)

    def get_train_step(self, state_manager, weight_column_name, loss_type, feature_columns,
                       features, targets, bias_var, global_step):
        """Builds (SdcaModel, train op) for one batch of the linear model's columns.

        Args:
            state_manager: The feature columns' state manager (it holds their weight variables).
            weight_column_name: The feature key of the example weights, or None.
            loss_type: The SDCA loss: 'logistic_loss', 'squared_loss', 'hinge_loss',
                'smooth_hinge_loss' or 'poisson_loss'.
            feature_columns: The model's v2 feature columns.
            features: The dict of feature tensors.
            targets: The labels tensor.
            bias_var: The bias variable.
            global_step: The global step, incremented by the train op.

        Returns:
            The pair `(SdcaModel, train op)`.

        Raises:
            ValueError: If a dense column has rank > 1 or a column is neither dense
                nor categorical.
        """
        batch_size = tf.compat.v1.shape(targets)[0]
        cache = tf.compat.v2.__internal__.feature_column.FeatureTransformationCache(features)
        dense_features, dense_weights, sparse_features, sparse_weights = [], [], [], []
        for column in sorted(feature_columns, key=lambda c: c.name):
            if isinstance(column, fc_v2.CategoricalColumn):
                sparse_features.append(self._sparse_column(
                    column.get_sparse_tensors(cache, state_manager)))
                # A list of parts when a partitioner made the variable.
                sparse_weights.append(state_manager.get_variable(column, "weights"))
            elif isinstance(column, tf.compat.v2.__internal__.feature_column.DenseColumn):
                if column.variable_shape.ndims != 1:
                    raise ValueError(
                        f"Column {type(column).__name__} has rank "
                        f"{column.variable_shape.ndims}, larger than 1: LinearSDCA takes "
                        f"dense columns of rank 1.")
                dense_features.append(column.get_dense_tensor(cache, state_manager))
                dense_weights.append(state_manager.get_variable(column, "weights"))
            else:
                raise ValueError(f"LinearSDCA does not support column type "
                                 f"{type(column).__name__}: use categorical or dense "
                                 f"v2 feature columns.")
        # The bias is one more dense feature, always 1.
        dense_features.append(tf.ones([batch_size, 1]))
        dense_weights.append(bias_var)
        example_weights = (tf.reshape(features[weight_column_name], shape=[-1])
                           if weight_column_name else tf.ones([batch_size]))
        model = sdca_ops.SdcaModel(
            examples=dict(
                sparse_features=sparse_features, dense_features=dense_features,
                example_labels=tf.compat.v1.to_float(tf.reshape(targets, shape=[-1])),
                example_weights=example_weights,
                example_ids=features[self._example_id_column]),
            variables=dict(sparse_features_weights=sparse_weights,
                           dense_features_weights=dense_weights),
            options=dict(
                symmetric_l1_regularization=self._symmetric_l1_regularization,
                symmetric_l2_regularization=self._symmetric_l2_regularization,
                adaptive=self._adaptive, num_loss_partitions=self._num_loss_partitions,
                num_table_shards=self._num_table_shards, loss_type=loss_type))
        return model, model.minimize(global_step=global_step)


class _SDCAUpdateWeightsHook(tf.compat.v1.train.SessionRunHook):
    """Runs the SDCA weight update (slots -> weights, L1 step) with every step.

    A chief hook: the op is built in `begin`, after the graph is otherwise complete.
    """

    def __init__(self, sdca_model: sdca_ops.SdcaModel, train_op):
        self._sdca_model = sdca_model
        self._train_op = train_op
        self._update_op = None

    def begin(self):
        self._update_op = self._sdca_model.update_weights(self._train_op)

    def before_run(self, run_context):
        del run_context
        return tf.compat.v1.train.SessionRunArgs(self._update_op)


def _loss_type(head) -> str:
    if isinstance(head, (binary_class_head.BinaryClassHead, v1_heads.BinaryLogisticHeadV1)):
        return "logistic_loss"
    if isinstance(head, (regression_head.RegressionHead, v1_heads.RegressionHeadV1)):
        if head.logits_dimension != 1:
            raise ValueError(f"LinearSDCA needs a one-dimensional label; the head has "
                             f"logits_dimension={head.logits_dimension}.")
        return "squared_loss"
    raise ValueError(f"Unsupported head type: {head}. LinearSDCA trains binary "
                     f"classification and one-dimensional regression heads.")


def sdca_model_fn(features, labels, mode, head, feature_columns, optimizer: LinearSDCA):
    """The linear model_fn when `optimizer` is a LinearSDCA (v1 and v2 estimators).

    Args:
        features: The dict of feature tensors.
        labels: The labels tensor (None in PREDICT).
        mode: The `ModeKeys` mode.
        head: The estimator's head (binary classification or one-dimensional regression).
        feature_columns: The model's v2 feature columns.
        optimizer: The `LinearSDCA` the estimator was given.

    Returns:
        The `EstimatorSpec` for `mode`.

    Raises:
        ValueError: If the columns are not v2 ones or the head is neither binary
            classification nor one-dimensional regression.
    """
    feature_inputs.require_v2(feature_columns, estimator="LinearSDCA")
    loss_type = _loss_type(head)
    # v2 heads' models carry the `linear/` prefix themselves (get_variable ignores name
    # scopes); the v1 model_fn builds this one inside variable scope `linear`.
    v2_head = isinstance(head, (binary_class_head.BinaryClassHead,
                                regression_head.RegressionHead))
    model = LinearModel(feature_columns=feature_columns, units=1, sparse_combiner="sum",
                        name="linear/linear_model" if v2_head else "linear_model")
    logits = model(features)
    bias_parts = list(partitioned_weights.parts(model.bias))
    weights = [part for var in model.variables for part in partitioned_weights.parts(var)
               if all(part is not b for b in bias_parts)]
    tf.compat.v1.summary.scalar("bias", bias_parts[0][0])
    tf.compat.v1.summary.scalar("fraction_of_zero_weights", fraction_of_zero(weights))
    if mode != ModeKeys.TRAIN:
        return head.create_estimator_spec(features=features, mode=mode, labels=labels,
                                          logits=logits)
    sdca_model, train_op = optimizer.get_train_step(
        model.layer.state_manager, head._weight_column,  # pylint: disable=protected-access
        loss_type, feature_columns, features, labels, model.bias,
        tf.compat.v1.train.get_global_step())
    spec = head.create_estimator_spec(features=features, mode=mode, labels=labels,
                                      train_op_fn=lambda unused_loss: train_op,
                                      logits=logits)
    return spec._replace(training_chief_hooks=(
        tuple(spec.training_chief_hooks) + (_SDCAUpdateWeightsHook(sdca_model, train_op),)))


def check_sdca_arguments(optimizer, feature_columns, sparse_combiner, *,
                         n_classes: Optional[int] = None,
                         label_dimension: Optional[int] = None) -> None:
    """A classifier's or regressor's arguments when `optimizer` is a LinearSDCA.

    Args:
        optimizer: The `LinearSDCA` the estimator was given.
        feature_columns: The model's v2 feature columns.
        sparse_combiner: The estimator's `sparse_combiner` (must be 'sum').
        n_classes: The classifier's `n_classes`, or None for a regressor.
        label_dimension: The regressor's `label_dimension`, or None for a classifier.

    Raises:
        ValueError: sparse_combiner is not 'sum', a column is not v2, more than 2
            classes, or a label dimension other than 1.
    """
    if not isinstance(optimizer, LinearSDCA):
        return
    if sparse_combiner != "sum":
        raise ValueError(f'sparse_combiner must be "sum" when optimizer is a LinearSDCA '
                         f"object. Received: sparse_combiner={sparse_combiner!r}.")
    if not feature_inputs.is_v2(feature_columns):
        raise ValueError("V2 feature columns required when optimizer is a LinearSDCA "
                         "object (tf.feature_column.*, not tf.compat.v1.feature_column).")
    if n_classes is not None and n_classes > 2:
        raise ValueError(f"LinearSDCA cannot be used in a multi-class setting. Received: "
                         f"n_classes={n_classes}.")
    if label_dimension is not None and label_dimension > 1:
        raise ValueError(f"LinearSDCA can only be used with one-dimensional label. "
                         f"Received: label_dimension={label_dimension}.")
