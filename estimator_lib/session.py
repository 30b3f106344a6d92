"""The training session: MonitoredTrainingSession's assembly, resuming from a readable checkpoint."""

import socket
from typing import List, Optional

import tensorflow as tf

from estimator_lib import checkpoints


def unreachable_tasks(cluster: dict, timeout: float = 2.0) -> List[str]:
    """The `job:index (address)` of every cluster task that refuses a connection."""
    missing = []
    for job, addresses in sorted(cluster.items()):
        for index, address in enumerate(addresses):
            host, _, port = address.rpartition(":")
            try:
                with socket.create_connection((host, int(port)), timeout=timeout):
                    pass
            except (OSError, ValueError):
                missing.append(f"{job}:{index} ({address})")
    return missing


class _ResumingSessionCreator(tf.compat.v1.train.ChiefSessionCreator):
    """Restores `first_checkpoint`, and on a later re-creation the newest readable one.

    MonitoredSession re-creates the session after an aborted or unavailable run. In a
    multi-worker job (`cluster` given) that means a task died: the survivors would
    wait for it forever, so re-creation fails instead, naming the unreachable tasks.
    """

    def __init__(self, model_dir, first_checkpoint, cluster=None, **kwargs):
        super().__init__(checkpoint_filename_with_path=first_checkpoint, **kwargs)
        self._model_dir = model_dir
        self._cluster = cluster
        self._created = False

    def create_session(self):
        if self._created and self._cluster:
            missing = unreachable_tasks(self._cluster) or ["(none refused a connection)"]
            raise RuntimeError(
                "A task of the multi-worker job stopped; the others cannot take another "
                f"synchronous step without it. Unreachable: {', '.join(missing)}. Restart "
                "every task: training resumes from the newest checkpoint "
                f"({tf.train.latest_checkpoint(self._model_dir)}).")
        if self._created:  # Recovery after an aborted session: look again.
            self._checkpoint_filename_with_path = checkpoints.newest_readable(self._model_dir)
        self._created = True
        return super().create_session()


def training_session(*, model_dir: str, restore_from: Optional[str], initializes: bool,
                     writes: bool, scaffold, master: str, config, worker_hooks: List,
                     chief_hooks: List, save_summary_steps: Optional[int],
                     log_step_count_steps: Optional[int], max_wait_secs: float,
                     cluster: Optional[dict] = None):
    """A MonitoredSession with the hooks MonitoredTrainingSession would add.

    As `tf.compat.v1.train.MonitoredTrainingSession(is_chief=initializes, ...)`, but it
    restores `restore_from` (the newest *readable* checkpoint) rather than whatever
    the checkpoint state file names, and only a task that `writes` gets the chief
    hooks, the step counter and the summary saver.
    """
    if not initializes:
        creator = tf.compat.v1.train.WorkerSessionCreator(
            scaffold=scaffold, master=master, config=config, max_wait_secs=max_wait_secs)
        return tf.compat.v1.train.MonitoredSession(session_creator=creator,
                                                   hooks=list(worker_hooks))
    hooks = []
    if writes:
        hooks.extend(chief_hooks)
        if log_step_count_steps and log_step_count_steps > 0:
            hooks.append(tf.compat.v1.train.StepCounterHook(
                output_dir=model_dir, every_n_steps=log_step_count_steps))
        if save_summary_steps and save_summary_steps > 0:
            hooks.append(tf.compat.v1.train.SummarySaverHook(
                scaffold=scaffold, save_steps=save_summary_steps, output_dir=model_dir))
    hooks.extend(worker_hooks)
    creator = _ResumingSessionCreator(model_dir, restore_from, cluster=cluster,
                                      scaffold=scaffold, master=master, config=config)
    return tf.compat.v1.train.MonitoredSession(session_creator=creator, hooks=hooks)
