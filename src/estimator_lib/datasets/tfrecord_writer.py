"""Converting an image folder (CLASS/*.jpeg) to sharded TFRecord files.

Examples are shuffled with a seed before sharding, so every shard mixes the
classes and a per-epoch shuffle of the shards plus a record buffer mixes
well. Every image is decoded once while converting: a corrupt file is found
here, named, and either stops the conversion or is skipped and counted.
Shards and the metadata file are written under temporary names and renamed
when complete; the metadata goes last, so a crash never leaves a conversion
that looks complete.
"""

import concurrent.futures
import math
import os
import time
from typing import Any, Callable, Dict, Optional, Sequence

import numpy as np
import tensorflow as tf

from estimator_lib.datasets import errors, folder_scan, images, tfrecords
from estimator_lib.datasets.errors import BadDataError

TARGET_SHARD_BYTES = 100 * 2**20
# Bytes a record adds besides the image (features, names, framing).
_RECORD_OVERHEAD = 200
Progress = Callable[[int, int], None]


def plan_num_shards(total_bytes: int, num_examples: int, *,
                    num_shards: Optional[int] = None,
                    target_shard_bytes: int = TARGET_SHARD_BYTES) -> int:
    """Shards for a conversion: `num_shards`, else ~target_shard_bytes each.

    Never more shards than examples. The seeds' guide, 1,000 shards per
    million images, is ~100 MB shards for 100 KB images.

    Args:
        total_bytes: The bytes all examples take.
        num_examples: How many examples there are.
        num_shards: The number asked for; None plans by size.
        target_shard_bytes: The shard size aimed at.

    Returns:
        The number of shards, between 1 and `num_examples`.

    Raises:
        ValueError: If `num_shards` or `target_shard_bytes` is not positive.
    """
    if num_shards is not None:
        if isinstance(num_shards, bool) or not isinstance(
                num_shards, int) or num_shards <= 0:
            raise ValueError("`num_shards` must be a positive integer or "
                             f"None. Received: num_shards={num_shards!r}.")
        return min(num_shards, max(1, num_examples))
    if not isinstance(target_shard_bytes, int) or target_shard_bytes <= 0:
        raise ValueError(
            "`target_shard_bytes` must be a positive integer. Received: "
            f"target_shard_bytes={target_shard_bytes!r}.")
    shards = math.ceil(total_bytes / target_shard_bytes)
    return max(1, min(shards, num_examples))


def _make_encoder(image_format: str, size, channels: int) -> Callable:
    if image_format == "jpeg":
        def encode(contents):
            image = tf.io.decode_jpeg(contents)
            return tf.shape(image), tf.zeros([0], tf.uint8)
    else:
        def encode(contents):
            pixels = images.decode_and_resize_pixels(
                contents, image_size=size, channels=channels)
            pixels = images.to_uint8(pixels)
            return tf.shape(pixels), pixels
    # One traced graph, called from several threads at once.
    return tf.function(encode, input_signature=[
        tf.TensorSpec([], tf.string)])


def convert_folder_to_tfrecords(
        folder: str, output_dir: str, *, name: str = "train",
        class_names: Optional[Sequence[str]] = None,
        image_format: str = "jpeg",
        image_size: images.ImageSize = images.DEFAULT_IMAGE_SIZE,
        channels: int = 3, num_shards: Optional[int] = None,
        target_shard_bytes: int = TARGET_SHARD_BYTES, seed: int = 0,
        on_bad_file: str = "raise", num_threads: Optional[int] = None,
        progress: Optional[Progress] = None,
        listing: Optional[folder_scan.FolderListing] = None) -> Dict[str, Any]:
    """Converts `folder`/CLASS/*.jpeg to sharded TFRecords in `output_dir`.

    Args:
        folder: Holds one sub-folder per class.
        output_dir: Where shards and `NAME.metadata.json` are written.
        name: Prefix of the files, e.g. the split ('train').
        class_names: Classes in label order; default the sorted sub-folders.
        image_format: 'jpeg' stores each file's bytes unchanged (decoded and
            resized when read); 'raw' stores pixels already resized to
            `image_size` as uint8 (larger files, far cheaper to read).
        image_size: (height, width) or one int, for 'raw'.
        channels: Channels stored for 'raw': 1 for grayscale sets such as
            OCT (readers copy it to 3), or 3.
        num_shards: Number of shards; default from `target_shard_bytes`.
        target_shard_bytes: Aimed size of a shard, ~100 MB by default.
        seed: Seeds the order of examples across shards.
        on_bad_file: 'raise' or 'skip' (see `folder_scan.scan_folder`).
        num_threads: Threads decoding images; default one per core.
        progress: Called as progress(images_done, images_total); default
            logs one line per shard.
        listing: The files to convert, a part of `folder` (e.g. the 'test' side of
            `folder_scan.split_listing`); default every file `scan_folder` finds.

    Returns:
        The metadata written (class_names, counts, shards, skipped, ...).

    Raises:
        ValueError: If an argument is invalid.
        BadDataError: If the folder or, with 'raise', a file is bad.
    """
    tfrecords.check_image_format(image_format)
    size = images.normalize_image_size(image_size)
    images.check_channels(channels)
    if listing is None:
        listing = folder_scan.scan_folder(folder, class_names=class_names,
                                          on_bad_file=on_bad_file)
    count = len(listing.files)
    if image_format == "jpeg":
        total = sum(os.path.getsize(p) for p in listing.files)
    else:
        total = count * size[0] * size[1] * channels
    shards = plan_num_shards(total + count * _RECORD_OVERHEAD, count,
                             num_shards=num_shards,
                             target_shard_bytes=target_shard_bytes)
    order = np.random.RandomState(seed).permutation(count)
    encode = _make_encoder(image_format, size, channels)
    os.makedirs(output_dir, exist_ok=True)
    # An old metadata file would describe shards about to be replaced.
    old = tfrecords.metadata_path(output_dir, name)
    if os.path.exists(old):
        os.remove(old)
    skipped = list(listing.skipped)
    written, done, start = [], 0, time.time()
    report = progress or _log_progress(start)
    with concurrent.futures.ThreadPoolExecutor(
            num_threads or os.cpu_count()) as pool:
        for index, part in enumerate(np.array_split(order, shards)):
            records = pool.map(
                lambda i: _record(listing, int(i), encode, image_format),
                part)
            file_name = tfrecords.shard_name(name, index, shards)
            path = os.path.join(output_dir, file_name)
            kept = _write_shard(path, records, part, listing, on_bad_file,
                                skipped)
            written.append({"file": file_name, "num_examples": kept,
                            "bytes": os.path.getsize(path)})
            done += len(part)
            report(done, count)
    counts = _counts(listing, skipped)
    metadata = {
        "format_version": tfrecords.FORMAT_VERSION,
        "class_names": list(listing.class_names),
        "image_format": image_format,
        "image_size": list(size) if image_format == "raw" else None,
        "channels": channels if image_format == "raw" else None,
        "num_examples": sum(s["num_examples"] for s in written),
        "counts": counts,
        "shards": written,
        "num_skipped": len(skipped),
        "skipped": [{"path": p, "reason": r} for p, r in skipped[:100]],
        "source": listing.folder,
        "seed": seed,
    }
    tfrecords.write_metadata(output_dir, name, metadata)
    if len(skipped) > len(listing.skipped):
        tf.compat.v1.logging.warning(
            f"Skipped {len(skipped)} bad files converting {listing.folder}; "
            f"first: {skipped[0][0]} ({skipped[0][1]}).")
    return metadata


def _log_progress(start: float) -> Progress:
    def report(done: int, total: int) -> None:
        rate = done / max(time.time() - start, 1e-9)
        tf.compat.v1.logging.info(
            f"Converted {done}/{total} images ({rate:.0f} images/s).")
    return report


def _record(listing: folder_scan.FolderListing, i: int, encode: Callable,
            image_format: str):
    path = listing.files[i]
    label = listing.labels[i]
    try:
        with open(path, "rb") as f:
            contents = f.read()
        shape, pixels = encode(tf.constant(contents))
    except (OSError, tf.errors.InvalidArgumentError) as error:
        reason = getattr(error, "strerror", None) or "corrupt JPEG"
        return path, None, reason
    height, width, channels = (int(d) for d in shape.numpy())
    if image_format == "raw":
        contents = pixels.numpy().tobytes()
    relative = os.path.relpath(path, listing.folder).replace(os.sep, "/")
    return path, tfrecords.make_example(
        encoded=contents, image_format=image_format, height=height,
        width=width, channels=channels, label=label,
        text=listing.class_names[label], filename=relative), None


def _write_shard(path: str, records, part, listing, on_bad_file: str,
                 skipped: list) -> int:
    partial = os.path.join(os.path.dirname(path),
                           "." + os.path.basename(path) + ".partial")
    kept = 0
    try:
        with tf.io.TFRecordWriter(partial) as writer:
            for source, record, problem in records:
                if record is None:
                    if on_bad_file != "skip":
                        raise BadDataError(
                            f"{source} is a bad image: {problem}. "
                            f"{errors.SKIP_BAD_FILES} to leave such files out.",
                            path=source)
                    skipped.append((source, problem))
                    continue
                writer.write(record)
                kept += 1
        os.replace(partial, path)
    finally:
        if os.path.exists(partial):
            os.remove(partial)
    return kept


def _counts(listing: folder_scan.FolderListing, skipped: list
            ) -> Dict[str, int]:
    bad = {p for p, _ in skipped}
    counts = {name: 0 for name in listing.class_names}
    for path, label in zip(listing.files, listing.labels):
        if path not in bad:
            counts[listing.class_names[label]] += 1
    return counts
