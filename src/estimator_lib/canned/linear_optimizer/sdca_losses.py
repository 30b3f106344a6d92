"""What an SDCA model reports: predictions, losses, regularization, the duality gap.

Pure graph builders over the `examples` / `variables` dicts of `SdcaModel` (see
sdca_ops.py); the model's methods call them. Sums run in float64, as the solver's
own bookkeeping does, so a large batch loses no precision.
"""

from typing import Mapping, Sequence

import tensorflow as tf

from estimator_lib.canned.linear_optimizer import partitioned_weights

_WEIGHT_KINDS = ("sparse_features_weights", "dense_features_weights")


def _all_parts(variables: Mapping) -> list:
    return [part for kind in _WEIGHT_KINDS for var in variables[kind]
            for part in partitioned_weights.parts(var)]


def _sum_per_part(variables: Mapping, reduce_fn) -> tf.Tensor:
    sums = []
    for part in _all_parts(variables):
        weights = tf.convert_to_tensor(part)
        with tf.compat.v1.device(weights.device):
            sums.append(tf.math.reduce_sum(reduce_fn(tf.cast(weights, tf.float64))))
    return tf.math.add_n(sums)


def l1_loss(variables: Mapping, l1: float) -> tf.Tensor:
    """l1 * sum(|w|) over every weight (un-normalized)."""
    with tf.compat.v1.name_scope("sdca/l1_loss"):
        return l1 * _sum_per_part(variables, tf.math.abs)


def l2_loss(variables: Mapping, l2: float) -> tf.Tensor:
    """l2 * sum(w^2) / 2 over every weight (un-normalized)."""
    with tf.compat.v1.name_scope("sdca/l2_loss"):
        return l2 * _sum_per_part(variables, tf.math.square) / 2.0


def linear_predictions(variables: Mapping, examples: Mapping) -> tf.Tensor:
    """w * x for each example: sparse dot products plus dense matrix products."""
    with tf.compat.v1.name_scope("sdca/prediction"):
        batch_size = tf.compat.v1.shape(examples["example_ids"])[0]
        predictions = tf.zeros([batch_size])
        sparse_weights = partitioned_weights.as_tensors(variables["sparse_features_weights"])
        for column, weights in zip(examples["sparse_features"], sparse_weights):
            dots = tf.math.segment_sum(
                tf.math.multiply(tf.compat.v1.gather(weights, column.feature_indices),
                                 column.feature_values),
                column.example_indices)
            # segment_sum stops at the last example with a feature: pad to the batch.
            predictions += tf.compat.v1.pad(
                dots, [[0, batch_size - tf.compat.v1.shape(dots)[0]]])
        dense_features = partitioned_weights.as_tensors(examples["dense_features"])
        dense_weights = partitioned_weights.as_tensors(variables["dense_features_weights"])
        for features, weights in zip(dense_features, dense_weights):
            predictions += tf.compat.v1.squeeze(
                tf.linalg.matmul(features, tf.compat.v1.expand_dims(weights, -1)))
    return predictions


def predictions(variables: Mapping, examples: Mapping, loss_type: str) -> tf.Tensor:
    """Probabilities for logistic loss, exp(w * x) for Poisson, else w * x.

    Args:
        variables: The dict of the model's weight variables (see sdca_ops' module doc).
        examples: The dict of the batch's example tensors (see sdca_ops' module doc).
        loss_type: The SDCA loss: 'logistic_loss', 'squared_loss', 'hinge_loss',
            'smooth_hinge_loss' or 'poisson_loss'.

    Returns:
        A float tensor `[batch, 1]` of predictions.
    """
    result = linear_predictions(variables, examples)
    if loss_type == "logistic_loss":
        with tf.compat.v1.name_scope("sdca/logistic_prediction"):
            result = tf.math.sigmoid(result)
    elif loss_type == "poisson_loss":
        with tf.compat.v1.name_scope("sdca/poisson_prediction"):
            result = tf.math.exp(result)
    return result


def unregularized_loss(variables: Mapping, examples: Mapping, loss_type: str) -> tf.Tensor:
    """The example-weighted mean loss, without regularization.

    Args:
        variables: The dict of the model's weight variables (see sdca_ops' module doc).
        examples: The dict of the batch's example tensors (see sdca_ops' module doc).
        loss_type: The SDCA loss: 'logistic_loss', 'squared_loss', 'hinge_loss',
            'smooth_hinge_loss' or 'poisson_loss'.

    Returns:
        A scalar float tensor.
    """
    with tf.compat.v1.name_scope("sdca/unregularized_loss"):
        logits = tf.cast(linear_predictions(variables, examples), tf.float64)
        labels = tf.cast(tf.convert_to_tensor(examples["example_labels"]), tf.float64)
        weights = tf.cast(tf.convert_to_tensor(examples["example_weights"]), tf.float64)
        total_weight = tf.math.reduce_sum(weights)
        if loss_type == "logistic_loss":
            losses = tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
            return tf.math.reduce_sum(tf.math.multiply(losses, weights)) / total_weight
        if loss_type == "poisson_loss":
            losses = tf.nn.log_poisson_loss(targets=labels, log_input=logits)
            return tf.math.reduce_sum(tf.math.multiply(losses, weights)) / total_weight
        if loss_type in ("hinge_loss", "smooth_hinge_loss"):
            # Hinge losses take labels in {-1, 1}: 0/1 labels are mapped first.
            ones = tf.compat.v1.ones_like(logits)
            signs = tf.math.subtract(2 * labels, ones)
            errors = tf.nn.relu(tf.math.subtract(ones, tf.math.multiply(signs, logits)))
            return tf.math.reduce_sum(tf.math.multiply(errors, weights)) / total_weight
        # Squared loss: sum(weight * err^2) / (2 * sum(weights)).
        squares = tf.math.multiply(tf.math.square(tf.math.subtract(labels, logits)), weights)
        return tf.math.reduce_sum(squares) / (2.0 * total_weight)


def regularized_loss(variables: Mapping, examples: Mapping, *, loss_type: str,
                     l1: float, l2: float) -> tf.Tensor:
    """The unregularized loss plus (l1 + l2 regularization) / sum(example weights).

    Args:
        variables: The dict of the model's weight variables (see sdca_ops' module doc).
        examples: The dict of the batch's example tensors (see sdca_ops' module doc).
        loss_type: The SDCA loss: 'logistic_loss', 'squared_loss', 'hinge_loss',
            'smooth_hinge_loss' or 'poisson_loss'.
        l1: The symmetric L1 regularization strength.
        l2: The symmetric L2 regularization strength.

    Returns:
        A scalar float tensor.
    """
    with tf.compat.v1.name_scope("sdca/regularized_loss"):
        weights = tf.convert_to_tensor(examples["example_weights"])
        regularization = l1_loss(variables, l1) + l2_loss(variables, l2)
        return (regularization / tf.math.reduce_sum(tf.cast(weights, tf.float64))
                + unregularized_loss(variables, examples, loss_type))


def approximate_duality_gap(shard_values: Sequence[tf.Tensor], variables: Mapping, *,
                            l1: float, l2: float) -> tf.Tensor:
    """(primal + dual + l1 + 2 * l2) / sum(example weights), from the example states.

    NaN before any example was seen (all weights zero).

    Args:
        shard_values: The example-state hash table's values, one tensor per shard.
        variables: The dict of the model's weight variables (see sdca_ops' module doc).
        l1: The symmetric L1 regularization strength.
        l2: The symmetric L2 regularization strength.

    Returns:
        A scalar float tensor.
    """
    with tf.compat.v1.name_scope("sdca/approximate_duality_gap"):
        shard_sums = []
        for values in shard_values:
            with tf.compat.v1.device(values.device):
                # One shard at a time: each float64 copy is freed before the next.
                with tf.control_dependencies(shard_sums):
                    shard_sums.append(
                        tf.math.reduce_sum(tf.cast(values, dtype=tf.float64), 0))
        summed = tf.math.add_n(shard_sums)
        primal_loss, dual_loss, example_weights = summed[1], summed[2], summed[3]
        return (primal_loss + dual_loss + l1_loss(variables, l1)
                + (2.0 * l2_loss(variables, l2))) / example_weights
