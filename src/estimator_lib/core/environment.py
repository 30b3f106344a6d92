"""Every environment variable estimator_lib reads, read here and nowhere else.

- `TF_CONFIG`: the cluster and this task (`tf_config_text`; parsed by core/tf_config.py).
- `ESTIMATOR_LIB_CLUSTER_WAIT_SECS`: how long a multi-worker or parameter-server task
  waits for the cluster's other tasks (`cluster_wait_secs`).
- `TF_CPP_MIN_LOG_LEVEL`: whether the user chose TensorFlow's C++ log level
  (`tf_cpp_log_level_chosen`). Only the entry points (the binaries and
  `python -m estimator_lib.run`) set it, for their own process, when the user has not
  (`default_tf_cpp_log_level`); the library never does.

(`TF_USE_LEGACY_KERAS` is written, not read, by core/keras_switch.py.)
"""

import math
import os
from typing import Mapping, Optional

TF_CONFIG_VARIABLE = "TF_CONFIG"
WAIT_SECS_VARIABLE = "ESTIMATOR_LIB_CLUSTER_WAIT_SECS"
TF_CPP_LOG_VARIABLE = "TF_CPP_MIN_LOG_LEVEL"
DEFAULT_WAIT_SECS = 600.0  # Tasks of a real job may start minutes apart.


def tf_config_text(environ: Optional[Mapping[str, str]] = None) -> str:
    """The TF_CONFIG environment variable's text ('' when unset)."""
    return (os.environ if environ is None else environ).get(TF_CONFIG_VARIABLE, "")


def cluster_wait_secs(environ: Optional[Mapping[str, str]] = None) -> Optional[float]:
    """The bound from ESTIMATOR_LIB_CLUSTER_WAIT_SECS; None means wait forever.

    Read when a wait starts, so a program may set it after importing estimator_lib.

    Raises:
        ValueError: If the variable holds neither a number >= 0 nor 'inf'.
    """
    raw = (os.environ if environ is None else environ).get(WAIT_SECS_VARIABLE, "").strip()
    if not raw:
        return DEFAULT_WAIT_SECS
    try:
        secs = float(raw)
    except ValueError:
        secs = math.nan
    if not secs >= 0:  # Also refuses nan.
        raise ValueError(
            f"{WAIT_SECS_VARIABLE} must be a number of seconds > 0 (the default is "
            f"{DEFAULT_WAIT_SECS:g}), or 0 or 'inf' to wait forever as TensorFlow does. "
            f"Received: {WAIT_SECS_VARIABLE}={raw!r}.")
    return None if secs in (0.0, math.inf) else secs


def tf_cpp_log_level_chosen(environ: Optional[Mapping[str, str]] = None) -> bool:
    """Whether TF_CPP_MIN_LOG_LEVEL is set (the user chose TensorFlow's C++ log level)."""
    return TF_CPP_LOG_VARIABLE in (os.environ if environ is None else environ)


def default_tf_cpp_log_level(level: str) -> bool:
    """Sets TF_CPP_MIN_LOG_LEVEL=`level` in this process unless already set.

    For entry points only (they own their process); must run before TensorFlow loads.
    Returns whether it was set here.
    """
    if tf_cpp_log_level_chosen():
        return False
    os.environ[TF_CPP_LOG_VARIABLE] = level
    return True
