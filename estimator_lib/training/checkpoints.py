"""Checkpoint writing and reading for the Estimator's model_dir.

The saver hook keeps the original's behaviour (a checkpoint at step 0, on a
timer, at the end; `graph.pbtxt` and `.meta` files; listeners) but serialises the
graph once. The graph is written as it runs: an input_fn's large numpy arrays are
fed placeholders there already (tf_patches.large_arrays_fed), so model_dirs stay
the size of the weights; every other constant is written as a constant, as the
original wrote it, and the `.meta` files import and restore with
`tf.compat.v1.train.import_meta_graph`.
"""

import os
from typing import Iterable, Optional

import tensorflow as tf

logging = tf.compat.v1.logging


def latest_checkpoint(model_dir: Optional[str]) -> Optional[str]:
    """The newest checkpoint prefix in `model_dir`, or None."""
    if not model_dir:
        return None
    return tf.train.latest_checkpoint(model_dir)


def global_step_of(checkpoint_dir_or_path: Optional[str]) -> int:
    """The `global_step` stored in a checkpoint (0 if none can be read)."""
    if not checkpoint_dir_or_path:
        return 0
    try:
        return int(tf.train.load_variable(checkpoint_dir_or_path,
                                          tf.compat.v1.GraphKeys.GLOBAL_STEP))
    except Exception:  # pylint: disable=broad-except
        # No checkpoint, or a checkpoint without a `global_step` key (the
        # object-based format of model_to_estimator): the original used 0 too.
        return 0


class EstimatorCheckpointSaverHook(tf.compat.v1.train.SessionRunHook):
    """Saves checkpoints every N steps or seconds, at session creation and at the end.

    The checkpoint hook the Estimator plans (`hook_plan.plan`). Same constructor, log
    lines and files as `tf.compat.v1.train.CheckpointSaverHook` (which is what
    `estimator_lib.CheckpointSaverHook` is, for users' own hooks), and also: the
    graph serialised once, `.meta` written atomically, an error naming the
    newest complete checkpoint when the disk refuses a save, and no save at session
    creation in multi-worker jobs (`save_on_create=False`).
    """

    def __init__(self, checkpoint_dir: str, save_secs=None, save_steps=None, saver=None,
                 checkpoint_basename: str = "model.ckpt", scaffold=None,
                 listeners: Optional[Iterable] = None, save_graph_def: bool = True,
                 save_on_create: bool = True):
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
        # Multi-worker training turns this off: a step-0 checkpoint written while
        # another worker is still starting would be restored by it alone, and the
        # workers' variables (and collectives) would no longer match.
        self._save_on_create = save_on_create
        self._meta_graph_def = None
        self._global_step_tensor = None
        self._summary_writer = None

    def begin(self):
        self._summary_writer = tf.compat.v1.summary.FileWriterCache.get(self._checkpoint_dir)
        self._global_step_tensor = tf.compat.v1.train.get_global_step()
        if self._global_step_tensor is None:
            raise RuntimeError("Global step should be created to use CheckpointSaverHook.")
        for listener in self._listeners:
            listener.begin()

    def after_create_session(self, session, coord):
        global_step = session.run(self._global_step_tensor)
        if self._save_graph_def:
            # The graph is finalized now: serialise it once for every save.
            graph = tf.compat.v1.get_default_graph()
            graph_def = graph.as_graph_def(add_shapes=True)
            saver = self._get_saver()
            self._meta_graph_def = tf.compat.v1.train.export_meta_graph(
                graph_def=graph_def, saver_def=saver.saver_def if saver else None)
            tf.io.write_graph(graph_def, self._checkpoint_dir, "graph.pbtxt")
            self._summary_writer.add_event(
                tf.compat.v1.Event(graph_def=graph_def.SerializeToString()))
            self._summary_writer.add_meta_graph(self._meta_graph_def)
        if self._save_on_create:
            self._save(session, global_step)
        self._timer.update_last_triggered_step(global_step)

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        stale_global_step = run_values.results
        if self._timer.should_trigger_for_step(stale_global_step + 1):
            global_step = run_context.session.run(self._global_step_tensor)
            if self._timer.should_trigger_for_step(global_step):
                self._timer.update_last_triggered_step(global_step)
                if self._save(run_context.session, global_step):
                    run_context.request_stop()

    def end(self, session):
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


def _write_atomically(path: str, data: bytes) -> None:
    temp = path + ".tmp"
    with tf.io.gfile.GFile(temp, "wb") as f:
        f.write(data)
    tf.io.gfile.rename(temp, path, overwrite=True)


def check_compatible(checkpoint_path: str, variables=None) -> None:
    """Raises a ValueError when the graph's variables do not match `checkpoint_path`.

    Compares names and shapes of the (default-Saver) global variables with the
    checkpoint, so that an incompatible model_dir fails before any session starts
    (and before anything is written), with every difference listed.
    """
    if variables is None:
        variables = tf.compat.v1.global_variables()
    stored = dict(tf.train.list_variables(checkpoint_path))
    missing, mismatched = [], []
    for name, shape in sorted(dict(_saved_name_and_shape(v) for v in variables).items()):
        if name not in stored:
            missing.append(name)
        elif shape is not None and list(stored[name]) != shape:
            mismatched.append(f"{name}: graph {shape} vs checkpoint {list(stored[name])}")
    if missing or mismatched:
        lines = []
        if missing:
            lines.append(f"variables not in the checkpoint: {sorted(missing)[:20]}")
        if mismatched:
            lines.append(f"shapes that differ: {mismatched[:20]}")
        raise ValueError(
            f"The checkpoint {checkpoint_path} does not match this model_fn's graph ("
            + "; ".join(lines) + f"). The checkpoint holds: {sorted(stored)[:20]}. Use a new "
            "model_dir for a different model, or warm-start from the old one with "
            "WarmStartSettings(vars_to_warm_start=..., var_name_to_prev_var_name=...).")


def _saved_name_and_shape(variable):
    """The key and shape a default Saver stores `variable` under.

    A part of a partitioned variable (`dnn/logits/kernel/part_0`, as the v1 canned
    estimators make) is stored as its whole: `dnn/logits/kernel`, the full shape.
    """
    slice_info = getattr(variable, "_save_slice_info", None)
    if slice_info is not None:
        return slice_info.full_name, list(slice_info.full_shape)
    shape = variable.shape.as_list() if variable.shape.rank is not None else None
    return variable.op.name, shape


def checkpoint_problem(path: str) -> Optional[str]:
    """None if every tensor of checkpoint `path` reads back, else what is wrong."""
    try:
        reader = tf.train.load_checkpoint(path)
        for name in reader.get_variable_to_shape_map():
            reader.get_tensor(name)
    except Exception as e:  # pylint: disable=broad-except  (any failure: unreadable)
        return f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    return None


def _checkpoint_files(path):
    return sorted(tf.io.gfile.glob(path + ".*"))


def _candidates(model_dir):
    """Checkpoint prefixes in model_dir, newest first (state file, else index files)."""
    paths = []
    try:
        state = tf.train.get_checkpoint_state(model_dir)
    except Exception:  # pylint: disable=broad-except  (a corrupt state file)
        state = None
    if state is not None:
        # get_checkpoint_state has already joined relative entries to model_dir.
        paths = list(state.all_model_checkpoint_paths)
    known = set(paths)
    for index in tf.io.gfile.glob(os.path.join(model_dir, "model.ckpt-*.index")):
        prefix = index[:-len(".index")]
        if prefix not in known:
            paths.append(prefix)

    def step(prefix):
        try:
            return int(prefix.rsplit("-", 1)[1])
        except (IndexError, ValueError):
            return -1

    return sorted(paths, key=step, reverse=True)


def newest_readable(model_dir: Optional[str]) -> Optional[str]:
    """The newest checkpoint in model_dir whose every tensor reads back.

    Unreadable newer checkpoints (a crash mid-write, a truncated copy) are skipped
    with a warning naming their files. When checkpoints exist but none is readable,
    raises instead of silently starting again from scratch.
    """
    if not model_dir:
        return None
    bad = []
    for path in _candidates(model_dir):
        problem = checkpoint_problem(path)
        if problem is None:
            if bad:
                logging.warning(
                    "Skipping unreadable checkpoint(s) %s; resuming from %s.",
                    "; ".join(f"{p} ({why}; files: {_checkpoint_files(p)})" for p, why in bad),
                    path)
            return path
        bad.append((path, problem))
    if bad:
        raise RuntimeError(
            f"No readable checkpoint in {model_dir}: "
            + "; ".join(f"{p} ({why})" for p, why in bad)
            + ". Restore the files from a backup, or move them away to start afresh.")
    return None


def require_readable(path: str) -> None:
    """Raises a ValueError naming the files when checkpoint `path` cannot be read."""
    problem = checkpoint_problem(path)
    if problem is not None:
        raise ValueError(
            f"Checkpoint {path} is unreadable ({problem}); its files: "
            f"{_checkpoint_files(path)}. Pass checkpoint_path= of a readable checkpoint.")
