"""RunConfig: where and how an Estimator runs (TF_CONFIG is read by tf_config.py)."""

import copy
import dataclasses
import numbers
import os
from typing import Any, Callable, Dict, Optional

import tensorflow as tf
from tensorflow.core.protobuf import rewriter_config_pb2
from tensorflow.python.util import function_utils

from estimator_lib.core.tf_config import TF_CONFIG_VARIABLE  # noqa: F401  (re-exported)
from estimator_lib.core.tf_config import ClusterSettings
from estimator_lib.core.tf_config import TaskType
from estimator_lib.core.tf_config import cluster_settings
from estimator_lib.core.tf_config import read_tf_config

_USE_DEFAULT = object()

# The fields `RunConfig.replace` may change (all user-settable ones).
_REPLACEABLE = (
    "model_dir", "tf_random_seed", "save_summary_steps", "save_checkpoints_steps",
    "save_checkpoints_secs", "session_config", "keep_checkpoint_max",
    "keep_checkpoint_every_n_hours", "log_step_count_steps", "train_distribute",
    "device_fn", "protocol", "eval_distribute", "experimental_distribute",
    "experimental_max_worker_delay_secs", "session_creation_timeout_secs",
    "checkpoint_save_graph_def", "steps_per_run")


def get_default_session_config() -> tf.compat.v1.ConfigProto:
    """Soft placement on, and one pass of the graph optimizer, as the original."""
    rewrite = rewriter_config_pb2.RewriterConfig(
        meta_optimizer_iterations=rewriter_config_pb2.RewriterConfig.ONE)
    return tf.compat.v1.ConfigProto(
        allow_soft_placement=True,
        graph_options=tf.compat.v1.GraphOptions(rewrite_options=rewrite))


def _check_non_negative(name, value):
    if value is not None and value < 0:
        raise ValueError(f"{name} should be >= 0. Received: {name}={value}.")


@dataclasses.dataclass(eq=False)
class RunConfig:
    """Specifies the configuration of an Estimator run (fields as tf.estimator.RunConfig).

    Cluster fields (`cluster_spec`, `task_type`, `is_chief`, ...) come from TF_CONFIG.

    Fields and cluster properties are read-only (AttributeError), as the original's;
    a subclass may override a field with a property.

    `steps_per_run` (keyword only, estimator_lib's): `train()` runs that many steps per
    session run (docs/estimator.md, "Several steps per session run"); 1 is the original.

    Deliberate difference 19: the `Using config:` line is otherwise the original's.

    Args:
        model_dir: Where checkpoints, summaries and the graph are written. If TF_CONFIG
            has a `model_dir`, it is used, and this must be None or the same.
        tf_random_seed: The graph-level random seed each Estimator call sets.
            Deliberate difference 2: it also seeds tf_keras' unseeded initializers.
        save_summary_steps: Write summaries every this many steps (0 or None: never).
        save_checkpoints_steps: Save a checkpoint every this many steps. Cannot be
            given with `save_checkpoints_secs`.
        save_checkpoints_secs: Save a checkpoint every this many seconds. When neither
            this nor `save_checkpoints_steps` is given, it is 600; set both to None to
            save no checkpoints on a cadence.
        session_config: A `tf.compat.v1.ConfigProto` for the sessions; None takes the
            default (soft placement; on a parameter-server cluster, device filters).
        keep_checkpoint_max: How many recent checkpoints to keep (0 or None: all).
        keep_checkpoint_every_n_hours: Also keep one checkpoint per this many hours.
        log_step_count_steps: Log loss and steps per second every this many steps.
        train_distribute: A `tf.distribute` strategy `train()` runs under.
            Deliberate difference 3: its devices, logical ones included, reach the session.
        device_fn: A function of one argument, `op`, returning the device to place
            it on; it overrides the cluster's default placement.
        protocol: The server's RPC protocol, `grpc` (None) or `grpc+verbs`.
        eval_distribute: A `tf.distribute` strategy `evaluate()` runs under.
        experimental_distribute: An object whose `train_distribute` and
            `eval_distribute` are used where those arguments are None.
        experimental_max_worker_delay_secs: The most seconds a non-chief worker waits
            before starting to train (staggered starts); None keeps the default.
        session_creation_timeout_secs: How long a worker waits for the chief's
            session before failing.
        checkpoint_save_graph_def: Whether checkpoints also write the graph's
            `graph.pbtxt` and meta graph.
        steps_per_run: Training steps per session run (estimator_lib only; see above).

    Raises:
        ValueError: If a value is out of range or of the wrong type, both checkpoint
            cadences are given, `model_dir` disagrees with TF_CONFIG's, or TF_CONFIG
            describes an inconsistent cluster.

    Examples:
        >>> config = RunConfig(model_dir="/tmp/run")
        >>> config.save_checkpoints_secs, config.save_checkpoints_steps, config.keep_checkpoint_max
        (600, None, 5)
        >>> config.save_summary_steps, config.log_step_count_steps, config.is_chief
        (100, 100, True)
        >>> RunConfig(save_checkpoints_steps=100, save_checkpoints_secs=60)
        Traceback (most recent call last):
        ...
        ValueError: `save_checkpoints_steps` and `save_checkpoints_secs` cannot be both set. ...
    """

    model_dir: Optional[str] = None
    tf_random_seed: Optional[int] = None
    save_summary_steps: Optional[int] = 100
    save_checkpoints_steps: Any = _USE_DEFAULT
    save_checkpoints_secs: Any = _USE_DEFAULT
    session_config: Optional[tf.compat.v1.ConfigProto] = None
    keep_checkpoint_max: Optional[int] = 5
    keep_checkpoint_every_n_hours: Optional[float] = 10000
    log_step_count_steps: Optional[int] = 100
    train_distribute: Any = None
    device_fn: Optional[Callable] = None
    protocol: Optional[str] = None
    eval_distribute: Any = None
    experimental_distribute: Any = None
    experimental_max_worker_delay_secs: Optional[int] = None
    session_creation_timeout_secs: int = 7200
    checkpoint_save_graph_def: bool = True
    _: dataclasses.KW_ONLY
    steps_per_run: int = 1

    def __setattr__(self, name, value):
        # The original kept each field and cluster property in a private attribute
        # (`_model_dir`, `_is_chief`) its property read, and libraries assign those
        # (adanet: `config._is_chief = True`): the value the property then returns.
        if name[1:] in _FIELD_NAMES and name.startswith("_") and "_cluster" in self.__dict__:
            self.__dict__[name[1:]] = value
            return
        if name[1:] in _CLUSTER_NAMES and name.startswith("_") and "_cluster" in self.__dict__:
            self.__dict__["_cluster"] = dataclasses.replace(
                self.__dict__["_cluster"], **{name[1:]: value})
            return
        if name in _FIELD_NAMES or isinstance(getattr(type(self), name, None), property):
            if "_cluster" in self.__dict__:
                raise AttributeError(
                    f"RunConfig.{name} cannot be set: RunConfig fields are read-only. Use "
                    f"`config.replace({name}=...)`.")
            # The dataclass __init__: write the field itself, past any subclass property.
            self.__dict__[name] = value
            return
        object.__setattr__(self, name, value)

    def __getattr__(self, name):
        # Only for names not found otherwise: the original's private attributes.
        # The stored value, not the public property: a subclass's property may read
        # the private name (`return self._is_chief`), as the original's could.
        if name.startswith("_") and "_cluster" in self.__dict__:
            if name[1:] in _FIELD_NAMES:
                return self.__dict__[name[1:]]
            if name[1:] in _CLUSTER_NAMES:
                return getattr(self.__dict__["_cluster"], name[1:])
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __post_init__(self):
        self._normalise()
        tf_config = read_tf_config()
        model_dir = self.__dict__["model_dir"]
        if "model_dir" in tf_config:
            if not tf_config["model_dir"]:
                raise ValueError("model_dir in TF_CONFIG should be non-empty. Received: ''.")
            if model_dir is not None and model_dir != tf_config["model_dir"]:
                raise ValueError(
                    "`model_dir` provided in RunConfig construct, if set, must have the same "
                    f"value as the model_dir in TF_CONFIG. model_dir: {model_dir}\n"
                    f"TF_CONFIG[\"model_dir\"]: {tf_config['model_dir']}.\n")
            model_dir = tf_config["model_dir"]
        if model_dir is not None:
            model_dir = os.fspath(model_dir)
        self.__dict__["model_dir"] = model_dir
        self._validate()
        for strategy in (self.train_distribute, self.eval_distribute):
            _check_strategy(strategy)
        self.__dict__["_cluster"] = cluster_settings(
            tf_config, chief_optional=self._coordinated_by_strategy())
        for strategy in (self.train_distribute, self.eval_distribute):
            _check_ps_strategy(strategy, self.num_ps_replicas)
        if self.session_config is None and self.cluster_spec.as_dict() and (
                self.train_distribute is None or _is_v1_ps_strategy(self.train_distribute)):
            # Between-graph training on parameter servers: the original's device filters.
            self.__dict__["session_config"] = _default_distributed_session_config(
                self.task_type, self.task_id)
        if self.train_distribute is not None or self.eval_distribute is not None:
            tf.compat.v1.logging.info("Initializing RunConfig with distribution strategies.")

    def _coordinated_by_strategy(self) -> bool:
        """A non-TPU strategy coordinates the job: the cluster may then lack a chief
        (worker 0 acts as chief), as the original's distribute coordinator accepted.
        The v1 ParameterServerStrategy runs as no strategy does (it needs a chief)."""
        return any(
            strategy is not None and not _is_v1_ps_strategy(strategy)
            and not type(strategy).__name__.startswith("TPUStrategy")
            for strategy in (self.train_distribute, self.eval_distribute))

    def _normalise(self):
        """Resolves the checkpoint cadence defaults and `experimental_distribute`."""
        fields = self.__dict__
        steps, secs = fields["save_checkpoints_steps"], fields["save_checkpoints_secs"]
        if steps is _USE_DEFAULT and secs is _USE_DEFAULT:
            steps, secs = None, 600
        elif steps is _USE_DEFAULT:
            steps = None
        elif secs is _USE_DEFAULT:
            secs = None
        elif steps is not None and secs is not None:
            raise ValueError(
                "`save_checkpoints_steps` and `save_checkpoints_secs` cannot be both set. "
                f"Received: save_checkpoints_steps={steps}, save_checkpoints_secs={secs}.")
        fields["save_checkpoints_steps"] = steps
        fields["save_checkpoints_secs"] = secs
        dist = fields["experimental_distribute"]
        if dist is not None:
            fields["train_distribute"] = (fields["train_distribute"]
                                          or getattr(dist, "train_distribute", None))
            fields["eval_distribute"] = (fields["eval_distribute"]
                                         or getattr(dist, "eval_distribute", None))

    def _validate(self):
        model_dir = self.__dict__["model_dir"]
        if model_dir is not None and not model_dir:
            raise ValueError("model_dir should be non-empty. Received: model_dir=''.")
        for name in ("save_summary_steps", "save_checkpoints_steps", "save_checkpoints_secs",
                     "keep_checkpoint_max"):
            _check_non_negative(name, getattr(self, name))
        if self.session_config is not None and not isinstance(
                self.session_config, tf.compat.v1.ConfigProto):
            raise ValueError(
                "session_config must be instance of ConfigProto. Received: "
                f"{type(self.session_config).__name__}.")
        if self.keep_checkpoint_every_n_hours is not None and \
                self.keep_checkpoint_every_n_hours <= 0:
            raise ValueError("keep_checkpoint_every_n_hours should be > 0. Received: "
                             f"{self.keep_checkpoint_every_n_hours}.")
        if self.log_step_count_steps is not None and self.log_step_count_steps <= 0:
            raise ValueError("log_step_count_steps should be > 0 (or None to disable). "
                             f"Received: {self.log_step_count_steps}.")
        if self.tf_random_seed is not None and (
                not isinstance(self.tf_random_seed, int) or isinstance(self.tf_random_seed, bool)):
            raise ValueError(f"tf_random_seed must be integer. Received: {self.tf_random_seed!r}.")
        delay = self.experimental_max_worker_delay_secs
        if delay is not None and not isinstance(delay, int):
            raise ValueError("experimental_max_worker_delay_secs must be an integer if set. "
                             f"Received: {delay!r}.")
        if self.session_creation_timeout_secs is not None and \
                self.session_creation_timeout_secs <= 0:
            raise ValueError("session_creation_timeout_secs should be > 0. Received: "
                             f"{self.session_creation_timeout_secs}.")
        if self.device_fn is not None and not (
                callable(self.device_fn)
                and set(function_utils.fn_args(self.device_fn)) == {"op"}):
            raise ValueError('device_fn must be callable with exactly one argument "op".')
        if self.protocol not in (None, "grpc", "grpc+verbs"):
            raise ValueError(f"protocol should be grpc or grpc+verbs. Received: {self.protocol!r}.")
        if isinstance(self.steps_per_run, bool) or not isinstance(
                self.steps_per_run, numbers.Integral) or self.steps_per_run < 1:
            raise ValueError(
                "`steps_per_run` must be a positive int (1 runs one training step per session "
                f"run). Received: steps_per_run={self.steps_per_run!r}.")

    # Read-only cluster properties, from TF_CONFIG.
    cluster_spec = property(lambda self: self._cluster.cluster_spec,
                            doc="TF_CONFIG's cluster, a `tf.train.ClusterSpec` (may be empty).")
    task_type = property(lambda self: self._cluster.task_type,
                         doc="This task's type (`chief`, `worker`, `ps`, `evaluator`...).")
    task_id = property(lambda self: self._cluster.task_id,
                       doc="This task's index among the tasks of its type.")
    is_chief = property(lambda self: self._cluster.is_chief,
                        doc="Whether this task is the chief, the one that writes checkpoints.")
    master = property(lambda self: self._cluster.master,
                      doc="The session target (`grpc://...` on a cluster; '' when local).")
    evaluation_master = property(lambda self: self._cluster.evaluation_master,
                                 doc="The session target `evaluate()` uses ('' when local).")
    num_ps_replicas = property(lambda self: self._cluster.num_ps_replicas,
                               doc="How many parameter-server tasks the cluster has.")
    num_worker_replicas = property(lambda self: self._cluster.num_worker_replicas,
                                   doc="How many tasks train: the chief and the workers.")
    global_id_in_cluster = property(lambda self: self._cluster.global_id_in_cluster,
                                    doc="This task's index over all training tasks.")
    service = property(lambda self: self._cluster.service,
                       doc="TF_CONFIG's `service` entry (a dict), or None.")

    def replace(self, **kwargs) -> "RunConfig":
        """Returns a new RunConfig with the given fields replaced (and revalidated).

        Setting one of `save_checkpoints_steps` / `save_checkpoints_secs` to a value
        clears the other, as the original did. The cluster read from TF_CONFIG at
        construction is kept.

        Args:
            **kwargs: Field names (those of the constructor) and their new values.

        Returns:
            A new RunConfig (of the same class); this one is unchanged.

        Raises:
            ValueError: If a name is not a replaceable field, or a value is invalid.

        Examples:
            >>> config = RunConfig(model_dir="/tmp/run", save_checkpoints_steps=100)
            >>> config.save_checkpoints_secs is None
            True
            >>> later = config.replace(save_checkpoints_secs=60)
            >>> later.save_checkpoints_steps is None, config.save_checkpoints_steps
            (True, 100)
        """
        for key in kwargs:
            if key not in _REPLACEABLE:
                raise ValueError(
                    f"Replacing {key} is not supported. Allowed properties are "
                    f"{list(_REPLACEABLE)}.")
        steps_given = "save_checkpoints_steps" in kwargs
        secs_given = "save_checkpoints_secs" in kwargs
        if steps_given and not secs_given and kwargs["save_checkpoints_steps"] is not None:
            kwargs["save_checkpoints_secs"] = None
        elif secs_given and not steps_given and kwargs["save_checkpoints_secs"] is not None:
            kwargs["save_checkpoints_steps"] = None
        # As the original: a copy (of a subclass too) with the fields set and checked;
        # the cluster read from TF_CONFIG at construction is kept.
        new = copy.copy(self)
        new.__dict__.update(kwargs)
        if "model_dir" in kwargs and kwargs["model_dir"] is not None:
            new.__dict__["model_dir"] = os.fspath(kwargs["model_dir"])
        new._normalise()  # pylint: disable=protected-access
        new._validate()  # pylint: disable=protected-access
        for strategy in (new.train_distribute, new.eval_distribute):
            _check_strategy(strategy)
            _check_ps_strategy(strategy, new.num_ps_replicas)
        return new

    def as_dict(self) -> Dict[str, Any]:
        """Returns every field and cluster property, for logging.

        Returns:
            A dict of name to value; `cluster_spec` is given as a dict.
        """
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        for name in ("task_type", "task_id", "global_id_in_cluster", "master",
                     "evaluation_master", "is_chief", "num_ps_replicas",
                     "num_worker_replicas", "service"):
            values[name] = getattr(self, name)
        values["cluster_spec"] = self.cluster_spec.as_dict()
        return values

    def __repr__(self):
        return f"RunConfig({self.as_dict()})"


_FIELD_NAMES = frozenset(f.name for f in dataclasses.fields(RunConfig))
_CLUSTER_NAMES = frozenset(f.name for f in dataclasses.fields(ClusterSettings))

# The original RunConfig's attributes in the order its `Using config:` line printed them.
_ORIGINAL_ORDER = (
    "model_dir", "tf_random_seed", "save_summary_steps", "save_checkpoints_steps",
    "save_checkpoints_secs", "session_config", "keep_checkpoint_max",
    "keep_checkpoint_every_n_hours", "log_step_count_steps", "train_distribute",
    "device_fn", "protocol", "eval_distribute", "experimental_distribute",
    "experimental_max_worker_delay_secs", "session_creation_timeout_secs",
    "checkpoint_save_graph_def", "service", "cluster_spec", "task_type", "task_id",
    "global_id_in_cluster", "master", "evaluation_master", "is_chief", "num_ps_replicas",
    "num_worker_replicas")


def as_original_dict(config: "RunConfig",
                     session_config: tf.compat.v1.ConfigProto) -> Dict[str, Any]:
    """The dict the original's Estimator logged as `Using config:` (its RunConfig's
    private attributes): keys with their leading underscore, in its order, the session
    config the Estimator runs with, the ClusterSpec itself. Ours beyond the original's
    (the TPU config's; `steps_per_run` unless 1) come last."""
    values = config.as_dict()
    values.update(session_config=session_config, cluster_spec=config.cluster_spec)
    if values.get("steps_per_run") == 1:
        del values["steps_per_run"]
    order = [key for key in _ORIGINAL_ORDER if key in values]
    order += [key for key in values if key not in _ORIGINAL_ORDER]
    return {f"_{key}": values[key] for key in order}


def _field_property(name: str) -> property:
    return property(lambda self: self.__dict__[name],
                    doc=f"`{name}`, as given or resolved at construction (read-only).")


# The fields are read-only properties of the class, as the original's: the dataclass
# left their defaults there as plain class attributes (`RunConfig.model_dir` was None).
# __setattr__ keeps writing the values into the instance's __dict__.
for _name in sorted(_FIELD_NAMES):
    setattr(RunConfig, _name, _field_property(_name))
del _name


def _default_distributed_session_config(task_type, task_id):
    """The original's session config for between-graph training (a cluster, no strategy):
    device filters so that a chief or worker talks only to the ps tasks and itself."""
    filters = {
        TaskType.MASTER: ["/job:ps", "/job:master"],
        TaskType.CHIEF: ["/job:ps", "/job:chief"],
        TaskType.WORKER: ["/job:ps", f"/job:worker/task:{task_id}"],
        TaskType.PS: ["/job:ps", "/job:worker", "/job:chief", "/job:master"],
    }.get(task_type)
    if filters is None:  # The evaluator: no filters, no default.
        return None
    config = get_default_session_config()
    config.device_filters.extend(filters)
    return config


def _is_v1_ps_strategy(strategy) -> bool:
    return isinstance(strategy, tf.compat.v1.distribute.experimental.ParameterServerStrategy)


def _check_ps_strategy(strategy, num_ps_replicas: int) -> None:
    """The v1 ParameterServerStrategy runs as no strategy does: it needs `ps` tasks."""
    if _is_v1_ps_strategy(strategy) and not num_ps_replicas:
        raise ValueError(
                "tf.compat.v1.distribute.experimental.ParameterServerStrategy needs `ps` tasks "
                "in TF_CONFIG's cluster (parameter-server training, docs/multi_worker.md). "
                "Without them use no strategy, tf.distribute.MirroredStrategy on one machine or "
                "tf.distribute.MultiWorkerMirroredStrategy across machines.")


def _check_strategy(strategy):
    if strategy is None or _is_v1_ps_strategy(strategy):  # The latter: _check_ps_strategy.
        return
    if isinstance(strategy, tf.distribute.experimental.ParameterServerStrategy) or \
            type(strategy).__name__.startswith("ParameterServerStrategy"):
        raise ValueError(
            "Please use `tf.compat.v1.distribute.experimental.ParameterServerStrategy` for "
            "parameter server strategy with estimator (or no strategy: a TF_CONFIG cluster "
            "with `ps` tasks trains on parameter servers by default, docs/multi_worker.md). "
            "tf.distribute.experimental.ParameterServerStrategy needs a ClusterCoordinator "
            "(Keras model.fit or a custom loop).")
    if not isinstance(strategy, (tf.distribute.Strategy, tf.compat.v1.distribute.Strategy)):
        raise ValueError(
            "`train_distribute` / `eval_distribute` must be a tf.distribute.Strategy. "
            f"Received: {type(strategy).__name__}.")
