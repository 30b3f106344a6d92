"""Choosing the devices for a run: GPUs when present, else logical CPU devices."""

from typing import List, Optional

import tensorflow as tf


def configure(num_devices: int) -> List[str]:
    """Returns `num_devices` device names, splitting the CPU when there is no GPU.

    Must run before TensorFlow initialises its runtime (once per process).

    Raises:
        ValueError: If more GPUs are asked for than exist.
    """
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        if num_devices > len(gpus):
            raise ValueError(
                f"--num_devices={num_devices} but this machine has {len(gpus)} GPU(s).")
        return [f"/gpu:{i}" for i in range(num_devices)]
    if num_devices > 1:
        cpu = tf.config.list_physical_devices("CPU")[0]
        existing = tf.config.get_logical_device_configuration(cpu) or []
        if len(existing) < num_devices:
            tf.config.set_logical_device_configuration(
                cpu, [tf.config.LogicalDeviceConfiguration()] * num_devices)
    return [f"/cpu:{i}" for i in range(num_devices)]


def make_strategy(devices: List[str]) -> Optional[tf.distribute.Strategy]:
    """MirroredStrategy over `devices`, or None for a single device."""
    if len(devices) == 1:
        return None
    return tf.distribute.MirroredStrategy(devices)
