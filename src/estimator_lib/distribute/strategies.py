"""Strategy plumbing for graph-mode training: devices, per-replica input and model_fn."""

import contextlib
import re
import threading

import tensorflow as tf
from tensorflow.python.autograph.impl import api as autograph_api


_DEVICE = re.compile(r"device:(CPU|GPU):(\d+)$", re.IGNORECASE)

def _device_indices(strategy, kind):
    indices = []
    for device in strategy.extended.worker_devices:
        match = _DEVICE.search(device)
        if match and match.group(1).upper() == kind:
            indices.append(int(match.group(2)))
    return indices


def session_config_for(strategy, session_config: tf.compat.v1.ConfigProto
                       ) -> tf.compat.v1.ConfigProto:
    """A copy of `session_config` whose session sees every device the strategy names.

    Logical devices made with `tf.config.set_logical_device_configuration` exist
    only in the eager context: a v1 Session sees one CPU and, with soft placement,
    would silently put every replica on it, where a cross-device all-reduce then
    waits forever. Here the session is given the same devices, or refused.

    No deadline is put on the session's runs (`operation_timeout_in_ms` stays as the
    session_config sets it, none by default, as the original): a run waits for the
    slowest task, also while it saves a checkpoint or runs a long chief-only hook.
    A task that dies is noticed by the RPCs that fail; one that stops without any
    RPC failing is bounded only by a deadline the user sets (docs/multi_worker.md).
    """
    config = tf.compat.v1.ConfigProto()
    config.CopyFrom(session_config)
    update = getattr(strategy.extended, "_update_config_proto", None)
    if update is not None:
        # The strategy's own session settings: for multi-worker strategies the
        # collective group leader and a device filter for this task, without which
        # every worker's session waits for all the others.
        config = update(config)
    cpus = _device_indices(strategy, "CPU")
    if cpus:
        config.device_count["CPU"] = max(config.device_count.get("CPU", 1), max(cpus) + 1)
        logical_cpus = len(tf.config.list_logical_devices("CPU"))
        if max(cpus) + 1 > logical_cpus:
            raise ValueError(
                f"The distribution strategy names CPU devices {sorted(cpus)}, but this process "
                f"has {logical_cpus} CPU device(s). Split the CPU first, once per process: "
                "tf.config.set_logical_device_configuration(tf.config.list_physical_devices("
                f"'CPU')[0], [tf.config.LogicalDeviceConfiguration()] * {max(cpus) + 1}).")
    gpus = _device_indices(strategy, "GPU")
    if gpus:
        logical_gpus = len(tf.config.list_logical_devices("GPU"))
        if max(gpus) + 1 > logical_gpus:
            raise ValueError(
                f"The distribution strategy names GPU devices {sorted(gpus)}, but this process "
                f"sees {logical_gpus} GPU(s). Name only devices that exist, e.g. "
                "MirroredStrategy() for all visible GPUs.")
        _copy_virtual_gpus(config)
    return config


def _copy_virtual_gpus(config):
    """Gives the session the eager context's logical-GPU split (they must agree)."""
    physical = tf.config.list_physical_devices("GPU")
    virtual = config.gpu_options.experimental.virtual_devices
    if virtual:
        return
    splits = [tf.config.get_logical_device_configuration(gpu) for gpu in physical]
    if not any(splits):
        return
    for split in splits:
        entry = virtual.add()
        for logical in split or []:
            if logical.memory_limit is not None:
                entry.memory_limit_mb.append(logical.memory_limit)


def num_replicas(strategy) -> int:
    """How many replicas a step runs on: the strategy's replicas in sync, 1 without one.

    Args:
        strategy: A `tf.distribute.Strategy`, or None.

    Returns:
        The number of replicas.
    """
    return strategy.num_replicas_in_sync if strategy is not None else 1


def call_for_each_replica(strategy, fn, features, labels, *, outputs):
    """Runs `fn(features, labels)` once per replica.

    Returns (results, regrouped): `results` are what each call returned, in replica
    order (replica 0 first), as plain Python objects, so that EstimatorSpecs, hooks
    and scaffolds keep their types; `regrouped` is the structure `outputs(result)`
    picks from each, regrouped into per-replica values by the strategy.

    The strategy would convert `fn`, and with it every function it calls, with
    AutoGraph. Only the model_fn is the user's: it is converted as the original's
    was (`model_fn_as_the_strategy_calls_it`, which reads the status this call sets
    for the replica's thread), estimator_lib's own frames run as written (converting
    them cost model_to_estimator 1.4 s per replica).

    Args:
        strategy: The `tf.distribute` strategy (None in `train_scope`: no strategy).
        fn: The function to call on each replica.
        features: The per-replica features.
        labels: The per-replica labels.
        outputs: Picks the values to regroup from one call's result.
    """
    results = {}
    conversion = tf.__internal__.autograph.control_status_ctx()

    def replica_fn(features, labels):
        context = tf.distribute.get_replica_context()
        replica_id = int(tf.get_static_value(context.replica_id_in_sync_group))
        # MirroredStrategy calls each replica on a thread of its own.
        previous = getattr(_replica_call, "conversion", None)
        _replica_call.conversion = conversion
        try:
            results[replica_id] = fn(features, labels)
        finally:
            _replica_call.conversion = previous
        return outputs(results[replica_id])

    regrouped = strategy.extended.call_for_each_replica(
        run_as_written(replica_fn), args=(features, labels))
    return [results[i] for i in sorted(results)], regrouped


# The AutoGraph status of the replica call running on this thread (call_for_each_replica).
_replica_call = threading.local()


def run_as_written(function):
    """Marks `function` as one AutoGraph leaves unconverted (`tf_convert` returns it)."""
    return autograph_api.autograph_artifact(function)


def model_fn_as_the_strategy_calls_it(model_fn):
    """`model_fn` converted by AutoGraph as the strategy would have (the original's
    model_fns were), inside a replica call of `call_for_each_replica`; elsewhere (no
    strategy), `model_fn` itself."""
    conversion = getattr(_replica_call, "conversion", None)
    if conversion is None:
        return model_fn
    return tf.__internal__.autograph.tf_convert(model_fn, conversion)


def first_replica_value(strategy, value):
    """The local value of replica 0 (the value itself when it is not distributed)."""
    if isinstance(value, tf.distribute.DistributedValues):
        return strategy.experimental_local_results(value)[0]
    return value


def reduce_loss(strategy, per_replica_loss):
    """The loss to report: a mean when v1 optimizers scaled it by 1/replicas, else a sum.

    This is the original's rule. With N replicas each computing the loss of its own
    per-replica batch, the reported figure is the mean over the N batches when the
    optimizer scaled the loss (tf.compat.v1 optimizers with a mean loss reduction),
    and the sum of the N per-replica losses otherwise.
    """
    graph = tf.compat.v1.get_default_graph()
    scaled = getattr(graph, "_is_loss_scaled_by_optimizer", False)
    op = tf.distribute.ReduceOp.MEAN if scaled else tf.distribute.ReduceOp.SUM
    return strategy.reduce(op, per_replica_loss, axis=None)


@contextlib.contextmanager
def train_scope(graph: tf.Graph, strategy, device_fn=None):
    """Where a TRAIN graph is built: the strategy's scope (loss scaling as the original's
    Estimator had it), or `RunConfig.device_fn` without a strategy.

    Args:
        graph: The graph being built.
        strategy: The `tf.distribute` strategy (None in `train_scope`: no strategy).
        device_fn: `RunConfig.device_fn`, or None.

    Returns:
        A context manager.
    """
    if strategy is None:
        with graph.device(device_fn):
            yield
    else:
        scale_loss = strategy._scale_loss_for_estimator_enabled  # pylint: disable=protected-access
        with strategy.scope(), scale_loss():
            yield


def scope(strategy):
    """The strategy's scope, or a no-op without one (evaluation)."""
    return strategy.scope() if strategy is not None else contextlib.nullcontext()
