"""The Kaggle retinal OCT dataset (Kermany 2018, `OCT2017`).

Layout: `OCT2017/{train,test,val}/{CNV,DME,DRUSEN,NORMAL}/*.jpeg`, or a plain
`{CNV,DME,DRUSEN,NORMAL}/*.jpeg` folder (a sample), split into train and test
by a seeded draw (`HOLDOUT_FRACTION` of each class to test). The real
archive unpacks to `OCT2017 ` (a trailing space) and also holds a duplicate
lower-case tree (`oct2017/OCT2017 /...`): `find_root` picks one tree, the
shallowest, upper-case first, and logs the duplicates it ignores, so no image
is read twice.
"""

import os
from typing import Any, Callable, Dict, List, Optional, Sequence

import tensorflow as tf

from estimator_lib.datasets import (folder_scan, image_folder, images, kaggle_download,
                                    pipeline, tfrecord_writer)
from estimator_lib.datasets import errors
from estimator_lib.datasets.errors import BadDataError

CLASS_NAMES = ("CNV", "DME", "DRUSEN", "NORMAL")
SPLITS = ("train", "test", "val")
KAGGLE_DATASET = "paultimothymooney/kermany2018"
_MAX_DEPTH = 3
HOLDOUT_FRACTION = 0.2


def _dirs(path: str) -> List[str]:
    try:
        return sorted(e.name for e in os.scandir(path) if e.is_dir()
                      and not e.name.startswith((".", "__MACOSX")))
    except OSError:
        return []


def _split_names(path: str) -> List[str]:
    return [d for d in _dirs(path) if d.strip().lower() in SPLITS]


def find_root(data_dir: str, *,
              log: Optional[Callable[[str], None]] = None) -> str:
    """Returns the folder holding the split folders under `data_dir`.

    `data_dir` itself, `OCT2017`, `OCT2017 `, or any folder up to three
    levels down that has train/test/val sub-folders.

    Raises:
        BadDataError: If no such folder exists (e.g. `data_dir` is empty).
    """
    if not os.path.isdir(data_dir):
        raise BadDataError(f"`data_dir` {data_dir} does not exist. Download "
                           f"the data with {errors.DOWNLOAD_OCT}.",
                           path=data_dir)
    found, level = [], [(os.path.abspath(data_dir), 0)]
    while level:
        path, depth = level.pop(0)
        if _split_names(path):
            found.append((depth, os.path.basename(path).strip() != "OCT2017",
                          path))
            continue
        if depth < _MAX_DEPTH:
            level.extend((os.path.join(path, d), depth + 1)
                         for d in _dirs(path))
    if not found:
        raise BadDataError(
            f"`data_dir` {data_dir} holds no OCT2017 folder with "
            f"{'/'.join(SPLITS)} splits (expected "
            f"{os.path.join(data_dir, 'OCT2017', 'train', 'CNV', '*.jpeg')}) "
            f"and no CLASS/*.jpeg folders. Download it with {errors.DOWNLOAD_OCT}.",
            path=data_dir)
    found.sort()
    root = found[0][2]
    if len(found) > 1:
        (log or tf.compat.v1.logging.info)(
            f"Reading OCT images from {root}; ignoring the duplicate "
            f"tree(s) {', '.join(repr(f[2]) for f in found[1:])}.")
    return root


def is_class_folder(data_dir: str) -> bool:
    """Tells whether `data_dir` is a plain CLASS/*.jpeg folder (no split folders)."""
    names = _dirs(data_dir)
    return bool(names) and not _split_names(data_dir) and any(
        name.lower().endswith(folder_scan.IMAGE_EXTENSIONS)
        for d in names for name in os.listdir(os.path.join(data_dir, d)))


def available_splits(data_dir: str) -> List[str]:
    """Lists the splits `make_input_fn` can read: those present, or train and test of a
    plain CLASS/*.jpeg folder; [] when `data_dir` is neither."""
    try:
        root = find_root(data_dir, log=lambda message: None)
    except BadDataError:
        return ["train", "test"] if os.path.isdir(data_dir) and is_class_folder(
            data_dir) else []
    present = {name.strip().lower() for name in _split_names(root)}
    return [split for split in SPLITS if split in present]


def split_dir(data_dir: str, split: str, *,
              log: Optional[Callable[[str], None]] = None) -> str:
    """Returns the folder of one split, e.g. `.../OCT2017 /train`.

    Args:
        data_dir: The folder the OCT2017 data was unzipped into (any level above
            the splits).
        split: The split: `train`, `test` or `val`.
        log: Called with one line of text when the layout needed a guess; None
            to stay quiet.

    Raises:
        ValueError: If `split` is not train, test or val.
        BadDataError: If the data or the split is missing.
    """
    if split not in SPLITS:
        raise ValueError(f"`split` must be one of {SPLITS}. "
                         f"Received: split={split!r}.")
    root = find_root(data_dir, log=log)
    names = _split_names(root)
    for name in names:
        if name.strip().lower() == split:
            return os.path.join(root, name)
    raise BadDataError(f"No {split!r} split under {root}; found "
                       f"{', '.join(names)}.", path=root)


def make_input_fn(data_dir: str, *, split: str = "train",
                  batch_size: Optional[int] = None,
                  global_batch_size: Optional[int] = None,
                  mode: Optional[str] = None,
                  class_names: Sequence[str] = CLASS_NAMES,
                  image_size: images.ImageSize = images.DEFAULT_IMAGE_SIZE,
                  channels: int = 3, grayscale: bool = True,
                  epochs: Optional[int] = None,
                  shuffle_buffer: int = 4096, seed: Optional[int] = None,
                  prefetch_buffer: Optional[int] = pipeline.AUTOTUNE,
                  drop_remainder: bool = False,
                  deterministic: Optional[bool] = None,
                  on_bad_file: str = "raise", verify: str = "header",
                  split_seed: int = 0) -> pipeline.InputFn:
    """Builds an input_fn over one split of the OCT folders.

    A plain CLASS/*.jpeg folder (no split folders) is split per class by
    `split_seed`: `HOLDOUT_FRACTION` of each class is 'test', the rest 'train'.

    Images are decoded to 3 channels (grayscale copied), converted to float
    in [0, 1] and resized to 224x224 by default; labels are one-hot over
    CNV, DME, DRUSEN, NORMAL (sorted), taken from each file's folder.

    Args:
        data_dir: The download folder, or any folder above `OCT2017`.
        split: 'train', 'test' or 'val'.
        batch_size: Batch per replica (the Estimator contract).
        global_batch_size: Or the global batch, split per replica through
            `input_context.get_per_replica_batch_size`.
        mode: TRAIN shuffles and repeats; EVAL reads once in order; PREDICT
            yields images only. None: the caller's mode.
        class_names: The classes; a folder not listed is an unknown class.
        image_size: Output (height, width) or one int.
        channels: 3 or 1.
        grayscale: Decode as one channel and copy it to 3 per batch (OCT
            scans are grayscale; ~12% less CPU). False decodes each image
            by its own colour model.
        epochs: Passes over the data in TRAIN (None: forever).
        shuffle_buffer: File names in the shuffle buffer.
        seed: Seeds the shuffle; each epoch differs, runs repeat.
        prefetch_buffer: Batches prefetched; AUTOTUNE by default.
        drop_remainder: Drop a last partial batch.
        deterministic: Keep order in parallel stages; by default kept when
            seeded or outside TRAIN.
        on_bad_file: 'raise' or 'skip' (see `folder_scan.scan_folder`).
        verify: 'header', 'decode' or 'none'.
        split_seed: Seeds the train/test draw of a plain CLASS/*.jpeg folder.

    Returns:
        An input_fn taking the optional mode/params/config/input_context,
        with a `listing` attribute (files, counts, skipped).

    Raises:
        ValueError: If an argument is invalid.
        BadDataError: If the data is missing or bad (see `scan_folder`).
    """
    listing = None
    if os.path.isdir(data_dir) and is_class_folder(data_dir):
        if split not in ("train", "test"):
            raise BadDataError(
                f"{data_dir} is a plain CLASS/*.jpeg folder: its splits are 'train' and "
                f"'test' (a seeded draw). Received: split={split!r}.", path=data_dir)
        folder = os.path.abspath(data_dir)
        train, test = folder_scan.split_listing(
            folder_scan.scan_folder(folder, class_names=sorted(class_names),
                                    on_bad_file=on_bad_file, verify=verify),
            test_fraction=HOLDOUT_FRACTION, seed=split_seed)
        listing = train if split == "train" else test
    else:
        folder = split_dir(data_dir, split)
    return image_folder.make_input_fn(
        folder, listing=listing, batch_size=batch_size, global_batch_size=global_batch_size,
        mode=mode, class_names=sorted(class_names), image_size=image_size,
        channels=channels, grayscale=grayscale, epochs=epochs,
        shuffle_buffer=shuffle_buffer, seed=seed,
        prefetch_buffer=prefetch_buffer,
        drop_remainder=drop_remainder, deterministic=deterministic,
        on_bad_file=on_bad_file, verify=verify)


def download_oct(data_dir: str, *, force: bool = False, quiet: bool = False,
                 keep_archive: bool = False,
                 progress: Optional[Callable[[int, int], None]] = None,
                 api_factory: Optional[Callable] = None) -> str:
    """Downloads `paultimothymooney/kermany2018` and unzips it into data_dir.

    Resumes an interrupted download or extraction; does nothing when a
    previous call completed. Needs Kaggle credentials (KAGGLE_USERNAME and
    KAGGLE_KEY, KAGGLE_API_TOKEN, or ~/.kaggle/kaggle.json).

    Args:
        data_dir: The folder the OCT2017 data was unzipped into (any level above
            the splits).
        force: Download again even if a previous download completed.
        quiet: Print no progress.
        keep_archive: Keep the zip file after extracting it.
        progress: Called as `progress(done, total)` while working; None for
            none.
        api_factory: Makes the Kaggle API client (for tests); None uses the
            `kaggle` package.

    Returns:
        The folder holding the splits (see `find_root`).

    Raises:
        DownloadError: One line saying what went wrong and what to set.
    """
    kaggle_download.download_dataset(
        KAGGLE_DATASET, data_dir, force=force, quiet=quiet,
        keep_archive=keep_archive, progress=progress, api_factory=api_factory)
    return find_root(data_dir)


def convert_oct_to_tfrecords(
        data_dir: str, output_dir: str, *, splits: Sequence[str] = SPLITS,
        image_format: str = "jpeg",
        image_size: images.ImageSize = images.DEFAULT_IMAGE_SIZE,
        num_shards: Optional[int] = None,
        target_shard_bytes: int = tfrecord_writer.TARGET_SHARD_BYTES,
        seed: int = 0, on_bad_file: str = "raise",
        progress: Optional[Callable[[int, int], None]] = None
        ) -> Dict[str, Dict[str, Any]]:
    """Converts each present split to TFRecords named after it.

    Pre-resized ('raw') images are stored as one grayscale channel (OCT
    scans are grayscale); readers copy it to 3 channels. Class names are
    the four OCT classes for every split, so labels agree across splits.

    Args:
        data_dir: The folder the OCT2017 data was unzipped into (any level above
            the splits).
        output_dir: Where the TFRecord shards and metadata are written.
        splits: The splits to convert (those absent are skipped with a warning).
        image_format: `jpeg` stores the files' bytes as they are; `raw` stores
            pre-resized pixels.
        image_size: The size `raw` images are resized to: an int or `(height,
            width)`.
        num_shards: Shards per split; None picks about `target_shard_bytes` per
            shard.
        target_shard_bytes: The shard size aimed at when `num_shards` is None.
        seed: Seeds the order of examples across shards.
        on_bad_file: `raise` stops at an unreadable image; `skip` leaves it out
            and counts it.
        progress: Called as `progress(done, total)` while working; None for
            none.

    Returns:
        split -> the metadata written (see `convert_folder_to_tfrecords`).

    Raises:
        ValueError: If an argument is invalid.
        BadDataError: If the data is missing or bad.
    """
    for split in splits:
        if split not in SPLITS:
            raise ValueError(f"`splits` must hold only {SPLITS}. "
                             f"Received: splits={list(splits)!r}.")
    root = find_root(data_dir)
    present = {d.strip().lower() for d in _split_names(root)}
    results = {}
    for split in splits:
        if split not in present:
            tf.compat.v1.logging.warning(
                f"No {split!r} split under {root}; not converted.")
            continue
        results[split] = tfrecord_writer.convert_folder_to_tfrecords(
            split_dir(data_dir, split), output_dir, name=split,
            class_names=CLASS_NAMES, image_format=image_format,
            image_size=image_size, channels=1, num_shards=num_shards,
            target_shard_bytes=target_shard_bytes, seed=seed,
            on_bad_file=on_bad_file, progress=progress)
    if not results:
        raise BadDataError(f"No split of {list(splits)} under {root}.",
                           path=root)
    return results
