"""Starts the tasks of a multi-worker job on 127.0.0.1, each with its own TF_CONFIG.

Every process still running at the deadline is killed with SIGKILL.
"""

import json
import os
import socket
import subprocess
import sys
import time

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))))
_PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "program.py")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(tasks, cluster, model_dir, out_dir, *args, command=None):
    """Runs program.py once per (task_type, index); logs go to OUT_DIR/<task>.log.

    `command` (default: this Python on program.py) is what each task runs, before the
    model_dir, out_dir and `args` (the TF 2.15 recorder runs the original this way)."""
    command = command or [sys.executable, _PROGRAM]
    procs = {}
    for task_type, index in tasks:
        # The repository root (for tests.*), then the caller's path (its estimator_lib).
        path = os.pathsep.join(p for p in (_ROOT, os.environ.get("PYTHONPATH")) if p)
        env = dict(os.environ, PYTHONPATH=path, TF_CPP_MIN_LOG_LEVEL="2",
                   TF_CONFIG=json.dumps({"cluster": cluster,
                                         "task": {"type": task_type, "index": index}}))
        log = open(os.path.join(out_dir, f"{task_type}{index}.log"), "w")
        procs[f"{task_type}{index}"] = subprocess.Popen(
            [*command, model_dir, out_dir, *args], env=env, stdout=log,
            stderr=subprocess.STDOUT)
    return procs


def wait_all(procs, deadline):
    try:
        for proc in procs.values():
            proc.wait(timeout=max(1, deadline - time.time()))
    finally:
        kill_all(procs)


def kill_all(procs):
    for proc in procs.values():
        if proc.poll() is None:
            proc.kill()  # SIGKILL: a lone collective worker ignores SIGTERM.
            proc.wait()


def wait_for_line(procs, out_dir, name, line, deadline):
    """Waits until task `name` printed `line`; False if it ended or the deadline passed."""
    path = os.path.join(out_dir, f"{name}.log")
    while time.time() < deadline and procs[name].poll() is None:
        with open(path) as f:
            if line in f.read().splitlines():
                return True
        time.sleep(0.05)  # The task runs in another process: poll its log.
    return False
