"""`python -m estimator_lib.launch`: its command line, and the launch from start to exit.

    python -m estimator_lib.launch --workers=N [--ps=M] [--chief] [--evaluator]
        [--grace_secs=S] [--emit=tfjob [--image=IMAGE] [--name=NAME] [--volume=CLAIM:PATH]]
        PROG.py [ARGS...]

PROG may also be `-m MODULE`. Everything from PROG on is the program's own.
"""

import argparse
import os
import signal
import sys
import time
from typing import List, Optional, Sequence, TextIO

from estimator_lib.launcher import cluster
from estimator_lib.launcher import processes
from estimator_lib.launcher import tfjob

_NAME = "estimator_lib.launch"
# A ps task of a finished job (a plain `server.join()`, as the original's, never ends
# by itself) is stopped this long after every other task ended well.
_PS_AFTER_JOB_SECS = 30.0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=f"python -m {_NAME}",
        description="Runs PROG once per task of a multi-worker or parameter-server job, "
                    "as processes on 127.0.0.1, each with its own TF_CONFIG. Each output "
                    "line is prefixed with its task ([chief:0], [worker:1], ...). When a "
                    "task fails, every task is stopped and the launcher exits with the "
                    "failed task's status.")
    parser.add_argument("--workers", type=int, required=True, help="number of worker tasks")
    parser.add_argument("--ps", type=int, default=0, help="number of ps tasks (needs --chief)")
    parser.add_argument("--chief", action="store_true",
                        help="add a chief task (without one, worker 0 is the chief)")
    parser.add_argument("--evaluator", action="store_true",
                        help="add an evaluator task (not part of the training cluster)")
    parser.add_argument("--grace_secs", type=float, default=10.0,
                        help="how long stopped tasks get to end before SIGKILL (seconds)")
    parser.add_argument("--emit", choices=["tfjob"],
                        help="print the equivalent Kubeflow TFJob manifest; start nothing")
    parser.add_argument("--image", default="YOUR_IMAGE",
                        help="--emit=tfjob: the container image holding PROG")
    parser.add_argument("--name", default="estimator-job",
                        help="--emit=tfjob: the TFJob's metadata.name")
    parser.add_argument("--volume", metavar="CLAIM:PATH",
                        help="--emit=tfjob: a PersistentVolumeClaim every replica mounts "
                             "at PATH (put model_dir there)")
    return parser


def _split(argv: Sequence[str]):
    """Splits the arguments into (launcher options, program): the program starts at the
    first argument that is not an option of ours (or after `--`); `-m MODULE` starts
    it too."""
    for i, arg in enumerate(argv):
        if arg == "--":
            return list(argv[:i]), list(argv[i + 1:])
        if arg == "-m" or not arg.startswith("-"):
            return list(argv[:i]), list(argv[i:])
    return list(argv), []


def main(argv: Optional[Sequence[str]] = None, stdout: TextIO = sys.stdout,
         stderr: TextIO = sys.stderr) -> int:
    """Launches (or, with --emit, describes) the job; returns the exit status."""
    parser = _parser()
    options, program = _split(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(options)
    if not program:
        parser.error("give the program to run: PROG.py [ARGS...] or -m MODULE [ARGS...]")
    try:
        roles = cluster.Roles(workers=args.workers, ps=args.ps, chief=args.chief,
                              evaluator=args.evaluator)
    except ValueError as e:
        parser.error(str(e))
    if args.emit == "tfjob":
        try:
            text = tfjob.manifest(roles, ["python", *program], args.name, args.image,
                                  args.volume)
        except ValueError as e:
            parser.error(str(e))
        stdout.write(text)
        return 0
    return run(roles, [sys.executable, *program], args.grace_secs, stdout, stderr)


def run(roles: cluster.Roles, command: List[str], grace_secs: float, stdout: TextIO,
        stderr: TextIO) -> int:
    """Runs `command` once per task until all end, one fails, or a signal comes."""
    sizes = roles.cluster_sizes()
    addresses = cluster.cluster_on_ports(roles, cluster.free_ports(sum(sizes.values())))
    base = dict(os.environ, PYTHONUNBUFFERED="1")
    tasks = [(name, dict(base, TF_CONFIG=text))
             for name, text in cluster.tf_configs(roles, addresses)]
    received = []

    def on_signal(signum, frame):
        del frame
        received.append(signum)

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    job = None
    try:
        job = processes.Job(command, tasks, stdout, stderr)
        return _supervise(job, roles, received, grace_secs, stderr)
    finally:
        if job is not None:
            job.stop(signal.SIGTERM, grace_secs)
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _say(stderr: TextIO, text: str) -> None:
    stderr.write(f"{_NAME}: {text}\n")
    stderr.flush()


def _supervise(job, roles, received, grace_secs, stderr) -> int:
    """Waits for the tasks; returns the job's exit status (stopping them as needed)."""
    ps_names = {f"{cluster.PS}:{i}" for i in range(roles.ps)}
    ps_deadline = None
    remaining = set(job.processes)
    while remaining:
        if received:
            signum = received[0]
            _say(stderr, f"got {signal.Signals(signum).name}; stopping every task "
                         f"(SIGKILL after {grace_secs:g} s)")
            job.stop(signum, grace_secs)
            return 128 + signum
        ended = job.next_end(timeout=0.2)
        if ended is not None:
            remaining.discard(ended[0])
        if ended is not None and ended[1] != 0:
            name, code = ended
            _say(stderr, f"task {name} {processes.describe(code)}; stopping the others")
            job.stop(signal.SIGTERM, grace_secs)
            return processes.exit_status(code)
        if ps_deadline is None and remaining and remaining <= ps_names:
            ps_deadline = time.monotonic() + _PS_AFTER_JOB_SECS
        if ps_deadline is not None and time.monotonic() > ps_deadline:
            _say(stderr, "every task but the ps ended well; stopping "
                         + ", ".join(sorted(remaining)))
            job.stop(signal.SIGTERM, grace_secs)
            return 0
    return 0
