"""One training job from plain values: devices, strategy, input, model, train, eval, export.

`bin/train.py` turns its flags into a `JobConfig`; `run_job` does the rest and
returns a `JobSummary` (also written to `model_dir/train_summary.json`, which
the scaling benchmark reads; in a multi-worker job, by the chief, each other
worker writing `train_summary.<task>.json`). A problem with the settings is an
`app.UsageError` naming the flag.
"""

import contextlib
import dataclasses
import json
import math
import os
import tempfile
import time
from typing import Any, Dict, Iterator, Optional

import tensorflow as tf
import tf_keras
from absl import app
from tensorflow.python.client import pywrap_tf_session  # pylint: disable=g-direct-tensorflow-import

import estimator_lib
from estimator_lib.datasets import errors
from estimator_lib.datasets import folder_scan
from estimator_lib.datasets.errors import BadDataError
from estimator_lib.datasets.errors import DownloadError
from estimator_lib.bin.jobs import devices as devices_lib
from estimator_lib.bin.jobs import job_inputs as inputs_lib
from estimator_lib.bin.jobs import models
from estimator_lib.bin.jobs import train_progress
from estimator_lib.bin.jobs.job_summary import JobSummary
from estimator_lib.bin.jobs.job_summary import process_seconds
from estimator_lib.distribute import job_shape
from estimator_lib.hooks import global_batch
from estimator_lib.hooks import throughput
from estimator_lib.core.run_config import get_default_session_config
from estimator_lib.tf_internals import patches as tf_patches
from estimator_lib.training import model_dir_lock

logging = tf.compat.v1.logging

SUMMARY_FILENAME = "train_summary.json"
DEFAULT_TRAIN_STEPS = 100


@dataclasses.dataclass(frozen=True)
class JobConfig:
    """Everything a training job needs; the train binary's flags, as plain values."""

    model_dir: Optional[str] = None
    dataset: str = "synthetic"
    data_dir: Optional[str] = None
    model: str = "cnn"
    weights: Optional[str] = None
    image_size: Optional[int] = None
    learning_rate: float = 0.001
    batch_size: int = 64
    batch_size_scope: str = "per_replica"
    train_steps: Optional[int] = None
    epochs: Optional[int] = None
    num_devices: int = 1
    distribution_strategy: str = "auto"
    cross_device_ops: str = "auto"
    dtype: str = "float32"
    xla: bool = False
    eval: bool = True
    eval_steps: Optional[int] = None
    export_dir: Optional[str] = None
    seed: Optional[int] = 0
    deterministic: bool = False
    log_steps: int = 20
    save_summary_steps: int = 10
    warm_steps: int = 5
    steps_per_run: int = 1
    on_bad_file: str = "raise"


def _per_replica_batch(config: JobConfig, replicas: int) -> int:
    if config.batch_size_scope == "per_replica":
        return config.batch_size
    if config.batch_size % replicas:
        raise app.UsageError(
            f"--batch_size={config.batch_size} with --batch_size_scope=global must divide "
            f"evenly across {replicas} replicas; use a multiple of {replicas}, or "
            f"--batch_size_scope=per_replica.")
    return config.batch_size // replicas


def _train_steps(config: JobConfig, num_examples: int, global_batch: int) -> int:
    if config.train_steps:
        return config.train_steps
    if config.epochs:
        return max(1, math.ceil(config.epochs * num_examples / global_batch))
    return DEFAULT_TRAIN_STEPS


def _session_config(xla: bool, *, gpus: int) -> tf.compat.v1.ConfigProto:
    """The default session config, with XLA auto-clustering when `xla`.

    Without GPUs, auto-clustering leaves CPU ops alone unless CPU clustering is on.
    TensorFlow reads that switch when it creates its devices (TF_XLA_FLAGS even
    earlier), so it is set here, before `devices_lib.configure`, directly as
    TensorFlow's own test_util does.
    """
    session_config = get_default_session_config()
    if xla:
        session_config.graph_options.optimizer_options.global_jit_level = (
            tf.compat.v1.OptimizerOptions.ON_1)
        if not gpus:
            pywrap_tf_session.TF_SetTfXlaCpuGlobalJit(True)
    return session_config


def _build_model(config: JobConfig, inputs: inputs_lib.Inputs) -> tf_keras.Model:
    weights = config.weights or ("imagenet" if config.model == "vgg16" else "none")
    weights = None if weights == "none" else weights
    # model_to_estimator warm-starts from this eager model's weights: tf_random_seed
    # does not reach them, and unseeded tf_keras initializers draw their seeds from
    # Python's `random`, so without this two runs began from different weights.
    with tf_patches.keras_initializers_seeded(config.seed):
        return _make_model(config, inputs, weights)


def _make_model(config: JobConfig, inputs: inputs_lib.Inputs, weights) -> tf_keras.Model:
    try:
        if config.model == "vgg16":
            return models.make_vgg16(input_shape=inputs.image_shape,
                                     num_classes=inputs.num_classes, weights=weights,
                                     learning_rate=config.learning_rate, dtype=config.dtype)
        return models.make_cnn(input_shape=inputs.image_shape, num_classes=inputs.num_classes,
                               learning_rate=config.learning_rate, dtype=config.dtype,
                               weights=weights)
    except models.WeightsError as error:
        if weights == "imagenet":  # The download failed: not a flag problem.
            raise DownloadError(str(error)) from None
        raise app.UsageError(str(error)) from None


def _export(estimator, export_dir: str, image_shape) -> str:
    receiver = estimator_lib.export.build_raw_serving_input_receiver_fn(
        {models.INPUT_NAME: tf.zeros([1, *image_shape])})
    path = estimator.export_saved_model(export_dir, receiver)
    return path.decode() if isinstance(path, bytes) else path


@dataclasses.dataclass(frozen=True)
class _Setup:
    start: float
    devices: devices_lib.Devices
    strategy: Optional[tf.distribute.Strategy]
    strategy_name: str
    per_replica: int
    batch: global_batch.GlobalBatch
    session_config: tf.compat.v1.ConfigProto
    workers: int = 1


def _make_repeatable(config: JobConfig) -> None:
    """Switches on op determinism (--deterministic); process-wide, as the binary owns it.

    Every kernel then gives the same result for the same inputs (an op with no
    deterministic kernel fails instead), and tf.data keeps its order. The seeds
    (graph, shuffles, initial weights) come from --seed with or without it.
    """
    if config.seed is None:
        raise app.UsageError("--deterministic needs a --seed; received none. Pass "
                             "--seed=0 (any integer).")
    tf.config.experimental.enable_op_determinism()
    logging.info("Deterministic: op determinism on for this process (--deterministic).")


def _set_up(config: JobConfig) -> _Setup:
    start = time.time()
    if config.deterministic:
        _make_repeatable(config)
    session_config = _session_config(config.xla, gpus=devices_lib.count_gpus())
    try:
        workers = job_shape.training_tasks_in_tf_config()
        devices = devices_lib.configure(config.num_devices)
        strategy_name = devices_lib.resolve_strategy_name(config.distribution_strategy,
                                                          config.num_devices)
        if workers > 1:
            # One task of a multi-worker job (TF_CONFIG): every task's replicas in sync.
            devices_lib.check_multi_worker(config.distribution_strategy, config.num_devices,
                                           gpus=devices_lib.count_gpus(), workers=workers)
            strategy_name = devices_lib.MULTI_WORKER
            strategy = devices_lib.make_multi_worker_strategy()
        else:
            strategy = devices_lib.make_strategy(devices, name=strategy_name,
                                                 cross_device_ops=config.cross_device_ops)
    except ValueError as error:
        raise app.UsageError(str(error)) from None
    replicas = strategy.num_replicas_in_sync if strategy else 1
    per_replica = _per_replica_batch(config, replicas)
    batch = global_batch.make_global_batch(per_replica, strategy=strategy)
    where = devices.describe() + (f" in each of {workers} worker processes" if workers > 1
                                  else "")
    logging.info("Training %s on %s; distribution strategy: %s.", config.model, where,
                 strategy_name)
    return _Setup(start, devices, strategy, strategy_name, per_replica, batch, session_config,
                  workers)


@contextlib.contextmanager
def _keras_policy(dtype: str) -> Iterator[None]:
    """The Keras dtype policy is process-wide: set it for one job only."""
    previous = tf_keras.mixed_precision.global_policy()
    tf_keras.mixed_precision.set_global_policy(dtype)
    try:
        yield
    finally:
        tf_keras.mixed_precision.set_global_policy(previous)


def run_job(config: JobConfig) -> JobSummary:
    """Trains, evaluates and optionally exports; returns what it measured.

    Raises:
        app.UsageError: If the settings cannot run on this machine.
        BadDataError, DownloadError: If the data is missing or bad.
    """
    setup = _set_up(config)
    with _keras_policy(config.dtype):
        return _train(config, setup)


def _train(config: JobConfig, setup: _Setup) -> JobSummary:
    start, devices, strategy, strategy_name, per_replica, batch = (
        setup.start, setup.devices, setup.strategy, setup.strategy_name, setup.per_replica,
        setup.batch)
    session_config = setup.session_config

    scoped = ({"batch_size": per_replica} if config.batch_size_scope == "per_replica"
              else {"global_batch_size": batch.size})
    inputs = inputs_lib.make_inputs(
        config.dataset, data_dir=config.data_dir, eval_batch_size=per_replica,
        image_size=config.image_size, seed=config.seed, on_bad_file=config.on_bad_file,
        gpu=devices.kind == "GPU",
        feature_key=models.INPUT_NAME if config.dataset in ("synthetic", "fashion_mnist")
        else None, **scoped)
    logging.info("Data: %s; global batch %s.", inputs.description, batch)
    steps = _train_steps(config, inputs.num_train_examples, batch.size)

    _check_writable(config.model_dir)
    run_config = estimator_lib.RunConfig(
        model_dir=config.model_dir, train_distribute=strategy, tf_random_seed=config.seed,
        log_step_count_steps=config.log_steps, save_summary_steps=config.save_summary_steps,
        session_config=session_config, steps_per_run=config.steps_per_run)
    estimator = estimator_lib.model_to_estimator(_build_model(config, inputs),
                                                 config=run_config)
    # Only the chief of a multi-worker job writes into model_dir (summaries, records,
    # evaluation, export, train_summary.json); the other workers train and measure.
    role = job_shape.role_of(run_config)
    writer = role.is_chief or setup.workers == 1
    task = "chief" if writer else f"{role.task_type}{role.task_id}"
    # Leave at least one run to measure (warm-up leaves out whole runs).
    warm = min(config.warm_steps, max(0, steps - config.steps_per_run))
    hook = throughput.ExamplesPerSecondHook(batch, every_n_steps=config.log_steps,
                                            warm_steps=warm,
                                            output_dir=estimator.model_dir if writer else None)
    train_start = time.time()
    already = _global_step(estimator)
    if already >= steps:  # Read from the checkpoint's name: Keras' carry no global_step key.
        logging.info("model_dir %s is already at step %d (--train_steps=%d): nothing to "
                     "train.", estimator.model_dir, already, steps)
    else:
        _train_naming_bad_files(estimator, inputs, steps, [hook, train_progress.TrainProgressHook(
            last_step=steps, global_batch_size=batch.size)])
    train_secs = time.time() - train_start

    results: Dict[str, Any] = {}
    if not writer:
        logging.info("%s of a multi-worker job: the chief evaluates and exports.", task)
    elif config.eval and inputs.eval_input_fn is not None:
        results = estimator.evaluate(inputs.eval_input_fn, steps=config.eval_steps)
    elif config.eval:
        logging.warning("No test or val split in %s: not evaluated.", config.data_dir)
    export_path = _export(estimator, config.export_dir, inputs.image_shape) \
        if config.export_dir and writer else None
    if export_path:
        logging.info("Exported a SavedModel to %s", export_path)
    global_step = _global_step(estimator)
    summary = JobSummary(
        model=config.model, dataset=config.dataset, dtype=config.dtype, xla=config.xla,
        device_kind=devices.kind, device_description=devices.describe(),
        num_devices=len(devices.names), strategy=strategy_name,
        shared_cores=devices.shared_cores, batch_size_scope=config.batch_size_scope,
        per_replica_batch_size=per_replica, global_batch_size=batch.size,
        global_batch=str(batch), train_steps=steps, global_step=global_step,
        measured_steps=hook.measured_steps, warm_steps=warm,
        examples_per_sec=hook.average_examples_per_second(),
        accuracy=_float(results.get("accuracy")), eval_loss=_float(results.get("loss")),
        eval_split=inputs.eval_split if results else None, train_secs=train_secs,
        total_secs=time.time() - start, model_dir=estimator.model_dir,
        export_path=export_path, workers=setup.workers, task=task, start_step=already,
        skipped=inputs.skipped, process_secs=process_seconds(), num_classes=inputs.num_classes)
    filename = SUMMARY_FILENAME if writer else summary_filename(task)
    with open(os.path.join(estimator.model_dir, filename), "w", encoding="utf-8") as f:
        json.dump(summary.to_dict(), f, indent=2, sort_keys=True)
    return summary


def summary_filename(task: str) -> str:
    """Returns where a non-chief task writes its summary (the chief: SUMMARY_FILENAME)."""
    return SUMMARY_FILENAME.replace(".json", f".{task}.json")


def _check_writable(model_dir: Optional[str]) -> None:
    """Fails in one line if model_dir cannot be written (before the first Keras checkpoint)."""
    if not model_dir or "://" in model_dir:
        return
    try:
        os.makedirs(model_dir, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=model_dir, prefix=".write_test"):
            pass
    except OSError as error:
        raise model_dir_lock.ModelDirNotWritableError(
            f"Cannot write into --model_dir={model_dir} ({error.strerror}). Training needs a "
            "writable model_dir for its checkpoints: pass --model_dir=DIR, a folder you can "
            "write.") from None


def _train_naming_bad_files(estimator, inputs: inputs_lib.Inputs, steps: int,
                            hooks) -> None:
    """Trains; a JPEG that fails to decode mid-run (changed since the scan decoded it)
    is named: TensorFlow's error names no file."""
    try:
        estimator.train(inputs.train_input_fn, max_steps=steps, hooks=hooks)
    except (tf.errors.InvalidArgumentError, tf.errors.DataLossError) as error:
        listing = getattr(inputs.train_input_fn, "listing", None)
        if listing is None or "jpeg" not in str(error).lower():
            raise
        bad = folder_scan.first_undecodable(listing.files)
        where = (f"{bad} is a bad image: corrupt JPEG (its header and end are intact, its "
                 f"data is not)" if bad else
                 f"An image under {listing.folder} failed to decode ({error.message.strip()})")
        raise BadDataError(f"{where}; training stopped. {errors.SKIP_BAD_FILES} to leave "
                           "such files out.", path=bad) from None


def _global_step(estimator) -> int:
    checkpoint = estimator.latest_checkpoint() or ""
    suffix = checkpoint.rsplit("-", 1)[-1]
    return int(suffix) if suffix.isdigit() else 0


def _float(value) -> Optional[float]:
    return None if value is None else float(value)
