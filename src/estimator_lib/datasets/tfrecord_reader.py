"""An input_fn over a TFRecord conversion (see `tfrecord_writer`).

Shards are read several at a time (parallel interleave), their order
reshuffled every epoch, records shuffled in a buffer, and parsed in
parallel: pre-resized ('raw') records are parsed a whole batch at a time.
"""

import os
from typing import Optional

import tensorflow as tf

from estimator_lib.datasets import images, pipeline, tfrecords


def _shard_paths(tfrecord_dir: str, metadata: dict) -> list:
    return [os.path.join(tfrecord_dir, s["file"]) for s in metadata["shards"]
            if s["num_examples"] > 0]


def make_input_fn(tfrecord_dir: str, *, name: str = "train",
                  batch_size: Optional[int] = None,
                  global_batch_size: Optional[int] = None,
                  mode: Optional[str] = None,
                  image_size: Optional[images.ImageSize] = None,
                  channels: int = 3, grayscale: bool = False,
                  one_hot: bool = True,
                  epochs: Optional[int] = None, shuffle_buffer: int = 2048,
                  seed: Optional[int] = None,
                  cycle_length: Optional[int] = None,
                  prefetch_buffer: Optional[int] = pipeline.AUTOTUNE,
                  drop_remainder: bool = False,
                  deterministic: Optional[bool] = None
                  ) -> pipeline.InputFn:
    """Builds an input_fn over the TFRecord conversion NAME in a folder.

    Yields the same features as the folder input_fn: images float32
    [B, h, w, channels] in [0, 1], one-hot float labels over the metadata's
    class names.

    Args:
        tfrecord_dir: Folder holding the shards and NAME.metadata.json.
        name: The conversion's name, e.g. 'train'.
        batch_size: Batch per replica (the Estimator contract).
        global_batch_size: Or the global batch, split per replica through
            `input_context.get_per_replica_batch_size`.
        mode: TRAIN shuffles shards each epoch and records in a buffer, and
            repeats `epochs` times (None: forever); EVAL reads once in
            order; PREDICT yields images only. None: the caller's mode.
        image_size: Output size; default the stored size ('raw') or 224
            ('jpeg'). A raw set read at another size is resized.
        channels: 3 (one stored channel is copied) or 1.
        grayscale: For 'jpeg' records, decode one channel and copy it to
            `channels` per batch (faster for grayscale sets such as OCT;
            colour images become gray). Raw records keep what was stored.
        one_hot: One-hot float labels; else int32 indices.
        epochs: Passes over the data in TRAIN.
        shuffle_buffer: Records in the shuffle buffer.
        seed: Seeds both shuffles; each epoch differs, runs repeat.
        cycle_length: Shards read at once; default tf.data's choice.
        prefetch_buffer: Batches prefetched; AUTOTUNE by default.
        drop_remainder: Drop a last partial batch.
        deterministic: Keep order in parallel stages; by default kept when
            seeded or outside TRAIN.

    Returns:
        An input_fn taking the optional mode/params/config/input_context.
        Under multi-worker input each pipeline reads disjoint shards (or,
        with fewer shards than pipelines, disjoint records). Its `metadata`
        attribute holds the conversion's metadata.

    Raises:
        ValueError: If an argument is invalid.
        BadDataError: If the conversion is missing, incomplete or damaged.
    """
    pipeline.check_epochs(epochs)
    images.check_channels(channels)
    metadata = tfrecords.read_metadata(tfrecord_dir, name)
    paths = _shard_paths(tfrecord_dir, metadata)
    num_classes = len(metadata["class_names"])
    raw = metadata["image_format"] == "raw"
    stored = tuple(metadata["image_size"]) if raw else None
    size = images.normalize_image_size(
        image_size or stored or images.DEFAULT_IMAGE_SIZE)

    def label_of(label):
        label = tf.cast(label, tf.int32)
        return tf.one_hot(label, num_classes) if one_hot else label

    # Only what the model gets: parsing the names too costs time per record.
    features = {key: tfrecords.FEATURES[key]
                for key in (tfrecords.ENCODED, tfrecords.LABEL)}

    expand = grayscale and channels > 1 and not raw

    def parse_jpeg(record):
        example = tf.io.parse_single_example(record, features)
        decode = (images.decode_and_resize_pixels if expand
                  else images.decode_and_resize)
        image = decode(example[tfrecords.ENCODED], image_size=size,
                       channels=1 if expand else channels)
        return image, label_of(example[tfrecords.LABEL])

    def parse_raw_batch(records):
        example = tf.io.parse_example(records, features)
        pixels = tf.io.decode_raw(example[tfrecords.ENCODED], tf.uint8)
        pixels = tf.reshape(pixels, [-1, *stored, metadata["channels"]])
        image = tf.cast(pixels, tf.float32)
        if size != stored:
            image = images.resize_pixels(image, size)
        if metadata["channels"] == channels:
            image = image * (1 / 255.0)
        elif channels == 1:
            image = tf.image.rgb_to_grayscale(image) * (1 / 255.0)
        else:
            image = images.gray_to_channels(image, channels,
                                            scale=1 / 255.0)
        return image, label_of(example[tfrecords.LABEL])

    def build(call: pipeline.InputFnCall) -> tf.data.Dataset:
        batch = pipeline.resolve_batch_size(
            batch_size=batch_size, global_batch_size=global_batch_size,
            input_context=call.input_context)
        order = pipeline.default_deterministic(call.mode, seed, deterministic)
        context = call.input_context
        pipelines = context.num_input_pipelines if context else 1
        by_file = pipelines <= 1 or len(paths) >= pipelines
        train = call.mode == pipeline.TRAIN
        files = tf.data.Dataset.from_tensor_slices(paths)
        if by_file:
            files = pipeline.shard_for_input_context(files, context)
            if train:
                # A new shard order every epoch.
                files = pipeline.shuffle_and_repeat(
                    files, buffer_size=len(paths), count=epochs, seed=seed)
        # Interleave order must be fixed when records are sharded, so that
        # every pipeline sees the same sequence before taking its share.
        records = pipeline.interleave_files(
            files, lambda f: tf.data.TFRecordDataset(f, buffer_size=1 << 20),
            cycle_length=cycle_length,
            deterministic=order if by_file else True)
        if not by_file:
            records = pipeline.shard_for_input_context(records, context)
            if train:
                records = records.repeat(epochs)
        if train:
            records = records.shuffle(shuffle_buffer, seed=seed,
                                      reshuffle_each_iteration=True)
        if raw:
            data = pipeline.batch_and_map(records, parse_raw_batch,
                                          batch_size=batch,
                                          drop_remainder=drop_remainder,
                                          deterministic=order)
        else:
            data = pipeline.map_and_batch(records, parse_jpeg,
                                          batch_size=batch,
                                          drop_remainder=drop_remainder,
                                          deterministic=order)
            if expand:
                data = data.map(lambda features, labels: (
                    images.gray_to_channels(features, channels,
                                            scale=1 / 255.0), labels))
        if call.mode == pipeline.PREDICT:
            data = data.map(lambda features, labels: features)
        data = pipeline.prefetch(data, prefetch_buffer)
        return pipeline.with_options(data, deterministic=order)

    input_fn = pipeline.wrap_input_fn(build, mode=mode,
                                      name=f"tfrecord_{name}_input_fn")
    input_fn.metadata = metadata
    return input_fn
