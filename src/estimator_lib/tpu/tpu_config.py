"""TPUConfig, InputPipelineConfig and the TPU RunConfig (tf.compat.v1.estimator.tpu).

Same fields, defaults and validation as the original, so configurations written
for TPUEstimator load unchanged. On CPUs and GPUs (`TPUEstimator(use_tpu=False)`)
only `iterations_per_loop` has an effect (how often step rates are logged).
"""

import collections
import copy

import tensorflow as tf

from estimator_lib.core import run_config as core_run_config
from estimator_lib.core import tf_config
from estimator_lib.distribute import job_shape
from estimator_lib.tpu import util

_TPU_WORKER_JOB_NAME = "tpu_worker_job_name"
_CORES_PER_REPLICA = (1, 2, 4, 8, 16, 32, 64, 128)


class InputPipelineConfig:
    """How the input_fn is deployed on TPU hosts; see TPUConfig.

    Examples:
        >>> from estimator_lib import tpu
        >>> config = tpu.TPUConfig(per_host_input_for_training=tpu.InputPipelineConfig.PER_HOST_V2)
        >>> config.per_host_input_for_training == tpu.InputPipelineConfig.PER_HOST_V2
        True
    """

    PER_SHARD_V1 = 1
    PER_HOST_V1 = 2
    PER_HOST_V2 = 3
    BROADCAST = 4
    SLICED = 5


_TPU_CONFIG_FIELDS = (
    "iterations_per_loop", "num_shards", "num_cores_per_replica",
    "per_host_input_for_training", "tpu_job_name", "initial_infeed_sleep_secs",
    "input_partition_dims", "eval_training_input_configuration",
    "experimental_host_call_every_n_steps",
    "experimental_allow_per_host_v2_parallel_get_next", "experimental_feed_hook")


class TPUConfig(collections.namedtuple("TPUConfig", _TPU_CONFIG_FIELDS)):
    """TPU settings of a TPUEstimator run (the original's fields and checks).

    Args:
        iterations_per_loop: Training steps per session run on a TPU: a positive int,
            or a duration `<N>s` / `<N>m` / `<N>h`. With `use_tpu=False` training runs
            one step per session run, as the original did on CPU; the value only
            divides `log_step_count_steps` (step rates are logged every
            ceil(log_step_count_steps / iterations_per_loop) steps), or with a
            duration sets the logging period in seconds.
        num_shards: Deprecated number of replicas; a positive int or None.
        num_cores_per_replica: Model-parallel cores per replica: 1, 2, 4, ..., 128.
        per_host_input_for_training: True / False or an InputPipelineConfig value
            (True maps to PER_HOST_V1, False to PER_SHARD_V1).
        tpu_job_name: The TPU job's name; read from TF_CONFIG's
            `service.tpu_worker_job_name` when not given.
        initial_infeed_sleep_secs: Positive int or None.
        input_partition_dims: One or two nested lists; needs PER_HOST_V2 and
            num_cores_per_replica.
        eval_training_input_configuration: PER_HOST_V1 or SLICED.
        experimental_host_call_every_n_steps: How often host calls run on a TPU.
        experimental_allow_per_host_v2_parallel_get_next: TPU input option.
        experimental_feed_hook: TPU infeed/outfeed hook class.

    Raises:
        ValueError: For values the original rejected (messages as the original's).
        TypeError: If `num_shards` or `initial_infeed_sleep_secs` is not an int.

    Examples:
        >>> from estimator_lib import tpu
        >>> config = tpu.TPUConfig(iterations_per_loop=10)
        >>> config.iterations_per_loop, config.per_host_input_for_training
        (10, 2)
        >>> tpu.TPUConfig(iterations_per_loop=0)
        Traceback (most recent call last):
            ...
        ValueError: Invalid TPUConfig `iterations_per_loop` value. ...
    """

    def __new__(cls, iterations_per_loop=2, num_shards=None, num_cores_per_replica=None,
                per_host_input_for_training=True, tpu_job_name=None,
                initial_infeed_sleep_secs=None, input_partition_dims=None,
                eval_training_input_configuration=InputPipelineConfig.PER_HOST_V1,
                experimental_host_call_every_n_steps=1,
                experimental_allow_per_host_v2_parallel_get_next=False,
                experimental_feed_hook=None):
        util.parse_iterations_per_loop(iterations_per_loop)
        if num_shards is not None:
            util.check_positive_integer(num_shards, "TPUConfig num_shards")
        if input_partition_dims is not None:
            if len(input_partition_dims) not in (1, 2):
                raise ValueError(
                    "input_partition_dims must be a list/tuple with one or two elements.")
            if per_host_input_for_training is not InputPipelineConfig.PER_HOST_V2:
                raise ValueError("input_partition_dims is only supported in PER_HOST_V2 mode.")
            if num_cores_per_replica is None:
                raise ValueError("input_partition_dims requires setting num_cores_per_replica.")
        if num_cores_per_replica is not None and num_cores_per_replica not in _CORES_PER_REPLICA:
            raise ValueError(
                "num_cores_per_replica must be 1, 2, 4, 8, 16, 32, 64, 128; "
                f"got {num_cores_per_replica}")
        if eval_training_input_configuration not in (InputPipelineConfig.PER_HOST_V1,
                                                     InputPipelineConfig.SLICED):
            raise ValueError(
                "eval_training_input_configuration must be PER_HOST_V1 or SLICED; "
                f"got {eval_training_input_configuration}")
        # The legacy booleans name the per-shard and per-host pipelines.
        if per_host_input_for_training is False:
            per_host_input_for_training = InputPipelineConfig.PER_SHARD_V1
        elif per_host_input_for_training is True:
            per_host_input_for_training = InputPipelineConfig.PER_HOST_V1
        if initial_infeed_sleep_secs:
            util.check_positive_integer(initial_infeed_sleep_secs,
                                        "TPUConfig initial_infeed_sleep_secs")
        tpu_job_name = tpu_job_name or _tpu_job_name_from_tf_config()
        return super().__new__(
            cls, iterations_per_loop, num_shards, num_cores_per_replica,
            per_host_input_for_training, tpu_job_name, initial_infeed_sleep_secs,
            input_partition_dims, eval_training_input_configuration,
            experimental_host_call_every_n_steps,
            experimental_allow_per_host_v2_parallel_get_next, experimental_feed_hook)


def _tpu_job_name_from_tf_config():
    service = tf_config.read_tf_config().get("service") or {}
    name = service.get(_TPU_WORKER_JOB_NAME)
    if name:
        tf.compat.v1.logging.info("Load TPU job name from TF_CONFIG: %s", name)
    return name


class RunConfig(core_run_config.RunConfig):
    """estimator_lib's RunConfig with the TPU fields (tf.compat.v1.estimator.tpu.RunConfig).

    Args:
        tpu_config: A TPUConfig (default `TPUConfig()`).
        evaluation_master: Address of the evaluation master; defaults to `master`
            unless TF_CONFIG names an evaluator task.
        master: Address of the training master; defaults to TF_CONFIG's.
        cluster: A `tf.distribute.cluster_resolver.ClusterResolver`; its master and
            cluster spec are used (its cluster_def is put into `session_config`).
        **kwargs: The RunConfig fields (model_dir, save_checkpoints_steps, ...).

    Raises:
        ValueError: If both `master` and `cluster` are given, or `cluster` is given
            with a `session_config` that already has a cluster_def.

    Examples:
        >>> import tempfile
        >>> from estimator_lib import tpu
        >>> config = tpu.RunConfig(model_dir=tempfile.mkdtemp(),
        ...                        tpu_config=tpu.TPUConfig(iterations_per_loop=10))
        >>> config.tpu_config.iterations_per_loop, config.save_checkpoints_steps is None
        (10, True)
    """

    def __init__(self, tpu_config=None, evaluation_master=None, master=None, cluster=None,
                 **kwargs):
        if cluster is not None and master is not None:
            raise ValueError("Both master and cluster are set.")
        session_config = kwargs.get("session_config")
        cluster_spec = None
        if cluster is not None:
            cluster_spec = cluster.cluster_spec()
            if session_config is None:
                session_config = tf.compat.v1.ConfigProto(
                    allow_soft_placement=True, isolate_session_state=True)
            else:
                session_config = copy.deepcopy(session_config)
            if session_config.HasField("cluster_def"):
                raise ValueError(
                    "You cannot provide a ClusterResolver and session_config.cluster_def.")
            if cluster_spec:
                session_config.cluster_def.CopyFrom(cluster_spec.as_cluster_def())
            kwargs["session_config"] = session_config
        super().__init__(**kwargs)
        if kwargs.get("session_config") is None:
            # As the original's TPU RunConfig: no distributed default session config
            # (device filters) from a TF_CONFIG cluster. The field's value, under its
            # read-only property.
            self.__dict__["session_config"] = None
        if master is None:
            master = cluster.master() if cluster is not None else super().master
        if evaluation_master is None:
            evaluation_master = super().evaluation_master
            # Outside a cluster manager's evaluator task, evaluation uses the training
            # master unless told otherwise.
            if not evaluation_master and not job_shape.role_of(self).is_evaluator:
                evaluation_master = master
        object.__setattr__(self, "_tpu_config", tpu_config or TPUConfig())
        object.__setattr__(self, "_tpu_master", master)
        object.__setattr__(self, "_tpu_evaluation_master", evaluation_master)
        object.__setattr__(self, "_tpu_cluster", cluster)
        object.__setattr__(self, "_tpu_cluster_spec", cluster_spec)

    tpu_config = property(lambda self: self._tpu_config,
                          doc="The `TPUConfig` given (or the default one).")
    master = property(lambda self: self._tpu_master,
                      doc="The training master: as given, the resolver's, or TF_CONFIG's.")
    evaluation_master = property(lambda self: self._tpu_evaluation_master,
                                 doc="The evaluation master (see the constructor's Args).")
    cluster = property(lambda self: self._tpu_cluster,
                       doc="The `ClusterResolver` given, or None.")

    @property
    def cluster_spec(self):
        """The cluster resolver's `tf.train.ClusterSpec`, else TF_CONFIG's."""
        # Also read by RunConfig's own initialisation, before ours has set the field.
        spec = getattr(self, "_tpu_cluster_spec", None)
        return spec if spec is not None else super().cluster_spec

    def replace(self, **kwargs) -> "RunConfig":
        """Returns a copy with RunConfig fields and/or `tpu_config` replaced.

        The masters and cluster resolver are kept, as the original's replace did.
        """
        tpu_config = kwargs.pop("tpu_config", self._tpu_config)
        new = super().replace(**kwargs)
        for name in ("_tpu_master", "_tpu_evaluation_master", "_tpu_cluster",
                     "_tpu_cluster_spec"):
            object.__setattr__(new, name, getattr(self, name))
        object.__setattr__(new, "_tpu_config", tpu_config)
        return new

    def as_dict(self):
        """Returns every field and property, the TPU ones included, for logging.

        Returns:
            A dict of name to value: RunConfig's, plus `master`, `evaluation_master`,
            `tpu_config` and `cluster`.
        """
        values = super().as_dict()
        values.update(master=self.master, evaluation_master=self.evaluation_master,
                      tpu_config=self.tpu_config, cluster=self.cluster)
        return values
