"""Canned estimators against Keras fit and the original, on a census-shaped input.

DNNClassifier and LinearClassifier (v2, tf.estimator.*) over numeric,
bucketized, vocabulary, hashed, crossed and embedding columns; batch 256;
`--steps` steps (2,000); one CPU device. Compared, in interleaved fresh
processes (A B C ... A B C ...):

    estimator_lib   estimator_lib.canned.{DNN,Linear}ClassifierV2 (TF 2.21)
    keras_fit       a tf_keras Model of the same model, Model.fit on the same
                    tf.data input (TF 2.21): DNN, DenseFeatures + Dense layers;
                    linear, one weight per category of each wide column looked up
                    sparsely and summed plus a bias (embedding columns of dimension
                    1, combiner "sum"), as LinearClassifier; no metric on any side
    original        tf.estimator.{DNN,Linear}Classifier (TF 2.15, --original_python)
    original_on_tf  the original's own {DNN,Linear}ClassifierV2 code on this venv's
                    TensorFlow (--original_source: its unpacked 2.15 wheel; see
                    bench/original_on_this_tf.py): what the TensorFlow version costs

Per process: median and range of the steady per-step time (first 50 steps left
out, from timestamps taken inside the framework), the time from process launch
to the first step's end, and to process exit. Prints a markdown table.

    python bench/canned.py --repeats=3 --original_python=/tmp/tf215/bin/python
    python bench/canned.py --one=estimator_lib --model=dnn   # (internal) one run
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import provenance  # this folder

_HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(_HERE)
BATCH = 256
WARM = 50
N_EXAMPLES = 32768


def _data():
    import numpy as np  # pylint: disable=g-import-not-at-top
    rng = np.random.RandomState(0)
    n = N_EXAMPLES
    edu = np.array([f"edu{i}" for i in range(16)])
    occ = np.array([f"occ{i}" for i in range(300)])
    country = np.array([f"c{i}" for i in range(40)])
    features = {
        "age": rng.randint(17, 90, size=(n, 1)).astype(np.float32),
        "hours_per_week": rng.randint(1, 99, size=(n, 1)).astype(np.float32),
        "education_num": rng.randint(1, 16, size=(n, 1)).astype(np.float32),
        "education": edu[rng.randint(0, 16, size=(n, 1))],
        "occupation": occ[rng.randint(0, 300, size=(n, 1))],
        "native_country": country[rng.randint(0, 40, size=(n, 1))],
    }
    labels = (features["age"] + 2 * features["education_num"] > 60).astype(np.int64)
    return features, labels


def _columns(tf):
    fc = tf.feature_column
    age = fc.numeric_column("age")
    hours = fc.numeric_column("hours_per_week")
    edu_num = fc.numeric_column("education_num")
    age_b = fc.bucketized_column(age, [18, 25, 30, 35, 40, 45, 50, 55, 60, 65])
    edu = fc.categorical_column_with_vocabulary_list("education", [f"edu{i}" for i in range(16)])
    occ = fc.categorical_column_with_hash_bucket("occupation", 1000)
    country = fc.categorical_column_with_hash_bucket("native_country", 100)
    crossed = fc.crossed_column(["education", "occupation"], 1000)
    age_edu = fc.crossed_column([age_b, "education"], 1000)
    wide = [age_b, edu, occ, country, crossed, age_edu]
    deep = [age, hours, edu_num, fc.indicator_column(edu), fc.embedding_column(occ, 8),
            fc.embedding_column(country, 8), fc.embedding_column(crossed, 8)]
    return wide, deep


def _input_fn(tf):
    features, labels = _data()

    def input_fn():
        return tf.data.Dataset.from_tensor_slices((features, labels)).repeat().batch(BATCH)
    return input_fn


def _sum_and_bias_layer():
    """A tf_keras layer: the sum of its inputs' last axis plus one trainable bias."""
    import tensorflow as tf  # pylint: disable=g-import-not-at-top
    import tf_keras  # pylint: disable=g-import-not-at-top

    class SumAndBias(tf_keras.layers.Layer):
        def build(self, input_shape):
            self.bias = self.add_weight("bias", shape=(1,), initializer="zeros")

        def call(self, inputs):
            return tf.reduce_sum(inputs, axis=-1, keepdims=True) + self.bias

    return SumAndBias()


def run_one(impl, model, steps, t_launch, original_source=None):
    """One measured run in this process; prints a JSON line."""
    if impl == "original_on_tf":
        import original_on_this_tf  # pylint: disable=g-import-not-at-top
        linear, dnn, run_config = original_on_this_tf.load(original_source)
    if impl == "estimator_lib":
        import estimator_lib  # noqa: F401  pylint: disable=g-import-not-at-top,unused-import
        from estimator_lib import canned  # pylint: disable=g-import-not-at-top
    import tensorflow as tf  # pylint: disable=g-import-not-at-top
    tf.get_logger().setLevel("ERROR")
    wide, deep = _columns(tf)
    stamps = []
    if impl == "keras_fit":
        import tf_keras  # pylint: disable=g-import-not-at-top
        features, labels = _data()
        ds = tf.data.Dataset.from_tensor_slices((features, labels)).repeat().batch(BATCH)
        inputs = {k: tf_keras.Input(shape=(1,), name=k, dtype=tf.string if v.dtype.kind in "SU"
                                    else tf.float32) for k, v in features.items()}
        if model == "dnn":
            net = tf_keras.layers.DenseFeatures(deep)(inputs)
            for width in (100, 75, 50, 25):
                net = tf_keras.layers.Dense(width, activation="relu")(net)
            out = tf_keras.layers.Dense(1)(net)
            opt = tf_keras.optimizers.legacy.Adagrad()
        else:
            # The same model as LinearClassifier: one weight per category of each
            # wide column, looked up sparsely and summed, plus a bias (embedding
            # columns of dimension 1, combiner "sum"), not a dense one-hot input.
            weights = tf_keras.layers.DenseFeatures(
                [tf.feature_column.embedding_column(
                    c, 1, combiner="sum", initializer=tf_keras.initializers.Zeros())
                 for c in wide])(inputs)
            out = _sum_and_bias_layer()(weights)
            opt = tf_keras.optimizers.legacy.Ftrl(learning_rate=0.05)
        km = tf_keras.Model(inputs, out)
        km.compile(opt, tf_keras.losses.BinaryCrossentropy(from_logits=True))

        class Stamp(tf_keras.callbacks.Callback):
            def on_train_batch_end(self, batch, logs=None):
                stamps.append(time.time())

        km.fit(ds, steps_per_epoch=steps, epochs=1, verbose=0, callbacks=[Stamp()])
    else:
        if impl == "estimator_lib":
            cls = canned.DNNClassifierV2 if model == "dnn" else canned.LinearClassifierV2
            base = estimator_lib
        elif impl == "original_on_tf":
            cls = dnn.DNNClassifierV2 if model == "dnn" else linear.LinearClassifierV2
            base = run_config
        else:
            cls = tf.estimator.DNNClassifier if model == "dnn" else tf.estimator.LinearClassifier
            base = tf.estimator
        config = base.RunConfig(model_dir=tempfile.mkdtemp(prefix="bench_canned_"),
                                save_checkpoints_steps=None, save_checkpoints_secs=None,
                                log_step_count_steps=None, save_summary_steps=steps * 10)
        if model == "dnn":
            est = cls(hidden_units=[100, 75, 50, 25], feature_columns=deep, config=config)
        else:
            est = cls(feature_columns=wide, config=config)

        class Stamp(tf.compat.v1.train.SessionRunHook):
            def after_run(self, run_context, run_values):
                stamps.append(time.time())

        est.train(_input_fn(tf), steps=steps, hooks=[Stamp()])
    steady = [b - a for a, b in zip(stamps[WARM:], stamps[WARM + 1:])]
    print("RESULT " + json.dumps(dict(
        impl=impl, model=model, steps=len(stamps),
        step_ms=1000 * statistics.median(steady),
        first_step_s=stamps[0] - t_launch)), flush=True)


def _launch(python, impl, model, steps, env, original_source=None):
    t0 = time.time()
    proc = subprocess.run(
        [python, os.path.abspath(__file__), f"--one={impl}", f"--model={model}",
         f"--steps={steps}", f"--t_launch={t0}"]
        + ([f"--original_source={original_source}"] if original_source else []),
        capture_output=True, text=True, env=env, check=False)
    exit_s = time.time() - t0
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            result = json.loads(line[len("RESULT "):])
            result["exit_s"] = exit_s
            return result
    raise RuntimeError(f"{impl} {model} failed:\n{proc.stderr[-3000:]}")


def _fmt(values, unit_fmt):
    return (f"{unit_fmt.format(statistics.median(values))} "
            f"({unit_fmt.format(min(values))}-{unit_fmt.format(max(values))})")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--t_launch", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--model", default="dnn", choices=("dnn", "linear"))
    parser.add_argument("--models", default="dnn,linear")
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--original_python", default=None)
    parser.add_argument("--original_source", default=None,
                        help="tensorflow-estimator 2.15's unpacked wheel: also runs its code "
                             "on this venv's TensorFlow (original_on_tf).")
    args = parser.parse_args()
    if args.one:
        run_one(args.one, args.model, args.steps, args.t_launch, args.original_source)
        return
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", TF_CPP_MIN_LOG_LEVEL="2",
               PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    orig_env = {k: v for k, v in env.items() if k not in ("PYTHONPATH", "TF_USE_LEGACY_KERAS")}
    impls = [("estimator_lib", args.python, env), ("keras_fit", args.python,
                                                   dict(env, TF_USE_LEGACY_KERAS="1"))]
    if args.original_python:
        impls.append(("original", args.original_python, orig_env))
    if args.original_source:
        impls.append(("original_on_tf", args.python, dict(env, TF_USE_LEGACY_KERAS="1")))
    started = provenance.start()
    results = {}
    for _ in range(args.repeats):
        for model in args.models.split(","):
            for impl, python, impl_env in impls:
                r = _launch(python, impl, model, args.steps, impl_env, args.original_source)
                results.setdefault((model, impl), []).append(r)
                print(json.dumps(r), file=sys.stderr, flush=True)
    print(f"{provenance.line(started)}; batch {BATCH}, {args.steps} steps, 1 CPU device, "
          f"{args.repeats} fresh processes each, interleaved (median (min-max))\n")
    print("| model | implementation | per step (ms) | first step end (s) | process exit (s) |")
    print("|---|---|---|---|---|")
    for (model, impl), rs in sorted(results.items()):
        print(f"| {model} | {impl} | {_fmt([r['step_ms'] for r in rs], '{:.2f}')} | "
              f"{_fmt([r['first_step_s'] for r in rs], '{:.1f}')} | "
              f"{_fmt([r['exit_s'] for r in rs], '{:.1f}')} |")
    _print_targets(results, args.models.split(","))


# Per-step targets of issue 16: estimator_lib at least the original's speed, and at
# least 0.9x Keras fit's.
_TARGETS = (("original", 1.0), ("keras_fit", 0.9), ("original_on_tf", None))


def _print_targets(results, models):
    """Per step, estimator_lib's speed over each peer's (their time over its), taken
    within each round (the processes of one round ran back to back), then the median."""
    print("\nPer step, estimator_lib's speed as a multiple of each peer's, round by round "
          "(median in bold):\n")
    for model in models:
        ours = [r["step_ms"] for r in results.get((model, "estimator_lib"), [])]
        for peer, target in _TARGETS:
            theirs = [r["step_ms"] for r in results.get((model, peer), [])]
            if not ours or not theirs:
                continue
            ratios = [t / o for o, t in zip(ours, theirs)]
            median = statistics.median(ratios)
            verdict = "" if target is None else (
                f" (target >= {target:.1f}: {'met' if median >= target else 'missed'})")
            print(f"- {model}, x {peer}: {' / '.join(f'{x:.2f}' for x in ratios)}; "
                  f"**{median:.2f}**{verdict}")


if __name__ == "__main__":
    main()
