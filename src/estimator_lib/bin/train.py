"""Trains the seed CNN or the VGG16 OCT transfer model through model_to_estimator.

Trains with MirroredStrategy over the requested devices (GPUs, else logical CPU
devices that share the same cores), evaluates, optionally exports, and prints a
summary: accuracy, examples/sec over all replicas, training and process time. Progress is
logged at INFO. With no flags it runs offline on embedded synthetic data.

    python -m estimator_lib.bin.train
    python -m estimator_lib.bin.train --num_devices=2 --train_steps=200 --batch_size=64
    python -m estimator_lib.bin.train --dataset=fashion_mnist --data_dir=DIR --epochs=5
    python -m estimator_lib.bin.train --steps_per_run=10   # 10 steps per session run
    python -m estimator_lib.bin.train --dataset=oct --data_dir=DIR --model=vgg16 \\
        --weights=imagenet --num_devices=4 --batch_size=128 --batch_size_scope=global
    python -m estimator_lib.bin.train --flagfile=run.flags
"""

import dataclasses
import logging
import shutil
import sys
import tempfile

# Only absl and the flags here: --help and flag errors are answered before the job
# (and TensorFlow) is imported, in main.

from estimator_lib.bin import cli
from estimator_lib.flags import definitions as defs

PROGRAM = "estimator_lib.bin.train"
KEY_FLAGS = (
    defs.MODEL_DIR, defs.DATASET, defs.DATA_DIR, defs.MODEL, defs.WEIGHTS, defs.IMAGE_SIZE,
    defs.LEARNING_RATE, defs.BATCH_SIZE, defs.BATCH_SIZE_SCOPE, defs.TRAIN_STEPS, defs.EPOCHS,
    defs.NUM_DEVICES, defs.DISTRIBUTION_STRATEGY, defs.CROSS_DEVICE_OPS, defs.DTYPE,
    defs.XLA, defs.EVAL, defs.EVAL_STEPS, defs.EXPORT_DIR, defs.SEED, defs.DETERMINISTIC, defs.LOG_STEPS,
    defs.SAVE_SUMMARY_STEPS, defs.WARM_STEPS, defs.STEPS_PER_RUN, defs.ON_BAD_FILE)


def config_from_flags():
    """Returns the job the flags describe, as plain values (a `job.JobConfig`)."""
    from estimator_lib.bin.jobs import job  # pylint: disable=import-outside-toplevel
    return job.JobConfig(
        model_dir=defs.MODEL_DIR.value, dataset=defs.DATASET.value,
        data_dir=defs.DATA_DIR.value, model=defs.MODEL.value, weights=defs.WEIGHTS.value,
        image_size=defs.IMAGE_SIZE.value, learning_rate=defs.LEARNING_RATE.value,
        batch_size=defs.BATCH_SIZE.value, batch_size_scope=defs.BATCH_SIZE_SCOPE.value,
        train_steps=defs.TRAIN_STEPS.value, epochs=defs.EPOCHS.value,
        num_devices=defs.NUM_DEVICES.value,
        distribution_strategy=defs.DISTRIBUTION_STRATEGY.value,
        cross_device_ops=defs.CROSS_DEVICE_OPS.value, dtype=defs.DTYPE.value,
        xla=defs.XLA.value, eval=defs.EVAL.value, eval_steps=defs.EVAL_STEPS.value,
        export_dir=defs.EXPORT_DIR.value, seed=defs.SEED.value,
        deterministic=defs.DETERMINISTIC.value, log_steps=defs.LOG_STEPS.value,
        save_summary_steps=defs.SAVE_SUMMARY_STEPS.value, warm_steps=defs.WARM_STEPS.value,
        steps_per_run=defs.STEPS_PER_RUN.value,
        on_bad_file=defs.on_bad_file_value(defs.ON_BAD_FILE.value))


def check() -> None:
    """Finds the flag mistakes that need no TensorFlow (cli.run calls it before it loads)."""
    expected = {"oct": cli.EXPECT_IMAGES, "tfrecords": cli.EXPECT_TFRECORDS,
                "fashion_mnist": cli.EXPECT_FASHION_MNIST}.get(defs.DATASET.value)
    if expected:
        cli.check_dir_exists(defs.DATA_DIR, expected)
    cli.check_device_count(defs.NUM_DEVICES.value)
    cli.check_model_dir_free(defs.MODEL_DIR.value)


def main(argv):
    """Trains, evaluates and optionally exports as the flags say, then prints the summary.

    Without --model_dir the run writes to a temporary folder, removed once the
    summary is printed. Progress is logged at INFO.

    Args:
        argv: The command line absl left after reading the flags; only the program
            name may remain (every option is a flag).

    Raises:
        app.UsageError: On a positional argument, or settings that cannot run on this
            machine.
    """
    cli.refuse_arguments(argv)
    # pylint: disable=import-outside-toplevel
    import tensorflow as tf  # After estimator_lib (through job): Keras 2 for tf.keras.
    from estimator_lib.bin.jobs import job
    config = config_from_flags()
    temporary = None
    if config.model_dir is None:  # Not the user's: removed once the summary is printed.
        temporary = tempfile.mkdtemp(prefix="estimator_lib_train_")
        config = dataclasses.replace(config, model_dir=temporary)
    logger = tf.get_logger()
    verbosity, propagate = logger.level, logger.propagate
    # TensorFlow gives its logger a handler only when it loads before absl's is set
    # up; here it loads after (flags first), so give it the one it would have had.
    handler = None if logger.handlers else logging.StreamHandler(sys.stderr)
    if handler:
        handler.setFormatter(logging.Formatter(logging.BASIC_FORMAT))
        logger.addHandler(handler)
    tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)  # Progress by default.
    logger.propagate = False  # One copy of each line, not absl's as well.
    try:
        summary = job.run_job(config)
    finally:  # A test that calls main() gets the process's logging back.
        logger.setLevel(verbosity)
        logger.propagate = propagate
        if handler:
            logger.removeHandler(handler)
        if temporary:
            shutil.rmtree(temporary, ignore_errors=True)
    lines = summary.lines()
    if temporary:
        lines = [f"  model_dir      {temporary} (temporary, removed at exit; "
                 "--model_dir=DIR keeps the checkpoints)" if line.startswith("  model_dir ")
                 else line for line in lines]
    print("\n".join(lines), flush=True)


if __name__ == "__main__":
    cli.run(main, program=PROGRAM, key_flags=KEY_FLAGS, check=check)
