"""Tiny generated data for the tests: JPEG folders and Fashion-MNIST IDX files.

Each generated image has a flat gray level of its own, so a test can tell
which file an output image came from by its mean (JPEG and resizing keep a
flat image flat).
"""

import os
from typing import Dict, Optional, Sequence, Tuple

import numpy as np

from estimator_lib.datasets import idx, synthetic
from estimator_lib.datasets.synthetic import jpeg_bytes  # noqa: F401  (tests use it here)


def gray_level(index: int) -> int:
    """The flat gray level of the index-th generated image (8 apart)."""
    return 8 + (8 * index) % 240


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


# Real data some tests read, from the project's `shared/` folder beside the repository.
# A clone of the published repository has no such folder: those tests then read small
# synthetic stand-ins of the same layout, written here, so that nothing skips.
SHARED_DATA = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                            "shared", "data"))
# Fashion-MNIST's label files: 6000 (train) and 1000 (t10k) of each of the 10 classes.
_LABEL_COUNTS = {"train-labels-idx1-ubyte.gz": 60000, "t10k-labels-idx1-ubyte.gz": 10000}
OCT_CLASSES = ("CNV", "DME", "DRUSEN", "NORMAL")


def _write_stand_in(name: str, folder: str) -> None:
    """Writes the synthetic stand-in of shared data `name` into `folder`."""
    if name == "fashion-mnist":  # Balanced labels in a seeded order, gzipped IDX.
        rng = np.random.RandomState(0)
        for file_name, count in _LABEL_COUNTS.items():
            labels = np.repeat(np.arange(10, dtype=np.uint8), count // 10)
            idx.write(os.path.join(folder, file_name), rng.permutation(labels))
    elif name == "oct-sample":  # 2 OCT-sized grayscale JPEGs per class, CLASS/*.jpeg.
        synthetic.write_textured_jpegs(folder, count=2 * len(OCT_CLASSES),
                                       class_names=OCT_CLASSES)
    else:
        raise ValueError(f"No stand-in for shared data {name!r}.")


def shared_data(test, name: str, *parts: str, root: str = SHARED_DATA) -> str:
    """The path of data `name`: the real files in `root` (SHARED_DATA) when present,
    else a synthetic stand-in of the same layout and counts under `test`'s temp dir.

    'fashion-mnist': the label files; 'oct-sample': 2 B-scans per class as CLASS/*.jpeg.
    """
    path = os.path.join(root, name, *parts)
    if os.path.exists(path):
        return path
    folder = os.path.join(test.get_temp_dir(), "stand_in", name)
    if not os.path.isdir(folder):
        os.makedirs(folder)
        _write_stand_in(name, folder)
    return os.path.join(folder, *parts)
