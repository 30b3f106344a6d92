"""Which checkpoint a graph restores: the newest readable one, checked against the graph.

Read by every entry point before its session starts, so an unreadable or incompatible
checkpoint fails with the files named, before anything is written.
"""

import os
from typing import Optional

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


class CheckpointKeyNotFoundError(tf.errors.NotFoundError, ValueError):
    """A variable of the graph is not in the checkpoint to restore.

    A `tf.errors.NotFoundError`, the type the original's restore raised (`Key ... not
    found in checkpoint`), with the differences listed; a ValueError as well.
    """

    def __init__(self, message: str):
        super().__init__(None, None, message)

    def __reduce__(self):
        return type(self), (self.message,)


class CheckpointShapeMismatchError(tf.errors.InvalidArgumentError, ValueError):
    """The checkpoint holds every variable, but some with another shape.

    A `tf.errors.InvalidArgumentError`, the type the original's restore raised; a
    ValueError as well.
    """

    def __init__(self, message: str):
        super().__init__(None, None, message)

    def __reduce__(self):
        return type(self), (self.message,)


def check_compatible(checkpoint_path: str, variables=None) -> None:
    """Raises when the graph's variables do not match `checkpoint_path`.

    Compares names and shapes of the (default-Saver) global variables with the
    checkpoint, so that an incompatible model_dir fails before any session starts
    (and before anything is written), with every difference listed.

    Raises:
        CheckpointKeyNotFoundError: A variable is not in the checkpoint (a
            `tf.errors.NotFoundError`, as the original's restore raised).
        CheckpointShapeMismatchError: Only shapes differ (a
            `tf.errors.InvalidArgumentError`, as the original's).
        Both are ValueErrors too.
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
        error = CheckpointKeyNotFoundError if missing else CheckpointShapeMismatchError
        raise error(
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
    """Checkpoint prefixes in model_dir, the one to restore first, then older ones.

    First the state file's `model_checkpoint_path`: the checkpoint the original's
    session restored (`tf.train.latest_checkpoint`), whatever its step. A Saver that
    writes under another prefix at the same step (adanet's `increment.ckpt-1` next to
    `model.ckpt-1`) makes it the newest. Then the state file's other entries and any
    `model.ckpt-*` index files, by step, the later entry of the state file first on a
    tie: the fallbacks when the newer ones are unreadable.
    """
    paths, latest = [], None
    try:
        state = tf.train.get_checkpoint_state(model_dir)
    except Exception:  # pylint: disable=broad-except  (a corrupt state file)
        state = None
    if state is not None:
        # get_checkpoint_state has already joined relative entries to model_dir.
        paths = list(reversed(state.all_model_checkpoint_paths))
        latest = state.model_checkpoint_path or None
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

    paths = sorted(paths, key=step, reverse=True)  # Stable: ties keep the state's order.
    if latest:
        paths = [latest] + [p for p in paths if p != latest]
    return paths


def newest_readable(model_dir: Optional[str]) -> Optional[str]:
    """The checkpoint to restore from model_dir: the state file's when it reads back.

    Else the newest other one whose every tensor reads back (`_candidates`' order).
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
