"""Parameter-server training from TF_CONFIG: the original Estimator's default distributed mode.

A TF_CONFIG cluster with `ps` tasks and no strategy (or a
`tf.compat.v1.distribute.experimental.ParameterServerStrategy`) trains
asynchronously, between graphs, on TensorFlow's own gRPC servers: every task
starts a `tf.distribute.Server`; the chief (or `master`) and the workers build
their own graph with the variables placed on the ps tasks by
`tf.compat.v1.train.replica_device_setter`, and run it in a session whose target
is their own server. The chief initialises or restores the variables and writes
checkpoints and summaries; workers wait for it.

The end of the job. The original's ps tasks ran `server.join()` and never ended:
the cluster manager killed them. Here each ps task's `train_and_evaluate` waits on
a queue it holds (`estimator_lib_ps_done_<index>`, on its own device, shared by
name): every chief and worker enqueues its task's token when its
`train_and_evaluate` has trained (and, on a `master`, evaluated), and the ps task
returns once the chief's token has come and every worker has sent its own or
stopped accepting connections (a killed worker sends none), so the program ends.
"""

import time
from typing import Dict, List, Optional

import tensorflow as tf
from tensorflow.python.training import device_setter
from tensorflow.python.training import server_lib

from estimator_lib.core import environment
from estimator_lib.distribute import cluster_wait
from estimator_lib.core.run_config import TaskType

logging = tf.compat.v1.logging

DONE_QUEUE_PREFIX = "estimator_lib_ps_done_"
_DONE_QUEUE_CAPACITY = 1 << 16
_CHIEF_TOKEN = -1  # Workers send their task index.
# The original's worker start-up delay: worker i waits min(max, (i + 1) * 5) s.
DELAY_SECS_PER_WORKER = 5
MAX_DELAY_SECS = 60
_POLL_SECS = 1.0

# One server per task per process: a port can be served once.
_servers: Dict[tuple, tf.distribute.Server] = {}


def is_v1_strategy(strategy) -> bool:
    """True for `tf.compat.v1.distribute.experimental.ParameterServerStrategy`."""
    return isinstance(strategy, tf.compat.v1.distribute.experimental.ParameterServerStrategy)


def is_ps_training(config) -> bool:
    """True when this task is part of a TF_CONFIG cluster with `ps` tasks, trained without
    a strategy or with the v1 ParameterServerStrategy (which runs the same way)."""
    strategy = config.train_distribute
    return bool(config.num_ps_replicas and config.task_type != TaskType.EVALUATOR
                and (strategy is None or is_v1_strategy(strategy)))


def device_fn(config):
    """The original's default device function: variables on the ps tasks, round-robin."""
    return tf.compat.v1.train.replica_device_setter(
        ps_tasks=config.num_ps_replicas,
        worker_device=f"/job:{config.task_type}/task:{config.task_id}",
        merge_devices=True, cluster=config.cluster_spec)


def original_device_setter(config):
    """The original Estimator's `_get_replica_device_setter`: a replica device setter
    over the ps tasks (TensorFlow's standard ps ops) when the config has any, else None."""
    if config.num_ps_replicas <= 0:
        return None
    worker_device = (f"/job:{config.task_type}/task:{config.task_id}" if config.task_type
                     else "/job:worker")
    return tf.compat.v1.train.replica_device_setter(
        ps_tasks=config.num_ps_replicas, worker_device=worker_device, merge_devices=True,
        ps_ops=list(device_setter.STANDARD_PS_OPS), cluster=config.cluster_spec)


def cluster(config) -> Dict[str, List[str]]:
    """The cluster of `config` as a dict: job name to its tasks' `host:port` addresses.

    Args:
        config: A `RunConfig`.

    Returns:
        A dict such as `{"chief": ["host0:2222"], "ps": ["host1:2222"]}`.
    """
    return config.cluster_spec.as_dict()


def start_server(config) -> tf.distribute.Server:
    """This task's gRPC server (started once per process), as the original's
    train_and_evaluate started it: only the GPU options of the session_config."""
    key = (config.task_type, config.task_id)
    server = _servers.get(key)
    if server is None:
        server_config = tf.compat.v1.ConfigProto(log_device_placement=False)
        if config.session_config is not None:
            server_config.gpu_options.CopyFrom(config.session_config.gpu_options)
        logging.info("Start Tensorflow server.")
        # Looked up in server_lib at each call, where programs and tests replace it.
        server = server_lib.Server(
            config.cluster_spec, job_name=config.task_type, task_index=config.task_id,
            config=server_config, start=False, protocol=config.protocol)
        server.start()
        if isinstance(server, tf.distribute.Server):  # Not a test's stand-in.
            _servers[key] = server
    return server


def start_std_server(config) -> Optional[tf.distribute.Server]:
    """The original executor's `_start_std_server`: this task's server, started; None
    for a one-node cluster without a master (nothing to connect to).

    Raises:
        RuntimeError: If the config lacks the cluster, the task type or id, or the
            master of a cluster of more than one node.
    """
    if not config.cluster_spec or not config.task_type or config.task_id is None:
        raise RuntimeError("Could not start server; be sure to specify cluster_spec, "
                           "task_type, and task in RunConfig or set the TF_CONFIG "
                           "environment variable.")
    if not config.master:
        jobs = config.cluster_spec.jobs
        if (len(jobs) == 1 and len(config.cluster_spec.job_tasks(jobs[0])) == 1
                and config.task_type in (TaskType.CHIEF, TaskType.MASTER, TaskType.WORKER)):
            logging.info("Skip starting Tensorflow server as there is only one node in "
                         "the cluster.")
            return None
        raise RuntimeError("Could not start server; be sure to specify master in RunConfig "
                           "or set the TF_CONFIG environment variable.")
    return start_server(config)


def wait_for_tasks(config) -> None:
    """Waits until the tasks this one needs accept connections: the ps tasks, and for a
    worker the chief too (it initialises the variables).

    Bounded by ESTIMATOR_LIB_CLUSTER_WAIT_SECS (600 s; 0: forever), as
    MultiWorkerMirroredStrategy's start-up wait (docs/multi_worker.md).

    Raises:
        RuntimeError: Naming the tasks still unreachable when the bound passes.
    """
    needed = {TaskType.PS: cluster(config)[TaskType.PS]}
    if not config.is_chief:
        for chief_type in (TaskType.CHIEF, TaskType.MASTER):
            if chief_type in cluster(config):
                needed[chief_type] = cluster(config)[chief_type]
    secs = environment.cluster_wait_secs()
    deadline = None if secs is None else time.monotonic() + secs
    logged = False
    while True:
        missing = cluster_wait.unreachable_tasks(needed, timeout=_POLL_SECS)
        if not missing:
            return
        if deadline is not None and time.monotonic() > deadline:
            raise RuntimeError(
                f"Parameter-server training waited {secs:g} s for the cluster; not "
                f"reachable: {', '.join(missing)}. Start the missing task with its TF_CONFIG, "
                f"or set {environment.WAIT_SECS_VARIABLE} to wait longer (0: forever); "
                "restarting every task resumes from the newest checkpoint in model_dir.")
        if not logged:
            logging.info("Waiting for %s to start.", ", ".join(missing))
            logged = True
        time.sleep(_POLL_SECS)  # Another process: poll its port.


def prepare_task(config) -> None:
    """Starts this task's server and waits for the tasks it needs (before a session)."""
    start_server(config)
    wait_for_tasks(config)


def worker_delay_secs(config) -> int:
    """The original's start-up delay of worker i: min(max, (i + 1) * 5) s; 0 otherwise."""
    if config.task_type != TaskType.WORKER:
        return 0
    max_delay = MAX_DELAY_SECS
    if config.experimental_max_worker_delay_secs is not None:
        max_delay = int(config.experimental_max_worker_delay_secs)
    return min(max_delay, (config.task_id + 1) * DELAY_SECS_PER_WORKER)


def _done_queue(ps_index: int):
    with tf.compat.v1.device(f"/job:{TaskType.PS}/task:{ps_index}"):
        return tf.queue.FIFOQueue(_DONE_QUEUE_CAPACITY, tf.int32,
                                  shared_name=f"{DONE_QUEUE_PREFIX}{ps_index}",
                                  name=f"{DONE_QUEUE_PREFIX}{ps_index}")


def signal_done(config, timeout_secs: float = 30.0) -> None:
    """Tells every ps task that this chief or worker has finished (see the module doc).

    A ps task already gone is logged, not raised: training itself has ended.
    """
    token = _CHIEF_TOKEN if config.is_chief else config.task_id
    server = start_server(config)
    session_config = tf.compat.v1.ConfigProto(
        device_filters=[f"/job:{TaskType.PS}",
                        f"/job:{config.task_type}/task:{config.task_id}"],
        operation_timeout_in_ms=int(timeout_secs * 1000))
    with tf.Graph().as_default():
        enqueues = [_done_queue(i).enqueue(token) for i in range(config.num_ps_replicas)]
        try:
            with tf.compat.v1.Session(server.target, config=session_config) as session:
                session.run(enqueues)
        except tf.errors.OpError as e:
            logging.warning("Could not tell the ps tasks that %s:%d has finished (%s); they "
                            "may have ended already.", config.task_type, config.task_id,
                            type(e).__name__)
            return
    logging.info("Told the %d ps task(s) that %s:%d has finished.", config.num_ps_replicas,
                 config.task_type, config.task_id)


def serve(config, *, max_worker_wait_secs: Optional[float] = None, server=None) -> None:
    """The ps task: serves variables until the job ends (see the module doc), then returns.

    Args:
        config: The ps task's RunConfig.
        max_worker_wait_secs: After the chief finished, how long to wait for workers
            still accepting connections (None: ESTIMATOR_LIB_CLUSTER_WAIT_SECS's bound).
        server: This task's server, already started (None: start it).
    """
    server = server or start_server(config)
    workers = range(len(cluster(config).get(TaskType.WORKER, [])))
    worker_addresses = cluster(config).get(TaskType.WORKER, [])
    if max_worker_wait_secs is None:
        max_worker_wait_secs = environment.cluster_wait_secs()
    session_config = tf.compat.v1.ConfigProto(
        device_filters=[f"/job:{TaskType.PS}/task:{config.task_id}"])
    chief_done_at = None
    done = set()
    with tf.Graph().as_default():
        dequeue = _done_queue(config.task_id).dequeue()
        with tf.compat.v1.Session(server.target, config=session_config) as session:
            logging.info("Serving as %s:%d until the chief and the workers finish.",
                         config.task_type, config.task_id)
            while True:
                try:
                    token = int(session.run(dequeue, options=tf.compat.v1.RunOptions(
                        timeout_in_ms=int(_POLL_SECS * 1000))))
                except tf.errors.DeadlineExceededError:
                    token = None
                if token == _CHIEF_TOKEN and chief_done_at is None:
                    chief_done_at = time.monotonic()
                elif token is not None:
                    done.add(token)
                if chief_done_at is None:
                    continue
                running = [i for i in workers if i not in done and not
                           cluster_wait.unreachable_tasks(
                               {TaskType.WORKER: [worker_addresses[i]]}, timeout=_POLL_SECS)]
                if not running:
                    break
                if max_worker_wait_secs is not None and \
                        time.monotonic() - chief_done_at > max_worker_wait_secs:
                    logging.warning("The chief finished %g s ago; ending without workers %s.",
                                    max_worker_wait_secs, running)
                    break
    logging.info("The chief and the workers have finished; %s:%d ends.", config.task_type,
                 config.task_id)
