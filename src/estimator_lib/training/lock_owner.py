"""Who holds a model_dir's lock, read without TensorFlow (model_dir_lock.py writes it).

The binaries ask `live_owner_message` before TensorFlow loads, so that a model_dir
held by another run is refused in a fraction of a second; `model_dir_lock` asks the
same questions when it takes the lock.
"""

import json
import os
import socket
import time
from typing import Callable, Optional

LOCK_NAME = ".estimator_lib.lock"
LEASE_SECS = 300.0


def pid_alive(pid: int) -> bool:
    """Whether process `pid` exists on this host."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def read_owner(path: str) -> dict:
    """The lock file's owner record; {} when absent, unreadable or not JSON."""
    try:
        with open(path) as f:
            owner = json.load(f)
        return owner if isinstance(owner, dict) else {}
    except (OSError, ValueError):
        return {}


def mtime(path: str) -> float:
    """`path`'s modification time; 0.0 when it cannot be read."""
    try:
        return os.path.getmtime(path)
    except OSError:
        return 0.0


def owner_is_live(owner: dict, *, host: str, now: float, lease_secs: float = LEASE_SECS,
                  pid_alive: Callable[[int], bool] = pid_alive) -> bool:
    """Whether the lock's `owner` still trains.

    An owner on this host is live while its process exists; one on another host while
    its lease was renewed less than `lease_secs` ago.

    Args:
        owner: The lock file's owner record (host, pid, lease time).
        host: This machine's host name.
        now: The current time, in seconds since the epoch.
        lease_secs: How long another host's lease lasts without renewal.
        pid_alive: Tells whether a process id exists on this host (for tests).

    Returns:
        True while the owner trains.
    """
    if owner.get("host") == host and owner.get("pid"):
        return pid_alive(int(owner["pid"]))
    renewed = owner.get("renewed", owner.get("started", 0))
    return now - float(renewed or 0) < lease_secs


def describe(owner: dict, now: float) -> str:
    """`pid P on HOST, since ...`: the owner, for a message."""
    started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(owner.get("started", 0)))
    renewed = owner.get("renewed")
    fresh = f", lease renewed {max(0.0, now - renewed):.0f} s ago" if renewed else ""
    return f"pid {owner.get('pid')} on {owner.get('host')}, since {started}{fresh}"


def in_use_message(model_dir: str, owner: dict, *, now: float,
                   lease_secs: float = LEASE_SECS) -> str:
    """The refusal of a model_dir whose lock has the live `owner`.

    Args:
        model_dir: The Estimator's model_dir.
        owner: The lock file's owner record (host, pid, lease time).
        now: The current time, in seconds since the epoch.
        lease_secs: How long another host's lease lasts without renewal.

    Returns:
        The message, naming the owner and how to go on.
    """
    path = os.path.join(model_dir, LOCK_NAME)
    return (f"model_dir {model_dir} is in use by another training "
            f"({describe(owner, now)}; lock file {path}). Two trainings into one "
            "model_dir would interleave their checkpoints. Wait for it to finish or "
            "use another model_dir; a lock whose owner is gone is taken over (on "
            f"another host once its lease is {lease_secs:.0f} s old).")


def live_owner_message(model_dir: Optional[str]) -> Optional[str]:
    """The in-use message when a live training holds `model_dir`'s lock, else None.

    None also for no model_dir, a remote (URL) one, or a lock being written right now
    (the lock itself decides that race).
    """
    if not model_dir or "://" in model_dir:
        return None
    owner = read_owner(os.path.join(model_dir, LOCK_NAME))
    now = time.time()
    if owner and owner_is_live(owner, host=socket.gethostname(), now=now,
                               lease_secs=float(owner.get("lease_secs") or LEASE_SECS)):
        return in_use_message(model_dir, owner, now=now)
    return None
