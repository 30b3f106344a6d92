"""One training run of bench/compare.py, in its own process (not a test).

    python bench/compare_run.py --framework=tf_function_loop --devices=1 \
        --launch_time=$(date +%s.%N) --result=/tmp/run.json

`bench/compare.py` starts this script once per run, so that every run pays its
own interpreter and TensorFlow start-up. It trains the seed CNN (Conv2D 32/64/64
3x3 relu with 2x2 max-pools, Dense 64, softmax 10) for `examples // batch_size`
steps on random Fashion-MNIST-shaped images held in memory, with one of:

- estimator_lib_keras:     estimator_lib.model_to_estimator(make_cnn())
- estimator_lib_model_fn:  estimator_lib.Estimator with a custom model_fn
                           (the same tf_keras layers called inside model_fn,
                           tf.compat.v1.train.AdamOptimizer)
- keras_fit:               tf_keras Model.fit
- tf_function_loop:        a hand-written tf.function step, tf.GradientTape,
                           one step per call (strategy.run with 2 devices)
- original_keras / original_model_fn: the first two on the original
                           tf.estimator; run with a TF <= 2.15 interpreter

Every framework stamps the end of each step with `time.time()` from inside
itself (a SessionRunHook, a Keras callback, the loop) and the result file holds
those stamps with the parent's launch time, so the parent computes per-step and
end-to-end figures the same way for all. This file imports neither estimator_lib
nor tf_keras at module level: the original's interpreter has neither.
"""

import argparse
import json
import os
import resource
import sys
import time

import compare_phases  # this folder (imports no TensorFlow)

_STARTED = time.time()

FRAMEWORKS = ("estimator_lib_keras", "estimator_lib_model_fn", "keras_fit", "tf_function_loop",
              "original_keras", "original_model_fn")
NUM_CLASSES = 10
LEARNING_RATE = 0.001


def _parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--framework", required=True, choices=FRAMEWORKS)
    parser.add_argument("--devices", type=int, default=1,
                        help="Replicas: logical CPU devices (1 or 2) or GPUs (--device_kind).")
    parser.add_argument("--device_kind", default="cpu", choices=("cpu", "gpu"),
                        help="gpu: MirroredStrategy over /gpu:0..devices-1 (bench/gpu_scaling.py).")
    parser.add_argument("--steps_per_call", type=int, default=1,
                        help="Steps per session run / tf.function call / Keras execution: "
                             "RunConfig(steps_per_run=N) for the estimators, "
                             "steps_per_execution=N for Keras fit, N steps in-graph per call "
                             "for the loop. Each step gets the call's end as its timestamp.")
    parser.add_argument("--batch_size", type=int, default=512,
                        help="Global batch: examples per step over all devices.")
    parser.add_argument("--examples", type=int, default=512 * 112)
    parser.add_argument("--launch_time", type=float, default=None,
                        help="time.time() when the parent started this process.")
    parser.add_argument("--model_dir", default=None)
    parser.add_argument("--result", required=True)
    parser.add_argument("--phases", action="store_true",
                        help="Also record when the Estimator's fixed-cost phases start and "
                             "end (estimator_lib frameworks only).")
    return parser.parse_args(argv)


def main(argv=None):
    args = _parse(argv)
    _DEVICE_KIND["kind"] = args.device_kind
    if args.steps_per_call < 1 or (args.examples // args.batch_size) % args.steps_per_call:
        raise ValueError(
            f"`steps_per_call` must divide the {args.examples // args.batch_size} steps. "
            f"Received: steps_per_call={args.steps_per_call}.")
    launch = args.launch_time if args.launch_time is not None else _STARTED
    if args.framework.startswith("estimator_lib"):
        import estimator_lib  # noqa: F401  pylint: disable=unused-import,import-outside-toplevel
    import numpy as np  # pylint: disable=import-outside-toplevel
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    if args.devices > 1 and args.device_kind == "cpu":
        # Logical devices must exist before TensorFlow's runtime starts.
        tf.config.set_logical_device_configuration(
            tf.config.list_physical_devices("CPU")[0],
            [tf.config.LogicalDeviceConfiguration()] * args.devices)
    keras_module(tf)  # Every run uses Keras 2: count its import in everyone's start-up.
    imported = time.time()

    rng = np.random.RandomState(0)
    images = rng.randint(0, 256, (args.examples, 28, 28, 1), dtype=np.uint8)
    images = images.astype(np.float32) / np.float32(255.0)
    labels = np.eye(NUM_CLASSES, dtype=np.float32)[rng.randint(0, NUM_CLASSES, args.examples)]
    steps = args.examples // args.batch_size
    if steps < 2:
        raise ValueError(
            f"`examples` must give at least 2 steps of `batch_size`. Received: "
            f"examples={args.examples}, batch_size={args.batch_size}.")
    data_ready = time.time()

    step_ends, extra = _RUNNERS[args.framework](tf, args, images, labels, steps)
    returned = time.time()
    # Peak resident memory of this process up to the training call's return (Linux: KiB).
    peak_rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = {
        "framework": args.framework, "devices": args.devices,
        "global_batch_size": args.batch_size, "examples": args.examples,
        "steps_planned": steps, "steps": len(step_ends),
        "steps_per_call": args.steps_per_call, "device_kind": args.device_kind,
        "tf_version": tf.__version__, "python": sys.version.split()[0],
        "launch": launch, "interpreter_started": _STARTED, "imported": imported,
        "data_ready": data_ready, "step_ends": step_ends, "returned": returned,
        "peak_rss_kb": peak_rss_kb,
    }
    result.update(extra)
    with open(args.result, "w", encoding="utf-8") as f:
        json.dump(result, f)


# ----------------------------------------------------------------- the model

def keras_module(tf):
    """tf_keras where installed (TF >= 2.16), else TensorFlow's own Keras 2."""
    try:
        import tf_keras  # pylint: disable=import-outside-toplevel
        return tf_keras
    except ImportError:
        return tf.keras


def _cnn(keras, *, softmax=True):
    """The seed CNN, layer for layer as estimator_lib.bin.jobs.models.make_cnn."""
    inputs = keras.Input(shape=(28, 28, 1), name="images")
    x = keras.layers.Conv2D(32, 3, activation="relu")(inputs)
    x = keras.layers.MaxPooling2D()(x)
    x = keras.layers.Conv2D(64, 3, activation="relu")(x)
    x = keras.layers.MaxPooling2D()(x)
    x = keras.layers.Conv2D(64, 3, activation="relu")(x)
    x = keras.layers.Flatten()(x)
    x = keras.layers.Dense(64, activation="relu")(x)
    outputs = keras.layers.Dense(NUM_CLASSES, activation="softmax" if softmax else None)(x)
    return keras.Model(inputs, outputs, name="cnn")


def make_dataset(tf, images, labels, batch_size):
    # The same pipeline for everyone: arrays in memory, repeated, batched, prefetched.
    dataset = tf.data.Dataset.from_tensor_slices((images, labels))
    return dataset.repeat().batch(batch_size, drop_remainder=True).prefetch(
        tf.data.experimental.AUTOTUNE)


_DEVICE_KIND = {"kind": "cpu"}


def _mirrored(tf, devices):
    kind = _DEVICE_KIND["kind"]
    return tf.distribute.MirroredStrategy([f"/{kind}:{i}" for i in range(devices)])


# ---------------------------------------------------------------- estimators

def _run_estimator(tf, args, images, labels, steps):
    """estimator_lib or the original tf.estimator: model_to_estimator or a model_fn."""
    original = args.framework.startswith("original")
    if original:
        estimator_api = tf.estimator
        keras = tf.keras
        to_estimator = tf.keras.estimator.model_to_estimator
    else:
        import estimator_lib as estimator_api  # pylint: disable=import-outside-toplevel
        keras = keras_module(tf)
        to_estimator = estimator_api.model_to_estimator
    model_dir = args.model_dir or _temporary_dir()
    strategy = _mirrored(tf, args.devices) if args.devices > 1 else None
    kwargs = {}
    if original and strategy is not None:
        # A v1 session sees one CPU unless told otherwise; the original then places
        # both replicas on it and hangs in the all-reduce. Give it both devices.
        kwargs["session_config"] = tf.compat.v1.ConfigProto(
            allow_soft_placement=True, device_count={"CPU": args.devices})
    if args.steps_per_call > 1:
        kwargs["steps_per_run"] = args.steps_per_call
    config = estimator_api.RunConfig(model_dir=model_dir, train_distribute=strategy, **kwargs)
    per_replica_batch = args.batch_size // args.devices

    def input_fn():
        # As the Estimator contract: under a strategy, the input_fn batches per replica.
        return make_dataset(tf, images, labels, per_replica_batch)

    phases = compare_phases.PhaseRecorder(tf) if args.phases and not original else None
    built = time.time()
    if args.framework.endswith("_keras"):
        if original:
            model = _cnn(keras)
            model.compile(optimizer=tf.compat.v1.train.AdamOptimizer(LEARNING_RATE),
                          loss="categorical_crossentropy", metrics=["accuracy"])
        else:
            from estimator_lib.bin.jobs import models  # pylint: disable=import-outside-toplevel
            model = models.make_cnn(learning_rate=LEARNING_RATE)
        estimator = to_estimator(keras_model=model, config=config)
    else:
        estimator = estimator_api.Estimator(make_model_fn(tf, keras, estimator_api),
                                            config=config)
    constructed = time.time()
    hook = step_ends_hook(tf, stamps_per_run=args.steps_per_call)
    estimator.train(input_fn, steps=steps, hooks=[hook])
    extra = {"estimator_constructed": constructed, "estimator_construction_secs":
             constructed - built}
    if phases is not None:
        extra["phases"] = phases.spans
    return hook.step_ends, extra


def make_model_fn(tf, keras, estimator_api):

    def model_fn(features, labels, mode):
        logits = _cnn(keras, softmax=False)(features, training=mode == "train")
        loss = tf.compat.v1.losses.softmax_cross_entropy(labels, logits)
        optimizer = tf.compat.v1.train.AdamOptimizer(LEARNING_RATE)
        train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
        return estimator_api.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                           predictions=tf.nn.softmax(logits))

    return model_fn


def _temporary_dir():
    import tempfile  # pylint: disable=import-outside-toplevel
    return tempfile.mkdtemp(prefix="compare_")


def step_ends_hook(tf, stamps_per_run=1):
    """A SessionRunHook of this TensorFlow that stamps the end of every session.run
    (`stamps_per_run` times: one per step it ran).

    Consecutive stamps are TimeHistory's `wall_times`: they tile the training loop.
    """

    class StepEndsHook(tf.compat.v1.train.SessionRunHook):

        def __init__(self):
            self.step_ends = []

        def after_run(self, run_context, run_values):
            self.step_ends.extend([time.time()] * stamps_per_run)

    return StepEndsHook()


# ------------------------------------------------------------------ keras fit

def _run_keras_fit(tf, args, images, labels, steps):
    keras = keras_module(tf)
    strategy = _mirrored(tf, args.devices) if args.devices > 1 else None

    class StepEnds(keras.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.step_ends = []

        def on_train_batch_end(self, batch, logs=None):
            # Called once per execution of `steps_per_execution` steps.
            self.step_ends.extend([time.time()] * args.steps_per_call)

    def build():
        model = _cnn(keras)
        # No metric: the estimators and the loop compute none while training.
        model.compile(optimizer=keras.optimizers.Adam(LEARNING_RATE),
                      loss="categorical_crossentropy",
                      steps_per_execution=args.steps_per_call)
        return model

    if strategy is not None:
        with strategy.scope():
            model = build()
    else:
        model = build()
    callback = StepEnds()
    model.fit(make_dataset(tf, images, labels, args.batch_size), epochs=1, steps_per_epoch=steps,
              verbose=0, callbacks=[callback])
    return callback.step_ends, {}


# ------------------------------------------------------ hand-written TF2 loop

def _run_loop(tf, args, images, labels, steps):
    keras = keras_module(tf)
    strategy = _mirrored(tf, args.devices) if args.devices > 1 else None
    dataset = make_dataset(tf, images, labels, args.batch_size)
    if strategy is not None:
        with strategy.scope():
            model = _cnn(keras)
            optimizer = keras.optimizers.Adam(LEARNING_RATE)
        dataset = strategy.experimental_distribute_dataset(dataset)
    else:
        model = _cnn(keras)
        optimizer = keras.optimizers.Adam(LEARNING_RATE)

    def step_fn(x, y):
        with tf.GradientTape() as tape:
            probabilities = model(x, training=True)
            per_example = keras.losses.categorical_crossentropy(y, probabilities)
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=args.batch_size)
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        return loss

    def one_step(x, y):
        if strategy is None:
            return step_fn(x, y)
        per_replica = strategy.run(step_fn, args=(x, y))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)

    @tf.function
    def train_step(x, y):
        return one_step(x, y)

    @tf.function
    def train_steps(iterator):
        # Keras' steps_per_execution: N steps in one call, the loss of the last returned.
        loss = one_step(*next(iterator))
        for _ in tf.range(args.steps_per_call - 1):
            loss = one_step(*next(iterator))
        return loss

    step_ends = []
    iterator = iter(dataset)
    if args.steps_per_call > 1:
        for _ in range(steps // args.steps_per_call):
            train_steps(iterator).numpy()
            step_ends.extend([time.time()] * args.steps_per_call)
    for _ in range(steps if args.steps_per_call == 1 else 0):
        x, y = next(iterator)
        train_step(x, y).numpy()  # Fetch the loss, as session.run([train_op, loss]) does.
        step_ends.append(time.time())
    # The iterator outlives the measured return: destroying a tf.data iterator waits
    # for its autotune thread (0 to ~10 s, at random), and when a Python iterator
    # is destroyed depends on the garbage collector. Keeping it makes the loop the
    # strictest reference: its end-to-end figure never includes that teardown.
    _KEPT_ALIVE.append(iterator)
    return step_ends, {}


_KEPT_ALIVE = []


_RUNNERS = {
    "estimator_lib_keras": _run_estimator,
    "estimator_lib_model_fn": _run_estimator,
    "keras_fit": _run_keras_fit,
    "tf_function_loop": _run_loop,
    "original_keras": _run_estimator,
    "original_model_fn": _run_estimator,
}


if __name__ == "__main__":
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    main()
