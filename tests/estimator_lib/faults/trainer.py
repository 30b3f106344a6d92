"""A training job that the fault-injection test kills with SIGKILL at random moments.

    python trainer.py MODEL_DIR [BUDGET [CHUNK]]

Trains a tiny model towards MAX_STEPS (at most BUDGET more steps this run) in
chunks of CHUNK steps, checkpointing every
step and exporting a SavedModel after each chunk, so that a kill lands during a
step, a checkpoint write or an export. Prints READY once TensorFlow is loaded.
"""

import os
import sys

import estimator_lib as el  # noqa: I100  (before TensorFlow: Keras 2)
import numpy as np
import tensorflow as tf

MAX_STEPS = 300
CHUNK = 5


def input_fn():
    rng = np.random.RandomState(0)
    x = rng.randn(64, 4).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int32)
    return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(8)


def model_fn(features, labels, mode):
    logits = tf.compat.v1.layers.dense(features["x"], 2)
    if mode == el.ModeKeys.PREDICT:
        return el.EstimatorSpec(mode, predictions={"logits": logits})
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return el.EstimatorSpec(mode, loss=loss, train_op=train_op)


class _Announce(tf.compat.v1.train.CheckpointSaverListener):
    """Prints each checkpoint write's start and end, to tell where a kill landed."""

    def before_save(self, session, global_step_value):
        print("SAVING", global_step_value, flush=True)

    def after_save(self, session, global_step_value):
        print("SAVED", global_step_value, flush=True)


def main(model_dir, budget=MAX_STEPS, chunk=CHUNK):
    config = el.RunConfig(model_dir=model_dir, save_checkpoints_steps=1,
                          keep_checkpoint_max=3, log_step_count_steps=None)
    estimator = el.Estimator(model_fn, config=config)
    receiver = el.export.build_raw_serving_input_receiver_fn({"x": tf.zeros([1, 4])})
    print("READY", flush=True)
    from estimator_lib.graph import restore  # pylint: disable=import-outside-toplevel
    target = min(restore.global_step_of(restore.newest_readable(model_dir)) + budget,
                 MAX_STEPS)
    while True:
        step = restore.global_step_of(restore.newest_readable(model_dir))
        if step >= target:
            break
        estimator.train(input_fn, max_steps=min(step + chunk, target),
                        saving_listeners=[_Announce()])
        print("EXPORTING", flush=True)
        estimator.export_saved_model(os.path.join(model_dir, "export"), receiver)
        print("EXPORTED", flush=True)
    print("FINISHED", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], *[int(a) for a in sys.argv[2:4]])
