"""What closing the training session costs after the last step (not a test).

    python bench/session_teardown.py --trials=3             # 1 device
    python bench/session_teardown.py --trials=3 --devices=2 # MirroredStrategy, 2 CPUs

Trains the seed CNN with a custom model_fn for 112 steps per train() call and
prints, per call, the seconds from the end of the last step to train()'s
return (the session is closed by then). Two variants take turns in one process:

- shipped:     estimator_lib as shipped: the input_fn's Dataset runs without
               tf.data's autotune model thread (`tf_patches.autotune_thread_off`);
- autotune_on: the input_fn sets `options.autotune.enabled = True` itself,
               which estimator_lib keeps: TensorFlow's default behaviour, and
               the original Estimator's.

Closing a session destroys its tf.data iterators, and destroying an iterator
joins its autotune model thread, which misses the cancellation's wake-up
(`CancellationManager` notifies before it marks itself cancelled) and sleeps
out its optimisation period: 0 to ~13 s at random, longer the longer training ran.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import compare_run  # noqa: E402  (this folder; imports no TensorFlow)
import provenance  # noqa: E402
import estimator_lib as el  # noqa: E402  (before TensorFlow: Keras 2)
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

VARIANTS = ("shipped", "autotune_on")
WARM_STEPS = 10


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--devices", type=int, default=1, choices=(1, 2))
    parser.add_argument("--steps", type=int, default=112)
    parser.add_argument("--batch_size", type=int, default=512, help="Global batch.")
    args = parser.parse_args()
    if args.devices > 1:
        tf.config.set_logical_device_configuration(
            tf.config.list_physical_devices("CPU")[0],
            [tf.config.LogicalDeviceConfiguration()] * args.devices)
    examples = args.batch_size * args.steps
    rng = np.random.RandomState(0)
    images = rng.randint(0, 256, (examples, 28, 28, 1), dtype=np.uint8)
    images = images.astype(np.float32) / np.float32(255.0)
    labels = np.eye(10, dtype=np.float32)[rng.randint(0, 10, examples)]
    keras = compare_run.keras_module(tf)
    per_replica = args.batch_size // args.devices

    def make_input_fn(autotune_on):
        def input_fn():
            dataset = compare_run.make_dataset(tf, images, labels, per_replica)
            if autotune_on:
                options = tf.data.Options()
                options.autotune.enabled = True
                dataset = dataset.with_options(options)
            return dataset
        return input_fn

    started = provenance.start()
    waits = {variant: [] for variant in VARIANTS}
    rates = {variant: [] for variant in VARIANTS}
    for trial in range(args.trials):
        for variant in VARIANTS:
            strategy = (tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(args.devices)])
                        if args.devices > 1 else None)
            config = el.RunConfig(model_dir=tempfile.mkdtemp(), train_distribute=strategy)
            estimator = el.Estimator(
                compare_run.make_model_fn(tf, keras, el), config=config)
            hook = compare_run.step_ends_hook(tf)
            estimator.train(make_input_fn(variant == "autotune_on"), steps=args.steps,
                            hooks=[hook])
            waits[variant].append(time.time() - hook.step_ends[-1])
            ends = hook.step_ends[WARM_STEPS:]
            rates[variant].append(args.batch_size * (len(ends) - 1) / (ends[-1] - ends[0]))
            print(f"trial {trial + 1} {variant:<12} per step {rates[variant][-1]:7,.0f} img/s, "
                  f"last step to train() return {waits[variant][-1]:6.2f} s", flush=True)
    print(f"\n{provenance.line(started)}; seed CNN, custom model_fn, {args.steps} steps of "
          f"global batch {args.batch_size} per train() call, {args.devices} device(s), "
          f"{args.trials} calls per variant, interleaved (median (min-max))\n")
    print("| variant | last step to train() return (s) | per step img/s (first "
          f"{WARM_STEPS} steps left out) |")
    print("|---|---|---|")
    for variant in VARIANTS:
        w, r = waits[variant], rates[variant]
        print(f"| {variant} | {statistics.median(w):.2f} ({min(w):.2f}-{max(w):.2f}) "
              f"| {statistics.median(r):,.0f} ({min(r):,.0f}-{max(r):,.0f}) |")


if __name__ == "__main__":
    main()
