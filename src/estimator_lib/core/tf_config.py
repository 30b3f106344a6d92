"""TF_CONFIG: the cluster and this task, read as the original RunConfig read them.

`read_tf_config()` parses the environment variable; `cluster_settings(tf_config)`
gives the task type, index, chief, masters and replica counts RunConfig exposes.
"""

import dataclasses
import json
from typing import Any, Dict, Optional

import tensorflow as tf

from estimator_lib.core import environment

TF_CONFIG_VARIABLE = environment.TF_CONFIG_VARIABLE


class TaskType:
    """The task types TF_CONFIG names, as `RunConfig.task_type` reports them.

    Attributes:
        MASTER: The legacy name of the chief (`master`).
        PS: A parameter server.
        WORKER: A worker; a run without TF_CONFIG is worker 0.
        CHIEF: The worker that initialises and writes model_dir.
        EVALUATOR: The task that evaluates checkpoints (not part of the training cluster).
    """
    MASTER = "master"
    PS = "ps"
    WORKER = "worker"
    CHIEF = "chief"
    EVALUATOR = "evaluator"


_KNOWN_TASK_TYPES = (TaskType.MASTER, TaskType.PS, TaskType.WORKER, TaskType.CHIEF,
                     TaskType.EVALUATOR)

# Sentinel: "the caller did not set this checkpoint cadence".
def read_tf_config() -> Dict[str, Any]:
    """Parses the TF_CONFIG environment variable ({} when unset)."""
    raw = environment.tf_config_text()
    if not raw.strip():
        return {}
    try:
        parsed = json.loads(raw)
    except json.JSONDecodeError as e:
        # A JSONDecodeError (a ValueError), the original's type, with what works.
        raise json.JSONDecodeError(
            f"TF_CONFIG is not valid JSON ({e.msg}). It must be a JSON object such as "
            '{"cluster": {"chief": ["host0:2222"], "worker": ["host1:2222"]}, '
            '"task": {"type": "worker", "index": 0}}. Error at', e.doc, e.pos) from None
    if not isinstance(parsed, dict):
        raise ValueError(
            f"TF_CONFIG must be a JSON object with `cluster` and `task`. "
            f"Received a JSON {type(parsed).__name__}.")
    return parsed


@dataclasses.dataclass(frozen=True)
class ClusterSettings:
    """The cluster and this task, as `cluster_settings` reads them from TF_CONFIG.

    Attributes:
        cluster_spec: The training cluster (empty for a local run or an evaluator).
        task_type: This task's type (a `TaskType` value, or another job's name).
        task_id: This task's index in its job.
        is_chief: Whether this task is the chief (in a cluster without one, worker 0).
        master: The session target: '' to run locally, else `grpc://host:port`.
        evaluation_master: The evaluator's session target (TF_CONFIG's
            `eval_session_master`).
        num_ps_replicas: How many `ps` tasks the cluster has.
        num_worker_replicas: How many workers, the chief counted.
        global_id_in_cluster: This task's index over the whole cluster (chief first,
            the other jobs by name, `ps` last); None for an evaluator.
        service: TF_CONFIG's `service` dict, or None.
    """
    cluster_spec: tf.train.ClusterSpec
    task_type: str
    task_id: int
    is_chief: bool
    master: str
    evaluation_master: str
    num_ps_replicas: int
    num_worker_replicas: int
    global_id_in_cluster: Optional[int]
    service: Optional[dict]


def local_settings(tf_config) -> ClusterSettings:
    """The settings of a run without a cluster: worker 0, the chief, alone.

    Args:
        tf_config: TF_CONFIG as a dict, without `cluster` (its `session_master`,
            `eval_session_master` and `service` are read).

    Returns:
        The `ClusterSettings` of a one-task local run.

    Raises:
        ValueError: If the task is not worker 0, as the original required.
    """
    task = tf_config.get("task", {}) or {}
    task_type = task.get("type", TaskType.WORKER)
    task_id = int(task.get("index", 0))
    if task_type != TaskType.WORKER:
        raise ValueError(
            'If "cluster" is not set in TF_CONFIG, task type must be WORKER (a local run '
            f"is worker 0). Received: task type={task_type!r}.")
    if task_id != 0:
        raise ValueError(
            'If "cluster" is not set in TF_CONFIG, task index must be 0 (a local run is '
            f"worker 0). Received: index={task_id}.")
    return ClusterSettings(
        cluster_spec=tf.train.ClusterSpec({}), task_type=task_type, task_id=task_id,
        is_chief=True, master=tf_config.get("session_master", ""),
        evaluation_master=tf_config.get("eval_session_master", ""), num_ps_replicas=0,
        num_worker_replicas=1, global_id_in_cluster=0, service=tf_config.get("service"))


def _task_from(cluster_spec, task, chief_type, chief_optional=False):
    # In the original's order: the chief count, then the task. Task types other than the
    # known ones are accepted as workers of their own job, as the original did.
    if chief_type not in cluster_spec.jobs and not chief_optional:
        raise ValueError(
            f'If "cluster" is set in TF_CONFIG, it must have one "{chief_type}" node. '
            f"Received cluster jobs: {sorted(cluster_spec.jobs)}. Add a chief, or set "
            "RunConfig(train_distribute=tf.distribute.MultiWorkerMirroredStrategy()): with a "
            "strategy, a cluster of workers only trains, worker 0 acting as chief.")
    if chief_type in cluster_spec.jobs and len(cluster_spec.job_tasks(chief_type)) > 1:
        raise ValueError(f'The "cluster" in TF_CONFIG must have only one "{chief_type}" node.')
    task_type = task.get("type")
    task_id = task.get("index")
    if not task_type:
        raise ValueError('If "cluster" is set in TF_CONFIG, task type must be set.')
    if task_id is None:
        raise ValueError('If "cluster" is set in TF_CONFIG, task index must be set.')
    task_id = int(task_id)
    if task_id < 0:
        raise ValueError(f"Task index must be non-negative number. Received: index={task_id}.")
    if task_type == TaskType.EVALUATOR:
        return task_type, task_id
    if task_type not in cluster_spec.jobs:
        raise ValueError(
            f"{task_type} is not a valid task_type in the cluster_spec: {cluster_spec.as_dict()}."
            " Note that these values may be coming from the TF_CONFIG environment variable.")
    if task_id >= len(cluster_spec.job_tasks(task_type)):
        raise ValueError(
            f"{task_id} is not a valid task_id for task_type {task_type} in the cluster_spec: "
            f"{cluster_spec.as_dict()}. Note that these values may be coming from the "
            "TF_CONFIG environment variable.")
    return task_type, task_id


def _global_id(cluster_spec, task_type, task_id, chief_type):
    # Chief first, then the other jobs alphabetically, parameter servers last.
    order = [j for j in [chief_type] if j in cluster_spec.jobs]
    order += [j for j in sorted(cluster_spec.jobs) if j not in (chief_type, TaskType.PS)]
    if TaskType.PS in cluster_spec.jobs:
        order.append(TaskType.PS)
    offset = 0
    for job in order:
        if job == task_type:
            return offset + task_id
        offset += len(cluster_spec.job_tasks(job))
    raise RuntimeError(f"Task type {task_type!r} is not in the cluster {cluster_spec.as_dict()}.")


def _is_chief(cluster_spec, task_type, task_id, chief_type) -> bool:
    """The chief, or, in a cluster without one, worker 0 (as TensorFlow's multi-worker
    strategies and the original's distribute coordinator chose)."""
    if chief_type in cluster_spec.jobs:
        return task_type == chief_type
    return task_type == TaskType.WORKER and task_id == 0


def cluster_settings(tf_config, *, chief_optional: bool = False) -> ClusterSettings:
    """The cluster and this task of `tf_config` (TF_CONFIG parsed).

    Args:
        tf_config: TF_CONFIG as a dict.
        chief_optional: A cluster may lack a `chief` (worker 0 is then the chief), as the
            original accepted when a strategy coordinated the job (RunConfig says when:
            a non-TPU strategy, and no `master` job). Otherwise a cluster needs one.
    """
    cluster = tf_config.get("cluster") or {}
    task = tf_config.get("task", {}) or {}
    service = tf_config.get("service")
    if service is not None and not isinstance(service, dict):
        raise TypeError(f'If "service" is set in TF_CONFIG, it must be a dict. Given {service!r}')
    if not cluster:
        if task.get("type") == TaskType.EVALUATOR:
            pass
        else:
            return local_settings(tf_config)
    cluster_spec = tf.train.ClusterSpec(cluster)
    jobs = cluster_spec.jobs
    if TaskType.MASTER in jobs and TaskType.CHIEF in jobs:
        raise ValueError("If `master` node exists in `cluster`, job `chief` is not supported "
                         "(name a `chief` or a legacy `master`, not both).")
    chief_type = TaskType.MASTER if TaskType.MASTER in jobs else TaskType.CHIEF
    if cluster_spec.jobs or task.get("type") != TaskType.EVALUATOR:
        task_type, task_id = _task_from(cluster_spec, task, chief_type,
                                        chief_optional and chief_type != TaskType.MASTER)
    else:
        task_type, task_id = _task_from(tf.train.ClusterSpec({chief_type: ["unused:0"]}),
                                        task, chief_type)
    if task_type == TaskType.EVALUATOR and chief_type == TaskType.MASTER:
        raise ValueError(
            "If `master` node exists in `cluster`, task_type `evaluator` is not supported. "
            "Name the chief `chief` to run an evaluator task.")
    if task_type == TaskType.EVALUATOR:
        # The evaluator is not part of the training cluster.
        return ClusterSettings(
            cluster_spec=tf.train.ClusterSpec({}), task_type=task_type, task_id=task_id,
            is_chief=False, master="", evaluation_master=tf_config.get("eval_session_master", ""),
            num_ps_replicas=0, num_worker_replicas=0, global_id_in_cluster=None, service=service)


    if "session_master" in tf_config:
        master = tf_config["session_master"]
    elif len(jobs) == 1 and len(cluster_spec.job_tasks(jobs[0])) == 1:
        master = ""  # A one-node cluster runs locally, faster than over RPC.
    else:
        master = "grpc://" + cluster_spec.job_tasks(task_type)[task_id]
    return ClusterSettings(
        cluster_spec=cluster_spec, task_type=task_type, task_id=task_id,
        is_chief=_is_chief(cluster_spec, task_type, task_id, chief_type), master=master,
        evaluation_master="", num_ps_replicas=len(cluster.get(TaskType.PS, [])),
        num_worker_replicas=len(cluster.get(TaskType.WORKER, [])) + len(
            cluster.get(chief_type, [])),
        global_id_in_cluster=_global_id(cluster_spec, task_type, task_id, chief_type),
        service=service)
