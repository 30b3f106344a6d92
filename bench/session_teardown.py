"""What closing the training session costs after the last step (not a test).

    python bench/session_teardown.py --trials=3             # 1 device
    python bench/session_teardown.py --trials=3 --devices=2 # MirroredStrategy, 2 CPUs

Trains the seed CNN with a custom model_fn for 112 steps per train() call and
prints, per call, the seconds from the end of the last step to train()'s
return. Three variants take turns in one process:

- background_close: estimator_lib as shipped: the raw tf.compat.v1.Session
                    closes on a daemon thread once the hooks' end() has run
                    (`estimator_lib.tf_patches.close_in_background`);
- foreground_close: the session closed on the caller's thread, as the
                    original Estimator did (patched in this process only);
- no_autotune:      foreground close, the input_fn's dataset with
                    `autotune.enabled = False`.

Closing a session destroys its tf.data iterators, and the iterator's
destructor waits for a tf.data background thread (the autotune model thread)
to notice: 0 to ~12 s at random, longer the longer training ran.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import compare_run  # noqa: E402  (this folder; imports no TensorFlow)
import estimator_lib as el  # noqa: E402  (before TensorFlow: Keras 2)
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from estimator_lib import tf_patches  # noqa: E402

VARIANTS = ("background_close", "foreground_close", "no_autotune")
_close_in_background = tf_patches.close_in_background


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

    def make_input_fn(autotune):
        def input_fn():
            dataset = compare_run.make_dataset(tf, images, labels, per_replica)
            if not autotune:
                options = tf.data.Options()
                options.autotune.enabled = False
                dataset = dataset.with_options(options)
            return dataset
        return input_fn

    waits = {variant: [] for variant in VARIANTS}
    for trial in range(args.trials):
        for variant in VARIANTS:
            tf_patches.close_in_background = (
                _close_in_background if variant == "background_close" else lambda s: s)
            strategy = (tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(args.devices)])
                        if args.devices > 1 else None)
            config = el.RunConfig(model_dir=tempfile.mkdtemp(), train_distribute=strategy)
            estimator = el.Estimator(
                compare_run.make_model_fn(tf, keras, el), config=config)
            hook = compare_run.step_ends_hook(tf)
            estimator.train(make_input_fn(variant != "no_autotune"), steps=args.steps,
                            hooks=[hook])
            waits[variant].append(time.time() - hook.step_ends[-1])
            tf_patches.wait_for_closing_sessions()
            print(f"trial {trial + 1} {variant:<17} last step to train() return "
                  f"{waits[variant][-1]:6.2f} s", flush=True)
    for variant, values in waits.items():
        print(f"{variant:<17} median {statistics.median(values):6.2f} s, max {max(values):6.2f} s "
              f"over {len(values)} train() calls, {args.devices} device(s)")


if __name__ == "__main__":
    main()
