"""Argument checks shared by TPUConfig and TPUEstimator (module name as the original's)."""

import collections
import numbers
import re

# The original module's hook, at its original module path.
from estimator_lib.tpu.host_helpers import MultiHostDatasetInitializerHook  # noqa: F401

# `iterations_per_loop`: a positive count, or a duration `<N>s`, `<N>m` or `<N>h`.
_ITERATIONS_PER_LOOP_PATTERN = re.compile(r"^(?P<value>[1-9]\d*)(?P<suffix>[smh])?$")
_SECONDS_PER_UNIT = {"s": 1, "m": 60, "h": 3600}

IterationsPerLoopCounter = collections.namedtuple("IterationsPerLoopCounter",
                                                  ["value", "unit"])


def check_positive_integer(value, name: str) -> None:
    """Raises TypeError unless `value` is an int (or numpy integer), ValueError unless > 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be int, got {type(value)}")
    if value <= 0:
        raise ValueError(f"{name} must be positive, got {value}")


def parse_iterations_per_loop(iterations_per_loop) -> IterationsPerLoopCounter:
    """Parses `TPUConfig.iterations_per_loop` into (value, unit).

    Args:
        iterations_per_loop: A positive int (unit `count`), or a string `<N>s`, `<N>m`,
            `<N>h` (unit `seconds`, the value converted to seconds).

    Returns:
        An `IterationsPerLoopCounter(value, unit)`.

    Raises:
        ValueError: If the value is neither form (the message says "must be positive").
    """
    match = _ITERATIONS_PER_LOOP_PATTERN.match(str(iterations_per_loop))
    if match is None:
        raise ValueError(
            "Invalid TPUConfig `iterations_per_loop` value. Value must be positive integer "
            "value or time-based value `<N><s|m|h>` where <N> is any positive integer and "
            "`s`, `m`, `h` are unit of time in seconds, minutes, hours respectively. "
            "Examples of valid values: `3600s`, `60m`, `1h`. Received: "
            f"iterations_per_loop={iterations_per_loop!r}.")
    value = int(match.group("value"))
    suffix = match.group("suffix")
    if suffix is None:
        return IterationsPerLoopCounter(value, "count")
    return IterationsPerLoopCounter(value * _SECONDS_PER_UNIT[suffix], "seconds")
