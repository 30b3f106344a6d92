"""The Kubeflow TFJob manifest (kubeflow.org/v1) for the roles of a local launch.

Kubeflow's training operator gives each replica the TF_CONFIG the launcher gives the
local task of the same role (with `"environment": "cloud"`, and the evaluator left out
of the cluster), so the same program runs unchanged. YAML is written by hand: the
launcher uses the standard library only.
"""

import json
from typing import List, Optional, Sequence

from estimator_lib.launcher import cluster

# TFJob's replica types for our task types, in the manifest's order.
_REPLICA_TYPES = ((cluster.CHIEF, "Chief"), (cluster.WORKER, "Worker"), (cluster.PS, "PS"),
                  (cluster.EVALUATOR, "Evaluator"))
# The port TFJob's operator puts in TF_CONFIG when the container names none.
TFJOB_PORT = 2222


def _quoted(value: str) -> str:
    return json.dumps(value)  # A JSON string is a valid YAML scalar.


def manifest(roles: cluster.Roles, command: Sequence[str], name: str, image: str,
             volume: Optional[str] = None) -> str:
    """Writes the TFJob YAML: one replica spec per role, each running `command` in `image`.

    Args:
        roles: The job's tasks.
        command: The container's command (the program and its arguments).
        name: `metadata.name` of the TFJob.
        image: The container image holding the program.
        volume: `CLAIM:PATH`: the PersistentVolumeClaim every replica mounts at PATH
            (where model_dir is: every task reads the chief's checkpoints), or None.
    """
    mount = None
    if volume is not None:
        claim, _, path = volume.partition(":")
        if not claim or not path.startswith("/"):
            raise ValueError(
                f"--volume must be CLAIM:/MOUNT/PATH (a PersistentVolumeClaim's name and "
                f"where every replica mounts it); got {volume!r}.")
        mount = (claim, path)
    counts = {cluster.CHIEF: int(roles.chief), cluster.WORKER: roles.workers,
              cluster.PS: roles.ps, cluster.EVALUATOR: int(roles.evaluator)}
    lines: List[str] = [
        "apiVersion: kubeflow.org/v1",
        "kind: TFJob",
        "metadata:",
        f"  name: {_quoted(name)}",
        "spec:",
        "  runPolicy:",
        "    # The job succeeds when the chief (or worker 0) completes; estimator_lib's ps and",
        "    # evaluator end by themselves, the evaluator after the last checkpoint: keep them.",
        '    cleanPodPolicy: "None"',
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
        if mount is not None:
            lines += [
                "              volumeMounts:",
                "                - name: model-dir",
                f"                  mountPath: {_quoted(mount[1])}",
                "          volumes:",
                "            - name: model-dir",
                "              persistentVolumeClaim:",
                f"                claimName: {_quoted(mount[0])}",
            ]
    return "\n".join(lines) + "\n"
