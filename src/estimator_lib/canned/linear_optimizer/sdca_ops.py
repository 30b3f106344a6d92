"""Proximal stochastic dual coordinate ascent (SDCA) for linear models: SdcaModel.

The solver is TensorFlow's own kernel (`tf.raw_ops.SdcaOptimizerV2`, still in TF 2.21);
this module feeds it and applies its results, as the original's `_SDCAModel` did:

- each weight variable `w` gets an unshrunk copy `<w's op name>_unshrunk` (a "slot":
  the weights before the L1 proximal step), which `minimize()` updates;
- each example's dual state lives in a sharded dense hash table keyed by the
  fingerprint of its id (`ShardedMutableHashTable-<i>-of-<n>` in checkpoints);
- `update_weights()` copies the slots into the weights and, with L1, shrinks them.

Usage (graph mode):

    model = SdcaModel(examples, variables, options)
    train_op = model.update_weights(model.minimize(global_step))

`examples`: sparse_features (a list of SparseFeatureColumn), dense_features (a list
of [batch, dim] float tensors), example_labels, example_weights (float [batch]),
example_ids (string [batch]). `variables`: sparse_features_weights and
dense_features_weights (lists of variables, partitioned or not). `options`:
loss_type ('logistic_loss', 'squared_loss', 'hinge_loss', 'smooth_hinge_loss',
'poisson_loss'), symmetric_l1_regularization, symmetric_l2_regularization, and
optionally num_loss_partitions (1), num_table_shards (1), adaptive (True).
"""

import collections
from typing import Mapping, Optional

import tensorflow as tf

from estimator_lib.canned.linear_optimizer import partitioned_weights
from estimator_lib.canned.linear_optimizer import sdca_losses
from estimator_lib.canned.linear_optimizer.sharded_mutable_dense_hashtable import (
    ShardedMutableDenseHashTable)

LOSS_TYPES = ("logistic_loss", "squared_loss", "hinge_loss", "smooth_hinge_loss",
              "poisson_loss")
_WEIGHT_KINDS = ("sparse_features_weights", "dense_features_weights")


class SparseFeatureColumn:
    """One sparse feature of a batch as (example index, feature index, value) triples.

    Args:
        example_indices: int64 [N] (or a list / array): the example of each entry.
        feature_indices: int64 [N]: the feature id of each entry.
        feature_values: float32 [N], or None for all-ones values.
    """

    def __init__(self, example_indices, feature_indices, feature_values):
        with tf.compat.v1.name_scope(None, "SparseFeatureColumn",
                                     [example_indices, feature_indices]):
            self._example_indices = tf.convert_to_tensor(
                example_indices, name="example_indices", dtype=tf.int64)
            self._feature_indices = tf.convert_to_tensor(
                feature_indices, name="feature_indices", dtype=tf.int64)
        self._feature_values = None
        if feature_values is not None:
            with tf.compat.v1.name_scope(None, "SparseFeatureColumn", [feature_values]):
                self._feature_values = tf.convert_to_tensor(
                    feature_values, name="feature_values", dtype=tf.float32)

    @property
    def example_indices(self) -> tf.Tensor:
        """The example of each entry: an int64 tensor [N]."""
        return self._example_indices

    @property
    def feature_indices(self) -> tf.Tensor:
        """The feature id of each entry: an int64 tensor [N]."""
        return self._feature_indices

    @property
    def feature_values(self) -> Optional[tf.Tensor]:
        """The value of each entry (a float32 tensor [N]), or None when every value is 1."""
        return self._feature_values


def _check_options(examples: Mapping, variables: Mapping, options: Mapping) -> None:
    if not examples or not variables or not options:
        raise ValueError("examples, variables and options must all be specified. Received: "
                         f"examples={examples!r}, variables={variables!r}, "
                         f"options={options!r}.")
    if options["loss_type"] not in LOSS_TYPES:
        raise ValueError(f"Unsupported loss_type: {options['loss_type']!r}; "
                         f"supported: {LOSS_TYPES}.")
    for mapping, keys, lists in (
            (examples, ("example_labels", "example_weights", "example_ids",
                        "sparse_features", "dense_features"),
             ("sparse_features", "dense_features")),
            (variables, _WEIGHT_KINDS, _WEIGHT_KINDS),
            (options, ("loss_type", "symmetric_l2_regularization",
                       "symmetric_l1_regularization"), ())):
        for key in keys:
            if mapping[key] is None:
                raise ValueError(f"{key} must be specified.")
        for key in lists:
            if not isinstance(mapping[key], list):
                raise ValueError(f"{key} must be a list. Received: {type(mapping[key])}.")
    l1 = options["symmetric_l1_regularization"]
    l2 = options["symmetric_l2_regularization"]
    if l2 <= 0.0:
        raise ValueError(f"symmetric_l2_regularization should be positive. Received: {l2}.")
    if l2 <= 1.0:
        tf.compat.v1.logging.warn(
            "symmetric_l2_regularization for SDCA should typically be larger than for "
            "online optimization methods. Recommended value is of the order of the "
            "average L2 norm of the training examples.")
    if l1 < 0.0:
        raise ValueError(
            f"symmetric_l1_regularization should be non-negative. Received: {l1}.")


def _zeros_like_initial(var) -> tf.Tensor:
    """Zeros shaped as `var`, readable whether or not `var` is initialized yet."""
    return tf.compat.v1.zeros_like(
        tf.cond(tf.compat.v1.is_variable_initialized(var), var.read_value,
                lambda: var.initial_value), tf.float32)


class SdcaModel:
    """The SDCA solver's graph over a linear model's variables (see the module doc).

    Args:
        examples: The dict of the batch's example tensors (see sdca_ops' module doc).
        variables: The dict of the model's weight variables (see sdca_ops' module doc).
        options: The solver's options: loss_type, the regularizations, and optional
            num_loss_partitions, num_table_shards, adaptive.

    Raises:
        ValueError: If an argument is missing, not a list where one is needed, the
            loss type is unknown, l2 <= 0 or l1 < 0.
    """

    def __init__(self, examples: Mapping, variables: Mapping, options: Mapping):
        _check_options(examples, variables, options)
        self._examples = examples
        self._variables = variables
        self._options = options
        self._slots = self._create_slots()
        # SdcaFprint never returns 0 or 1 in its low 64 bits: safe empty / deleted keys.
        self._hashtable = ShardedMutableDenseHashTable(
            key_dtype=tf.int64, value_dtype=tf.float32, num_shards=self._num_table_shards(),
            default_value=[0.0, 0.0, 0.0, 0.0], empty_key=[0, 0], deleted_key=[1, 1])
        tf.compat.v1.summary.scalar("approximate_duality_gap", self.approximate_duality_gap())
        tf.compat.v1.summary.scalar("examples_seen", self._hashtable.size())

    # ------------------------------------------------------------------ options

    def _l1(self) -> float:
        return self._options["symmetric_l1_regularization"]

    def _l2(self) -> float:
        return self._options["symmetric_l2_regularization"]

    def _num_loss_partitions(self) -> int:
        return self._options.get("num_loss_partitions", 1)

    def _adaptive(self) -> bool:
        return self._options.get("adaptive", True)

    def _num_table_shards(self) -> int:
        shards = self._options.get("num_table_shards")
        return 1 if shards is None else shards

    def _create_slots(self):
        """The unshrunk copy of each weight variable (of each part, if partitioned)."""
        slots = collections.defaultdict(list)
        for kind in _WEIGHT_KINDS:
            for var in self._variables[kind]:
                if partitioned_weights.is_partitioned(var):
                    copies = []
                    for part in var:
                        with tf.compat.v1.colocate_with(part):
                            copies.append(tf.Variable(
                                initial_value=_zeros_like_initial(part),
                                name=part.op.name + "_unshrunk"))
                    slots["unshrunk_" + kind].append(copies)
                else:
                    with tf.compat.v1.device(var.device):
                        slots["unshrunk_" + kind].append(tf.Variable(
                            _zeros_like_initial(var), name=var.op.name + "_unshrunk"))
        return slots

    # ------------------------------------------------------------------ training

    def _gather_sparse_weights(self, unique_ids):
        """Per sparse feature: its slot's rows at the batch's ids, and how to update them."""
        gathered, locators = [], {}
        for index, (slot, ids) in enumerate(zip(self._slots["unshrunk_sparse_features_weights"],
                                                unique_ids)):
            if partitioned_weights.is_partitioned(slot):
                locators[index] = partitioned_weights.DivPartitionedIds(slot, ids)
                gathered.append(locators[index].gather(slot))
            else:
                slot_tensor = tf.convert_to_tensor(slot)
                with tf.compat.v1.device(slot_tensor.device):
                    gathered.append(tf.compat.v1.gather(slot_tensor, ids))
        return gathered, locators

    def minimize(self, global_step=None, name: Optional[str] = None) -> tf.Operation:
        """One solver pass over the batch; updates the slots and the example states.

        Args:
            global_step: A variable incremented by one after the updates, if given.
            name: The returned op's name scope.

        Returns:
            The op that runs the pass (and the global-step increment).
        """
        with tf.compat.v1.name_scope(name, "sdca/minimize"):
            columns = self._examples["sparse_features"]
            # Missing feature values count as 1.0 in the kernel.
            values = [c.feature_values for c in columns if c.feature_values is not None]
            example_keys = tf.compat.v1.train.sdca_fprint(
                tf.convert_to_tensor(self._examples["example_ids"]))
            example_state = self._hashtable.lookup(example_keys)
            unique_ids = [tf.cast(tf.unique(tf.cast(c.feature_indices, tf.int32))[0],
                                  tf.int64) for c in columns]
            sparse_weights, locators = self._gather_sparse_weights(unique_ids)
            state_update, sparse_deltas, dense_deltas = tf.raw_ops.SdcaOptimizerV2(
                sparse_example_indices=[c.example_indices for c in columns],
                sparse_feature_indices=[c.feature_indices for c in columns],
                sparse_feature_values=values,
                dense_features=partitioned_weights.as_tensors(
                    self._examples["dense_features"]),
                example_weights=tf.convert_to_tensor(self._examples["example_weights"]),
                example_labels=tf.convert_to_tensor(self._examples["example_labels"]),
                sparse_indices=unique_ids, sparse_weights=sparse_weights,
                dense_weights=partitioned_weights.as_tensors(
                    self._slots["unshrunk_dense_features_weights"]),
                example_state_data=example_state, loss_type=self._options["loss_type"],
                l1=self._l1(), l2=self._l2(), num_loss_partitions=self._num_loss_partitions(),
                num_inner_iterations=1, adaptive=self._adaptive())
            with tf.control_dependencies([state_update]):
                update_ops = [self._hashtable.insert(example_keys, state_update)]
                for index, (slot, ids, delta) in enumerate(zip(
                        self._slots["unshrunk_sparse_features_weights"], unique_ids,
                        sparse_deltas)):
                    if partitioned_weights.is_partitioned(slot):
                        update_ops += locators[index].scatter_add(slot, delta)
                    else:
                        update_ops.append(tf.compat.v1.scatter_add(slot, ids, delta))
                for slot, delta in zip(self._slots["unshrunk_dense_features_weights"],
                                       dense_deltas):
                    if partitioned_weights.is_partitioned(slot):
                        update_ops += partitioned_weights.split_assign_add(slot, delta)
                    else:
                        update_ops.append(tf.compat.v1.assign_add(slot, delta))
            if global_step is None:
                return tf.group(*update_ops)
            with tf.control_dependencies(update_ops):
                return tf.compat.v1.assign_add(global_step, 1, name=name).op

    def update_weights(self, train_op) -> tf.Operation:
        """After `train_op`: copies the slots into the weights, then applies the L1 step.

        Needed on at least one worker after `minimize`; other workers may skip it.
        """
        with tf.control_dependencies([train_op]):
            update_ops = [
                part.assign(slot_part)
                for kind in _WEIGHT_KINDS
                for var, slot in zip(self._variables[kind], self._slots["unshrunk_" + kind])
                for part, slot_part in zip(partitioned_weights.parts(var),
                                           partitioned_weights.parts(slot))]
        if self._l1() <= 0:
            return tf.group(*update_ops)
        # The proximal step: w <- sign(w) * max(0, |w| - l1 / l2).
        shrinkage = self._l1() / self._l2()
        with tf.control_dependencies(update_ops):
            shrink_ops = []
            for kind in _WEIGHT_KINDS:
                for var in self._variables[kind]:
                    for part in partitioned_weights.parts(var):
                        with tf.compat.v1.device(part.device):
                            shrunk = tf.math.sign(part) * tf.math.maximum(
                                0.0, tf.math.abs(part) - shrinkage)
                            shrink_ops.append(part.assign(shrunk))
            return tf.group(*shrink_ops)

    # ------------------------------------------------------------------ reporting

    def approximate_duality_gap(self) -> tf.Tensor:
        """The approximate duality gap over every example seen (NaN before any)."""
        _, shard_values = self._hashtable.export_sharded()
        return sdca_losses.approximate_duality_gap(shard_values, self._variables,
                                                   l1=self._l1(), l2=self._l2())

    def _checked(self, examples: Mapping, keys) -> Mapping:
        for key in keys:
            if examples[key] is None:
                raise ValueError(f"{key} must be specified.")
        for key in ("sparse_features", "dense_features"):
            if not isinstance(examples[key], list):
                raise ValueError(f"{key} must be a list. Received: {type(examples[key])}.")
        return examples

    def predictions(self, examples: Mapping) -> tf.Tensor:
        """Probabilities (logistic), exp(w * x) (Poisson) or w * x for `examples`."""
        self._checked(examples, ("example_weights", "sparse_features", "dense_features"))
        return sdca_losses.predictions(self._variables, examples, self._options["loss_type"])

    def unregularized_loss(self, examples: Mapping) -> tf.Tensor:
        """The example-weighted mean loss over `examples`, without regularization."""
        self._checked(examples, ("example_labels", "example_weights", "sparse_features",
                                 "dense_features"))
        return sdca_losses.unregularized_loss(self._variables, examples,
                                              self._options["loss_type"])

    def regularized_loss(self, examples: Mapping) -> tf.Tensor:
        """The mean loss over `examples` plus L1 and L2 over their summed weights."""
        self._checked(examples, ("example_labels", "example_weights", "sparse_features",
                                 "dense_features"))
        return sdca_losses.regularized_loss(
            self._variables, examples, loss_type=self._options["loss_type"],
            l1=self._l1(), l2=self._l2())


# The original module's names (code importing its module path uses them).
_SDCAModel = SdcaModel
_SparseFeatureColumn = SparseFeatureColumn
