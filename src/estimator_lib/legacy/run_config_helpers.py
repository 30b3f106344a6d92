"""The original `run_config.py`'s private constants and helpers, by their names and signatures.

Libraries with a RunConfig of their own (TPU and cluster configs) read the TF_CONFIG
keys and call the cluster helpers from `tensorflow_estimator.python.estimator.
run_config`; compat.install() puts each there (legacy/original_tree.py). Our
RunConfig reads TF_CONFIG through core/tf_config.py; these are the original's
contracts, as functions of their arguments.
"""

import tensorflow as tf
from tensorflow.python.util import function_utils

from estimator_lib.core.tf_config import TaskType

_USE_DEFAULT = object()
_VALID_DEVICE_FN_ARGS = {"op"}
_DEFAULT_REPLACEABLE_LIST = [
    "model_dir", "tf_random_seed", "save_summary_steps", "save_checkpoints_steps",
    "save_checkpoints_secs", "session_config", "keep_checkpoint_max",
    "keep_checkpoint_every_n_hours", "log_step_count_steps", "train_distribute",
    "device_fn", "protocol", "eval_distribute", "experimental_distribute",
    "experimental_max_worker_delay_secs", "session_creation_timeout_secs",
    "checkpoint_save_graph_def"]
_SAVE_CKPT_ERR = "`save_checkpoints_steps` and `save_checkpoints_secs` cannot be both set."

# TF_CONFIG's keys.
_TF_CONFIG_ENV = "TF_CONFIG"
_TASK_ENV_KEY = "task"
_TASK_TYPE_KEY = "type"
_TASK_ID_KEY = "index"
_CLUSTER_KEY = "cluster"
_SERVICE_KEY = "service"
_SESSION_MASTER_KEY = "session_master"
_EVAL_SESSION_MASTER_KEY = "eval_session_master"
_MODEL_DIR_KEY = "model_dir"
_LOCAL_MASTER = ""
_GRPC_SCHEME = "grpc://"


def _get_session_master(cluster_spec, task_type, task_id, tf_config):
    """TF_CONFIG's session_master; '' for a one-task cluster; else the task's grpc address.

    Raises:
        RuntimeError: For an empty cluster_spec.
    """
    if _SESSION_MASTER_KEY in tf_config:
        return tf_config[_SESSION_MASTER_KEY]
    if not cluster_spec:
        raise RuntimeError(
            "Internal error: `_get_session_master` does not expect empty cluster_spec.")
    jobs = cluster_spec.jobs
    if len(jobs) == 1 and len(cluster_spec.job_tasks(jobs[0])) == 1:
        return _LOCAL_MASTER
    return _GRPC_SCHEME + cluster_spec.job_tasks(task_type)[task_id]


def _get_eval_session_master(task_type, tf_config):
    """The evaluator's TF_CONFIG eval_session_master, else ''."""
    if task_type == TaskType.EVALUATOR:
        return tf_config.get(_EVAL_SESSION_MASTER_KEY, _LOCAL_MASTER)
    return _LOCAL_MASTER


def _count_ps(cluster_spec):
    """The number of ps tasks (RuntimeError for an empty cluster_spec)."""
    if not cluster_spec:
        raise RuntimeError("Internal error: `_count_ps` does not expect empty cluster_spec.")
    return len(cluster_spec.as_dict().get(TaskType.PS, []))


def _count_worker(cluster_spec, chief_task_type):
    """The number of workers, the chief included (RuntimeError for an empty cluster_spec)."""
    if not cluster_spec:
        raise RuntimeError(
            "Internal error: `_count_worker` does not expect empty cluster_spec.")
    jobs = cluster_spec.as_dict()
    return len(jobs.get(TaskType.WORKER, [])) + len(jobs.get(chief_task_type, []))


def _get_global_id_in_cluster(cluster_spec, task_type, task_id, chief_task_type):
    """The task's id over the cluster: the chief first, then the jobs by name, ps last."""
    ordered = [chief_task_type] + [
        t for t in sorted(cluster_spec.jobs) if t not in (chief_task_type, TaskType.PS)]
    if TaskType.PS in cluster_spec.jobs:
        ordered.append(TaskType.PS)
    first = 0
    for job in ordered:
        if job == task_type:
            return first + task_id
        first += len(cluster_spec.job_tasks(job))
    raise RuntimeError(f"Internal Error: `task_type` ({task_type}) is not in "
                       f"cluster_spec ({cluster_spec}).")


def _get_model_dir(tf_config, model_dir):
    """`model_dir`, or TF_CONFIG's; ValueError when empty or the two differ."""
    if model_dir == "":  # pylint: disable=g-explicit-bool-comparison
        raise ValueError("model_dir should be non-empty.")
    in_tf_config = tf_config.get("model_dir")
    if in_tf_config == "":  # pylint: disable=g-explicit-bool-comparison
        raise ValueError("model_dir in TF_CONFIG should be non-empty.")
    if in_tf_config:
        if model_dir and in_tf_config != model_dir:
            raise ValueError(
                "`model_dir` provided in RunConfig construct, if set, must have the same "
                f"value as the model_dir in TF_CONFIG. model_dir: {model_dir}\n"
                f'TF_CONFIG["model_dir"]: {in_tf_config}.\n')
        tf.compat.v1.logging.info("Using model_dir in TF_CONFIG: %s", in_tf_config)
    return model_dir or in_tf_config


def _validate_service(service):
    """`service`; TypeError unless it is None or a dict."""
    if service is not None and not isinstance(service, dict):
        raise TypeError(
            f'If "service" is set in TF_CONFIG, it must be a dict. Given {type(service)}')
    return service


def _validate_task_type_and_task_id(cluster_spec, task_env, chief_task_type):
    """(task_type, task_id) of TF_CONFIG's task, checked against the cluster (ValueError)."""
    if chief_task_type not in cluster_spec.jobs:
        raise ValueError(
            f'If "cluster" is set in TF_CONFIG, it must have one "{chief_task_type}" node.')
    if len(cluster_spec.job_tasks(chief_task_type)) > 1:
        raise ValueError(
            f'The "cluster" in TF_CONFIG must have only one "{chief_task_type}" node.')
    task_type = task_env.get(_TASK_TYPE_KEY, None)
    task_id = task_env.get(_TASK_ID_KEY, None)
    if not task_type:
        raise ValueError('If "cluster" is set in TF_CONFIG, task type must be set.')
    if task_id is None:
        raise ValueError('If "cluster" is set in TF_CONFIG, task index must be set.')
    task_id = int(task_id)
    if task_id < 0:
        raise ValueError("Task index must be non-negative number.")
    if task_type == TaskType.EVALUATOR:
        return task_type, task_id
    note = "Note that these values may be coming from the TF_CONFIG environment variable."
    if task_type not in cluster_spec.jobs:
        raise ValueError(f"{task_type} is not a valid task_type in the cluster_spec:\n"
                         f"{cluster_spec}\n\n{note}")
    if not 0 <= task_id < len(cluster_spec.job_tasks(task_type)):
        raise ValueError(f"{task_id} is not a valid task_id for task_type {task_type} in "
                         f"the cluster_spec:\n{cluster_spec}\n\n{note}")
    return task_type, task_id


def _validate_save_ckpt_with_replaced_keys(new_copy, replaced_keys):
    """After `replace()`: both checkpoint triggers replaced and set is a ValueError; one
    replaced and set clears the other."""
    steps, secs = new_copy.save_checkpoints_steps, new_copy.save_checkpoints_secs
    fields = vars(new_copy)
    if "save_checkpoints_steps" in replaced_keys and "save_checkpoints_secs" in replaced_keys:
        if steps is not None and secs is not None:
            raise ValueError(_SAVE_CKPT_ERR)
    elif "save_checkpoints_steps" in replaced_keys and steps is not None:
        fields["save_checkpoints_secs"] = None
    elif "save_checkpoints_secs" in replaced_keys and secs is not None:
        fields["save_checkpoints_steps"] = None


_CHECKS = (
    ("model_dir", bool, "model_dir should be non-empty"),
    ("save_summary_steps", lambda v: v >= 0, "save_summary_steps should be >= 0"),
    ("save_checkpoints_steps", lambda v: v >= 0, "save_checkpoints_steps should be >= 0"),
    ("save_checkpoints_secs", lambda v: v >= 0, "save_checkpoints_secs should be >= 0"),
    ("session_config", lambda v: isinstance(v, tf.compat.v1.ConfigProto),
     "session_config must be instance of ConfigProto"),
    ("keep_checkpoint_max", lambda v: v >= 0, "keep_checkpoint_max should be >= 0"),
    ("keep_checkpoint_every_n_hours", lambda v: v > 0,
     "keep_checkpoint_every_n_hours should be > 0"),
    ("log_step_count_steps", lambda v: v > 0, "log_step_count_steps should be > 0"),
    ("tf_random_seed", lambda v: isinstance(v, int), "tf_random_seed must be integer."),
    ("experimental_max_worker_delay_secs", lambda v: isinstance(v, int),
     "experimental_max_worker_delay_secs must be an integer if set."),
    ("session_creation_timeout_secs", lambda v: v > 0,
     "session_creation_timeout_secs should be > 0"),
    ("device_fn", lambda v: callable(v) and set(
        function_utils.fn_args(v)) == _VALID_DEVICE_FN_ARGS,
     'device_fn must be callable with exactly one argument "op".'),
    ("protocol", lambda v: v in (None, "grpc", "grpc+verbs"),
     "protocol should be grpc or grpc+verbs"),
)


def _validate_properties(run_config):
    """ValueError naming the first property of `run_config` out of its range."""
    for name, valid, message in _CHECKS:
        value = getattr(run_config, name)
        if value is not None and not valid(value):
            raise ValueError(message)
