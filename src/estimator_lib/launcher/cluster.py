"""Which tasks a local job has, and each one's TF_CONFIG on free loopback ports."""

import dataclasses
import json
import socket
from typing import Dict, List, Tuple

# The task types, in the order the tasks are started and listed.
CHIEF, WORKER, PS, EVALUATOR = "chief", "worker", "ps", "evaluator"


@dataclasses.dataclass(frozen=True)
class Roles:
    """The tasks of one job, as the launcher's flags name them.

    Attributes:
        workers: How many `worker` tasks.
        ps: How many `ps` (parameter server) tasks.
        chief: Whether the cluster has a `chief` task (without one, worker 0 acts as
            the chief, as the original's multi-worker training).
        evaluator: Whether an `evaluator` task runs beside the cluster (not part of it).
    """
    workers: int
    ps: int = 0
    chief: bool = False
    evaluator: bool = False

    def __post_init__(self):
        if self.workers < 0 or self.ps < 0:
            raise ValueError(
                f"--workers and --ps count tasks: got --workers={self.workers} "
                f"--ps={self.ps}; give numbers of 0 or more.")
        if not self.chief and self.workers == 0:
            raise ValueError(
                "A job needs a task that trains: got --workers=0 without --chief. "
                "Give --workers=N (N >= 1), or --chief.")
        if self.ps and not self.chief:
            raise ValueError(
                f"--ps={self.ps} without --chief: parameter-server training needs a chief "
                "(the original Estimator refused a cluster of ps and workers with no "
                "`chief`). Add --chief.")

    def tasks(self) -> List[Tuple[str, int]]:
        """Lists every task as (type, index): the chief, the workers, the ps, the evaluator."""
        tasks = [(CHIEF, 0)] if self.chief else []
        tasks += [(WORKER, i) for i in range(self.workers)]
        tasks += [(PS, i) for i in range(self.ps)]
        if self.evaluator:
            tasks.append((EVALUATOR, 0))
        return tasks

    def cluster_sizes(self) -> Dict[str, int]:
        """Counts the tasks of each job of the training cluster (the evaluator is not one)."""
        sizes = {CHIEF: 1} if self.chief else {}
        if self.workers:
            sizes[WORKER] = self.workers
        if self.ps:
            sizes[PS] = self.ps
        return sizes


def free_ports(count: int, host: str = "127.0.0.1") -> List[int]:
    """Picks `count` distinct TCP ports free on `host` (held open together while picked)."""
    sockets = []
    try:
        for _ in range(count):
            s = socket.socket()
            s.bind((host, 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def cluster_on_ports(roles: Roles, ports: List[int], host: str = "127.0.0.1"
                     ) -> Dict[str, List[str]]:
    """Builds the cluster dict of TF_CONFIG: each job's addresses, in `ports` order."""
    cluster, taken = {}, 0
    for job, size in roles.cluster_sizes().items():
        cluster[job] = [f"{host}:{port}" for port in ports[taken:taken + size]]
        taken += size
    return cluster


def tf_configs(roles: Roles, cluster: Dict[str, List[str]]) -> List[Tuple[str, str]]:
    """Writes each task's name (`type:index`) and TF_CONFIG text, in `roles.tasks()` order."""
    return [(f"{task_type}:{index}",
             json.dumps({"cluster": cluster, "task": {"type": task_type, "index": index}}))
            for task_type, index in roles.tasks()]
