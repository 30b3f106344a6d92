"""Where a canned DNNClassifier's step spends its op time, per op type.

Runs bench/canned.py's DNN (census-shaped input, batch 256) for `--steps` steps
with SOFTWARE_TRACE step stats, leaves out the first 100 and prints each op
type's time per step (summed over its ops; ops run in parallel, so the sum is
more than a step's wall time). Run it once with this venv (estimator_lib, TF
2.21) and once with the original's (TF 2.15), to see which kernels differ:

    python bench/canned_op_profile.py
    /tmp/tf215/bin/python bench/canned_op_profile.py --impl=original
"""

import argparse
import collections
import tempfile

import canned  # this folder
import provenance  # this folder

WARM = 100


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--impl", default="estimator_lib", choices=("estimator_lib", "original"))
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    started = provenance.start()
    if args.impl == "estimator_lib":
        import estimator_lib as base  # pylint: disable=g-import-not-at-top
        from estimator_lib.canned import DNNClassifierV2 as dnn_classifier  # pylint: disable=g-import-not-at-top
    import tensorflow as tf  # pylint: disable=g-import-not-at-top
    if args.impl == "original":
        base, dnn_classifier = tf.estimator, tf.estimator.DNNClassifier
    tf.get_logger().setLevel("ERROR")
    _, deep = canned._columns(tf)  # pylint: disable=protected-access
    config = base.RunConfig(model_dir=tempfile.mkdtemp(prefix="bench_op_profile_"),
                            save_checkpoints_steps=None, save_checkpoints_secs=None,
                            log_step_count_steps=None, save_summary_steps=10**6)
    est = dnn_classifier(hidden_units=[100, 75, 50, 25], feature_columns=deep, config=config)
    micros, count, steps = collections.Counter(), collections.Counter(), [0]

    class Trace(tf.compat.v1.train.SessionRunHook):
        def before_run(self, run_context):
            return tf.compat.v1.train.SessionRunArgs(None, options=tf.compat.v1.RunOptions(
                trace_level=tf.compat.v1.RunOptions.SOFTWARE_TRACE))

        def after_run(self, run_context, run_values):
            steps[0] += 1
            if steps[0] <= WARM:
                return
            for device in run_values.run_metadata.step_stats.dev_stats:
                for node in device.node_stats:
                    label = node.timeline_label
                    op = (label.split(" = ")[1].split("(")[0] if " = " in label
                          else node.node_name.split("/")[-1])
                    micros[op] += node.op_end_rel_micros - node.op_start_rel_micros
                    count[op] += 1

    est.train(canned._input_fn(tf), steps=args.steps, hooks=[Trace()])  # pylint: disable=protected-access
    n = steps[0] - WARM
    print(f"{provenance.line(started)}; {args.impl}, TF {tf.__version__}, DNN, batch "
          f"{canned.BATCH}, {n} traced steps after {WARM}\n")
    print(f"op time per step: {sum(micros.values()) / n:.0f} µs over "
          f"{sum(count.values()) / n:.0f} ops\n")
    print("| op type | µs per step | ops per step |\n|---|---:|---:|")
    for op, us in micros.most_common(args.top):
        print(f"| {op} | {us / n:.1f} | {count[op] / n:.1f} |")


if __name__ == "__main__":
    main()
