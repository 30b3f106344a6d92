"""A lease on model_dir while training writes to it, so two runs never interleave.

The lock file `model_dir/.estimator_lib.lock` names its owner (host, pid, a random
token) and when the owner last renewed it; a thread renews it every
`RENEW_SECS` while training runs. Another run refuses a live owner and takes over
a dead one:

- an owner on this host is live while its process exists (checked directly);
- an owner on another host is live while its lease is fresh: renewed less than
  `LEASE_SECS` ago. A host that died stops renewing, so a restart on any other
  host takes over once the lease has run out. (The hosts' clocks must agree to
  well within `LEASE_SECS`.)
"""

import contextlib
import json
import os
import socket
import threading
import time
import uuid
from typing import Callable, Optional

import tensorflow as tf

from estimator_lib.training import lock_owner

logging = tf.compat.v1.logging

LOCK_NAME = lock_owner.LOCK_NAME
LEASE_SECS = lock_owner.LEASE_SECS
RENEW_SECS = 30.0
owner_is_live = lock_owner.owner_is_live
_alive = lock_owner.pid_alive
_read_owner = lock_owner.read_owner
_mtime = lock_owner.mtime
_describe = lock_owner.describe


class ModelDirInUseError(RuntimeError):
    """Another live training holds model_dir's lease."""


class ModelDirNotWritableError(RuntimeError):
    """The lock, the first write into model_dir, failed."""


class _Lease:
    """The lock file this run owns, renewed on demand or by a thread."""

    def __init__(self, path: str, *, host: str, clock: Callable[[], float],
                 lease_secs: float):
        now = clock()
        self.path, self._clock = path, clock
        self.owner = {"pid": os.getpid(), "host": host, "token": uuid.uuid4().hex,
                      "started": now, "renewed": now, "lease_secs": lease_secs}
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._warned = False

    def renew(self) -> None:
        """Rewrites the lock with the current time (atomically: readers see whole JSON)."""
        if _read_owner(self.path).get("token") != self.owner["token"]:
            return  # Taken over (this run stalled past its lease): leave it to the new owner.
        self.owner["renewed"] = self._clock()
        partial = f"{self.path}.{self.owner['token']}.partial"
        try:
            with open(partial, "w") as f:
                json.dump(self.owner, f)
            os.replace(partial, self.path)
        except OSError as e:
            if not self._warned:
                logging.warning("Could not renew the model_dir lock %s (%s); another host "
                                "may take it over after %d s.", self.path, e.strerror,
                                self.owner["lease_secs"])
                self._warned = True

    def start_renewing(self, every_secs: float) -> None:
        def loop():
            while not self._stop.wait(every_secs):
                self.renew()
        self._thread = threading.Thread(target=loop, name="model_dir_lock_renewal",
                                        daemon=True)
        self._thread.start()

    def release(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if _read_owner(self.path).get("token") == self.owner["token"]:
            os.remove(self.path)


@contextlib.contextmanager
def model_dir_lock(model_dir: str, *, lease_secs: float = LEASE_SECS,
                   renew_secs: Optional[float] = RENEW_SECS,
                   clock: Callable[[], float] = time.time,
                   hostname: Callable[[], str] = socket.gethostname,
                   pid_alive: Callable[[int], bool] = _alive):
    """Holds the lease on `model_dir/.estimator_lib.lock` while training.

    A second training into the same model_dir is refused with the owner named; a
    lock whose owner is dead (see the module docstring) is taken over with a
    warning. The lock is also the first write into model_dir, so a read-only or
    full disk fails here, before any training. Remote (URL) model_dirs are not locked.

    Args:
        model_dir: The folder.
        lease_secs: How long an owner on another host stays live without renewing.
        renew_secs: How often a thread renews the lease; None: never (tests renew
            by hand through the yielded lease).
        clock, hostname, pid_alive: Injected by tests (fake clocks and hosts).

    Raises:
        ModelDirInUseError: If a live training holds the lock.
        ModelDirNotWritableError: If the lock cannot be written.
    """
    if "://" in model_dir:
        yield None
        return
    path = os.path.join(model_dir, LOCK_NAME)
    host = hostname()
    lease = _Lease(path, host=host, clock=clock, lease_secs=lease_secs)
    for _ in range(2):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            # A lock being written right now reads empty: live while it is fresh.
            owner = _read_owner(path) or {"renewed": _mtime(path)}
            now = clock()
            if not owner_is_live(owner, host=host, now=now, lease_secs=lease_secs,
                                 pid_alive=pid_alive):
                logging.warning("Taking over the model_dir lock of a training that is gone "
                                "(%s): %s", _describe(owner, now), path)
                with contextlib.suppress(FileNotFoundError):
                    os.remove(path)
                continue
            raise ModelDirInUseError(lock_owner.in_use_message(
                model_dir, owner, now=now, lease_secs=lease_secs)) from None
        except OSError as e:
            raise ModelDirNotWritableError(
                f"Cannot write into model_dir {model_dir} ({e.strerror}: {path}). Training "
                "needs a writable model_dir for its checkpoints.") from e
        with os.fdopen(fd, "w") as f:
            json.dump(lease.owner, f)
        break
    else:
        raise ModelDirInUseError(f"model_dir {model_dir}: another run took over the lock "
                                 f"{path} at the same time as this one.")
    if renew_secs:
        lease.start_renewing(renew_secs)
    try:
        yield lease
    finally:
        lease.release()
