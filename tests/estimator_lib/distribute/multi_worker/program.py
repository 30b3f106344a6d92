"""A multi-worker Estimator program: run once per task, each with its own TF_CONFIG.

    TF_CONFIG='{"cluster": {...}, "task": {"type": "worker", "index": 0}}' \
        python program.py MODEL_DIR OUT_DIR

The same script runs on every task, as in the original's multi-worker guide.
Each training task writes its final weights to OUT_DIR/<task>.npy, and every task
prints `CONFIG {...}`: what `estimator.config` reports after train_and_evaluate.
"""

import json
import os
import sys

import estimator_lib as el  # noqa: I100  (before TensorFlow: Keras 2)
import numpy as np
import tensorflow as tf

MAX_STEPS = 12


def input_fn(mode, input_context=None):
    rng = np.random.RandomState(0)
    x = rng.randn(256, 4).astype(np.float32)
    y = (x[:, 0] + x[:, 1] > 0).astype(np.int32)
    dataset = tf.data.Dataset.from_tensor_slices(({"x": x}, y))
    if input_context is not None:
        dataset = dataset.shard(input_context.num_input_pipelines,
                                input_context.input_pipeline_id)
    if mode == el.ModeKeys.TRAIN:
        dataset = dataset.repeat()
    return dataset.batch(16)


def model_fn(features, labels, mode):
    logits = tf.compat.v1.layers.dense(features["x"], 2)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.5).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    accuracy = tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, 1))
    return el.EstimatorSpec(mode, loss=loss, train_op=train_op,
                            eval_metric_ops={"accuracy": accuracy})


class DumpWeights(el.SessionRunHook):
    """Prints the step training starts from; saves the final weights, to compare copies."""

    def __init__(self, path):
        self._path = path

    def after_create_session(self, session, coord):
        del coord
        step = session.run(tf.compat.v1.train.get_global_step())
        print("START STEP", step, flush=True)

    def end(self, session):
        kernel = [v for v in tf.compat.v1.trainable_variables() if "kernel" in v.name][0]
        np.save(self._path, session.run(kernel))


class PrintSteps(el.SessionRunHook):
    """Prints `STEP n` (the global step each run read), for a test to act mid-training."""

    def before_run(self, run_context):
        del run_context
        return tf.compat.v1.train.SessionRunArgs(tf.compat.v1.train.get_global_step())

    def after_run(self, run_context, run_values):
        del run_context
        print("STEP", run_values.results, flush=True)


def _stop_on_second_check(name):
    """Chief votes to stop at its second check, the worker never: all must stop."""
    checks = []

    def should_stop():
        checks.append(1)
        return name == "chief0" and len(checks) >= 2

    return should_stop


def main(model_dir, out_dir, early_stop=False, max_steps=MAX_STEPS, print_steps=False,
         operation_timeout_secs=None):
    task = json.loads(os.environ["TF_CONFIG"])["task"]
    strategy = (tf.distribute.MultiWorkerMirroredStrategy()
                if task["type"] != "evaluator" else None)
    session_config = None
    if operation_timeout_secs is not None:
        session_config = tf.compat.v1.ConfigProto(
            allow_soft_placement=True, operation_timeout_in_ms=int(operation_timeout_secs * 1000))
    config = el.RunConfig(model_dir=model_dir, train_distribute=strategy,
                          save_checkpoints_steps=4, log_step_count_steps=4,
                          tf_random_seed=1, session_config=session_config)
    estimator = el.Estimator(model_fn, config=config)
    name = f"{task['type']}{task['index']}"
    hooks = [DumpWeights(os.path.join(out_dir, name + ".npy"))]
    if print_steps:
        hooks.append(PrintSteps())
    if early_stop and strategy is not None:
        hooks.append(el.experimental.make_early_stopping_hook(
            estimator, _stop_on_second_check(name), run_every_secs=None, run_every_steps=3))
    train_spec = el.TrainSpec(input_fn, max_steps=max_steps, hooks=hooks)
    eval_spec = el.EvalSpec(input_fn, steps=None, start_delay_secs=0, throttle_secs=1)
    el.train_and_evaluate(estimator, train_spec, eval_spec)
    print("CONFIG", json.dumps(config_view(estimator.config)), flush=True)
    print("DONE", name, flush=True)


def config_view(config):
    """The cluster fields of a RunConfig a program may branch on."""
    return {"task_type": config.task_type, "task_id": config.task_id,
            "is_chief": config.is_chief, "num_worker_replicas": config.num_worker_replicas,
            "global_id_in_cluster": config.global_id_in_cluster}


def _option(options, name, default):
    values = [o.split("=", 1)[1] for o in options if o.startswith(f"--{name}=")]
    return values[-1] if values else default


if __name__ == "__main__":
    options = sys.argv[3:]
    timeout = _option(options, "operation_timeout_secs", None)
    main(sys.argv[1], sys.argv[2], early_stop="--early_stop" in options,
         max_steps=int(_option(options, "max_steps", MAX_STEPS)),
         print_steps="--print_steps" in options,
         operation_timeout_secs=None if timeout is None else float(timeout))
