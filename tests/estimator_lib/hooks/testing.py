"""Fakes shared by the hook tests: a settable clock, hand-made run values, tiny inputs."""

import tensorflow as tf


class FakeClock:
    """A clock tests move by hand: `clock()` returns `clock.now`."""

    def __init__(self, now: float = 100.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


def run_steps(hook, clock, durations, *, gap=0.0, results=None):
    """Drives `hook` through one before_run/after_run pair per duration.

    Each step takes `duration` seconds of the fake clock inside the run and `gap`
    seconds between runs (other hooks, the loop). `results(i)` gives run i's results.
    """
    for i, duration in enumerate(durations):
        hook.before_run(None)
        clock.now += duration
        value = results(i) if results else None
        hook.after_run(None, tf.compat.v1.train.SessionRunValues(
            results=value, options=None, run_metadata=tf.compat.v1.RunMetadata()))
        clock.now += gap


def mirrored_strategy():
    return tf.distribute.MirroredStrategy(["CPU:0", "CPU:1"])
