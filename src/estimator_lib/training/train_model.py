"""The one training path of `Estimator.train`, read top to bottom.

    0. the job's shape arrives decided (`distribute/job_shape.decide`, by the caller):
       strategy or device function, roles, steps per run, session config;
    1. build the graph (`train_graph.built`): global step, input, model_fn (once per
       replica under a strategy), the steps-per-run loop, the saver;
    2. plan the hooks (`hook_plan.plan`), attach the saving listeners;
    3. create the session (`session.training_session`), holding the model_dir lock;
    4. run the train_op until a hook stops it.
"""

import contextlib
from typing import Callable, Optional, Sequence

import tensorflow as tf

from estimator_lib.distribute.job_shape import JobShape
from estimator_lib.graph import restore
from estimator_lib.graph.model_graph import ModelGraph
from estimator_lib.training import hook_plan
from estimator_lib.training import model_dir_lock
from estimator_lib.training import preemption
from estimator_lib.training import session as session_lib
from estimator_lib.training import train_graph

logging = tf.compat.v1.logging


def train_model(model: ModelGraph, input_fn: Callable, *, job: JobShape, hooks: Sequence,
                steps: Optional[int], max_steps: Optional[int],
                saving_listeners: Sequence) -> Optional[float]:
    """Trains `model` on `input_fn` until a hook stops it; returns the last loss.

    Args:
        model: The model_fn, params and RunConfig (model_dir, cadences).
        input_fn: The training input_fn.
        job: The job's shape, decided once by `job_shape.decide` (strategy or device
            function, roles, steps per run, cluster, session config and target).
        hooks: train()'s hooks, checked.
        steps, max_steps: train()'s stop condition (None for both: until input ends).
        saving_listeners: CheckpointSaverListeners, checked.

    Returns:
        The loss of the last step run, or None if no step ran.
    """
    config = model.config
    logging.debug("Training as a %s.", job.describe())
    # 1. The graph.
    with train_graph.built(model, input_fn, job) as built:
        spec = built.spec

        # 2. The hooks.
        listeners = saving_listeners if job.writes else ()
        plan = hook_plan.plan(
            config=config, spec=spec, step=built.step, input_hooks=built.input_hooks,
            user_hooks=hooks, steps=steps, max_steps=max_steps, saving_listeners=listeners,
            loop=built.loop)
        hook_plan.attach_saving_listeners(plan, listeners)

        # 3. The session, and 4. the steps.
        if job.prepare_task is not None:
            job.prepare_task()
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
                job, model_dir=config.model_dir, restore_from=built.restore_from,
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


def _open_summary_writer_without_graph(logdir: str) -> None:
    """Opens the cached summary writer of `logdir` outside the training graph.

    FileWriterCache writes the current default graph, constants and all, when it
    first opens a directory's writer; the checkpoint hook writes a lean copy instead.
    """
    with tf.Graph().as_default():
        tf.compat.v1.summary.FileWriterCache.get(logdir)
