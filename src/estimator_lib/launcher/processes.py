"""The tasks of a local job run as processes: started, their output prefixed with their
role, and all of them stopped together.

Each task is its own process group (`start_new_session`), so a stop reaches what the
task started too (estimator_lib's cluster-wait watchdog, a program's own children);
on Linux a task also dies with the launcher should the launcher be killed outright.
"""

import ctypes
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from typing import Dict, List, Optional, Sequence, TextIO, Tuple

_PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent dies.


def _die_with_parent():
    """In the child before exec: SIGKILL when the launcher dies (Linux; else nothing)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL))
    except (OSError, AttributeError):
        pass


def exit_status(returncode: int) -> int:
    """Converts a Popen returncode to a shell's exit status (a signal N: 128 + N)."""
    return 128 - returncode if returncode < 0 else returncode


def describe(returncode: int) -> str:
    """Describes how a task ended: `exited N`, or `was killed by SIGNAME`."""
    if returncode < 0:
        try:
            return f"was killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"was killed by signal {-returncode}"
    return f"exited {returncode}"


class Job:
    """Runs the task processes of one launch, with the threads that copy their output.

    Args:
        command: What every task runs (the same program on each).
        tasks: (name, environment) per task; `name` prefixes its output lines.
        stdout, stderr: Where the prefixed lines go.
    """

    def __init__(self, command: Sequence[str], tasks: Sequence[Tuple[str, Dict[str, str]]],
                 stdout: TextIO, stderr: TextIO):
        self._lock = threading.Lock()
        self._ended: "queue.Queue[Tuple[str, int]]" = queue.Queue()
        self._threads: List[threading.Thread] = []
        self.processes: Dict[str, subprocess.Popen] = {}
        for name, env in tasks:
            self.processes[name] = subprocess.Popen(  # pylint: disable=consider-using-with
                list(command), env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, start_new_session=True,
                preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None)
        for name, process in self.processes.items():
            self._start(self._copy, process.stdout, f"[{name}] ", stdout)
            self._start(self._copy, process.stderr, f"[{name}] ", stderr)
            self._start(self._wait, name, process)

    def _start(self, target, *args):
        thread = threading.Thread(target=target, args=args, daemon=True)
        thread.start()
        self._threads.append(thread)

    def _copy(self, pipe, prefix: str, out: TextIO):
        for raw in iter(pipe.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            with self._lock:
                out.write(prefix + line + "\n")
                out.flush()
        pipe.close()

    def _wait(self, name: str, process: subprocess.Popen):
        self._ended.put((name, process.wait()))

    def next_end(self, timeout: Optional[float]) -> Optional[Tuple[str, int]]:
        """Returns the next task to end, as (name, returncode); None if none ended in time."""
        try:
            return self._ended.get(timeout=timeout)
        except queue.Empty:
            return None

    def running(self) -> List[str]:
        """Lists the names of the tasks still running."""
        return [name for name, p in self.processes.items() if p.poll() is None]

    def signal_all(self, signum: int, names: Optional[Sequence[str]] = None):
        """Sends `signum` to the process group of each named task (default: every one)."""
        for name in self.processes if names is None else names:
            try:
                os.killpg(self.processes[name].pid, signum)
            except (ProcessLookupError, PermissionError):
                pass  # The group has ended.

    def stop(self, signum: int, grace_secs: float) -> None:
        """Sends `signum` to every running task, then SIGKILL to every task's group
        (what a task left behind included) once they ended or `grace_secs` passed."""
        self.signal_all(signum, self.running())
        deadline = time.monotonic() + grace_secs
        for process in self.processes.values():
            try:
                process.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        self.signal_all(signal.SIGKILL)
        for process in self.processes.values():
            process.wait()
        for thread in self._threads:
            thread.join(timeout=5)
