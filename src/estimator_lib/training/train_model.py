"""The one training path of `Estimator.train`, read top to bottom.

    1. build the graph: global step, input, model_fn (once per replica under a
       strategy), the steps-per-run loop, the saver;
    2. plan the hooks (`hook_plan.plan`);
    3. create the session (`session.training_session`), holding the model_dir lock;
    4. run the train_op until a hook stops it.
"""

import contextlib
from typing import Callable, Optional, Sequence

import tensorflow as tf
from tensorflow.python.training import training_util

from estimator_lib.graph import inputs
from estimator_lib.tf_internals import patches as tf_patches
from estimator_lib.distribute import job_shape
from estimator_lib.distribute import parameter_servers
from estimator_lib.distribute import replica_specs
from estimator_lib.distribute import strategies
from estimator_lib.core.model_fn import ModeKeys
from estimator_lib.graph.model_graph import ModelGraph
from estimator_lib.graph import restore
from estimator_lib.training import hook_plan
from estimator_lib.training import model_dir_lock
from estimator_lib.training import preemption
from estimator_lib.training import session as session_lib
from estimator_lib.training import steps_loop

logging = tf.compat.v1.logging


def train_model(model: ModelGraph, input_fn: Callable, *, hooks: Sequence,
                steps: Optional[int], max_steps: Optional[int],
                saving_listeners: Sequence) -> Optional[float]:
    """Trains `model` on `input_fn` until a hook stops it; returns the last loss.

    Args:
        model: The model_fn, params and RunConfig (model_dir, strategy, cadences).
        input_fn: The training input_fn.
        hooks: train()'s hooks, checked.
        steps, max_steps: train()'s stop condition (None for both: until input ends).
        saving_listeners: CheckpointSaverListeners, checked.

    Returns:
        The loss of the last step run, or None if no step ran.
    """
    config = model.config
    job = job_shape.decide(config, model.session_config)
    logging.debug("Training as a %s.", job.describe())
    steps_per_run = config.steps_per_run
    if steps_per_run > 1:
        steps_loop.check_supported(config, job)
    with tf.Graph().as_default() as graph, strategies.train_scope(
            graph, job.strategy, job.device_fn):
        # 1. The graph.
        model.start_graph(graph)
        build_step, input_hooks = _train_step(model, input_fn, job.strategy, steps_per_run)
        loop = None
        if steps_per_run == 1:
            spec = build_step()
        else:
            loop = steps_loop.make_train_loop(build_step, steps_per_run=steps_per_run)
            spec = loop.spec
        restore_from = restore.newest_readable(config.model_dir)
        model.prepare_restore_or_warm_start(spec, restore_from, verified=True)
        _add_loss_summary(spec.loss)
        _add_saver(spec.scaffold, config)

        # 2. The hooks.
        plan = hook_plan.plan(
            config=config, spec=spec,
            step=training_util._get_or_create_global_step_read(),  # pylint: disable=protected-access
            input_hooks=input_hooks, user_hooks=hooks, steps=steps, max_steps=max_steps,
            saving_listeners=saving_listeners if job.writes else (), loop=loop)

        # 3. The session, and 4. the steps.
        if job.mode == job_shape.PARAMETER_SERVER:
            parameter_servers.prepare_task(config)
        loss = None
        any_step_done = False
        with contextlib.ExitStack() as stack:
            # SIGTERM/SIGINT: finish the step, checkpoint, release the lock; then the
            # signal's own effect (preemption.after_stop).
            stop = stack.enter_context(preemption.stop_on_signals())
            if job.writes:
                stack.enter_context(model_dir_lock.model_dir_lock(config.model_dir))
                _open_summary_writer_without_graph(config.model_dir)
            session = stack.enter_context(session_lib.training_session(
                job, model_dir=config.model_dir, restore_from=restore_from,
                scaffold=spec.scaffold, hooks=plan.for_task(job.writes),
                max_wait_secs=config.session_creation_timeout_secs))
            while not session.should_stop() and not stop.requested:
                _, loss = session.run([spec.train_op, spec.loss])
                any_step_done = True
    if stop.requested:
        preemption.after_stop(stop, preemption.checkpoint_step(
            restore.newest_readable(config.model_dir)), config.model_dir)
    if not any_step_done:
        logging.warning("Training with estimator made no steps. Perhaps input is empty or "
                        "misspecified.")
    return loss


def _train_step(model: ModelGraph, input_fn, strategy, steps_per_run):
    """(build_step, input hooks): build_step calls model_fn on the next batch.

    With `train_distribute`, model_fn runs once per replica, as the original.
    """
    def call_model_fn(features, labels):
        return model.call_model_fn(features, labels, ModeKeys.TRAIN)

    if strategy is not None:
        get_next, input_hooks = model.replicated_input(strategy, input_fn, ModeKeys.TRAIN)
        return (lambda: replica_specs.train_spec(strategy, call_model_fn, *get_next()),
                input_hooks)
    if steps_per_run == 1:
        features, labels, input_hooks = model.input(input_fn, ModeKeys.TRAIN)
        return (lambda: call_model_fn(features, labels)), input_hooks
    with tf_patches.large_arrays_fed() as feeds, inputs.datasets_wanted():
        result = model.call_input_fn(input_fn, ModeKeys.TRAIN)
    get_next, input_hooks = steps_loop.dataset_input(
        result, feeds, steps_per_run=steps_per_run)
    return (lambda: call_model_fn(*get_next())), input_hooks


def _add_loss_summary(loss) -> None:
    """A `loss` scalar summary, unless the model_fn (or a head) wrote one.

    The original's rule, a summary op named `loss`, and also any scalar tagged `loss`:
    a second one would fail the merged summary ("Duplicate tag loss").
    """
    for summary in tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.SUMMARIES):
        if summary.op.name == "loss" or (summary.op.type == "ScalarSummary" and tf.get_static_value(
                summary.op.inputs[0]) in (b"loss", "loss")):
            return
    # The tag is "loss" whatever ops the model_fn named "loss" (summary.scalar would
    # write "loss_1" for a Keras model, as the original did, so that training and
    # evaluation curves never shared a chart: docs/estimator.md, deliberate differences).
    summary = tf.raw_ops.ScalarSummary(tags="loss", values=loss, name="loss_summary")
    tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.SUMMARIES, summary)


def _add_saver(scaffold, config) -> None:
    """Puts the saver checkpoints are written with in the SAVERS collection.

    The scaffold's own saver if it has one (hooks that save the variables find it
    there), else the Estimator's default one.
    """
    if tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.SAVERS):
        return
    saver = scaffold.saver or tf.compat.v1.train.Saver(
        sharded=True, max_to_keep=config.keep_checkpoint_max,
        keep_checkpoint_every_n_hours=config.keep_checkpoint_every_n_hours,
        defer_build=True, save_relative_paths=True)
    tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.SAVERS, saver)


def _open_summary_writer_without_graph(logdir: str) -> None:
    """Opens the cached summary writer of `logdir` outside the training graph.

    FileWriterCache writes the current default graph, constants and all, when it
    first opens a directory's writer; the checkpoint hook writes a lean copy instead.
    """
    with tf.Graph().as_default():
        tf.compat.v1.summary.FileWriterCache.get(logdir)


