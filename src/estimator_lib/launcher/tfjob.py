"""The Kubeflow TFJob manifest (kubeflow.org/v1) for the roles of a local launch.

Kubeflow's training operator gives each replica the TF_CONFIG the launcher gives the
local task of the same role (with `"environment": "cloud"`, and the evaluator left out
of the cluster), so the same program runs unchanged. YAML is written by hand: the
launcher uses the standard library only.
"""

import json
from typing import List, Sequence

from estimator_lib.launcher import cluster

# TFJob's replica types for our task types, in the manifest's order.
_REPLICA_TYPES = ((cluster.CHIEF, "Chief"), (cluster.WORKER, "Worker"), (cluster.PS, "PS"),
                  (cluster.EVALUATOR, "Evaluator"))
# The port TFJob's operator puts in TF_CONFIG when the container names none.
TFJOB_PORT = 2222


def _quoted(value: str) -> str:
    return json.dumps(value)  # A JSON string is a valid YAML scalar.


def manifest(roles: cluster.Roles, command: Sequence[str], name: str, image: str) -> str:
    """The TFJob YAML: one replica spec per role, each running `command` in `image`.

    Args:
        roles: The job's tasks.
        command: The container's command (the program and its arguments).
        name: `metadata.name` of the TFJob.
        image: The container image holding the program.
    """
    counts = {cluster.CHIEF: int(roles.chief), cluster.WORKER: roles.workers,
              cluster.PS: roles.ps, cluster.EVALUATOR: int(roles.evaluator)}
    lines: List[str] = [
        "apiVersion: kubeflow.org/v1",
        "kind: TFJob",
        "metadata:",
        f"  name: {_quoted(name)}",
        "spec:",
        "  runPolicy:",
        "    cleanPodPolicy: Running  # ps and evaluator pods end with the job",
        "  tfReplicaSpecs:",
    ]
    for task_type, replica_type in _REPLICA_TYPES:
        if not counts[task_type]:
            continue
        # Training tasks restart from the newest checkpoint in model_dir after a failure.
        lines += [
            f"    {replica_type}:",
            f"      replicas: {counts[task_type]}",
            "      restartPolicy: OnFailure",
            "      template:",
            "        spec:",
            "          containers:",
            "            - name: tensorflow  # the name TFJob's operator looks for",
            f"              image: {_quoted(image)}",
            "              command:",
        ]
        lines += [f"                - {_quoted(part)}" for part in command]
        lines += [
            "              ports:",
            f"                - containerPort: {TFJOB_PORT}",
            "                  name: tfjob-port",
        ]
    return "\n".join(lines) + "\n"
