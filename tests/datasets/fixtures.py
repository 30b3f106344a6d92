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


# Real data some tests read, from the project's `shared/` folder beside the repository
# (absent from a clone of the published repository: those tests skip, saying why).
SHARED_DATA = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                            "shared", "data"))
_HOW_TO_GET = {
    "fashion-mnist": "the real Fashion-MNIST label files (train-labels-idx1-ubyte.gz, "
                     "t10k-labels-idx1-ubyte.gz from https://storage.googleapis.com/"
                     "tensorflow/tf-keras-datasets/)",
    "oct-sample": "8 real OCT B-scans laid out CLASS/*.jpeg, 2 per class (e.g. taken from "
                  "the OCT2017 download: python -m estimator_lib.bin.download_oct)",
}


def shared_data(test, name: str, *parts: str) -> str:
    """The path of real data `name` (a folder of SHARED_DATA); skips `test` without it.

    The skip reason says, on the one line `pytest -rs` prints, what the test needs and
    where to put it.
    """
    path = os.path.join(SHARED_DATA, name, *parts)
    if not os.path.exists(path):
        test.skipTest(f"needs {_HOW_TO_GET[name]} in {os.path.join(SHARED_DATA, name)} "
                      f"(the project's shared/ folder beside the repository); "
                      f"{os.path.join(name, *parts)} is absent")
    return path
