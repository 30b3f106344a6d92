"""An input_fn over an image folder laid out CLASS/*.jpeg.

The folder is listed and checked once, when the input_fn is built (see
`folder_scan`). In the graph, files are matched per class folder at run time
(no file list frozen into the graph), each folder's matches labelled with the
folder's index among the sorted class names, then decoded and resized in
parallel, batched and prefetched: the seed's list_files ->
shuffle_and_repeat -> map_and_batch -> prefetch with today's autotuning.

The label is looked up once per folder, not parsed out of every path: a file
can only be matched by its own folder's glob, so it cannot get another
folder's label, and parsing paths cost ~10% of the pipeline's CPU.
"""

import functools
import os
from typing import Callable, Optional, Sequence

import tensorflow as tf

from estimator_lib.datasets import folder_scan, images, pipeline

_GLOB_CHARS = set("*?[]\\")


def files_dataset(listing: folder_scan.FolderListing) -> tf.data.Dataset:
    """Makes a dataset of (path, label int32) of the listing's usable files, in a fixed order.

    One glob per class folder and extension, matched in the graph, its
    matches labelled with that folder's class index; files the scan left
    out are filtered away. A folder whose path holds glob characters falls
    back to the listed paths themselves (a constant in the graph).
    """
    patterns = {}
    for path, label in zip(listing.files, listing.labels):
        pattern = os.path.join(os.path.dirname(path),
                               "*" + os.path.splitext(path)[1])
        patterns[pattern] = label
    if listing.subset or any(_GLOB_CHARS & set(os.path.dirname(p)) for p in patterns):
        return tf.data.Dataset.from_tensor_slices(
            (list(listing.files), tf.constant(listing.labels, tf.int32)))
    ordered = sorted(patterns)

    def matches(pattern, label):
        found = tf.io.matching_files(pattern)
        return tf.data.Dataset.from_tensor_slices(
            (found, tf.fill(tf.shape(found), label)))

    files = tf.data.Dataset.from_tensor_slices(
        (ordered, tf.constant([patterns[p] for p in ordered], tf.int32)))
    files = files.flat_map(matches)
    excluded = [p for p, _ in listing.skipped
                if p.lower().endswith(folder_scan.IMAGE_EXTENSIONS)]
    if excluded:
        table = tf.constant(excluded)
        files = files.filter(lambda p, _: tf.logical_not(
            tf.reduce_any(tf.equal(table, p))))
    return files


def make_parse_fn(class_names: Sequence[str], *,
                  image_size: images.ImageSize = images.DEFAULT_IMAGE_SIZE,
                  channels: int = 3, one_hot: bool = True,
                  scaled: bool = True) -> Callable:
    """Maps (path, label) to (image float32 [h, w, c] in [0, 1], label).

    `scaled=False` leaves pixels in [0, 255].

    Args:
        class_names: The class names, in label order (their number is the one-
            hot depth).
        image_size: The size images are resized to: an int (square) or `(height,
            width)`.
        channels: The channels of the decoded image (1 or 3).
        one_hot: Whether labels become one-hot float vectors (else int ids).
        scaled: Whether pixels are scaled to [0, 1] (else left in [0, 255]).

    Returns:
        A function `parse(path, label)` for `Dataset.map`, returning `(image,
        label)`.

    Raises:
        ValueError: If `image_size` or `channels` is invalid.
    """
    size = images.normalize_image_size(image_size)
    images.check_channels(channels)
    depth = len(class_names)

    def parse(path, label):
        decode = (images.decode_and_resize if scaled
                  else images.decode_and_resize_pixels)
        image = decode(tf.io.read_file(path), image_size=size,
                       channels=channels)
        if one_hot:
            label = tf.one_hot(label, depth)
        return image, label

    return parse


def _expand(features, labels=None, *, channels):
    features = images.gray_to_channels(features, channels, scale=1 / 255.0)
    return features if labels is None else (features, labels)


def make_input_fn(folder: str, *, batch_size: Optional[int] = None,
                  global_batch_size: Optional[int] = None,
                  mode: Optional[str] = None,
                  class_names: Optional[Sequence[str]] = None,
                  image_size: images.ImageSize = images.DEFAULT_IMAGE_SIZE,
                  channels: int = 3, grayscale: bool = False,
                  one_hot: bool = True, epochs: Optional[int] = None,
                  shuffle_buffer: int = 4096,
                  seed: Optional[int] = None,
                  prefetch_buffer: Optional[int] = pipeline.AUTOTUNE,
                  num_parallel_calls: int = pipeline.AUTOTUNE,
                  drop_remainder: bool = False,
                  deterministic: Optional[bool] = None,
                  private_threadpool_size: Optional[int] = None,
                  max_intra_op_parallelism: Optional[int] = None,
                  on_bad_file: str = "raise", verify: str = "header",
                  listing: Optional[folder_scan.FolderListing] = None
                  ) -> pipeline.InputFn:
    """Builds an input_fn over `folder`/CLASS/*.jpeg.

    Args:
        folder: Holds one sub-folder per class.
        batch_size: Batch per replica (the Estimator contract).
        global_batch_size: Or the global batch, split per replica through
            `input_context.get_per_replica_batch_size`.
        mode: TRAIN shuffles the files (a new order each epoch) and repeats
            `epochs` times (None: forever); EVAL reads once in order; PREDICT
            yields images only. None: the caller's mode.
        class_names: Classes in label order; default the sorted sub-folders.
        image_size: Output (height, width) or one int; 224 by default.
        channels: 3 (grayscale copied to RGB) or 1.
        grayscale: Decode every image as one channel and copy it to
            `channels` after batching: ~12% less CPU per image for
            grayscale sets such as OCT; colour JPEGs become gray.
        one_hot: One-hot float labels (the seed's); else int32 indices.
        epochs: Passes over the data in TRAIN.
        shuffle_buffer: File names in the shuffle buffer.
        seed: Seeds the shuffle; each epoch differs, runs repeat.
        prefetch_buffer: Batches prefetched; AUTOTUNE by default.
        num_parallel_calls: Parallel decodes; AUTOTUNE by default.
        drop_remainder: Drop a last partial batch.
        deterministic: Keep order in parallel stages; by default kept when
            seeded or outside TRAIN.
        private_threadpool_size: Threads for this pipeline alone.
        max_intra_op_parallelism: Threads one op may use inside tf.data.
        on_bad_file: 'raise' or 'skip' (see `folder_scan.scan_folder`).
        verify: 'header', 'decode' or 'none' (see `folder_scan.scan_folder`).
        listing: The files to read, already scanned (e.g. one part of
            `folder_scan.split_listing`); default: scan `folder`.

    Returns:
        An input_fn taking the optional mode/params/config/input_context;
        under multi-worker input each pipeline reads a disjoint set of files.
        Its `listing` attribute holds the `FolderListing`.

    Raises:
        ValueError: If an argument is invalid.
        BadDataError: If the folder has a problem (see `scan_folder`).
    """
    pipeline.check_epochs(epochs)
    if listing is None:
        listing = folder_scan.scan_folder(folder, class_names=class_names,
                                          on_bad_file=on_bad_file, verify=verify)
    else:
        folder_scan.check_options(on_bad_file, verify)
    images.check_channels(channels)
    expand = grayscale and channels > 1
    parse = make_parse_fn(listing.class_names, image_size=image_size,
                          channels=1 if expand else channels,
                          one_hot=one_hot, scaled=not expand)

    def build(call: pipeline.InputFnCall) -> tf.data.Dataset:
        batch = pipeline.resolve_batch_size(
            batch_size=batch_size, global_batch_size=global_batch_size,
            input_context=call.input_context)
        order = pipeline.default_deterministic(call.mode, seed, deterministic)
        files = pipeline.shard_for_input_context(files_dataset(listing),
                                                 call.input_context)
        if call.mode == pipeline.TRAIN:
            files = pipeline.shuffle_and_repeat(
                files, buffer_size=shuffle_buffer, count=epochs, seed=seed)
        fn = parse if call.mode != pipeline.PREDICT else (
            lambda path, label: parse(path, label)[0])
        if on_bad_file == "skip":
            # A file that passed the scan but still fails to decode is
            # dropped (TF logs it) rather than stopping training.
            data = files.map(fn, num_parallel_calls=num_parallel_calls,
                             deterministic=order).ignore_errors(
                                 log_warning=True)
            data = data.batch(batch, drop_remainder=drop_remainder)
        else:
            data = pipeline.map_and_batch(
                files, fn, batch_size=batch, drop_remainder=drop_remainder,
                num_parallel_calls=num_parallel_calls, deterministic=order)
        if expand:
            # One copy per batch, not per image (per-image tiles cost more).
            data = data.map(functools.partial(_expand, channels=channels),
                            num_parallel_calls=num_parallel_calls,
                            deterministic=order)
        data = pipeline.prefetch(data, prefetch_buffer)
        return pipeline.with_options(
            data, deterministic=order,
            private_threadpool_size=private_threadpool_size,
            max_intra_op_parallelism=max_intra_op_parallelism)

    input_fn = pipeline.wrap_input_fn(build, mode=mode,
                                      name="image_folder_input_fn")
    input_fn.listing = listing
    return input_fn
