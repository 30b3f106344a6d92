"""The sparse embedding update alone: ResourceSparseApplyAdagradV2 on each TensorFlow.

bench/canned_op_profile.py found the canned DNN's `ResourceSparseApplyAdagradV2`
taking 96 µs a step on TF 2.21 against 58 µs on TF 2.15 (three ops a step, one per
embedding column). This runs the op alone, shaped as the DNN's largest embedding
(a [1000, 8] table, 256 distinct rows a batch), in a graph that chains `--chain`
copies of it with control dependencies, so that one `Session.run` times them
back to back with nothing else; per op = the run's time over the chain. Beside
it, what could replace the kernel with the same numbers:

    v2           ResourceSparseApplyAdagradV2 (what Keras' Adagrad runs; the baseline)
    v2_locking   the same with use_locking=True
    scatter      the same update written as gather -> arithmetic -> scatter_update
                 (ResourceGather, ResourceScatterUpdate), checked bit for bit against v2
    dense_rows   v2 on a table of only the rows touched (what the kernel's work
                 would be without the indexing)
    ftrl         ResourceSparseApplyFtrlV2 (LinearClassifier's default optimizer),
                 l1 = l2 = 0, learning-rate power -0.5

Run it on each TensorFlow and compare the µs:

    python bench/sparse_apply.py
    /tmp/tf215/bin/python bench/sparse_apply.py
"""

import argparse
import statistics
import time

import numpy as np
import provenance  # this folder
import tensorflow as tf

ROWS, DIM, BATCH_ROWS = 1000, 8, 256


def _update(variant, var, accum, linear, lr, eps, grad, indices):
    raw = tf.raw_ops
    if variant == "ftrl":
        return raw.ResourceSparseApplyFtrlV2(
            var=var.handle, accum=accum.handle, linear=linear.handle, grad=grad,
            indices=indices, lr=lr, l1=0.0, l2=0.0, l2_shrinkage=0.0, lr_power=-0.5)
    if variant in ("v2", "v2_locking", "dense_rows"):
        return raw.ResourceSparseApplyAdagradV2(
            var=var.handle, accum=accum.handle, lr=lr, epsilon=eps, grad=grad,
            indices=indices, use_locking=variant == "v2_locking")
    # scatter: the kernel's arithmetic, row by row, through generic ops.
    a = tf.gather(accum, indices) + grad * grad
    v = tf.gather(var, indices) - lr * grad / (tf.sqrt(a) + eps)
    return tf.group(accum.scatter_update(tf.IndexedSlices(a, indices)),
                    var.scatter_update(tf.IndexedSlices(v, indices)))


def _graph(variant, chain, seed=0):
    rng = np.random.RandomState(seed)
    graph = tf.Graph()
    with graph.as_default():
        rows = BATCH_ROWS if variant == "dense_rows" else ROWS
        var = tf.Variable(rng.normal(size=(rows, DIM)).astype(np.float32))
        accum = tf.Variable(np.full((rows, DIM), 0.1, np.float32))
        linear = tf.Variable(np.zeros((rows, DIM), np.float32))
        indices = tf.constant(
            np.arange(BATCH_ROWS) if variant == "dense_rows"
            else np.sort(rng.choice(ROWS, BATCH_ROWS, replace=False)), tf.int64)
        grad = tf.constant(rng.normal(size=(BATCH_ROWS, DIM)).astype(np.float32))
        lr, eps = tf.constant(0.05), tf.constant(1e-7)
        op = tf.no_op()
        for _ in range(chain):
            with tf.control_dependencies([op]):
                op = _update(variant, var, accum, linear, lr, eps, grad, indices)
        init = tf.compat.v1.global_variables_initializer()
    return graph, init, op, var, accum


def _session(graph, threads=1):
    config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=threads,
                                      inter_op_parallelism_threads=threads)
    return tf.compat.v1.Session(graph=graph, config=config)


def _same_numbers(steps=5):
    """The scatter form's tables after `steps` updates, against the kernel's."""
    results = []
    for variant in ("v2", "scatter"):
        graph, init, op, var, accum = _graph(variant, steps)
        with _session(graph) as sess:
            sess.run(init)
            sess.run(op)
            results.append(sess.run([var, accum]))
    return all(np.array_equal(a, b) for a, b in zip(*results))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chain", type=int, default=200)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--variants", default="v2,v2_locking,scatter,dense_rows,ftrl")
    parser.add_argument("--threads", type=int, default=1,
                        help="intra- and inter-op threads of the session")
    args = parser.parse_args()
    tf.compat.v1.disable_eager_execution()
    started = provenance.start()
    variants = args.variants.split(",")
    built = {}
    for variant in variants:
        graph, init, op, _, _ = _graph(variant, args.chain)
        sess = _session(graph, args.threads)
        sess.run(init)
        sess.run(op)  # warm-up
        built[variant] = (sess, op)
    times = {variant: [] for variant in variants}
    for _ in range(args.rounds):  # interleaved
        for variant, (sess, op) in built.items():
            start = time.process_time()
            for _ in range(args.runs):
                sess.run(op)
            times[variant].append((time.process_time() - start) / args.runs / args.chain * 1e6)
    same = _same_numbers() if "scatter" in variants else None
    print(f"\n{provenance.line(started)}; TF {tf.__version__}; {args.threads} thread(s) a session; a [{ROWS}, {DIM}] "
          f"table, {BATCH_ROWS} rows updated an op; {args.chain} ops chained a run, "
          f"{args.runs} runs a round, {args.rounds} rounds interleaved; CPU µs an op, "
          "median (min-max) over rounds\n")
    print("| variant | CPU µs an op | x v2 |\n|---|---:|---:|")
    base = statistics.median(times[variants[0]])
    for variant, values in times.items():
        median = statistics.median(values)
        print(f"| {variant} | {median:.1f} ({min(values):.1f}-{max(values):.1f}) "
              f"| {median / base:.2f} |")
    if same is not None:
        print(f"\nscatter form bit-identical to the kernel after 5 updates: {same}")


if __name__ == "__main__":
    main()
