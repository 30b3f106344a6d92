"""Start-up with a numpy-backed input_fn, as the seed program writes it (not a test).

60,000 Fashion-MNIST-sized images through `from_tensor_slices` (188 MB frozen into
the graph), the seed CNN, batch 512. Prints the time to the end of the first
step, the wall time of `steps` steps, and what lands in model_dir.

    python bench/startup_numpy_input.py --steps=5
    python bench/startup_numpy_input.py --steps=5 --one_shot   # cloudml-samples' shape

`--one_shot` returns `make_one_shot_iterator(dataset).get_next()` from the input_fn
instead of the Dataset (the arrays are still fed: the iterator becomes initializable).
"""

import argparse
import os
import tempfile
import time

import estimator_lib as el  # noqa: F401  (before TensorFlow: Keras 2)
import numpy as np
import tensorflow as tf

from estimator_lib.bin.jobs import models

import provenance  # this folder


class _FirstStepHook(tf.compat.v1.train.SessionRunHook):
    def __init__(self, start):
        self.start = start
        self.first_step_secs = None

    def after_run(self, run_context, run_values):
        if self.first_step_secs is None:
            self.first_step_secs = time.time() - self.start


def _dir_bytes(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--examples", type=int, default=60000)
    parser.add_argument("--one_shot", action="store_true",
                        help="return a one-shot iterator's get_next() (cloudml-samples)")
    args = parser.parse_args()
    started = provenance.start()
    images = np.random.RandomState(0).rand(args.examples, 28, 28, 1).astype(np.float32)
    labels = np.eye(10, dtype=np.float32)[np.arange(args.examples) % 10]

    def input_fn():
        dataset = tf.data.Dataset.from_tensor_slices(({models.INPUT_NAME: images}, labels))
        dataset = dataset.shuffle(5000).repeat().batch(512).prefetch(2)
        if args.one_shot:
            return tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()
        return dataset

    model_dir = tempfile.mkdtemp()
    estimator = el.model_to_estimator(models.make_cnn(), model_dir=model_dir)
    start = time.time()
    hook = _FirstStepHook(start)
    estimator.train(input_fn, steps=args.steps, hooks=[hook])
    wall = time.time() - start
    sizes = {name: os.path.getsize(os.path.join(model_dir, name))
             for name in sorted(os.listdir(model_dir)) if os.path.isfile(
                 os.path.join(model_dir, name))}
    print(provenance.line(started))
    print(f"examples={args.examples} ({images.nbytes / 1e6:.0f} MB of images) steps={args.steps}"
          f"{' one_shot' if args.one_shot else ''}")
    print(f"first step ends at {hook.first_step_secs:.2f} s; train() wall {wall:.2f} s")
    print(f"model_dir total {_dir_bytes(model_dir) / 1e6:.2f} MB")
    for name, size in sizes.items():
        print(f"  {name}: {size / 1e6:.3f} MB")


if __name__ == "__main__":
    main()
