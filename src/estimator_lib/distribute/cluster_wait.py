"""Bounds how long MultiWorkerMirroredStrategy() waits for the cluster's other tasks.

`tf.distribute.MultiWorkerMirroredStrategy()` waits until every chief and worker
named in TF_CONFIG has started: forever if one never does. It waits inside one
C++ call that holds the GIL and catches SIGTERM, so no Python thread, timer or
signal handler of the waiting process can run. `install()` therefore starts a
watchdog *process* just before that call: this file run as a script, standard
library only, so it starts in milliseconds. If the call has not returned within
ESTIMATOR_LIB_CLUSTER_WAIT_SECS, the watchdog prints one line naming the tasks
that refuse connections and ends the waiting process with SIGKILL, the one
signal it cannot ignore.

`install()` puts the wrapper in place (through tf_internals/patches.py, patch 4), once,
when estimator_lib.distribute is imported.
"""

import functools
import json
import os
import select
import signal
import socket
import subprocess
import sys
import time
from typing import List, Mapping

_COORDINATED_JOBS = ("chief", "worker")  # The tasks TensorFlow waits for.
# The watchdog runs this file as a script (standard library only): no package imports
# at module level, the variable's name is passed in.
WAIT_SECS_VARIABLE = "ESTIMATOR_LIB_CLUSTER_WAIT_SECS"


def install() -> None:
    """Bounds the wait of every MultiWorkerMirroredStrategy this process builds.

    Called once, when estimator_lib.distribute is imported: the strategy is built in
    user code, often before any RunConfig or Estimator exists, and a program may set
    TF_CONFIG itself after importing us. The wrapper only acts inside the strategy's
    wait for a cluster (tf_internals/patches.py, patch 4).
    """
    from estimator_lib.core import environment  # pylint: disable=import-outside-toplevel
    from estimator_lib.tf_internals import patches  # pylint: disable=import-outside-toplevel
    patches.bound_multi_worker_wait(
        lambda initialize: bounded(initialize, environment.cluster_wait_secs))


def unreachable_tasks(cluster: Mapping[str, List[str]], timeout: float = 2.0) -> List[str]:
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


def timeout_message(secs: float, missing: List[str]) -> str:
    """The one line the watchdog prints before it ends the waiting task."""
    if missing:
        cause = (f"not reachable: {', '.join(missing)}. Start the missing task with its "
                 "TF_CONFIG")
    else:
        cause = ("every task accepts connections, but not all of them joined. Check that "
                 "each one creates MultiWorkerMirroredStrategy with the same cluster in "
                 "its TF_CONFIG")
    return (f"estimator_lib: MultiWorkerMirroredStrategy waited {secs:g} s for the "
            f"cluster; {cause}, or set {WAIT_SECS_VARIABLE} to wait longer (0: forever); "
            "restarting every task resumes from the newest checkpoint in model_dir.")


def bounded(initialize, wait_secs):
    """`initialize` (TensorFlow's `_initialize_multi_worker`) with a watchdog around it.

    `wait_secs()` gives the bound when the wait starts (None: forever).
    """
    @functools.wraps(initialize)
    def initialize_multi_worker(self, cluster_resolver):
        secs = wait_secs()
        watchdog = None
        if secs is not None:
            tasks = {job: addresses  # A sparse job ({index: address}) goes unnamed.
                     for job, addresses in cluster_resolver.cluster_spec().as_dict().items()
                     if job in _COORDINATED_JOBS and isinstance(addresses, list)}
            watchdog = _start_watchdog(secs, tasks)
        try:
            return initialize(self, cluster_resolver)
        finally:
            if watchdog is not None:
                watchdog.stdin.close()  # End of input tells the watchdog to exit quietly.
                watchdog.wait()

    initialize_multi_worker.bounded_by_estimator_lib = True
    return initialize_multi_worker


def _start_watchdog(secs, tasks):
    try:
        return subprocess.Popen(
            [sys.executable, "-I", os.path.abspath(__file__), repr(secs), json.dumps(tasks)],
            stdin=subprocess.PIPE)
    except OSError as error:  # No interpreter to run (an embedded Python): wait unbounded.
        import tensorflow as tf  # pylint: disable=import-outside-toplevel
        tf.compat.v1.logging.warning(
            "estimator_lib cannot bound the wait for the cluster: %s", error)
        return None


def _watch(secs: float, cluster: Mapping[str, List[str]]) -> None:
    """The watchdog: waits for end of input on stdin, else ends its parent after `secs`."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the parent to handle.
    parent = os.getppid()
    deadline = time.monotonic() + secs
    while time.monotonic() < deadline:  # select() refuses very long timeouts: wait in slices.
        if select.select([0], [], [], min(max(deadline - time.monotonic(), 0.0), 3600.0))[0]:
            return
    if os.getppid() != parent:  # The parent is gone.
        return
    sys.stderr.write(timeout_message(secs, unreachable_tasks(cluster)) + "\n")
    sys.stderr.flush()
    os.kill(parent, signal.SIGKILL)


if __name__ == "__main__":
    _watch(float(sys.argv[1]), json.loads(sys.argv[2]))
