"""One EstimatorSpec out of a model_fn called once per replica of a tf.distribute strategy."""

from typing import Callable, Tuple

import tensorflow as tf

from estimator_lib.distribute import strategies
from estimator_lib.core.model_fn import EstimatorSpec
from estimator_lib.core.model_fn import ModeKeys


def train_spec(strategy, call_model_fn: Callable, features, labels) -> EstimatorSpec:
    """The TRAIN spec of one step: every replica's loss reduced, its train_op grouped.

    Args:
        strategy: The tf.distribute strategy whose scope the graph is built in.
        call_model_fn: (features, labels) -> the EstimatorSpec of one replica (the
            model_fn converted as the strategy would: see
            strategies.call_for_each_replica).
        features: The per-replica features of the strategy's input iterator.
        labels: The per-replica labels, or None.

    Returns:
        An EstimatorSpec whose hooks and scaffold are replica 0's, as in the original.
    """
    specs, (per_replica_loss, per_replica_train_op) = strategies.call_for_each_replica(
        strategy, call_model_fn, features, labels,
        outputs=lambda spec: (spec.loss, spec.train_op))
    first = specs[0]
    return EstimatorSpec(
        ModeKeys.TRAIN, loss=strategies.reduce_loss(strategy, per_replica_loss),
        train_op=strategy.group(per_replica_train_op),
        training_hooks=first.training_hooks,
        training_chief_hooks=first.training_chief_hooks, scaffold=first.scaffold)


def eval_spec(strategy, call_model_fn: Callable, features, labels
              ) -> Tuple[EstimatorSpec, tf.Operation]:
    """The EVAL spec and its update op: model_fn per replica, metrics summed across.

    tf.compat.v1 and Keras metrics keep their state in sync-on-read variables
    and compute their value across replicas, so replica 0's value ops read the
    aggregate; every replica's update ops run each step.

    Args:
        strategy: The tf.distribute strategy whose scope the graph is built in.
        call_model_fn: (features, labels) -> the EVAL EstimatorSpec of one replica
            (as for train_spec).
        features: The per-replica features of the strategy's input iterator.
        labels: The per-replica labels, or None.

    Returns:
        (spec, update_op): replica 0's spec with its metrics read across replicas,
        and the op that updates every replica's metrics.
    """
    specs, updates = strategies.call_for_each_replica(
        strategy, call_model_fn, features, labels,
        outputs=lambda spec: [update for _, update in spec.eval_metric_ops.values()])
    first = specs[0]
    metrics = {name: (strategies.first_replica_value(strategy, value), update)
               for name, (value, update) in first.eval_metric_ops.items()}
    return first._replace(eval_metric_ops=metrics), strategy.group(updates)
