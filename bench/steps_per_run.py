"""What RunConfig(steps_per_run=N) saves on small steps (not a test).

A tiny model (an MLP 4 -> 16 -> 2 on 4 features, batch 32, plain SGD) costs
almost nothing per step, so the fixed cost of a session run (hooks, feeds, the
executor's start) is most of a step. Four ways to train it, interleaved
(A B C ... A B C ...) `--repeats` times in one process, one device:

- estimator_lib with steps_per_run 1, 10, 100 (`--steps_per_run`), default
  RunConfig cadences (loss logged and summaries every 100 steps);
- a hand-written TF2 loop: a Python loop calling a tf.function step;
- a hand-written TF2 loop with the loop inside the tf.function (100 steps per call).

Each figure is the wall time per step after `--warm_steps` (whole runs or
calls), from timestamps taken after each run or call; the table gives the
median over repeats and each configuration's ratio to steps_per_run=1.

    PYTHONPATH=. python bench/steps_per_run.py --steps=3000 --repeats=5
"""

import argparse
import json
import statistics
import tempfile
import time
import warnings

import estimator_lib as el  # noqa: F401  (before TensorFlow: Keras 2)
import numpy as np
import tensorflow as tf

import provenance  # this folder

BATCH = 32
HIDDEN = 16
LEARNING_RATE = 0.1
IN_GRAPH_STEPS = 100


def _data():
    rng = np.random.RandomState(0)
    x = rng.randn(1024, 4).astype(np.float32)
    y = (x[:, 0] + x[:, 1] > 0).astype(np.int32)
    return x, y


def _dataset(features_key=None):
    x, y = _data()
    features = {features_key: x} if features_key else x
    return tf.data.Dataset.from_tensor_slices((features, y)).repeat().batch(BATCH).prefetch(2)


def _model_fn(features, labels, mode):
    hidden = tf.compat.v1.layers.dense(features["x"], HIDDEN, activation=tf.nn.relu)
    logits = tf.compat.v1.layers.dense(hidden, 2)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(LEARNING_RATE).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return el.EstimatorSpec(mode, loss=loss, train_op=train_op)


def _per_step_seconds(ends, steps, warm_steps):
    """Seconds per step after whole runs covering `warm_steps`, from run end times."""
    seen = first = 0
    while seen < warm_steps:
        seen += steps[first]
        first += 1
    return (ends[-1] - ends[first - 1]) / sum(steps[first:])


def run_estimator(*, steps, warm_steps, steps_per_run):
    timer = el.hooks.TimeHistory()
    ends = []

    class _Ends(tf.compat.v1.train.SessionRunHook):
        def after_run(self, run_context, run_values):
            ends.append(time.perf_counter())

    config = el.RunConfig(model_dir=tempfile.mkdtemp(), tf_random_seed=0,
                          steps_per_run=steps_per_run)
    el.Estimator(_model_fn, config=config).train(
        lambda: _dataset("x"), steps=steps, hooks=[timer, _Ends()])
    return _per_step_seconds(ends, timer.steps, warm_steps)


def _tf2_model():
    init = tf.keras.initializers.GlorotUniform(seed=0)
    variables = [tf.Variable(init([4, HIDDEN])), tf.Variable(tf.zeros([HIDDEN])),
                 tf.Variable(init([HIDDEN, 2])), tf.Variable(tf.zeros([2]))]

    def train_step(x, y):
        with tf.GradientTape() as tape:
            hidden = tf.nn.relu(tf.matmul(x, variables[0]) + variables[1])
            logits = tf.matmul(hidden, variables[2]) + variables[3]
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        for variable, grad in zip(variables, tape.gradient(loss, variables)):
            variable.assign_sub(LEARNING_RATE * grad)
        return loss

    return train_step


def run_tf_function(*, steps, warm_steps, in_graph):
    train_step = _tf2_model()
    iterator = iter(_dataset())
    per_call = IN_GRAPH_STEPS if in_graph else 1

    @tf.function
    def one_step(iterator):
        return train_step(*next(iterator))

    @tf.function
    def many_steps(iterator):
        loss = tf.constant(0.0)
        for _ in tf.range(IN_GRAPH_STEPS):
            loss = train_step(*next(iterator))
        return loss

    call = many_steps if in_graph else one_step
    ends = []
    for _ in range(max(1, steps // per_call)):
        call(iterator).numpy()  # Waits for the step, as a session run does.
        ends.append(time.perf_counter())
    return _per_step_seconds(ends, [per_call] * len(ends), warm_steps)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--warm_steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--steps_per_run", type=int, nargs="+", default=[1, 10, 100])
    parser.add_argument("--json", help="Also write the records to this file.")
    args = parser.parse_args()
    tf.get_logger().setLevel("ERROR")
    warnings.simplefilter("ignore")  # tf.compat.v1.layers' deprecation, once per run.

    configs = {f"estimator_lib, steps_per_run={n}":
               (lambda n=n: run_estimator(steps=args.steps, warm_steps=args.warm_steps,
                                          steps_per_run=n))
               for n in args.steps_per_run}
    configs["tf.function step, Python loop"] = lambda: run_tf_function(
        steps=args.steps, warm_steps=args.warm_steps, in_graph=False)
    configs[f"tf.function, {IN_GRAPH_STEPS} steps in-graph"] = lambda: run_tf_function(
        steps=args.steps, warm_steps=args.warm_steps, in_graph=True)

    started = provenance.start()
    seconds = {name: [] for name in configs}
    for _ in range(args.repeats):
        for name, run in configs.items():
            seconds[name].append(run())

    baseline = statistics.median(seconds[next(iter(configs))])
    records = []
    print(f"{provenance.line(started)}, TF {tf.__version__}; {args.steps} steps of batch "
          f"{BATCH}, {args.warm_steps} warm-up steps left out, median (min-max) of "
          f"{args.repeats} interleaved rounds\n")
    print("| configuration | µs/step | steps/sec | x steps_per_run=1 |")
    print("|---|---:|---:|---:|")
    for name, values in seconds.items():
        median = statistics.median(values)
        records.append({"configuration": name, "seconds_per_step": values,
                        "median_seconds_per_step": median})
        print(f"| {name} | {median * 1e6:.0f} ({min(values) * 1e6:.0f}-{max(values) * 1e6:.0f}) "
              f"| {1 / median:,.0f} | {baseline / median:.1f} |")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(records, f, indent=2)


if __name__ == "__main__":
    main()
