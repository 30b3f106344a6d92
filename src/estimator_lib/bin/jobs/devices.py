"""Choosing the devices and the distribution strategy of a run.

GPUs when present, else logical CPU devices: the one CPU split into N devices
that share the same cores. They show that N replicas train correctly in sync,
not a speed-up. A TF_CONFIG naming several chief/worker tasks makes the run one
task of a multi-worker job (distribute/job_shape.training_tasks_in_tf_config says so):
MultiWorkerMirroredStrategy over every task.
"""

import dataclasses
import os
from typing import List, Optional

import tensorflow as tf

from estimator_lib.bin.jobs import device_count

# Re-exported: the count rules need no TensorFlow (the binaries check before it loads).
MIN_CPU_DEVICE_LIMIT = device_count.MIN_CPU_DEVICE_LIMIT
cpu_device_limit = device_count.cpu_device_limit
check_count = device_count.check_count


def count_gpus() -> int:
    """Counts the physical GPUs TensorFlow sees (does not initialise the runtime)."""
    return len(tf.config.list_physical_devices("GPU"))


@dataclasses.dataclass(frozen=True)
class Devices:
    """The devices of a run: their names and what they are."""

    names: List[str]
    kind: str  # "GPU" or "CPU"

    @property
    def shared_cores(self) -> bool:
        """True for logical CPU devices: every replica runs on the same cores."""
        return self.kind == "CPU" and len(self.names) > 1

    def describe(self) -> str:
        """Describes for the logs and the summary how many devices there are, and what they are."""
        count = len(self.names)
        if self.kind == "GPU":
            return f"{count} GPU(s)"
        if count == 1:
            return f"the CPU ({os.cpu_count()} cores)"
        return (f"{count} logical CPU devices that share the same {os.cpu_count()} cores "
                "(they show correctness, not speed-up)")


def configure(num_devices: int) -> Devices:
    """Returns `num_devices` devices, splitting the CPU when there is no GPU.

    Must run before TensorFlow initialises its runtime (once per process); a CPU
    already split into at least `num_devices` logical devices is kept.

    Raises:
        ValueError: If more devices are asked for than this machine has.
    """
    gpus = count_gpus()
    check_count(num_devices, gpus=gpus)
    if gpus:
        return Devices([f"/gpu:{i}" for i in range(num_devices)], "GPU")
    if num_devices > 1:
        cpu = tf.config.list_physical_devices("CPU")[0]
        existing = tf.config.get_logical_device_configuration(cpu) or []
        if len(existing) < num_devices:
            try:
                tf.config.set_logical_device_configuration(
                    cpu, [tf.config.LogicalDeviceConfiguration()] * num_devices)
            except RuntimeError:
                raise ValueError(
                    f"--num_devices={num_devices}: this process already initialised "
                    f"TensorFlow with {max(len(existing), 1)} CPU device(s); logical "
                    "devices can only be set before that (run a new process).") from None
    return Devices([f"/cpu:{i}" for i in range(num_devices)], "CPU")


def make_cross_device_ops(name: str, *, gpus: int):
    """Makes the all-reduce of MirroredStrategy for a --cross_device_ops value; None: TF's."""
    if name == "auto":
        return None
    if name == "nccl":
        if not gpus:
            raise ValueError(
                "--cross_device_ops=nccl needs GPUs (NCCL all-reduce); this machine has none. "
                "Use --cross_device_ops=auto, reduction_to_one or hierarchical_copy.")
        return tf.distribute.NcclAllReduce()
    if name == "reduction_to_one":
        return tf.distribute.ReductionToOneDevice()
    if name == "hierarchical_copy":
        return tf.distribute.HierarchicalCopyAllReduce()
    raise ValueError(f"Unknown --cross_device_ops={name}.")


MULTI_WORKER = "multi_worker_mirrored"


def check_multi_worker(strategy_name: str, num_devices: int, *, gpus: int,
                       workers: int) -> None:
    """Raises ValueError when a multi-worker run cannot use these settings.

    Args:
        strategy_name: The --strategy flag's value.
        num_devices: Devices per worker.
        gpus: How many GPUs this machine has.
        workers: How many worker processes the job has.

    Raises:
        ValueError: If the strategy, device count, GPUs and workers do not fit together.
    """
    if strategy_name in ("one_device", "none"):
        raise ValueError(
            f"TF_CONFIG names {workers} chief/worker tasks (a multi-worker job, trained with "
            f"MultiWorkerMirroredStrategy), but --distribution_strategy={strategy_name} "
            "trains on one device; use auto or mirrored, or unset TF_CONFIG.")
    if num_devices > 1 and not gpus:
        raise ValueError(
            f"--num_devices={num_devices} with a multi-worker TF_CONFIG ({workers} tasks): "
            "MultiWorkerMirroredStrategy runs one CPU replica per worker; use "
            "--num_devices=1 (or GPUs).")


def make_multi_worker_strategy() -> tf.distribute.Strategy:
    """Makes a MultiWorkerMirroredStrategy from TF_CONFIG (waits for every task to start).

    The wait is bounded by ESTIMATOR_LIB_CLUSTER_WAIT_SECS once estimator_lib is
    imported (docs/multi_worker.md).
    """
    return tf.distribute.MultiWorkerMirroredStrategy()


def resolve_strategy_name(name: str, num_devices: int) -> str:
    """Resolves 'auto': 'mirrored' for several devices and 'none' for one."""
    if name == "auto":
        return "mirrored" if num_devices > 1 else "none"
    return name


def make_strategy(devices: Devices, *, name: str = "auto",
                  cross_device_ops: str = "auto") -> Optional[tf.distribute.Strategy]:
    """Makes the strategy called `name` over `devices`, or None for 'none'.

    Args:
        devices: The devices to run on.
        name: The strategy's name ('auto', 'none', 'mirrored', ...).
        cross_device_ops: The all-reduce implementation ('auto', 'nccl', ...).

    Returns:
        A `tf.distribute.Strategy`, or None.

    Raises:
        ValueError: If the strategy cannot run on these devices.
    """
    name = resolve_strategy_name(name, len(devices.names))
    if name == "none":
        return None
    if name == "one_device":
        return tf.distribute.OneDeviceStrategy(devices.names[0])
    if name == "mirrored":
        ops = make_cross_device_ops(cross_device_ops,
                                    gpus=len(devices.names) if devices.kind == "GPU" else 0)
        return tf.distribute.MirroredStrategy(devices.names, cross_device_ops=ops)
    raise ValueError(f"Unknown --distribution_strategy={name}.")
