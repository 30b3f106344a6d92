"""Checkpoint writing for the Estimator's model_dir (reading: graph/restore.py).

The saver hook keeps the original's behaviour (a checkpoint at step 0, on a
timer, at the end; `graph.pbtxt` and `.meta` files; listeners) but serialises the
graph once. The graph is written as it runs: an input_fn's large numpy arrays are
fed placeholders there already (tf_patches.large_arrays_fed), so model_dirs stay
the size of the weights; every other constant is written as a constant, as the
original wrote it, and the `.meta` files import and restore with
`tf.compat.v1.train.import_meta_graph`.
"""

import os
import sys
from typing import Iterable, Optional

import tensorflow as tf
from tensorflow.python.training import training_util  # pylint: disable=g-direct-tensorflow-import

from estimator_lib.training import graph_text

logging = tf.compat.v1.logging


class EstimatorCheckpointSaverHook(tf.compat.v1.train.SessionRunHook):
    """Saves checkpoints every N steps or seconds, at session creation and at the end.

    The checkpoint hook the Estimator plans (`hook_plan.plan`). Same constructor, log
    lines and files as `tf.compat.v1.train.CheckpointSaverHook` (which is what
    `estimator_lib.CheckpointSaverHook` is, for users' own hooks), and also: the
    graph serialised once, `.meta` written atomically, an error naming the
    newest complete checkpoint when the disk refuses a save.

    Args:
        checkpoint_dir: The directory checkpoints (and graph.pbtxt) are written to.
        save_secs: Save every this many seconds; exclusive with `save_steps`.
        save_steps: Save every this many steps; exclusive with `save_secs`.
        saver: The `Saver` to save with; None takes the scaffold's (or the graph's).
        checkpoint_basename: The checkpoint files' prefix.
        scaffold: The `Scaffold` whose saver is used; exclusive with `saver`.
        listeners: `CheckpointSaverListener`s called around each save.
        save_graph_def: Whether to write the graph and meta graph with the checkpoints.

    Raises:
        ValueError: If both `saver` and `scaffold` are given.
    """

    def __init__(self, checkpoint_dir: str, save_secs=None, save_steps=None, saver=None,
                 checkpoint_basename: str = "model.ckpt", scaffold=None,
                 listeners: Optional[Iterable] = None, save_graph_def: bool = True):
        logging.info("Create CheckpointSaverHook.")
        if saver is not None and scaffold is not None:
            raise ValueError("You cannot provide both saver and scaffold.")
        self._saver = saver
        self._checkpoint_dir = checkpoint_dir
        self._save_path = os.path.join(checkpoint_dir, checkpoint_basename)
        self._scaffold = scaffold
        self._timer = tf.compat.v1.train.SecondOrStepTimer(every_secs=save_secs,
                                                           every_steps=save_steps)
        self._listeners = list(listeners or [])
        self._save_graph_def = save_graph_def
        self._meta_graph_def = None
        self._global_step_tensor = None
        self._summary_writer = None

    def begin(self):
        """Finds the global-step read and the event writer; calls the listeners' `begin`.

        Raises:
            RuntimeError: If the graph has no global step.
        """
        self._summary_writer = tf.compat.v1.summary.FileWriterCache.get(self._checkpoint_dir)
        # The one read of the global step the other hooks fetch too (as the original's
        # hook): one fewer tensor each step than the variable's own read.
        reads = tf.compat.v1.get_collection(training_util.GLOBAL_STEP_READ_KEY)
        self._global_step_tensor = reads[0] if reads else tf.compat.v1.train.get_global_step()
        if self._global_step_tensor is None:
            raise RuntimeError("Global step should be created to use CheckpointSaverHook.")
        for listener in self._listeners:
            listener.begin()

    def after_create_session(self, session, coord):
        """Writes graph.pbtxt and the meta graph (serialised once), then the first checkpoint.

        The first save happens in a multi-worker job too, as the original's: the chief's
        initialisation has ended by then, so no worker can restore it instead.

        Args:
            session: The session just created.
            coord: The session's coordinator (unused).
        """
        global_step = session.run(self._global_step_tensor)
        if self._save_graph_def:
            # The graph is finalized now: serialise it once for every save.
            graph = tf.compat.v1.get_default_graph()
            graph_def = graph.as_graph_def(add_shapes=True)
            saver = self._get_saver()
            self._meta_graph_def = tf.compat.v1.train.export_meta_graph(
                graph_def=graph_def, saver_def=saver.saver_def if saver else None)
            _write_graph_text(graph_def, self._checkpoint_dir)
            self._summary_writer.add_event(
                tf.compat.v1.Event(graph_def=graph_def.SerializeToString()))
            self._summary_writer.add_meta_graph(self._meta_graph_def)
        # In a multi-worker job too, as the original (model.ckpt-0): no other worker
        # can restore it instead of initialising, since the chief's initialisation
        # (a broadcast every worker joins) ends before this save.
        self._save(session, global_step)
        self._timer.update_last_triggered_step(global_step)

    def before_run(self, run_context):
        """Fetches the global step with the run.

        Args:
            run_context: The `SessionRunContext` of the run.

        Returns:
            `SessionRunArgs` fetching the global-step read.
        """
        return tf.compat.v1.train.SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        """Saves when the timer is due at the step after the run (read again to be sure).

        Requests a stop when a listener's `after_save` returns True.

        Args:
            run_context: The `SessionRunContext` of the run.
            run_values: The run's `SessionRunValues` (the step before the run).

        Raises:
            RuntimeError: If the checkpoint cannot be written (naming the newest complete one).
        """
        stale_global_step = run_values.results
        if self._timer.should_trigger_for_step(stale_global_step + 1):
            global_step = run_context.session.run(self._global_step_tensor)
            if self._timer.should_trigger_for_step(global_step):
                self._timer.update_last_triggered_step(global_step)
                if self._save(run_context.session, global_step):
                    run_context.request_stop()

    def end(self, session):
        """Saves the last step unless it was just saved; calls the listeners' `end`.

        Args:
            session: The session about to close.
        """
        last_step = session.run(self._global_step_tensor)
        if last_step != self._timer.last_triggered_step():
            self._save(session, last_step)
        for listener in self._listeners:
            listener.end(session, last_step)

    def _save(self, session, step) -> bool:
        """Saves; returns True when a listener asks training to stop."""
        logging.info("Calling checkpoint listeners before saving checkpoint %d...", step)
        for listener in self._listeners:
            listener.before_save(session, step)
        logging.info("Saving checkpoints for %d into %s.", step, self._save_path)
        try:
            path = self._get_saver().save(session, self._save_path, global_step=step,
                                          write_meta_graph=False)
            if self._meta_graph_def is not None:
                _write_atomically(path + ".meta", self._meta_graph_def.SerializeToString())
        except (tf.errors.OpError, OSError) as e:
            raise RuntimeError(
                f"Could not write checkpoint {step} into {self._checkpoint_dir} ("
                f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}). Is the disk "
                "full or the directory read-only? Training stopped rather than go on without "
                f"checkpoints; the newest complete one is {tf.train.latest_checkpoint(self._checkpoint_dir)}.") from e
        self._summary_writer.add_session_log(
            tf.compat.v1.SessionLog(status=tf.compat.v1.SessionLog.CHECKPOINT,
                                    checkpoint_path=self._save_path), step)
        logging.info("Calling checkpoint listeners after saving checkpoint %d...", step)
        should_stop = False
        for listener in self._listeners:
            if listener.after_save(session, step):
                logging.info("A CheckpointSaverListener requested that training be stopped. "
                             "listener: %s", listener)
                should_stop = True
        return should_stop

    def _get_saver(self):
        if self._saver is not None:
            return self._saver
        if self._scaffold is not None:
            return self._scaffold.saver
        savers = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.SAVERS)
        if not savers:
            raise RuntimeError("No items in collection SAVERS. Please add a saver to the "
                               "collection or pass a saver or scaffold to the hook.")
        if len(savers) > 1:
            raise RuntimeError(f"More than one item in collection SAVERS: {savers}.")
        self._saver = savers[0]
        return self._saver


def _write_graph_text(graph_def, directory: str) -> None:
    """graph.pbtxt, the bytes `tf.io.write_graph` writes, printed by protobuf's C printer."""
    if sys.byteorder != "little":  # write_graph swaps tensor bytes first there.
        tf.io.write_graph(graph_def, directory, "graph.pbtxt")
        return
    tf.io.gfile.makedirs(directory)
    _write_atomically(os.path.join(directory, "graph.pbtxt"),
                      graph_text.graph_text(graph_def).encode("utf-8"))


def _write_atomically(path: str, data: bytes) -> None:
    temp = path + ".tmp"
    with tf.io.gfile.GFile(temp, "wb") as f:
        f.write(data)
    tf.io.gfile.rename(temp, path, overwrite=True)
