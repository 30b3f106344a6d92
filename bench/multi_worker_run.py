"""One task of one multi-worker run of bench/multi_worker.py, in its own process (not a test).

    TF_CONFIG='{"cluster": {...}, "task": {"type": "chief", "index": 0}}' \
        python bench/multi_worker_run.py --framework=keras_fit --result=/tmp/chief.json

`bench/multi_worker.py` starts this script once per task of a run (each task
pinned to its own core), with a TF_CONFIG naming every task on 127.0.0.1. Every
task builds `tf.distribute.MultiWorkerMirroredStrategy()` from TF_CONFIG and
trains bench/compare_run.py's seed CNN for `examples // batch_size` steps of
the global `--batch_size`, on the same random in-memory images, with one of:

- estimator_lib_model_fn:  estimator_lib.Estimator with compare_run's custom
                           model_fn, RunConfig(train_distribute=strategy); the
                           input_fn batches per replica (global / replicas), as
                           the original Estimator's contract
- estimator_lib_keras:     estimator_lib.model_to_estimator(make_cnn()), the same
- estimator_lib_canned:    estimator_lib.DNNClassifier (784 pixels, hidden [128, 64],
                           Adam), the same (bench/worker_scaling.py)
- keras_fit:               tf_keras Model.fit under the strategy's scope, on the
                           dataset batched by the global batch, auto-sharding off
                           (each replica gets global / replicas examples a step)

No task shards the data: every worker reads the same images, in both frameworks.
Each task stamps the end of every step with `time.time()` from inside the
framework and writes its stamps to `--result`; the parent reads the chief's.
"""

import argparse
import json
import os
import sys
import time

_STARTED = time.time()
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import compare_run  # noqa: E402  pylint: disable=wrong-import-position

FRAMEWORKS = ("estimator_lib_model_fn", "estimator_lib_keras", "estimator_lib_canned",
              "keras_fit")


def _parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--framework", required=True, choices=FRAMEWORKS)
    parser.add_argument("--batch_size", type=int, default=512,
                        help="Global batch: examples per step over all workers.")
    parser.add_argument("--examples", type=int, default=512 * 56)
    parser.add_argument("--launch_time", type=float, default=None,
                        help="time.time() when the parent started the run's processes.")
    parser.add_argument("--model_dir", default=None,
                        help="The Estimator's model_dir, shared by every task of the run.")
    parser.add_argument("--result", required=True)
    parser.add_argument("--local", action="store_true",
                        help="One process without a strategy (no TF_CONFIG): the baseline.")
    return parser.parse_args(argv)


def main(argv=None):
    args = _parse(argv)
    launch = args.launch_time if args.launch_time is not None else _STARTED
    if args.framework.startswith("estimator_lib"):
        # First: it switches tf.keras to Keras 2 and bounds the strategy's cluster wait
        # (ESTIMATOR_LIB_CLUSTER_WAIT_SECS).
        import estimator_lib  # noqa: F401  pylint: disable=unused-import,import-outside-toplevel
    import numpy as np  # pylint: disable=import-outside-toplevel
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    keras = compare_run.keras_module(tf)
    imported = time.time()

    strategy = None if args.local else tf.distribute.MultiWorkerMirroredStrategy()
    cluster_ready = time.time()  # MultiWorkerMirroredStrategy() waits for every task.
    rng = np.random.RandomState(0)
    images = rng.randint(0, 256, (args.examples, 28, 28, 1), dtype=np.uint8)
    images = images.astype(np.float32) / np.float32(255.0)
    labels = np.eye(compare_run.NUM_CLASSES, dtype=np.float32)[
        rng.randint(0, compare_run.NUM_CLASSES, args.examples)]
    steps = args.examples // args.batch_size
    replicas = strategy.num_replicas_in_sync if strategy is not None else 1
    if steps < 2 or args.batch_size % replicas:
        raise ValueError(
            f"`batch_size` must divide across the {replicas} replicas and `examples` give at "
            f"least 2 steps. Received: examples={args.examples}, batch_size={args.batch_size}.")
    data_ready = time.time()

    runner = _run_keras_fit if args.framework == "keras_fit" else _run_estimator
    step_ends = runner(tf, keras, args, strategy, images, labels, steps)
    returned = time.time()
    task = json.loads(os.environ.get("TF_CONFIG", "{}")).get("task", {})
    result = {
        "framework": args.framework, "task": f"{task.get('type')}{task.get('index')}",
        "replicas": replicas, "global_batch_size": args.batch_size, "examples": args.examples,
        "steps_planned": steps, "tf_version": tf.__version__, "launch": launch,
        "interpreter_started": _STARTED, "imported": imported, "cluster_ready": cluster_ready,
        "data_ready": data_ready, "step_ends": step_ends, "returned": returned,
    }
    with open(args.result, "w", encoding="utf-8") as f:
        json.dump(result, f)


def _run_estimator(tf, keras, args, strategy, images, labels, steps):
    import estimator_lib  # pylint: disable=import-outside-toplevel
    config = estimator_lib.RunConfig(model_dir=args.model_dir, train_distribute=strategy)
    # The Estimator's contract: under a strategy, the input_fn batches per replica.
    per_replica_batch = args.batch_size // (strategy.num_replicas_in_sync if strategy else 1)

    def input_fn():
        return compare_run.make_dataset(tf, images, labels, per_replica_batch)

    def canned_input_fn():  # The canned estimator's features: a dict of flat pixels.
        dataset = tf.data.Dataset.from_tensor_slices(
            ({"pixels": images.reshape(len(images), -1)}, labels.argmax(1)))
        return dataset.repeat().batch(per_replica_batch, drop_remainder=True)

    if args.framework == "estimator_lib_canned":
        estimator = estimator_lib.DNNClassifier(
            hidden_units=[128, 64], n_classes=compare_run.NUM_CLASSES, optimizer="Adam",
            feature_columns=[tf.feature_column.numeric_column("pixels", shape=[784])],
            config=config)
        input_fn = canned_input_fn
    elif args.framework == "estimator_lib_keras":
        from estimator_lib.bin.jobs import models  # pylint: disable=import-outside-toplevel
        estimator = estimator_lib.model_to_estimator(
            keras_model=models.make_cnn(learning_rate=compare_run.LEARNING_RATE), config=config)
    else:
        estimator = estimator_lib.Estimator(
            compare_run.make_model_fn(tf, keras, estimator_lib), config=config)
    hook = compare_run.step_ends_hook(tf)
    estimator.train(input_fn, steps=steps, hooks=[hook])
    return hook.step_ends


def _run_keras_fit(tf, keras, args, strategy, images, labels, steps):

    class StepEnds(keras.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.step_ends = []

        def on_train_batch_end(self, batch, logs=None):
            self.step_ends.append(time.time())

    with strategy.scope():
        model = compare_run._cnn(keras)  # pylint: disable=protected-access
        model.compile(optimizer=keras.optimizers.Adam(compare_run.LEARNING_RATE),
                      loss="categorical_crossentropy", metrics=["accuracy"])
    dataset = compare_run.make_dataset(tf, images, labels, args.batch_size)
    options = tf.data.Options()
    # Every worker reads the same images, as the Estimator's input_fn does; Keras
    # splits each global batch into the replicas' shares.
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
    callback = StepEnds()
    model.fit(dataset.with_options(options), epochs=1, steps_per_epoch=steps, verbose=0,
              callbacks=[callback])
    return callback.step_ends


if __name__ == "__main__":
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    main()
