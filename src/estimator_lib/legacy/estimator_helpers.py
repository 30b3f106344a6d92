"""The original `estimator.py`'s private module helpers, by their names and signatures.

Libraries import them from `tensorflow_estimator.python.estimator.estimator` (a
canned estimator of their own sets `_canned_estimator_api_gauge`, a trainer reads
`_load_global_step_from_checkpoint_dir`); compat.install() puts each there
(legacy/original_tree.py). Each behaves as the original's; where ours does the same
job (the evaluation summaries, warm-start settings, the model_fn check) it is called.
"""

import os

import tensorflow as tf
from tensorflow.python.eager import monitoring

from estimator_lib.core import model_fn as model_fn_lib
from estimator_lib.distribute import parameter_servers
from estimator_lib.engine import evaluation
from estimator_lib.graph import warm_starting
from estimator_lib.legacy import original_helpers

logging = tf.compat.v1.logging

_VALID_MODEL_FN_ARGS = {"features", "labels", "mode", "params", "self", "config"}

# The API-usage gauges the original's Estimator and canned estimators set.
_estimator_api_gauge = monitoring.BoolGauge(
    "/tensorflow/api/estimator", "estimator api usage", "method")
_canned_estimator_api_gauge = monitoring.StringGauge(
    "/tensorflow/api/estimator/canned_estimator",
    "Gauge to track the type of canned estimator used", "ClassType")

_ALLOWED_OVERRIDES = frozenset([
    "model_fn", "_create_and_assert_global_step", "_export_all_saved_models",
    "_tf_api_names", "_tf_api_names_v1", "_estimator_api_names",
    "_estimator_api_names_v1", "_estimator_api_constants", "_estimator_api_constants_v1",
    "latest_checkpoint"])


def _assert_members_are_not_overridden(cls, obj):
    """Raises ValueError when `obj`'s class overrides a member of `cls` it may not."""
    if type(obj).__name__ == "TPUEstimator":
        return
    members = {m for m in dir(cls) if not m.startswith("__")}
    common = members & set(type(obj).__dict__) - _ALLOWED_OVERRIDES
    overridden = [m for m in common if getattr(cls, m) != getattr(type(obj), m)]
    if overridden:
        raise ValueError("Subclasses of Estimator cannot override members of Estimator. "
                         f"{type(obj)} does override {overridden}")


def _check_checkpoint_available(model_dir):
    """Raises ValueError when `model_dir` holds no checkpoint."""
    if not tf.train.latest_checkpoint(model_dir):
        raise ValueError(f"Could not find trained model in model_dir: {model_dir}.")


def _check_hooks_type(hooks):
    """The hooks as a list; TypeError for one that is not a SessionRunHook."""
    hooks = list(hooks or [])
    for hook in hooks:
        if not isinstance(hook, tf.compat.v1.train.SessionRunHook):
            raise TypeError(f"Hooks must be a SessionRunHook, given: {hook}")
    return hooks


def _check_listeners_type(saving_listeners):
    """The listeners as a list; TypeError for one that is not a CheckpointSaverListener."""
    listeners = list(saving_listeners or [])
    for listener in listeners:
        if not isinstance(listener, tf.compat.v1.train.CheckpointSaverListener):
            raise TypeError("saving_listeners must be a list of CheckpointSaverListener, "
                            f"given: {listener}")
    return listeners


def _dict_to_str(dictionary):
    """`k = v` pairs, sorted by key, joined by commas (bytes values left out)."""
    return ", ".join(f"{k} = {v}" for k, v in sorted(dictionary.items())
                     if not isinstance(v, bytes))


def _get_default_warm_start_settings(warm_start_from):
    """WarmStartSettings from a path (checkpoint or SavedModel) or settings; None for None.

    Raises:
        ValueError: If `warm_start_from` is neither a string nor a WarmStartSettings.
    """
    if warm_start_from is not None and not isinstance(
            warm_start_from, (str, bytes, os.PathLike, warm_starting.WarmStartSettings)):
        raise ValueError("warm_start_from must be a string or a WarmStartSettings, "
                         f"instead got {type(warm_start_from)}")
    return warm_starting.resolve(warm_start_from)


def _get_loss_reduce_op_for_reporting():
    """The reduction of the reported loss over replicas: SUM, or the optimizer's."""
    graph = tf.compat.v1.get_default_graph()
    if getattr(graph, "_is_loss_scaled_by_optimizer", False):
        return tf.compat.v1.distribute.get_loss_reduction()
    return tf.distribute.ReduceOp.SUM


def _has_dataset_or_queue_runner(maybe_tensor):
    """Whether the tensors come from a Dataset iterator, or the graph has queue runners."""
    tensors = [x for x in tf.nest.flatten(maybe_tensor) if isinstance(x, tf.Tensor)]
    if any(t.op.type == "IteratorGetNext" for t in tensors):
        return True
    return tf.compat.v1.get_default_graph().get_collection(
        tf.compat.v1.GraphKeys.QUEUE_RUNNERS)


def _load_global_step_from_checkpoint_dir(checkpoint_dir):
    """The global step of the newest checkpoint in `checkpoint_dir`, or 0."""
    try:
        reader = tf.compat.v1.train.NewCheckpointReader(
            tf.train.latest_checkpoint(checkpoint_dir))
        return reader.get_tensor(tf.compat.v1.GraphKeys.GLOBAL_STEP)
    except Exception:  # pylint: disable=broad-except  (the original's bare except)
        return 0


def _verify_and_create_loss_metric(eval_metric_ops, loss, distribution=None):
    """Adds the `loss` mean metric; ValueError when the model_fn already named one so."""
    key = original_helpers.LOSS_METRIC_KEY
    if key in eval_metric_ops:
        raise ValueError(f'Metric with name "{key}" is not allowed, because Estimator '
                         "already defines a default metric with the same name.")
    if distribution is None:
        eval_metric_ops[key] = tf.compat.v1.metrics.mean(loss)
    else:
        eval_metric_ops[key] = distribution.extended.call_for_each_replica(
            tf.compat.v1.metrics.mean, args=(loss,))
    return eval_metric_ops


def _verify_model_fn_args(model_fn, params):
    """Checks `model_fn`'s arguments (ValueError), as the Estimator's constructor does."""
    model_fn_lib.verify_model_fn_args(model_fn, params)


def _extract_metric_update_ops(eval_dict, distribution=None):
    """(one op grouping the update ops or None, {name: value op}) of eval metric pairs."""
    update_ops, value_ops = [], {}
    for name, value in sorted(eval_dict.items()):
        value_ops[name] = value[0]
        update_ops.append(distribution.group(value[1]) if distribution else value[1])
    return (tf.group(*update_ops) if update_ops else None), value_ops


def _get_replica_device_setter(config):
    """A replica device setter for a config with ps tasks, else None."""
    return parameter_servers.original_device_setter(config)


def _write_dict_to_summary(output_dir, dictionary, current_global_step):
    """Writes the evaluation results `dictionary` as summaries in `output_dir`."""
    evaluation.write_dict_to_summary(output_dir, dictionary, current_global_step)


def _write_checkpoint_path_to_summary(output_dir, checkpoint_path, current_global_step):
    """Writes the evaluated checkpoint's path as a summary in `output_dir`."""
    evaluation.write_checkpoint_path_to_summary(output_dir, checkpoint_path,
                                                current_global_step)


def _combine_distributed_scaffold(grouped_scaffold, distribution):
    """One Scaffold from the per-replica Scaffolds of `call_for_each_replica`."""
    scaffolds = distribution.experimental_local_results(grouped_scaffold)

    def grouped(attribute):
        ops = [getattr(s, attribute) for s in scaffolds if getattr(s, attribute) is not None]
        return distribution.group(ops) if ops else None

    def unwrap_and_concat(value):
        value = tf.nest.flatten(distribution.experimental_local_results(value))
        return tf.concat(value, 0) if len(value) != 1 else value[0]

    init_fns = [s._user_init_fn for s in scaffolds  # pylint: disable=protected-access
                if s._user_init_fn is not None]  # pylint: disable=protected-access
    ready_op = distribution.extended.call_for_each_replica(
        lambda scaffold: scaffold.ready_op, args=(grouped_scaffold,))
    if ready_op is not None:
        ready_op = unwrap_and_concat(ready_op)
    ready_for_local_init_op = distribution.extended.call_for_each_replica(
        original_helpers.create_per_replica_ready_for_local_init_op,
        args=(grouped_scaffold,))
    if ready_for_local_init_op is not None:
        ready_for_local_init_op = unwrap_and_concat(ready_for_local_init_op)
    savers = [s.saver for s in scaffolds if s.saver is not None]
    return tf.compat.v1.train.Scaffold(
        init_op=grouped("init_op"), ready_op=ready_op,
        ready_for_local_init_op=ready_for_local_init_op,
        local_init_op=grouped("local_init_op"), summary_op=grouped("summary_op"),
        saver=savers[0] if savers else None, init_feed_dict=grouped("init_feed_dict"),
        init_fn=init_fns[0] if init_fns else None)
