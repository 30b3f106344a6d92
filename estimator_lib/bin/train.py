"""Trains the seed CNN through model_to_estimator, evaluates, optionally exports.

    python -m estimator_lib.bin.train                      # offline, synthetic data
    python -m estimator_lib.bin.train --num_devices=2 --train_steps=200
    python -m estimator_lib.bin.train --dataset=fashion_mnist --data_dir=DIR
"""

import time

from absl import app
from absl import logging as absl_logging

import estimator_lib
from estimator_lib.bin import devices as devices_lib
from estimator_lib.bin import models
from flags import definitions as defs

import tensorflow as tf  # noqa: E402  (after estimator_lib: Keras 2 for tf.keras)
from datasets import fashion_mnist  # noqa: E402


def _input_fn(split, mode, batch_size, seed):
    return fashion_mnist.make_input_fn(
        defs.DATA_DIR.value, split=split, batch_size=batch_size, mode=mode, seed=seed,
        synthetic_data=defs.DATASET.value == "synthetic", feature_key=models.INPUT_NAME,
        num_examples=None if defs.DATASET.value != "synthetic" else
        (6000 if split == "train" else 1000), download=False)


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)  # Progress by default.
    tf.get_logger().propagate = False  # One copy of each line, not absl's as well.
    try:
        devices = devices_lib.configure(defs.NUM_DEVICES.value)
    except ValueError as e:
        raise app.UsageError(str(e)) from None
    strategy = devices_lib.make_strategy(devices)
    config = estimator_lib.RunConfig(
        model_dir=defs.MODEL_DIR.value, train_distribute=strategy,
        tf_random_seed=defs.SEED.value, log_step_count_steps=defs.LOG_STEPS.value,
        save_summary_steps=defs.LOG_STEPS.value)
    estimator = estimator_lib.model_to_estimator(models.make_cnn(), config=config)
    batch = defs.BATCH_SIZE.value
    try:
        train_input_fn = _input_fn("train", estimator_lib.ModeKeys.TRAIN, batch, defs.SEED.value)
        eval_input_fn = _input_fn("test", estimator_lib.ModeKeys.EVAL, batch, None)
    except Exception as e:  # pylint: disable=broad-except  (a data problem is a user error)
        raise app.UsageError(str(e)) from None

    start = time.time()
    estimator.train(train_input_fn, max_steps=defs.TRAIN_STEPS.value)
    train_secs = time.time() - start
    results = {}
    if defs.EVAL_STEPS.value:
        results = estimator.evaluate(eval_input_fn, steps=defs.EVAL_STEPS.value)
    if defs.EXPORT_DIR.value:
        receiver = estimator_lib.export.build_raw_serving_input_receiver_fn(
            {models.INPUT_NAME: tf.zeros([1, 28, 28, 1])})
        path = estimator.export_saved_model(defs.EXPORT_DIR.value, receiver)
        absl_logging.info("Exported to %s", path.decode())
    total_secs = time.time() - start
    global_batch = batch * len(devices)
    examples = defs.TRAIN_STEPS.value * global_batch
    print(f"devices={len(devices)} global_batch={global_batch} steps={defs.TRAIN_STEPS.value} "
          f"accuracy={results.get('accuracy', float('nan')):.4f} "
          f"examples/sec={examples / train_secs:.1f} (incl. start-up) "
          f"total_time={total_secs:.1f}s model_dir={estimator.model_dir}")


if __name__ == "__main__":
    app.run(main)
