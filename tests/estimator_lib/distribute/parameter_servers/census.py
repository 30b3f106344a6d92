"""A census-style trainer (cloudml-samples' shape), run unchanged on every task of a
parameter-server job, each task with its own TF_CONFIG:

    TF_CONFIG='{"cluster": {"ps": [...], "chief": [...], "worker": [...]},
                "task": {"type": "ps", "index": 0}}' \\
        python -m estimator_lib.run census.py --job-dir MODEL_DIR --train-steps 40

It uses only `tf.estimator` names: the same file runs on the original (TF 2.15 with
tensorflow-estimator). `--print-steps` prints `STEP n` after every run (for a test to
act mid-training) and `START STEP n` when its session starts; every task prints
`DONE <task>` when train_and_evaluate returns. `--hold-chief FILE` keeps the chief (or
master) before its next step while FILE exists, printing `HELD` when it starts
waiting, so that a test can let a worker join (or train alone) first — a worker polls
for the chief's variables only every 30 s — or act while no checkpoint is being written.
"""

import argparse
import json
import os
import time

import numpy as np
import tensorflow as tf

_EDUCATION = ["Bachelors", "HS-grad", "Masters", "Doctorate"]


def _examples(n, seed):
    rng = np.random.RandomState(seed)
    age = rng.uniform(18, 80, n).astype(np.float32)
    hours = rng.uniform(10, 60, n).astype(np.float32)
    education = rng.choice(_EDUCATION, n)
    label = ((age > 40) & (hours > 35)).astype(np.int64)
    return {"age": age, "hours_per_week": hours, "education": education}, label


def input_fn(n, seed, shuffle_and_repeat):
    def fn():
        features, label = _examples(n, seed)
        dataset = tf.data.Dataset.from_tensor_slices((features, label))
        if shuffle_and_repeat:
            dataset = dataset.shuffle(n, seed=seed).repeat()
        return dataset.batch(16)
    return fn


def serving_input_fn():
    inputs = {"age": tf.compat.v1.placeholder(tf.float32, [None]),
              "hours_per_week": tf.compat.v1.placeholder(tf.float32, [None]),
              "education": tf.compat.v1.placeholder(tf.string, [None])}
    return tf.estimator.export.ServingInputReceiver(inputs, inputs)


class PrintSteps(tf.compat.v1.train.SessionRunHook):
    def after_create_session(self, session, coord):
        step = session.run(tf.compat.v1.train.get_global_step())
        print("START STEP", step, flush=True)

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(tf.compat.v1.train.get_global_step())

    def after_run(self, run_context, run_values):
        print("STEP", run_values.results, flush=True)


class HoldWhileFileExists(tf.compat.v1.train.SessionRunHook):
    def __init__(self, path):
        self._path = path

    def before_run(self, run_context):
        if os.path.exists(self._path):
            print("HELD", flush=True)
        while os.path.exists(self._path):
            time.sleep(0.05)  # The test removes the file from another process.


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--job-dir", required=True)
    parser.add_argument("--train-steps", type=int, default=40)
    parser.add_argument("--print-steps", action="store_true")
    parser.add_argument("--throttle-secs", type=float, default=1)
    parser.add_argument("--hold-chief")
    args = parser.parse_args()
    task = json.loads(os.environ.get("TF_CONFIG", "{}")).get("task", {})
    age = tf.feature_column.numeric_column("age")
    hours = tf.feature_column.numeric_column("hours_per_week")
    education = tf.feature_column.categorical_column_with_vocabulary_list(
        "education", _EDUCATION)
    config = tf.estimator.RunConfig(model_dir=args.job_dir, save_checkpoints_steps=10,
                                    tf_random_seed=1, experimental_max_worker_delay_secs=0)
    estimator = tf.estimator.DNNLinearCombinedClassifier(
        config=config, linear_feature_columns=[education, age],
        dnn_feature_columns=[tf.feature_column.indicator_column(education), age, hours],
        dnn_hidden_units=[8, 4])
    hooks = [PrintSteps()] if args.print_steps else []
    if args.hold_chief and task.get("type") in ("chief", "master"):
        hooks.append(HoldWhileFileExists(args.hold_chief))
    train_spec = tf.estimator.TrainSpec(input_fn(256, 0, True), max_steps=args.train_steps,
                                        hooks=hooks)
    exporter = tf.estimator.FinalExporter("census", serving_input_fn)
    eval_spec = tf.estimator.EvalSpec(input_fn(64, 1, False), steps=None,
                                      exporters=[exporter], start_delay_secs=0,
                                      throttle_secs=args.throttle_secs)
    tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)
    print("DONE", f"{task.get('type')}{task.get('index')}", flush=True)


if __name__ == "__main__":
    main()
