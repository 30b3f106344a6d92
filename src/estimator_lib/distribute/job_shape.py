"""The shape of a training job, decided once from the RunConfig (and so TF_CONFIG).

`decide(config, session_config)` answers, in one place, every question the training
path used to work out for itself: which kind of job this is, the strategy or device
function the graph is built under, this task's roles, the replicas, the steps-per-run
loop, the cluster whose lost tasks end the job, and the session's ConfigProto.
`Estimator.train` decides it and hands it to `training/train_model.py`, which
branches on nothing else.

`role_of(config)` is the part of that decision that needs no strategy or session:
the kind of job and this task's part in it (chief, evaluator, ps, ...). Whoever else
asks what kind of job this is (train_and_evaluate, the early-stopping and in-memory
evaluator hooks, model_to_estimator, the TPU RunConfig, the binaries) asks it; no
module outside distribute/ reads train_distribute, the cluster or the task type to
decide (tests/architecture_test.py).
"""

import dataclasses
from typing import Callable, Dict, List, Optional

import tensorflow as tf

from estimator_lib.core import tf_config as tf_config_lib
from estimator_lib.core.tf_config import TaskType
from estimator_lib.distribute import parameter_servers
from estimator_lib.distribute import strategies

LOCAL = "local"  # One graph on this process's default devices (no strategy).
IN_PROCESS = "in-process strategy"  # Mirrored/OneDevice...: replicas in this process.
MULTI_WORKER = "multi-worker"  # Between-graph collectives across a TF_CONFIG cluster.
PARAMETER_SERVER = "parameter-server"  # Variables on ps tasks, placed by a device fn.

_LOCAL_TASK_TYPE = (
    "`task.type` in TF_CONFIG cannot be `local`. Leaving `cluster` and `task` properties "
    "in TF_CONFIG absent triggers train and evaluate `Estimator` locally "
    "(non-distributed).")
# This task's part in train_and_evaluate (TaskRole.part_in_train_and_evaluate).
TRAIN_AND_EVALUATE_LOCALLY = "local"  # No cluster: train, evaluating each checkpoint.
EVALUATOR = "evaluator"  # Evaluates each new checkpoint until max_steps.
TRAINER = "trainer"  # Trains in a cluster (multi-worker, or between-graph).
PARAMETER_SERVER_TRAINER = "parameter-server trainer"  # chief/master/worker of ps training.
PARAMETER_SERVER_HOST = "parameter-server host"  # A `ps` task: serves the variables.


@dataclasses.dataclass(frozen=True)
class TaskRole:
    """The kind of job and this task's part in it, from the RunConfig alone.

    Attributes:
        mode: LOCAL, IN_PROCESS, MULTI_WORKER or PARAMETER_SERVER.
        strategy: The strategy training runs under (train_distribute); None without
            one, and in parameter-server training.
        task_type: TF_CONFIG's task type (None without a cluster).
        task_id: TF_CONFIG's task index.
        is_chief: The task RunConfig calls the chief (the only task, without a cluster).
        in_cluster: TF_CONFIG names a cluster.
        num_workers: Training tasks of the cluster (chief, master, workers); 1 locally.
        num_ps: `ps` tasks of the cluster.
    """

    mode: str
    strategy: Optional[tf.distribute.Strategy]
    task_type: Optional[str]
    task_id: int
    is_chief: bool
    in_cluster: bool
    num_workers: int
    num_ps: int

    @property
    def is_evaluator(self) -> bool:
        """The cluster's `evaluator` task (it never trains)."""
        return self.task_type == TaskType.EVALUATOR

    @property
    def trains(self) -> bool:
        """Estimator.train may run on this task (not the evaluator, not a ps task)."""
        return self.task_type not in (TaskType.EVALUATOR, TaskType.PS)

    @property
    def single_machine(self) -> bool:
        """No ps task and at most one training task: one machine holds the whole job."""
        return self.num_ps == 0 and self.num_workers <= 1

    @property
    def multi_worker_non_chief(self) -> bool:
        """A `worker` task of a strategy's multi-worker job (no ps tasks): it builds
        what the chief builds, after the chief (model_to_estimator's first checkpoint)."""
        return (self.strategy is not None and self.task_type == TaskType.WORKER
                and self.num_workers > 1 and not self.num_ps)

    @property
    def evaluates_while_training(self) -> bool:
        """The `master` of parameter-server training evaluates new checkpoints as it
        trains (the original's run_master)."""
        return self.task_type == TaskType.MASTER

    def describe_task(self) -> str:
        """`type:id`, as messages name a task."""
        return f"{self.task_type}:{self.task_id}"

    def part_in_train_and_evaluate(self) -> str:
        """TRAIN_AND_EVALUATE_LOCALLY, EVALUATOR, TRAINER, PARAMETER_SERVER_TRAINER or
        PARAMETER_SERVER_HOST: what train_and_evaluate runs on this task.

        Raises:
            ValueError: If TF_CONFIG's task type is `local`, names a second evaluator,
                or a `ps` task trains with a strategy other than the v1 one.
        """
        if self.task_type == "local":
            raise ValueError(_LOCAL_TASK_TYPE)
        if self.is_evaluator:
            if self.task_id > 0:
                raise ValueError(
                    "For distributed training, there can only be one `evaluator` task "
                    f"(with task id 0). Given task id {self.task_id}.")
            return EVALUATOR
        if not self.in_cluster:
            return TRAIN_AND_EVALUATE_LOCALLY
        if self.task_type == TaskType.PS:
            if self.mode != PARAMETER_SERVER:
                raise ValueError(
                    "A `ps` task trains only without a strategy or with tf.compat.v1."
                    "distribute.experimental.ParameterServerStrategy as train_distribute. "
                    f"Received: train_distribute={type(self.strategy).__name__}.")
            return PARAMETER_SERVER_HOST
        if self.mode == PARAMETER_SERVER:
            return PARAMETER_SERVER_TRAINER
        return TRAINER


@dataclasses.dataclass(frozen=True)
class JobShape:
    """What kind of training job this task runs, and its part in it.

    Attributes:
        mode: LOCAL, IN_PROCESS, MULTI_WORKER or PARAMETER_SERVER.
        strategy: The strategy the graph is built under; None without one, and in
            parameter-server training (the v1 ParameterServerStrategy runs as none).
        device_fn: The device function the graph is built under (RunConfig.device_fn,
            or the ps tasks' round-robin placement), or None.
        initializes: This task initialises (or restores) the variables.
        writes: This task writes model_dir: checkpoints, summaries, the lock; it alone
            runs the chief-only hooks and the saving listeners.
        cluster: The TF_CONFIG cluster whose lost task ends the job (multi-worker and
            parameter-server jobs), else None.
        session_config: The training session's ConfigProto (the strategy's devices and
            collective settings added).
        master: The session's target.
        role: The kind of job and this task's part in it (`role_of`).
        num_replicas: Replicas one step runs on, over the whole job (the strategy's
            replicas in sync; 1 without a strategy).
        steps_per_run: Training steps one session run makes (RunConfig.steps_per_run;
            above 1, the in-graph loop of training/steps_loop.py).
        prepare_task: What this task does before its session, once the graph is built
            (parameter-server training: start its server, wait for the ps tasks), or
            None.
    """

    mode: str
    strategy: Optional[tf.distribute.Strategy]
    device_fn: Optional[Callable]
    initializes: bool
    writes: bool
    cluster: Optional[Dict[str, List[str]]]
    session_config: tf.compat.v1.ConfigProto
    master: str
    role: Optional[TaskRole] = None
    num_replicas: int = 1
    steps_per_run: int = 1
    prepare_task: Optional[Callable[[], None]] = None

    @property
    def is_evaluator(self) -> bool:
        """Whether this task is an evaluator (it trains nothing)."""
        return self.role is not None and self.role.is_evaluator

    def describe(self) -> str:
        """One line for the logs: mode, strategy, roles."""
        strategy = type(self.strategy).__name__ if self.strategy is not None else "none"
        return (f"{self.mode} job (strategy: {strategy}; initializes: {self.initializes}; "
                f"writes model_dir: {self.writes})")


def decide(config, session_config: tf.compat.v1.ConfigProto) -> JobShape:
    """The JobShape of training with `config` (a RunConfig) on this task.

    Args:
        config: The Estimator's RunConfig (its cluster and task come from TF_CONFIG).
        session_config: The Estimator's session ConfigProto (RunConfig.session_config or
            the default one).
    """
    role = role_of(config)
    mode, strategy = role.mode, role.strategy
    device_fn = config.device_fn or default_device_fn(config)
    if mode == MULTI_WORKER:
        extended = strategy.extended
        initializes, writes = bool(extended.experimental_should_init), bool(
            extended.should_checkpoint)
    else:
        initializes = writes = config.is_chief
    master = config.master
    if mode == MULTI_WORKER and not master:
        # A one-task cluster: RunConfig.master is '' (as the original's), but the
        # strategy places the variables on this task's job, which only its server has.
        master = "grpc://" + config.cluster_spec.task_address(config.task_type,
                                                              config.task_id)
    return JobShape(
        mode=mode, strategy=strategy, device_fn=device_fn, initializes=initializes,
        writes=writes,
        cluster=(config.cluster_spec.as_dict() if mode in (MULTI_WORKER, PARAMETER_SERVER)
                 else None),
        session_config=_session_config(session_config, strategy),
        master=master, role=role, num_replicas=strategies.num_replicas(strategy),
        steps_per_run=config.steps_per_run,
        prepare_task=((lambda: parameter_servers.prepare_task(config))
                      if mode == PARAMETER_SERVER else None))


def default_device_fn(config) -> Optional[Callable]:
    """The device function training with `config` (a RunConfig) gets when the config
    sets none: the parameter-server tasks' round-robin placement, else None."""
    return parameter_servers.device_fn(config) if mode_of(config) == PARAMETER_SERVER else None


@dataclasses.dataclass(frozen=True)
class EvaluationShape:
    """What `evaluate()` runs under: its strategy and its session's config.

    Attributes:
        strategy: RunConfig.eval_distribute: the strategy evaluate() builds and runs
            under as given (no role or mode is decided), or None.
        session_config: The session's ConfigProto (the strategy's devices added).
    """

    strategy: Optional[tf.distribute.Strategy]
    session_config: tf.compat.v1.ConfigProto


def evaluation(config, session_config: tf.compat.v1.ConfigProto) -> EvaluationShape:
    """The EvaluationShape of `config` (a RunConfig) with the Estimator's session config.

    Args:
        config: The Estimator's RunConfig.
        session_config: The Estimator's session ConfigProto.
    """
    strategy = config.eval_distribute
    return EvaluationShape(strategy=strategy,
                           session_config=_session_config(session_config, strategy))


def uses_a_strategy(config) -> bool:
    """Whether `config` (a RunConfig) trains or evaluates under a tf.distribute strategy."""
    return config.train_distribute is not None or config.eval_distribute is not None


def role_of(config) -> TaskRole:
    """The TaskRole of `config` (a RunConfig): what kind of job, this task's part."""
    mode = mode_of(config)
    return TaskRole(
        mode=mode, strategy=None if mode == PARAMETER_SERVER else config.train_distribute,
        task_type=config.task_type, task_id=config.task_id, is_chief=config.is_chief,
        in_cluster=bool(config.cluster_spec.as_dict()),
        num_workers=config.num_worker_replicas, num_ps=config.num_ps_replicas)


def training_tasks_in_tf_config() -> int:
    """Training tasks (chief and workers) TF_CONFIG names; 1 without a cluster. For
    binaries that choose their strategy before a RunConfig exists: above 1, the job
    is a multi-worker one.

    Raises:
        ValueError: If TF_CONFIG is not valid JSON.
    """
    cluster = tf_config_lib.read_tf_config().get("cluster") or {}
    return max(1, sum(len(cluster.get(job) or ()) for job in ("chief", "worker")))


def executor_task(config) -> str:
    """`local`, or the task type whose `run_<type>` train_and_evaluate's executor runs,
    as the original's executor chose: local without a cluster (unless the evaluator).

    Raises:
        ValueError: If a cluster is given without a task type, or with the `local` one.
    """
    if not config.cluster_spec and config.task_type != TaskType.EVALUATOR:
        return "local"
    if not config.task_type:
        raise ValueError("`estimator.config` must have task_type set. This usually means "
                         "TF_CONFIG environment is not set correctly.")
    if config.task_type == "local":
        raise ValueError(_LOCAL_TASK_TYPE)
    return config.task_type


def mode_of(config) -> str:
    """LOCAL, IN_PROCESS, MULTI_WORKER or PARAMETER_SERVER: the kind of training job
    `config` (a RunConfig) makes this task part of."""
    if parameter_servers.is_ps_training(config):
        return PARAMETER_SERVER
    if is_multi_worker(config):
        return MULTI_WORKER
    if config.train_distribute is not None:
        return IN_PROCESS
    return LOCAL


def is_multi_worker(config) -> bool:
    """True for between-graph training across a TF_CONFIG cluster (each worker a graph)."""
    strategy = config.train_distribute
    return bool(isinstance(strategy, (tf.distribute.Strategy, tf.compat.v1.distribute.Strategy))
                and config.cluster_spec.as_dict()
                and getattr(strategy.extended, "experimental_between_graph", False)
                and not parameter_servers.is_v1_strategy(strategy))


def _session_config(session_config, strategy) -> tf.compat.v1.ConfigProto:
    """The session's config: the strategy's devices and collective settings added. No
    deadline is put on runs unless the session_config sets one (docs/estimator.md)."""
    if strategy is not None:
        return strategies.session_config_for(strategy, session_config)
    return session_config
