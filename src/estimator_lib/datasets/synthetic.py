"""An embedded Fashion-MNIST-shaped dataset with a learnable signal.

Each class has a fixed 28x28 template; an example is its class template at a
random contrast plus uniform noise, as uint8 like the IDX files. A small CNN
separates the classes within a few hundred steps, so accuracy visibly rises
on a machine with no data and no network.

Examples are generated in the graph from a seed (stateless random ops, in
blocks of `BLOCK` examples), so a 60,000-example set costs no file, freezes
no constant into the graph, and is identical on every run and every worker.
"""

import functools
import os
from typing import List, Sequence, Tuple

import numpy as np
import tensorflow as tf

IMAGE_SHAPE = (28, 28)
NUM_CLASSES = 10
TRAIN_SIZE = 60000
TEST_SIZE = 10000
BLOCK = 1000
# Kept apart so that the test split never repeats a training example.
_SPLIT_OFFSETS = {"train": 0, "test": 7919}


@functools.lru_cache(maxsize=None)
def templates() -> np.ndarray:
    """The ten class templates, float32 in [0, 1], shape [10, 28, 28]."""
    rng = np.random.RandomState(1708)
    coarse = rng.uniform(size=(NUM_CLASSES, 7, 7)) > 0.5
    fine = np.kron(coarse, np.ones((4, 4))).astype(np.float32)
    return fine


def dataset(num_examples: int, *, seed: int = 0,
            split: str = "train") -> tf.data.Dataset:
    """Elements `(image uint8 [28, 28], label uint8 [])`, IDX-like.

    Args:
        num_examples: How many examples.
        seed: Selects the examples; same seed, same data.
        split: 'train' or 'test', disjoint streams for the same seed.

    Raises:
        ValueError: If `num_examples` is not positive or `split` unknown.
    """
    if isinstance(num_examples, bool) or not isinstance(
            num_examples, int) or num_examples <= 0:
        raise ValueError("`num_examples` must be a positive integer. "
                         f"Received: num_examples={num_examples!r}.")
    if split not in _SPLIT_OFFSETS:
        raise ValueError(f"`split` must be one of {sorted(_SPLIT_OFFSETS)}. "
                         f"Received: split={split!r}.")
    stream = int(seed) * 2 + (1 if split == "test" else 0)
    table = tf.constant(templates())
    blocks = -(-num_examples // BLOCK)

    def block(index):
        key = tf.stack([tf.constant(stream, tf.int64), index])
        labels = tf.random.stateless_uniform(
            [BLOCK], seed=key, minval=0, maxval=NUM_CLASSES, dtype=tf.int32)
        contrast = tf.random.stateless_uniform(
            [BLOCK, 1, 1], seed=key + [0, 1 << 40], minval=0.35, maxval=0.8)
        noise = tf.random.stateless_uniform(
            [BLOCK, *IMAGE_SHAPE], seed=key + [0, 2 << 40])
        pixels = tf.gather(table, labels) * contrast + noise * (1 - contrast)
        images = tf.cast(tf.round(pixels * 255.0), tf.uint8)
        return images, tf.cast(labels, tf.uint8)

    data = tf.data.Dataset.range(blocks).map(block).unbatch()
    return data.take(num_examples)


def load_arrays(num_examples: int, *, seed: int = 0,
                split: str = "train") -> Tuple[np.ndarray, np.ndarray]:
    """Returns the same examples as numpy arrays (uint8 images [N,28,28], labels [N]).

    Runs in a private graph, so it works whether or not eager execution is
    on in the caller's context.

    Args:
        num_examples: How many examples.
        seed: Seeds the examples (the same seed gives the same arrays).
        split: `train` or `test`: the two splits differ for the same seed.

    Returns:
        The pair `(images, labels)`: uint8 `[N, 28, 28]` and `[N]`.
    """
    with tf.Graph().as_default():
        batch = dataset(num_examples, seed=seed, split=split).batch(
            num_examples)
        images, labels = batch.get_single_element()
        with tf.compat.v1.Session() as session:
            return session.run((images, labels))


def jpeg_bytes(pixels: np.ndarray, quality: int = 90) -> bytes:
    """Encodes uint8 pixels [h, w, 1 or 3] as a JPEG."""
    return tf.io.encode_jpeg(tf.constant(pixels, tf.uint8),
                             quality=quality).numpy()


def write_textured_jpegs(folder: str, *, count: int,
                         class_names: Sequence[str] = ("CNV", "DME", "DRUSEN",
                                                       "NORMAL"),
                         height: int = 496, width: int = 512,
                         seed: int = 0) -> List[str]:
    """Writes `count` OCT-sized grayscale JPEGs with smooth random texture.

    For benchmarks: they cost what real B-scans cost to decode (a flat image
    decodes unrealistically fast).

    Args:
        folder: Where the class folders are created.
        count: How many images to write.
        class_names: The class folder names.
        height: The images' height.
        width: The images' width.
        seed: Seeds the examples (the same seed gives the same arrays).

    Returns:
        The paths written, one class folder per name, classes in turn.
    """
    rng = np.random.RandomState(seed)
    paths = []
    for name in class_names:
        os.makedirs(os.path.join(folder, name), exist_ok=True)
    base = rng.randint(0, 256, (height // 8, width // 8, 1)).astype(np.uint8)
    smooth = tf.image.resize(base, (height, width)).numpy()
    for i in range(count):
        noise = rng.randint(-6, 7, (height, width, 1))
        pixels = np.clip(smooth + noise + (i % 17) - 8, 0, 255).astype(np.uint8)
        name = class_names[i % len(class_names)]
        path = os.path.join(folder, name, f"{name}-{i:06d}.jpeg")
        with open(path, "wb") as f:
            f.write(jpeg_bytes(pixels, quality=85))
        paths.append(path)
    return paths
