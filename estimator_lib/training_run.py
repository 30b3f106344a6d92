"""One training run over a built TRAIN graph: its default hooks, saver and session loop."""

import contextlib
from typing import Iterable, List, Optional

import tensorflow as tf
from tensorflow.python.training import training_util

from estimator_lib import checkpoints
from estimator_lib import distribute
from estimator_lib import locking
from estimator_lib import session as session_lib
from estimator_lib.model_fn import EstimatorSpec
from estimator_lib.run_config import RunConfig

logging = tf.compat.v1.logging


def run(spec: EstimatorSpec, *, config: RunConfig, worker_hooks: Iterable,
        saving_listeners: List, restore_from: Optional[str],
        session_config: tf.compat.v1.ConfigProto, loop=None):
    """Runs `spec.train_op` in a training session until a hook stops it.

    Args:
        spec: The TRAIN EstimatorSpec, built in the current default graph.
        config: The Estimator's RunConfig; its model_dir receives checkpoints and
            summaries.
        worker_hooks: Hooks every task runs (input, stop and user hooks).
        saving_listeners: CheckpointSaverListeners, attached to the checkpoint hook.
        restore_from: The checkpoint to resume from, or None.
        session_config: The ConfigProto the session is created with.
        loop: A steps_loop.TrainLoop when steps_per_run > 1, else None.

    Returns:
        The loss of the last step run, or None if no step ran.

    Raises:
        ValueError: If `saving_listeners` are given but no checkpoint hook saves.
    """
    model_dir = config.model_dir
    if not _has_loss_summary(spec.loss):
        tf.compat.v1.summary.scalar("loss", spec.loss)
    scaffold = spec.scaffold
    if scaffold.saver is not None and not tf.compat.v1.get_collection(
            tf.compat.v1.GraphKeys.SAVERS):
        # Hooks that save the variables (InMemoryEvaluatorHook) find it there.
        tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.SAVERS, scaffold.saver)
    if scaffold.saver is None and not tf.compat.v1.get_collection(
            tf.compat.v1.GraphKeys.SAVERS):
        tf.compat.v1.add_to_collection(
            tf.compat.v1.GraphKeys.SAVERS,
            tf.compat.v1.train.Saver(
                sharded=True, max_to_keep=config.keep_checkpoint_max,
                keep_checkpoint_every_n_hours=config.keep_checkpoint_every_n_hours,
                defer_build=True, save_relative_paths=True))
    worker_hooks = list(worker_hooks)
    worker_hooks.append(tf.compat.v1.train.NanTensorHook(spec.loss))
    if config.log_step_count_steps is not None and loop is not None:
        worker_hooks.append(loop.logging_hook(config.log_step_count_steps))
    elif config.log_step_count_steps is not None:
        worker_hooks.append(tf.compat.v1.train.LoggingTensorHook(
            {"loss": spec.loss,
             "step": training_util._get_or_create_global_step_read()},  # pylint: disable=protected-access
            every_n_iter=config.log_step_count_steps))
    worker_hooks.extend(spec.training_hooks)
    if loop is not None:
        worker_hooks.append(loop.stop_hook(worker_hooks + list(spec.training_chief_hooks)))

    chief_hooks = []
    saver_types = (tf.compat.v1.train.CheckpointSaverHook, checkpoints.CheckpointSaverHook)
    saver_hooks = [h for h in worker_hooks + list(spec.training_chief_hooks)
                   if isinstance(h, saver_types)]
    if (config.save_checkpoints_secs or config.save_checkpoints_steps) and not saver_hooks:
        saver_hook = loop.checkpoint_saver_hook if loop else checkpoints.CheckpointSaverHook
        chief_hooks.append(saver_hook(
            model_dir, save_secs=config.save_checkpoints_secs,
            save_steps=config.save_checkpoints_steps, scaffold=scaffold,
            save_graph_def=config.checkpoint_save_graph_def,
            save_on_create=not distribute.is_multi_worker(config)))
        saver_hooks = chief_hooks[:1]
    if saving_listeners and distribute.roles(config)[1]:
        if not saver_hooks:
            raise ValueError(
                "There should be a CheckpointSaverHook to use saving_listeners. Please set "
                "one of the RunConfig.save_checkpoints_steps or "
                "RunConfig.save_checkpoints_secs.")
        # Both our hook and TensorFlow's keep their listeners in `_listeners`.
        saver_hooks[0]._listeners.extend(saving_listeners)  # pylint: disable=protected-access

    # A loop's runs make several steps: its own step counter and summary saver
    # count them, in place of the session's.
    save_summary_steps, log_step_count_steps = (
        config.save_summary_steps, config.log_step_count_steps)
    counting_hooks = []
    if loop is not None:
        counting_hooks = loop.counting_hooks(
            output_dir=model_dir, scaffold=scaffold,
            save_summary_steps=save_summary_steps, log_step_count_steps=log_step_count_steps)
        save_summary_steps = log_step_count_steps = None
    initializes, writes = distribute.roles(config)
    loss = None
    any_step_done = False
    with contextlib.ExitStack() as stack:
        if writes:
            stack.enter_context(locking.model_dir_lock(model_dir))
            _open_summary_writer_without_graph(model_dir)
        session = stack.enter_context(session_lib.training_session(
            model_dir=model_dir, restore_from=restore_from,
            initializes=initializes, writes=writes, scaffold=scaffold,
            master=config.master, config=session_config,
            worker_hooks=worker_hooks,
            chief_hooks=chief_hooks + list(spec.training_chief_hooks) + counting_hooks,
            save_summary_steps=save_summary_steps,
            log_step_count_steps=log_step_count_steps,
            max_wait_secs=config.session_creation_timeout_secs,
            cluster=(config.cluster_spec.as_dict()
                     if distribute.is_multi_worker(config) else None)))
        while not session.should_stop():
            _, loss = session.run([spec.train_op, spec.loss])
            any_step_done = True
    if not any_step_done:
        logging.warning("Training with estimator made no steps. Perhaps input is empty or "
                        "misspecified.")
    return loss


def _has_loss_summary(loss):
    for summary in tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.SUMMARIES):
        if summary.op.type == "ScalarSummary" and summary.op.inputs[0].op.name.endswith("loss"):
            return True
    del loss
    return False


def _open_summary_writer_without_graph(logdir):
    """Opens the cached summary writer of `logdir` outside the training graph.

    FileWriterCache writes the current default graph, constants and all, when it
    first opens a directory's writer; the checkpoint hook writes a lean copy instead.
    """
    with tf.Graph().as_default():
        tf.compat.v1.summary.FileWriterCache.get(logdir)
