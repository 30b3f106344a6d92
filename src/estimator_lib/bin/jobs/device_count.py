"""How many devices a run may ask for, decided without TensorFlow.

The binaries check --num_devices (and --devices) against this before TensorFlow
loads where the GPU count is knowable without it (no NVIDIA device files: no GPU);
devices.py checks again with TensorFlow's own count.
"""

import os
from typing import Optional

# Logical CPU devices allowed without GPUs: enough for --devices=1,2,4,8.
MIN_CPU_DEVICE_LIMIT = 8


def cpu_device_limit() -> int:
    """Returns the most logical CPU devices a run may ask for."""
    return max(MIN_CPU_DEVICE_LIMIT, os.cpu_count() or 1)


def check_count(num_devices: int, *, gpus: int, asked: Optional[str] = None) -> None:
    """Raises ValueError when `num_devices` is more than this machine can give.

    `asked` names the flag in the message (default `--num_devices=N`).

    Args:
        num_devices: The number of devices asked for.
        gpus: How many GPUs this machine has.
        asked: How the message names the request; None for `--num_devices=N`.
    """
    asked = asked or f"--num_devices={num_devices}"
    if gpus:
        if num_devices > gpus:
            raise ValueError(
                f"{asked} but this machine has {gpus} GPU(s); ask for 1 to {gpus}.")
    elif num_devices > cpu_device_limit():
        raise ValueError(
            f"{asked} but this machine has no GPU, and at most {cpu_device_limit()} logical "
            f"CPU devices are allowed (they share the same {os.cpu_count()} cores).")
