"""The global batch (every replica and worker) and examples/sec: pure arithmetic.

Under MirroredStrategy the input_fn's batch is per replica, so with N replicas each
step consumes N times that batch; `make_global_batch` says how many examples a step
takes over all replicas and workers, and `examples_per_second` turns step times into
examples/sec, warm-up steps excluded. hooks/throughput.py's hooks use them.
"""

import dataclasses
import numbers
from typing import Optional, Sequence

def examples_per_second(batch_size: int, step_times: Sequence[float],
                        warm_steps: int = 0, *,
                        steps: Optional[Sequence[int]] = None) -> float:
    """Examples per second over the steps after warm-up.

    Args:
        batch_size: Examples each step consumes, over all replicas and workers.
        step_times: Wall seconds of each step, in order; of each session run
            when `steps` is given.
        warm_steps: Leading steps to leave out (graph optimisation, first input);
            with `steps`, whole runs until at least that many steps are out.
        steps: The steps each entry of `step_times` made, when a run makes
            several (`RunConfig.steps_per_run`); one each when None.

    Returns:
        `batch_size * measured_steps / sum(measured step times)`.

    Raises:
        ValueError: If `batch_size` is not positive, `warm_steps` is negative,
            `steps` and `step_times` differ in length, no step follows the
            warm-up, or the measured steps took no time.
    """
    check_non_negative_int("warm_steps", warm_steps)
    step_times = list(step_times)
    counts = [1] * len(step_times) if steps is None else [int(n) for n in steps]
    if len(counts) != len(step_times):
        raise ValueError(
            "`steps` must give the steps of each entry of `step_times`. Received: "
            f"{len(counts)} step count(s) for {len(step_times)} time(s).")
    first = warm_seen = 0
    while first < len(counts) and warm_seen < warm_steps:
        warm_seen += counts[first]
        first += 1
    measured = step_times[first:]
    if not measured:
        raise ValueError(
            f"No step follows the {warm_steps} warm-up step(s): measure more steps or lower "
            f"`warm_steps`. Received: {len(step_times)} step time(s).")
    return examples_per_second_over(batch_size, steps=sum(counts[first:]),
                                    seconds=sum(measured))


def examples_per_second_over(batch_size: int, *, steps: int, seconds: float) -> float:
    """`batch_size * steps / seconds`: the same figure from running totals.

    Args:
        batch_size: The global batch size.
        steps: How many steps ran.
        seconds: In how many seconds.

    Returns:
        Examples per second.

    Raises:
        ValueError: If `batch_size` or `steps` is not positive, or `seconds` is not.

    Examples:
        >>> examples_per_second_over(256, steps=100, seconds=20.0)
        1280.0
    """
    check_positive_int("batch_size", batch_size)
    check_positive_int("steps", steps)
    if not seconds > 0:
        raise ValueError(
            f"The measured steps must take time. Received: seconds={float(seconds)} over "
            f"{steps} step(s).")
    return batch_size * steps / float(seconds)


@dataclasses.dataclass(frozen=True)
class GlobalBatch:
    """The examples one training step consumes: per replica x replicas x workers."""

    per_replica: int
    replicas_per_worker: int = 1
    workers: int = 1

    @property
    def size(self) -> int:
        """The global batch: examples per replica x replicas per worker x workers."""
        return self.per_replica * self.replicas_per_worker * self.workers

    def __str__(self):
        return (f"{self.size} = {self.per_replica} per replica x {self.replicas_per_worker} "
                f"replica(s) x {self.workers} worker(s)")


def make_global_batch(per_replica_batch_size: int, *, strategy=None,
                      config=None) -> GlobalBatch:
    """The global batch of a step, from the per-replica batch the input_fn makes.

    As with the original Estimator, an input_fn under `train_distribute` batches
    per replica, and each replica of each worker takes its own batch every step.
    `num_replicas_in_sync` already counts every worker's replicas for
    MultiWorkerMirroredStrategy (local devices x workers); it is split here only
    to say so in logs. Without a strategy a step is one batch; in asynchronous
    (parameter-server) training each worker then reports its own examples.

    Args:
        per_replica_batch_size: The batch size the input_fn's dataset uses.
        strategy: The `tf.distribute` strategy training runs under, if any.
        config: A RunConfig; its `train_distribute` is used when `strategy` is None.

    Returns:
        A GlobalBatch; `.size` is what ExamplesPerSecondHook's `batch_size` wants.

    Raises:
        ValueError: If the batch is not a positive int, or `strategy` and
            `config.train_distribute` are two different strategies.

    Examples:
        >>> batch = make_global_batch(32)
        >>> batch.size, str(batch)
        (32, '32 = 32 per replica x 1 replica(s) x 1 worker(s)')
        >>> make_global_batch(0)
        Traceback (most recent call last):
        ...
        ValueError: `per_replica_batch_size` must be a positive int. Received: ...=0.
    """
    check_positive_int("per_replica_batch_size", per_replica_batch_size)
    from_config = getattr(config, "train_distribute", None) if config is not None else None
    if strategy is not None and from_config is not None and strategy is not from_config:
        raise ValueError(
            "`strategy` and `config.train_distribute` name different strategies; pass one. "
            f"Received: strategy={strategy!r}, config.train_distribute={from_config!r}.")
    strategy = strategy if strategy is not None else from_config
    if strategy is None:
        return GlobalBatch(per_replica_batch_size)
    replicas = int(strategy.num_replicas_in_sync)
    local = len(getattr(strategy.extended, "worker_devices", ()) or ()) or replicas
    workers = replicas // local if replicas % local == 0 else 1
    return GlobalBatch(per_replica_batch_size, replicas // workers, workers)


def global_batch_size(per_replica_batch_size: int, *, strategy=None, config=None) -> int:
    """`make_global_batch(...).size`: examples per step over all replicas and workers.

    Args:
        per_replica_batch_size: The batch each replica's input_fn gives.
        strategy: The distribution strategy; None reads it from `config`.
        config: The `RunConfig`, or None.

    Returns:
        The global batch size.
    """
    return make_global_batch(per_replica_batch_size, strategy=strategy, config=config).size


def check_positive_int(name: str, value) -> None:
    """Raises a ValueError naming `name` unless `value` is an int > 0 (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
        raise ValueError(f"`{name}` must be a positive int. Received: {name}={value!r}.")


def check_non_negative_int(name: str, value) -> None:
    """Raises a ValueError naming `name` unless `value` is an int >= 0 (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"`{name}` must be an int >= 0. Received: {name}={value!r}.")
