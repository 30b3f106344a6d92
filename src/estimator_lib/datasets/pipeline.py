"""tf.data builders in the vocabulary of the Estimator era.

The card names `list_files`, `shuffle_and_repeat`, `map_and_batch` and
`prefetch`; `tf.contrib.data` is gone, so these are thin functions that give
today's fused, autotuned equivalents and keep the parallelism the legacy
names implied (a `.map().batch()` port without `num_parallel_calls` runs at
less than half the speed).

The input_fn contract is here too: `wrap_input_fn` turns a builder into a
function taking the optional `mode`, `params`, `config` and `input_context`
arguments the Estimator passes by name, and `shard_for_input_context` /
`resolve_batch_size` apply the input context the same way in every dataset.
"""

import dataclasses
import functools
from typing import Any, Callable, Optional, Sequence, Union

import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE

# The values of tf.estimator.ModeKeys; datasets/ never imports the library,
# and the library's ModeKeys compare equal to these strings.
TRAIN = "train"
EVAL = "eval"
PREDICT = "infer"
MODES = (TRAIN, EVAL, PREDICT)

InputFn = Callable[..., tf.data.Dataset]


@dataclasses.dataclass(frozen=True)
class InputFnCall:
    """What an input_fn was called with, resolved against its builder.

    Attributes:
        mode: One of TRAIN, EVAL, PREDICT.
        params: The Estimator's params dict, or None.
        config: The Estimator's RunConfig, or None.
        input_context: A `tf.distribute.InputContext`, or None.
    """

    mode: str
    params: Optional[dict] = None
    config: Any = None
    input_context: Optional[tf.distribute.InputContext] = None


def check_mode(mode: Optional[str], *, allow_none: bool = True) -> None:
    """Raises ValueError unless `mode` is a known mode (or None if allowed)."""
    if mode is None and allow_none:
        return
    if mode not in MODES:
        raise ValueError(
            f"`mode` must be one of {MODES} (tf.estimator.ModeKeys values). "
            f"Received: mode={mode!r}.")


def wrap_input_fn(build: Callable[[InputFnCall], tf.data.Dataset], *,
                  mode: Optional[str] = None,
                  name: str = "input_fn") -> InputFn:
    """Makes an input_fn with the optional arguments the Estimator passes.

    Args:
        build: Called with an `InputFnCall`; returns the dataset.
        mode: The mode fixed by the builder. None takes the caller's mode.
        name: The `__name__` the input_fn gets (shown in logs).

    Returns:
        `input_fn(mode=None, params=None, config=None, input_context=None)`.
        A mode fixed by the builder wins over the caller's: an EVAL input_fn
        handed to `train` still reads its data once, in order.

    Raises:
        ValueError: If `mode` is unknown.
    """
    check_mode(mode)
    fixed_mode = mode

    def input_fn(mode=None, params=None, config=None, input_context=None):
        """The dataset for one Estimator call (`help()` on a built input_fn shows this).

        Args:
            mode: The caller's ModeKeys value; a mode fixed by the builder wins.
            params: The Estimator's params (unused by the builders here).
            config: The Estimator's RunConfig.
            input_context: The `tf.distribute.InputContext` under a strategy that
                shards input per pipeline, else None.

        Returns:
            A `tf.data.Dataset` of (features, labels), or features in PREDICT.

        Raises:
            ValueError: If no mode was given to the builder or the call.
        """
        effective = fixed_mode if fixed_mode is not None else mode
        if effective is None:
            raise ValueError(
                "`mode` was given neither to the input_fn builder nor by the "
                "caller. Received: mode=None. Pass mode=TRAIN, EVAL or "
                "PREDICT to the builder, or call input_fn(mode=...).")
        check_mode(effective, allow_none=False)
        return build(InputFnCall(mode=effective, params=params, config=config,
                                 input_context=input_context))

    input_fn.__name__ = name
    input_fn.__qualname__ = name
    return input_fn


def resolve_batch_size(*, batch_size: Optional[int],
                       global_batch_size: Optional[int],
                       input_context: Optional[tf.distribute.InputContext]
                       ) -> int:
    """Returns the batch size one input pipeline must produce.

    `batch_size` is per replica, the original Estimator contract: under
    MirroredStrategy each replica gets a batch of that size and the global
    batch is batch_size x replicas. `global_batch_size` is split with
    `input_context.get_per_replica_batch_size`; without an input context (one
    replica) it is used as is. Exactly one of the two must be given.

    Args:
        batch_size: Examples per replica (the Estimator's contract), or None.
        global_batch_size: Examples per step over all replicas, or None.
        input_context: The `tf.distribute.InputContext` the input_fn got, or
            None.

    Returns:
        The batch size of this pipeline (per replica).

    Raises:
        ValueError: If both or neither are given, a size is not positive, or
            the global batch does not divide across the replicas.
    """
    if (batch_size is None) == (global_batch_size is None):
        raise ValueError(
            "Give exactly one of `batch_size` (per replica) and "
            "`global_batch_size`. Received: batch_size="
            f"{batch_size}, global_batch_size={global_batch_size}.")
    if batch_size is not None:
        _check_positive("batch_size", batch_size)
        return int(batch_size)
    _check_positive("global_batch_size", global_batch_size)
    if input_context is None:
        return int(global_batch_size)
    replicas = input_context.num_replicas_in_sync
    if global_batch_size % replicas:
        raise ValueError(
            f"`global_batch_size` must divide evenly across {replicas} "
            f"replicas. Received: global_batch_size={global_batch_size}.")
    return int(input_context.get_per_replica_batch_size(global_batch_size))


def _check_positive(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(
            f"`{name}` must be a positive integer. Received: {name}={value!r}.")


def check_epochs(epochs: Optional[int]) -> None:
    """Raises ValueError unless `epochs` is None (forever) or positive."""
    if epochs is not None:
        _check_positive("epochs", epochs)


def shard_for_input_context(dataset: tf.data.Dataset,
                            input_context: Optional[tf.distribute.InputContext]
                            ) -> tf.data.Dataset:
    """Keeps this pipeline's share: every num_input_pipelines-th element.

    Shard before shuffling, on a deterministic order, so workers read
    disjoint examples. One pipeline (MirroredStrategy on one machine) reads
    everything: the Estimator's MirroredStrategy path does not split input.
    """
    if input_context is None or input_context.num_input_pipelines <= 1:
        return dataset
    return dataset.shard(input_context.num_input_pipelines,
                         input_context.input_pipeline_id)


def list_files(file_pattern: Union[str, Sequence[str]], *,
               shuffle: bool = False,
               seed: Optional[int] = None) -> tf.data.Dataset:
    """Lists the files matching glob patterns, sorted unless shuffled.

    Matching runs in the graph (no file list frozen into it), after a check
    here so that a pattern matching nothing is a clear error now rather than
    an InvalidArgumentError at the first `session.run`.

    Args:
        file_pattern: A glob, or a list of globs.
        shuffle: Whether to shuffle the file order (else sorted).
        seed: The shuffle seed; None for a random order each run.

    Returns:
        A dataset of file names.

    Raises:
        ValueError: If a pattern matches no file.
    """
    patterns = [file_pattern] if isinstance(file_pattern, str) else list(
        file_pattern)
    if not patterns:
        raise ValueError("`file_pattern` is empty. Received: file_pattern=[]. "
                         "Pass a glob such as '/data/train/*/*.jpeg'.")
    for pattern in patterns:
        if not tf.io.gfile.glob(pattern):
            raise ValueError(
                f"`file_pattern` {pattern!r} matches no file. Check the path "
                "and the extension (e.g. '/data/train/*/*.jpeg').")
    return tf.data.Dataset.list_files(patterns, shuffle=shuffle, seed=seed)


def shuffle_and_repeat(dataset: tf.data.Dataset, *, buffer_size: int,
                       count: Optional[int] = None,
                       seed: Optional[int] = None) -> tf.data.Dataset:
    """Shuffles with a new order each epoch, then repeats `count` times.

    With a seed the sequence of epoch orders is repeatable across runs; each
    epoch still differs from the last. `count=None` repeats forever.

    Args:
        dataset: The `tf.data.Dataset` to transform.
        buffer_size: The shuffle buffer's size, in elements.
        count: How many epochs; None repeats forever.
        seed: The shuffle seed; None for a random order each run.

    Returns:
        The shuffled, repeated dataset.
    """
    _check_positive("buffer_size", buffer_size)
    check_epochs(count)
    dataset = dataset.shuffle(buffer_size, seed=seed,
                              reshuffle_each_iteration=True)
    return dataset.repeat(count)


def map_and_batch(dataset: tf.data.Dataset, map_func: Callable, *,
                  batch_size: int, num_parallel_calls: int = AUTOTUNE,
                  drop_remainder: bool = False,
                  deterministic: Optional[bool] = None) -> tf.data.Dataset:
    """Maps in parallel, then batches; tf.data fuses the two into one kernel.

    Args:
        dataset: The `tf.data.Dataset` to transform.
        map_func: The function mapped over the elements (or, for
            `batch_and_map`, the batches).
        batch_size: Examples per replica (the Estimator's contract), or None.
        num_parallel_calls: How many calls run in parallel (AUTOTUNE by
            default).
        drop_remainder: Whether to drop a last, smaller batch.
        deterministic: Whether to keep the input order; None leaves it to
            tf.data's options.

    Returns:
        The mapped, batched dataset.

    Raises:
        ValueError: If `batch_size` is not positive.
    """
    _check_positive("batch_size", batch_size)
    dataset = dataset.map(map_func, num_parallel_calls=num_parallel_calls,
                          deterministic=deterministic)
    return dataset.batch(batch_size, drop_remainder=drop_remainder)


def batch_and_map(dataset: tf.data.Dataset, map_func: Callable, *,
                  batch_size: int, num_parallel_calls: int = AUTOTUNE,
                  drop_remainder: bool = False,
                  deterministic: Optional[bool] = None) -> tf.data.Dataset:
    """Batches first, then maps whole batches: for vectorised parsing.

    Args:
        dataset: The `tf.data.Dataset` to transform.
        map_func: The function mapped over the elements (or, for
            `batch_and_map`, the batches).
        batch_size: Examples per replica (the Estimator's contract), or None.
        num_parallel_calls: How many calls run in parallel (AUTOTUNE by
            default).
        drop_remainder: Whether to drop a last, smaller batch.
        deterministic: Whether to keep the input order; None leaves it to
            tf.data's options.

    Returns:
        The batched, mapped dataset.

    Raises:
        ValueError: If `batch_size` is not positive.
    """
    _check_positive("batch_size", batch_size)
    dataset = dataset.batch(batch_size, drop_remainder=drop_remainder)
    return dataset.map(map_func, num_parallel_calls=num_parallel_calls,
                       deterministic=deterministic)


def prefetch(dataset: tf.data.Dataset,
             buffer_size: Optional[int] = AUTOTUNE) -> tf.data.Dataset:
    """Overlaps input with training; None or AUTOTUNE lets tf.data tune it."""
    return dataset.prefetch(AUTOTUNE if buffer_size is None else buffer_size)


def interleave_files(files: tf.data.Dataset,
                     reader: Callable[[tf.Tensor], tf.data.Dataset], *,
                     cycle_length: Optional[int] = None, block_length: int = 1,
                     num_parallel_calls: int = AUTOTUNE,
                     deterministic: Optional[bool] = None) -> tf.data.Dataset:
    """Reads several files at once, mixing their records (parallel interleave).

    Args:
        files: A dataset of file names.
        reader: Makes a dataset of records from one file name (e.g.
            `tf.data.TFRecordDataset`).
        cycle_length: How many files are read at once; None lets tf.data choose.
        block_length: How many consecutive records come from one file before the
            next.
        num_parallel_calls: How many calls run in parallel (AUTOTUNE by
            default).
        deterministic: Whether to keep the input order; None leaves it to
            tf.data's options.

    Returns:
        A dataset of the files' records, interleaved.
    """
    return files.interleave(
        reader, cycle_length=cycle_length or AUTOTUNE,
        block_length=block_length, num_parallel_calls=num_parallel_calls,
        deterministic=deterministic)


def cache(dataset: tf.data.Dataset, filename: str = "") -> tf.data.Dataset:
    """Caches elements in memory (`filename=''`) or in files after epoch 1."""
    return dataset.cache(filename)


def with_options(dataset: tf.data.Dataset, *,
                 deterministic: Optional[bool] = None,
                 private_threadpool_size: Optional[int] = None,
                 max_intra_op_parallelism: Optional[int] = None
                 ) -> tf.data.Dataset:
    """Applies order and threading options; None keeps tf.data's default.

    Args:
        dataset: The pipeline.
        deterministic: False lets parallel stages hand out elements as soon
            as they are ready (faster; order then varies between runs).
        private_threadpool_size: Threads for this pipeline alone; None shares
            TF's inter-op pool.
        max_intra_op_parallelism: Threads one op may use inside tf.data; 1
            keeps each image's decode and resize on one core.
    """
    options = tf.data.Options()
    if deterministic is not None:
        options.deterministic = deterministic
    if private_threadpool_size is not None:
        _check_positive("private_threadpool_size", private_threadpool_size)
        options.threading.private_threadpool_size = private_threadpool_size
    if max_intra_op_parallelism is not None:
        _check_positive("max_intra_op_parallelism", max_intra_op_parallelism)
        options.threading.max_intra_op_parallelism = max_intra_op_parallelism
    return dataset.with_options(options)


def default_deterministic(mode: str, seed: Optional[int],
                          deterministic: Optional[bool]) -> bool:
    """Decides whether order is kept: when asked, when seeded, or outside training.

    Args:
        mode: The `ModeKeys` mode of the input_fn.
        seed: The shuffle seed; None for a random order each run.
        deterministic: Whether to keep the input order; None leaves it to
            tf.data's options.

    Returns:
        `deterministic` if given; else True when seeded or not training.

    Examples:
        >>> default_deterministic("train", None, None)
        False
        >>> default_deterministic("eval", None, None)
        True
    """
    if deterministic is not None:
        return deterministic
    return seed is not None or mode != TRAIN


def make_file_input_fn(file_pattern: Union[str, Sequence[str]], *,
                       parse_fn: Callable, batch_size: Optional[int] = None,
                       global_batch_size: Optional[int] = None,
                       mode: Optional[str] = None,
                       shuffle_buffer: int = 4096,
                       epochs: Optional[int] = None, seed: Optional[int] = None,
                       prefetch_buffer: Optional[int] = AUTOTUNE,
                       drop_remainder: bool = False,
                       deterministic: Optional[bool] = None) -> InputFn:
    """Builds the card's pipeline over any files: list, shuffle+repeat, map+batch.

    Args:
        file_pattern: Glob(s) of the input files; one file is one example.
        parse_fn: Maps a file path to `(features, labels)` (to `features`
            alone for PREDICT: the labels are dropped if a pair comes back).
        batch_size: Batch per replica (the Estimator contract).
        global_batch_size: Or the global batch, split per replica through
            `input_context.get_per_replica_batch_size`.
        mode: TRAIN shuffles and repeats `epochs` times (None: forever);
            EVAL and PREDICT read once, in order. None: the caller's mode.
        shuffle_buffer: Files in the shuffle buffer.
        epochs: Passes over the data in TRAIN.
        seed: Seeds the file shuffle; repeatable across runs.
        prefetch_buffer: Batches prefetched; AUTOTUNE by default.
        drop_remainder: Drop a last partial batch.
        deterministic: Keep element order in parallel stages; by default
            kept when seeded or outside TRAIN.

    Returns:
        An input_fn taking the optional mode/params/config/input_context.
    """
    check_epochs(epochs)

    def build(call: InputFnCall) -> tf.data.Dataset:
        batch = resolve_batch_size(batch_size=batch_size,
                                   global_batch_size=global_batch_size,
                                   input_context=call.input_context)
        order = default_deterministic(call.mode, seed, deterministic)
        files = list_files(file_pattern, shuffle=False)
        files = shard_for_input_context(files, call.input_context)
        if call.mode == TRAIN:
            files = shuffle_and_repeat(files, buffer_size=shuffle_buffer,
                                       count=epochs, seed=seed)
        fn = parse_fn if call.mode != PREDICT else functools.partial(
            _features_only, parse_fn)
        dataset = map_and_batch(files, fn, batch_size=batch,
                                drop_remainder=drop_remainder,
                                deterministic=order)
        dataset = prefetch(dataset, prefetch_buffer)
        return with_options(dataset, deterministic=order)

    return wrap_input_fn(build, mode=mode, name="file_input_fn")


def _features_only(parse_fn: Callable, path: tf.Tensor):
    result = parse_fn(path)
    if isinstance(result, tuple) and len(result) == 2:
        return result[0]
    return result
