"""The training session: MonitoredTrainingSession's assembly, resuming from a readable checkpoint."""

import atexit
import os
import sys
from typing import List, Optional

import tensorflow as tf

from estimator_lib.tf_internals import patches as tf_patches
from estimator_lib.graph import restore
from estimator_lib.tf_internals import session_runs
from estimator_lib.distribute.cluster_wait import unreachable_tasks


class ChiefSessionCreator(tf.compat.v1.train.ChiefSessionCreator):
    """`tf.compat.v1.train.ChiefSessionCreator` whose sessions run repeated fetches
    through callables (`tf_internals.session_runs`); with `close_in_background`, they close on a
    thread (tf_patches, patch 2: distributed jobs only, where closing a session to a
    task that died never returns).

    Args:
        close_in_background: Whether `close()` runs in a background thread (when a task of the
            cluster may be gone).
        *args: `tf.compat.v1.train.ChiefSessionCreator`'s arguments.
        **kwargs: The base class's other keyword arguments.
    """

    def __init__(self, *args, close_in_background: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self._close_in_background = close_in_background

    def create_session(self):
        """Creates the chief's session, as the base class does, with fast repeated runs.

        Returns:
            The session, running repeated fetches through callables; with
            `close_in_background`, one whose `close()` returns at once.
        """
        session = session_runs.fast_repeated_runs(super().create_session())
        if self._close_in_background:
            return tf_patches.close_in_background(session)
        return session


_MULTI_WORKER = "multi-worker"
_PARAMETER_SERVER = "parameter-server"
# Why a lost task stops the others, by kind of job.
_RECREATION_CAUSE = {
    _MULTI_WORKER: "the others cannot take another synchronous step without it",
    _PARAMETER_SERVER: "the chief and workers cannot run a step without the variables on "
                       "the ps tasks",
}


def _stopped_task_error(cluster: dict, model_dir: str, cause: str,
                        advice: str = "", job: str = _MULTI_WORKER) -> RuntimeError:
    """The error of a multi-worker job that lost a task: which, and how to go on.

    The sessions still closing reach the lost task and would never finish: the process
    stops waiting for them, so that it can end with this error.
    """
    tf_patches.abandon_closing_sessions()
    atexit.register(_exit_at_once_if_failed)
    missing = unreachable_tasks(cluster)
    if missing:
        unreachable = ", ".join(missing)
    else:
        unreachable = "none (every task accepts connections: one may be stuck or slow)"
    return RuntimeError(
        f"A task of the {job} job stopped; {cause}. Unreachable: {unreachable}. "
        "Restart every task: training resumes from the newest checkpoint "
        f"({tf.train.latest_checkpoint(model_dir)}).{advice}")


def _exit_at_once_if_failed() -> None:
    """At exit after a lost task's error went uncaught: ends the process without the
    interpreter's finalisation, whose TensorFlow destructors of sessions and servers
    connected to the dead task never return."""
    error = getattr(sys, "last_value", None)
    if isinstance(error, RuntimeError) and str(error).startswith("A task of the "):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(1)  # pylint: disable=protected-access


class _ResumingSessionCreator(ChiefSessionCreator):
    """Restores `first_checkpoint`, and on a later re-creation the newest readable one.

    MonitoredSession re-creates the session after an aborted or unavailable run. In a
    multi-worker job (`cluster` given) that means a task died: the survivors would
    wait for it forever, so re-creation fails instead, naming the unreachable tasks.
    """

    def __init__(self, model_dir, first_checkpoint, cluster=None, job=_MULTI_WORKER,
                 **kwargs):
        super().__init__(checkpoint_filename_with_path=first_checkpoint,
                         close_in_background=cluster is not None, **kwargs)
        self._model_dir = model_dir
        self._cluster = cluster
        self._job = job
        self._created = False

    def create_session(self):
        if self._created and self._cluster:
            raise _stopped_task_error(self._cluster, self._model_dir,
                                      _RECREATION_CAUSE[self._job], job=self._job)
        if self._created:  # Recovery after an aborted session: look again.
            self._checkpoint_filename_with_path = restore.newest_readable(self._model_dir)
        self._created = True
        session = super().create_session()
        if self._checkpoint_filename_with_path:
            _recover_last_checkpoints(self._scaffold.saver, self._model_dir)
        return session


def _recover_last_checkpoints(saver, model_dir) -> None:
    """Tells `saver` the checkpoints already in model_dir, as TensorFlow's SessionManager
    does when it restores from a directory: its `max_to_keep` then counts them, and the
    oldest are deleted as new ones are written."""
    state = tf.train.get_checkpoint_state(model_dir)
    if saver is not None and state is not None:
        # What `saver.recover_last_checkpoints` does, without the deprecated
        # `get_checkpoint_mtimes` it calls (whose warning a user would read on resume).
        timed = [(path, _checkpoint_mtime(path)) for path in state.all_model_checkpoint_paths]
        saver.set_last_checkpoints_with_time([(path, t) for path, t in timed if t is not None])


def _checkpoint_mtime(path: str) -> Optional[float]:
    """When checkpoint `path` was written (its .index file's, or a V1 file's, mtime)."""
    for candidate in (path + ".index", path):
        try:
            return tf.io.gfile.stat(candidate).mtime_nsec / 1e9
        except tf.errors.NotFoundError:
            continue
    return None


class _WorkerSessionCreator(tf.compat.v1.train.WorkerSessionCreator):
    """A worker's creator that, in parameter-server training, refuses to re-create its
    session (a ps task died: it would wait for the chief's variables forever)."""

    def __init__(self, model_dir, cluster=None, **kwargs):
        super().__init__(**kwargs)
        self._model_dir = model_dir
        self._cluster = cluster
        self._created = False

    def create_session(self):
        if self._created and self._cluster:
            raise _stopped_task_error(self._cluster, self._model_dir,
                                      _RECREATION_CAUSE[_PARAMETER_SERVER],
                                      job=_PARAMETER_SERVER)
        self._created = True
        return tf_patches.close_in_background(
            session_runs.fast_repeated_runs(super().create_session()))


class _MultiWorkerSession(tf.compat.v1.train.MonitoredSession):
    """A MonitoredSession whose runs that time out name the tasks that stopped.

    A task that dies mid-step may leave the others waiting inside a collective op
    for data it will never send, with no RPC to fail: only a deadline the user sets ends
    that run (`operation_timeout_in_ms` in RunConfig's session_config, or the
    strategy's `CommunicationOptions(timeout_seconds=...)`; none by default, as the
    original). Its DeadlineExceededError becomes the error a failed re-creation
    raises, naming the unreachable tasks.
    """

    def __init__(self, *, cluster: dict, model_dir: str, operation_timeout_ms: int,
                 job: str = _MULTI_WORKER, **kwargs):
        self._cluster = cluster
        self._job = job
        self._model_dir = model_dir
        self._operation_timeout_ms = operation_timeout_ms
        try:  # Creating the session runs the initial broadcast from the chief.
            super().__init__(**kwargs)
        except tf.errors.DeadlineExceededError as e:
            raise self._timed_out() from e

    def run(self, *args, **kwargs):
        try:
            return super().run(*args, **kwargs)
        except tf.errors.DeadlineExceededError as e:
            raise self._timed_out() from e

    def _timed_out(self):
        return _stopped_task_error(
            self._cluster, self._model_dir,
            "a run of the training session waited past its deadline (session_config."
            f"operation_timeout_in_ms={self._operation_timeout_ms})",
            " If every task is healthy but a run takes longer, raise "
            "operation_timeout_in_ms in RunConfig(session_config=...).", job=self._job)


def _monitored_session(cluster, model_dir, config, job, **kwargs):
    if not cluster:
        return tf.compat.v1.train.MonitoredSession(**kwargs)
    timeout_ms = config.operation_timeout_in_ms if config is not None else 0
    return _MultiWorkerSession(cluster=cluster, model_dir=model_dir,
                               operation_timeout_ms=timeout_ms, job=job, **kwargs)


def training_session(job, *, model_dir: str, restore_from: Optional[str], scaffold,
                     hooks: List, max_wait_secs: float):
    """The training MonitoredSession of `job` (a distribute.job_shape.JobShape), running
    `hooks` (from `hook_plan.plan`).

    As `tf.compat.v1.train.MonitoredTrainingSession(is_chief=job.initializes, ...)`, but
    it restores `restore_from` (the newest *readable* checkpoint) rather than whatever
    the checkpoint state file names, and the hooks come planned. In a distributed job
    (`job.cluster`) a task that stops ends training with a RuntimeError naming it,
    whether a run fails with an RPC error or waits past the session's
    `operation_timeout_in_ms`.

    Args:
        job: The `JobShape` this process runs (distribute.job_shape).
        model_dir: The Estimator's model_dir.
        restore_from: The checkpoint to restore, or None to initialise.
        scaffold: The `Scaffold` whose saver is used; exclusive with `saver`.
        hooks: The hooks to run (from `hook_plan.plan`).
        max_wait_secs: How long a non-chief waits for the chief's session.

    Returns:
        A `tf.compat.v1.train.MonitoredSession`.
    """
    kind = _PARAMETER_SERVER if job.mode == "parameter-server" else _MULTI_WORKER
    config, cluster = job.session_config, job.cluster
    if not job.initializes:
        creator = _WorkerSessionCreator(
            model_dir, cluster=cluster, scaffold=scaffold, master=job.master, config=config,
            max_wait_secs=max_wait_secs)
    else:
        creator = _ResumingSessionCreator(model_dir, restore_from, cluster=cluster, job=kind,
                                          scaffold=scaffold, master=job.master, config=config)
    return _monitored_session(cluster, model_dir, config, kind, session_creator=creator,
                              hooks=list(hooks))


def local_session(*, scaffold, config, hooks: List = (), checkpoint_path: Optional[str] = None,
                  master: str = ""):
    """The MonitoredSession of an evaluation or prediction pass: restores
    `checkpoint_path` (or initialises), runs `hooks`, and closes on the caller's thread.

    Args:
        scaffold: The `Scaffold` whose saver is used; exclusive with `saver`.
        config: The session's `ConfigProto`.
        hooks: The hooks to run (from `hook_plan.plan`).
        checkpoint_path: The checkpoint to restore, or None to initialise.
        master: The session target; '' for in-process.

    Returns:
        A `tf.compat.v1.train.MonitoredSession`.
    """
    creator = ChiefSessionCreator(scaffold=scaffold, checkpoint_filename_with_path=checkpoint_path,
                                  master=master, config=config)
    return tf.compat.v1.train.MonitoredSession(session_creator=creator, hooks=list(hooks))


def plain_session(config, target: str = ""):
    """A plain `tf.compat.v1.Session` on the current graph, for one-off runs that need no
    hooks (restoring a checkpoint to export it, model_to_estimator's first checkpoint)."""
    return tf.compat.v1.Session(target, config=config)
