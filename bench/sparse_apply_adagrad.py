"""The sparse Adagrad update alone, per kernel path, on whichever TensorFlow runs it.

A benchmark, not a test (issue 36: the canned DNN's `ResourceSparseApplyAdagradV2`
took 96 µs a step on TF 2.21 against 58 µs on 2.15, bench/canned_op_profile.py).
The op is what the canned DNN's embedding update runs: a [1000, 8] float32 table, its
accumulator, 230 distinct int64 rows of a batch of 256 in the order `Unique` gives
them, learning rate 0.05, epsilon 1e-7 (Keras' Adagrad). `--chain` copies of the
update, each on its own table, run one after the other (control edges) in one
session run, so the kernel's time is not lost in the run's fixed cost. Two figures
per path, median (min-max) over rounds, µs per op: the op's own time in the step
stats (as canned_op_profile.py counts it) and the run's CPU time over the chain
less that of the same chain of no-ops. Each path's table after one update is
compared bit for bit with the Keras path's. Two more rows: the same update written
with generic ops (gather the rows, the kernel's arithmetic in its order, scatter them
back), and FTRL's sparse kernel (LinearClassifier's default optimizer; a different
formula, timed only, with a zeroed `linear` slot assigned before it).

    /work/main/.venv/bin/python bench/sparse_apply_adagrad.py   # TF 2.21
    /tmp/tf215/bin/python bench/sparse_apply_adagrad.py         # TF 2.15

`--intra_op_threads=1` runs each kernel on the calling thread alone (a session
setting: where the time goes, not a change a program could make unseen).
"""

import argparse
import statistics
import sys
import time

import numpy as np

import provenance  # this folder

VOCAB, DIM, BATCH, ROWS = 1000, 8, 256, 230
LR, EPSILON = 0.05, 1e-7


def _data():
    rng = np.random.default_rng(0)
    ids = rng.choice(VOCAB, ROWS, replace=False).astype(np.int64)  # first-appearance order
    grad = rng.standard_normal((ROWS, DIM)).astype(np.float32)
    table = rng.standard_normal((VOCAB, DIM)).astype(np.float32)
    return ids, grad, table


def _paths(tf):
    raw = tf.raw_ops

    def v2(locking, index_dtype=tf.int64):
        def update(var, acc, grad, ids):
            return raw.ResourceSparseApplyAdagradV2(
                var=var, accum=acc, lr=LR, epsilon=EPSILON, grad=grad,
                indices=tf.cast(ids, index_dtype), use_locking=locking)
        return update

    def v1(var, acc, grad, ids):  # No epsilon: a different formula, shown for its time.
        return raw.ResourceSparseApplyAdagrad(var=var, accum=acc, lr=LR, grad=grad,
                                              indices=ids, use_locking=False)

    def dense(var, acc, grad, ids):  # The gradient scattered into the whole table.
        full = tf.scatter_nd(tf.expand_dims(ids, 1), grad, [VOCAB, DIM])
        return raw.ResourceApplyAdagradV2(var=var, accum=acc, lr=LR, epsilon=EPSILON,
                                          grad=full, use_locking=False)

    def generic(var, acc, grad, ids):  # The kernel's arithmetic, in its order, in generic ops.
        acc_rows = raw.ResourceGather(resource=acc, indices=ids, dtype=tf.float32) + grad * grad
        var_rows = (raw.ResourceGather(resource=var, indices=ids, dtype=tf.float32)
                    - LR * grad / (tf.sqrt(acc_rows) + EPSILON))
        return tf.group(raw.ResourceScatterUpdate(resource=acc, indices=ids, updates=acc_rows),
                        raw.ResourceScatterUpdate(resource=var, indices=ids, updates=var_rows))

    def ftrl(var, acc, grad, ids):  # LinearClassifier's default update; another formula.
        linear = raw.VarHandleOp(dtype=tf.float32, shape=[VOCAB, DIM], shared_name="")
        with tf.control_dependencies([raw.AssignVariableOp(
                resource=linear, value=tf.zeros([VOCAB, DIM]))]):
            return raw.ResourceSparseApplyFtrlV2(
                var=var, accum=acc, linear=linear, grad=grad, indices=ids, lr=LR, l1=0.0,
                l2=0.0, l2_shrinkage=0.0, lr_power=-0.5)

    return {"V2 (Keras' path)": v2(False), "V2 use_locking": v2(True),
            "V2 int32 indices": v2(False, tf.int32), "V1 (no epsilon)": v1,
            "dense ApplyAdagradV2": dense, "gather/scatter, generic ops": generic,
            "FtrlV2 (FTRL, not Adagrad)": ftrl}


def _build(tf, update, chain, data, config=None):
    ids, grad, table = data
    graph = tf.Graph()
    with graph.as_default():
        ids_t, grad_t = tf.constant(ids), tf.constant(grad)
        ops, variables, last = [], [], None
        for i in range(chain):
            var = tf.Variable(table, name=f"table{i}")
            acc = tf.Variable(np.full_like(table, 0.1), name=f"acc{i}")
            deps = [last] if last is not None else []
            with tf.control_dependencies(deps):
                last = update(var.handle, acc.handle, grad_t, ids_t) if update else tf.no_op()
            ops.append(last)
            variables.append(var)
        init = tf.compat.v1.global_variables_initializer()
    graph.finalize()
    session = tf.compat.v1.Session(graph=graph, config=config)
    session.run(init)
    return graph, session, last, variables, ops


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chain", type=int, default=20)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--intra_op_threads", type=int, default=0, help="0: TensorFlow's default")
    args = parser.parse_args(argv)
    started = provenance.start()
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    tf.compat.v1.disable_eager_execution()
    tf.get_logger().setLevel("ERROR")
    data = _data()
    config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=args.intra_op_threads)
    built = {"no-op chain": _build(tf, None, args.chain, data, config)}
    for name, update in _paths(tf).items():
        built[name] = _build(tf, update, args.chain, data, config)
    # Bit-identity: one update from the same start, the first table, against Keras' path.
    after = {}
    for name, (graph, session, last, variables, _) in built.items():
        if name == "no-op chain":
            continue
        fresh = _build(tf, _paths(tf)[name], 1, data)
        fresh[1].run(fresh[2])
        after[name] = fresh[1].run(fresh[3][0]).tobytes()
        fresh[1].close()
    cpu = {name: [] for name in built}
    own = {name: [] for name in built if name != "no-op chain"}
    trace = tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.SOFTWARE_TRACE)
    for _ in range(args.rounds):
        for name, (graph, session, last, _, ops) in built.items():
            run = session.make_callable(last)
            for _ in range(20):
                run()
            start = time.process_time()
            for _ in range(args.runs):
                run()
            cpu[name].append((time.process_time() - start) / args.runs * 1e6)
            if name in own:
                names = {op.name for op in ops}
                meta = tf.compat.v1.RunMetadata()
                total, count = 0, 0
                for _ in range(10):
                    session.run(last, options=trace, run_metadata=meta)
                    for dev in meta.step_stats.dev_stats:
                        for node in dev.node_stats:
                            if node.node_name in names:
                                total += node.all_end_rel_micros
                                count += 1
                own[name].append(total / max(count, 1))
    noop = statistics.median(cpu["no-op chain"])
    threads = (f"; intra_op_parallelism_threads={args.intra_op_threads}"
               if args.intra_op_threads else "")
    print(provenance.line(started) + f"; TF {tf.__version__}; {args.rounds} rounds of "
          f"{args.runs} runs of a chain of {args.chain}, interleaved; [{VOCAB}, {DIM}] "
          f"float32 table, {ROWS} distinct int64 rows{threads}; µs per op, median "
          f"(min-max) over rounds")
    print()
    print("| path | op's own time (step stats) | run CPU over the no-op chain | "
          "table bit-identical to V2's |")
    print("|---|---:|---:|---|")
    reference = after["V2 (Keras' path)"]
    for name in own:
        extra = [(c - noop) / args.chain for c in cpu[name]]
        print(f"| {name} | {statistics.median(own[name]):.1f} ({min(own[name]):.1f}-"
              f"{max(own[name]):.1f}) | {statistics.median(extra):.1f} ({min(extra):.1f}-"
              f"{max(extra):.1f}) | {'yes' if after[name] == reference else 'no'} |")
    for _, session, *_ in built.values():
        session.close()


if __name__ == "__main__":
    sys.exit(main())
