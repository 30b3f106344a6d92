"""A lock on model_dir while training writes to it, so two runs never interleave."""

import contextlib
import json
import os
import socket
import time

import tensorflow as tf

logging = tf.compat.v1.logging

LOCK_NAME = ".estimator_lib.lock"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _read_owner(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


@contextlib.contextmanager
def model_dir_lock(model_dir: str):
    """Holds `model_dir/.estimator_lib.lock` (owner pid, host, start time) while training.

    A second training into the same model_dir is refused with the owner named. A
    lock left by a process that died on this host is taken over with a warning.
    The lock is also the first write into model_dir, so a read-only or full disk
    fails here, before any training. Remote (URL) model_dirs are not locked.

    Raises:
        RuntimeError: If another live process holds the lock, or the lock cannot be
            written.
    """
    if "://" in model_dir:
        yield
        return
    path = os.path.join(model_dir, LOCK_NAME)
    me = {"pid": os.getpid(), "host": socket.gethostname(), "started": time.time()}
    for _ in range(2):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            owner = _read_owner(path)
            same_host = owner.get("host") == me["host"]
            if same_host and owner.get("pid") and not _alive(int(owner["pid"])):
                logging.warning("Taking over the lock of a training that is gone: %s", owner)
                os.remove(path)
                continue
            started = time.strftime("%Y-%m-%d %H:%M:%S",
                                    time.localtime(owner.get("started", 0)))
            raise RuntimeError(
                f"model_dir {model_dir} is in use by another training (pid "
                f"{owner.get('pid')} on {owner.get('host')}, since {started}; lock file "
                f"{path}). Two trainings into one model_dir would interleave their "
                "checkpoints. Wait for it to finish, use another model_dir, or delete the "
                "lock file if that process is gone.") from None
        except OSError as e:
            raise RuntimeError(
                f"Cannot write into model_dir {model_dir} ({e.strerror}: {path}). Training "
                "needs a writable model_dir for its checkpoints.") from e
        with os.fdopen(fd, "w") as f:
            json.dump(me, f)
        break
    try:
        yield
    finally:
        if _read_owner(path).get("pid") == me["pid"]:
            os.remove(path)
