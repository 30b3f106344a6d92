"""Tiny generated data for tests and benchmarks: JPEG folders, IDX files.

Each generated image has a flat gray level of its own, so a test can tell
which file an output image came from by its mean (JPEG and resizing keep a
flat image flat).
"""

import os
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
import tensorflow as tf

from datasets import idx, synthetic


def gray_level(index: int) -> int:
    """The flat gray level of the index-th generated image (8 apart)."""
    return 8 + (8 * index) % 240


def jpeg_bytes(pixels: np.ndarray, quality: int = 90) -> bytes:
    """Encodes uint8 pixels [h, w, 1 or 3] as a JPEG."""
    return tf.io.encode_jpeg(tf.constant(pixels, tf.uint8),
                             quality=quality).numpy()


def write_image_folder(folder: str, *,
                       class_names: Sequence[str] = ("CNV", "DME", "DRUSEN",
                                                     "NORMAL"),
                       per_class: int = 2, height: int = 32, width: int = 24,
                       channels: int = 1, start: int = 0
                       ) -> Dict[str, Tuple[str, int]]:
    """Writes `folder`/CLASS/img_K.jpeg with flat, distinct gray levels.

    Returns:
        path -> (class name, gray level).
    """
    written = {}
    index = start
    for name in class_names:
        os.makedirs(os.path.join(folder, name), exist_ok=True)
        for k in range(per_class):
            level = gray_level(index)
            pixels = np.full((height, width, channels), level, np.uint8)
            path = os.path.join(folder, name, f"img_{k:03d}.jpeg")
            with open(path, "wb") as f:
                f.write(jpeg_bytes(pixels))
            written[path] = (name, level)
            index += 1
    return written


def write_textured_jpegs(folder: str, *, count: int,
                         class_names: Sequence[str] = ("CNV", "DME", "DRUSEN",
                                                       "NORMAL"),
                         height: int = 496, width: int = 512,
                         seed: int = 0) -> List[str]:
    """Writes `count` OCT-sized grayscale JPEGs with smooth random texture.

    For benchmarks: they cost what real B-scans cost to decode (a flat image
    decodes unrealistically fast).
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


def write_fashion_mnist(folder: str, *, train: int = 32, test: int = 16,
                        seed: int = 0, gzipped: bool = True,
                        labels_override: Optional[Dict[str, np.ndarray]] = None
                        ) -> Dict[str, np.ndarray]:
    """Writes the four Fashion-MNIST IDX files with synthetic content.

    Returns:
        File name -> the array written.
    """
    os.makedirs(folder, exist_ok=True)
    suffix = ".gz" if gzipped else ""
    arrays = {}
    for split, size, prefix in (("train", train, "train"),
                                ("test", test, "t10k")):
        images, labels = synthetic.load_arrays(size, seed=seed, split=split)
        if labels_override and prefix in labels_override:
            labels = labels_override[prefix]
        for kind, array in (("images-idx3", images), ("labels-idx1", labels)):
            name = f"{prefix}-{kind}-ubyte{suffix}"
            idx.write(os.path.join(folder, name), array)
            arrays[name] = array
    return arrays
