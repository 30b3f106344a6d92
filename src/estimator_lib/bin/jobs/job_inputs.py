"""The train and eval input_fns of a --dataset, from plain values (datasets/ builders).

The batch is given one way only: `batch_size` per replica (the Estimator
contract) or `global_batch_size`, which each input_fn divides among the
replicas through its `input_context`.
"""

import dataclasses
import os
from typing import Callable, Optional, Tuple

from estimator_lib.datasets import fashion_mnist
from estimator_lib.datasets import folder_scan
from estimator_lib.datasets import make_tfrecord_input_fn
from estimator_lib.datasets import oct_folder
from estimator_lib.datasets import pipeline
from estimator_lib.datasets import tfrecords
from estimator_lib.datasets.errors import BadDataError

# The embedded synthetic Fashion-MNIST twin, cut to keep the default run quick.
SYNTHETIC_TRAIN_EXAMPLES = 6000
SYNTHETIC_EVAL_EXAMPLES = 1000
DEFAULT_IMAGE_SIZE = 224
# OCT's default without a GPU: the seed CNN at 224x224 takes ~9 s a step of 64 on
# 2 CPU cores (README's try-out: 15 minutes); at 64x64 about 15x less.
CPU_IMAGE_SIZE = 64
EVAL_SPLITS = ("test", "val")


@dataclasses.dataclass(frozen=True)
class Inputs:
    """What a training job reads, and the shapes its model must take."""

    train_input_fn: Callable
    eval_input_fn: Optional[Callable]
    eval_split: Optional[str]
    num_train_examples: int
    image_shape: Tuple[int, int, int]
    num_classes: int
    description: str
    # The files on_bad_file='skip' left out, by count and name (oct); '' when none.
    skipped: str = ""


def make_inputs(dataset: str, *, data_dir: Optional[str] = None,
                batch_size: Optional[int] = None, global_batch_size: Optional[int] = None,
                eval_batch_size: int, image_size: Optional[int] = None,
                seed: Optional[int] = None, feature_key: Optional[str] = None,
                on_bad_file: str = "raise", gpu: bool = True) -> Inputs:
    """Builds the input_fns of `dataset` ('synthetic', 'fashion_mnist', 'oct', 'tfrecords').

    Args:
        dataset: Which data.
        data_dir: Where it is (optional for synthetic and fashion_mnist).
        batch_size: Training batch per replica; or
        global_batch_size: the training batch over all replicas.
        eval_batch_size: Evaluation batch (evaluation runs on one device).
        image_size: Square size images are resized to (oct, tfrecords). Default for
            oct: DEFAULT_IMAGE_SIZE with a GPU, CPU_IMAGE_SIZE without.
        seed: Seeds the training shuffle.
        feature_key: Give features as `{feature_key: images}` (Fashion-MNIST).
        on_bad_file: 'raise' or 'skip' a bad image (oct; see datasets.folder_scan).
        gpu: Whether training runs on GPUs (sets oct's default image size).

    Raises:
        BadDataError: If `data_dir` does not exist, or the data is missing or bad.
        DownloadError: If Fashion-MNIST files are missing and cannot be downloaded.
        ValueError: If `dataset` is unknown.
    """
    if data_dir and not os.path.isdir(data_dir):
        what = "is a file, not a folder" if os.path.exists(data_dir) else "does not exist"
        raise BadDataError(f"--data_dir={data_dir} {what}.", path=data_dir)
    batch = dict(batch_size=batch_size, global_batch_size=global_batch_size)
    if dataset in ("synthetic", "fashion_mnist"):
        return _fashion_mnist(dataset, data_dir, batch, eval_batch_size, seed, feature_key)
    if dataset == "oct":
        return _oct(data_dir, batch, eval_batch_size, image_size,
                    DEFAULT_IMAGE_SIZE if gpu else CPU_IMAGE_SIZE, seed, on_bad_file)
    if dataset == "tfrecords":
        return _tfrecords(data_dir, batch, eval_batch_size, image_size, seed)
    raise ValueError(f"Unknown --dataset={dataset}.")


def _fashion_mnist(dataset, data_dir, batch, eval_batch_size, seed, feature_key) -> Inputs:
    synthetic = dataset == "synthetic"

    def make(split, mode, num_examples, **kwargs):
        return fashion_mnist.make_input_fn(
            None if synthetic else data_dir, split=split, mode=mode,
            synthetic_data=synthetic, num_examples=num_examples if synthetic else None,
            feature_key=feature_key, **kwargs)

    train_examples = SYNTHETIC_TRAIN_EXAMPLES if synthetic else 60000
    train = make("train", pipeline.TRAIN, SYNTHETIC_TRAIN_EXAMPLES, seed=seed, **batch)
    evaluate = make("test", pipeline.EVAL, SYNTHETIC_EVAL_EXAMPLES, batch_size=eval_batch_size)
    where = "embedded, offline" if synthetic else (data_dir or "the Keras cache")
    return Inputs(train, evaluate, "test", train_examples, (28, 28, 1),
                  fashion_mnist.NUM_CLASSES,
                  f"{dataset} ({train_examples} training examples, 28x28x1; {where})")


def _oct(data_dir, batch, eval_batch_size, image_size, default_size, seed,
         on_bad_file) -> Inputs:
    note = ("" if image_size or default_size == DEFAULT_IMAGE_SIZE else
            f", the default without a GPU; --image_size={DEFAULT_IMAGE_SIZE} as the seed")
    image_size = image_size or default_size
    # OCT2017/split/CLASS/*.jpeg, or a plain CLASS/*.jpeg folder split by a seeded draw.
    # Every image is decoded once while the folders are scanned (verify='decode'): a
    # corrupt one is named (or, with 'skip', counted and left out) before training.
    train = oct_folder.make_input_fn(data_dir, split="train", mode=pipeline.TRAIN,
                                     image_size=image_size, seed=seed,
                                     on_bad_file=on_bad_file, verify="decode", **batch)
    evaluate, eval_split = None, None
    present = oct_folder.available_splits(data_dir)
    for split in EVAL_SPLITS:
        if split not in present:
            continue
        evaluate = oct_folder.make_input_fn(data_dir, split=split, mode=pipeline.EVAL,
                                            image_size=image_size, batch_size=eval_batch_size,
                                            on_bad_file=on_bad_file, verify="decode")
        eval_split = split
        break
    count = len(train.listing.files)
    skipped = tuple(dict.fromkeys(train.listing.skipped + (
        evaluate.listing.skipped if evaluate is not None else ())))
    names = folder_scan.skipped_names(skipped)
    return Inputs(train, evaluate, eval_split, count, (image_size, image_size, 3),
                  len(oct_folder.CLASS_NAMES),
                  f"oct ({count} training images in {train.listing.folder}, resized to "
                  f"{image_size}x{image_size}{note}"
                  f"{f'; {len(skipped)} bad file(s) left out: {names}' if skipped else ''})",
                  f"{len(skipped)} bad file(s) left out, {count} training images used: "
                  f"{names}" if skipped else "")


def _tfrecords(data_dir, batch, eval_batch_size, image_size, seed) -> Inputs:
    size = (image_size, image_size) if image_size else None
    train = make_tfrecord_input_fn(data_dir, name="train", mode=pipeline.TRAIN,
                                   image_size=size, seed=seed, **batch)
    metadata = train.metadata
    # The reader's own default: the stored size ('raw'), else 224 ('jpeg').
    stored = metadata.get("image_size") or (DEFAULT_IMAGE_SIZE, DEFAULT_IMAGE_SIZE)
    height, width = (image_size, image_size) if image_size else tuple(stored)
    evaluate, eval_split = None, None
    for name in EVAL_SPLITS:
        if os.path.isfile(tfrecords.metadata_path(data_dir, name)):
            evaluate = make_tfrecord_input_fn(data_dir, name=name, mode=pipeline.EVAL,
                                              image_size=(height, width),
                                              batch_size=eval_batch_size)
            eval_split = name
            break
    count = metadata["num_examples"]
    return Inputs(train, evaluate, eval_split, count, (height, width, 3),
                  len(metadata["class_names"]),
                  f"tfrecords ({count} training records, {metadata['image_format']}, in "
                  f"{data_dir}; {height}x{width})")
