"""The shape of a training job, decided once from the RunConfig (and so TF_CONFIG).

`decide(config, session_config)` answers, in one place, every question the training
path used to work out for itself: which kind of job this is, the strategy or device
function the graph is built under, this task's roles, the cluster whose lost tasks end
the job, and the session's ConfigProto. `training/train_model.py` receives the value
and branches on nothing else.
"""

import dataclasses
from typing import Callable, Dict, List, Optional

import tensorflow as tf

from estimator_lib.distribute import parameter_servers
from estimator_lib.distribute import strategies

LOCAL = "local"  # One graph on this process's default devices (no strategy).
IN_PROCESS = "in-process strategy"  # Mirrored/OneDevice...: replicas in this process.
MULTI_WORKER = "multi-worker"  # Between-graph collectives across a TF_CONFIG cluster.
PARAMETER_SERVER = "parameter-server"  # Variables on ps tasks, placed by a device fn.


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
    """

    mode: str
    strategy: Optional[tf.distribute.Strategy]
    device_fn: Optional[Callable]
    initializes: bool
    writes: bool
    cluster: Optional[Dict[str, List[str]]]
    session_config: tf.compat.v1.ConfigProto
    master: str

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
    mode = mode_of(config)
    strategy = None if mode == PARAMETER_SERVER else config.train_distribute
    device_fn = config.device_fn or (parameter_servers.device_fn(config)
                                     if mode == PARAMETER_SERVER else None)
    if mode == MULTI_WORKER:
        extended = strategy.extended
        initializes, writes = bool(extended.experimental_should_init), bool(
            extended.should_checkpoint)
    else:
        initializes = writes = config.is_chief
    return JobShape(
        mode=mode, strategy=strategy, device_fn=device_fn, initializes=initializes,
        writes=writes,
        cluster=(config.cluster_spec.as_dict() if mode in (MULTI_WORKER, PARAMETER_SERVER)
                 else None),
        session_config=_session_config(session_config, strategy),
        master=config.master)


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
    return bool(strategy is not None and config.cluster_spec.as_dict()
                and getattr(strategy.extended, "experimental_between_graph", False)
                and not parameter_servers.is_v1_strategy(strategy))


def _session_config(session_config, strategy) -> tf.compat.v1.ConfigProto:
    """The session's config: the strategy's devices and collective settings added. No
    deadline is put on runs unless the session_config sets one (docs/estimator.md)."""
    if strategy is not None:
        return strategies.session_config_for(strategy, session_config)
    return session_config
