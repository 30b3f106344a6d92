"""The TFRecord format of converted image folders, and its metadata file.

A conversion named NAME in OUTPUT_DIR is the shards
`NAME-00000-of-000NN.tfrecord` ... and `NAME.metadata.json`, written last:
a conversion without its metadata file is incomplete and is not read.

Each record is a `tf.train.Example` with:
  image/encoded      the JPEG file's bytes, or the resized uint8 pixels (raw)
  image/format       b'jpeg' or b'raw'
  image/height, image/width, image/channels   of what is stored
  image/class/label  int64 index into the metadata's class_names
  image/class/text   the class name
  image/filename     CLASS/FILE, relative to the source folder
"""

import json
import os
from typing import Any, Dict, Optional

import tensorflow as tf

from estimator_lib.datasets import errors
from estimator_lib.datasets.errors import BadDataError

FORMAT_VERSION = 1
IMAGE_FORMATS = ("jpeg", "raw")
ENCODED = "image/encoded"
FORMAT = "image/format"
HEIGHT = "image/height"
WIDTH = "image/width"
CHANNELS = "image/channels"
LABEL = "image/class/label"
TEXT = "image/class/text"
FILENAME = "image/filename"

FEATURES = {
    ENCODED: tf.io.FixedLenFeature([], tf.string),
    FORMAT: tf.io.FixedLenFeature([], tf.string),
    HEIGHT: tf.io.FixedLenFeature([], tf.int64),
    WIDTH: tf.io.FixedLenFeature([], tf.int64),
    CHANNELS: tf.io.FixedLenFeature([], tf.int64),
    LABEL: tf.io.FixedLenFeature([], tf.int64),
    TEXT: tf.io.FixedLenFeature([], tf.string),
    FILENAME: tf.io.FixedLenFeature([], tf.string),
}


def shard_name(name: str, index: int, num_shards: int) -> str:
    """Returns the file name of one shard, e.g. train-00003-of-00042.tfrecord.

    Args:
        name: The split's name (the files' prefix).
        index: The shard's index, from 0.
        num_shards: How many shards the split has.

    Returns:
        The shard's file name.

    Examples:
        >>> shard_name("train", 3, 42)
        'train-00003-of-00042.tfrecord'
    """
    return f"{name}-{index:05d}-of-{num_shards:05d}.tfrecord"


def metadata_path(output_dir: str, name: str) -> str:
    """Returns where a conversion's metadata file lives."""
    return os.path.join(output_dir, f"{name}.metadata.json")


def make_example(*, encoded: bytes, image_format: str, height: int,
                 width: int, channels: int, label: int, text: str,
                 filename: str) -> bytes:
    """Serializes one image as a `tf.train.Example`.

    Args:
        encoded: The image's bytes (JPEG, or raw pixels).
        image_format: `jpeg` or `raw`.
        height: The image's height.
        width: The image's width.
        channels: The image's channels.
        label: The class id.
        text: The class name.
        filename: The source file's name.

    Returns:
        The `tf.train.Example`, serialized.
    """

    def bytes_feature(value: bytes) -> tf.train.Feature:
        return tf.train.Feature(bytes_list=tf.train.BytesList(value=[value]))

    def int_feature(value: int) -> tf.train.Feature:
        return tf.train.Feature(int64_list=tf.train.Int64List(value=[value]))

    feature = {
        ENCODED: bytes_feature(encoded),
        FORMAT: bytes_feature(image_format.encode()),
        HEIGHT: int_feature(height),
        WIDTH: int_feature(width),
        CHANNELS: int_feature(channels),
        LABEL: int_feature(label),
        TEXT: bytes_feature(text.encode()),
        FILENAME: bytes_feature(filename.encode()),
    }
    example = tf.train.Example(features=tf.train.Features(feature=feature))
    return example.SerializeToString()


def write_metadata(output_dir: str, name: str,
                   metadata: Dict[str, Any]) -> str:
    """Writes the metadata file under a temporary name, then renames it.

    Args:
        output_dir: The folder of the shards.
        name: The split's name (the files' prefix).
        metadata: The JSON-serializable metadata.

    Returns:
        The metadata file's path.
    """
    path = metadata_path(output_dir, name)
    partial = path + ".partial"
    with open(partial, "w") as f:
        json.dump(metadata, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(partial, path)
    return path


def read_metadata(output_dir: str, name: str) -> Dict[str, Any]:
    """Reads and checks a conversion's metadata; its shards must exist.

    Raises:
        BadDataError: If the metadata is missing (an incomplete or absent
            conversion), unreadable, of another version, or a shard is
            missing.
    """
    path = metadata_path(output_dir, name)
    if not os.path.isfile(path):
        raise BadDataError(
            f"No TFRecord conversion {name!r} in {output_dir}: {path} is "
            "missing (the conversion did not finish, or never ran). Write it "
            f"with {errors.CONVERT_TO_TFRECORDS}.", path=path)
    try:
        with open(path) as f:
            metadata = json.load(f)
    except (OSError, ValueError) as error:
        raise BadDataError(f"{path} is not readable JSON ({error}).",
                           path=path) from None
    if metadata.get("format_version") != FORMAT_VERSION:
        raise BadDataError(
            f"{path} has format_version {metadata.get('format_version')!r}; "
            f"this reader reads version {FORMAT_VERSION}.", path=path)
    for shard in metadata["shards"]:
        shard_path = os.path.join(output_dir, shard["file"])
        if not os.path.isfile(shard_path):
            raise BadDataError(f"Shard {shard_path} listed in {path} is "
                               "missing.", path=shard_path)
    return metadata


def check_image_format(image_format: str) -> None:
    """Raises ValueError unless `image_format` is 'jpeg' or 'raw'."""
    if image_format not in IMAGE_FORMATS:
        raise ValueError(f"`image_format` must be one of {IMAGE_FORMATS}. "
                         f"Received: image_format={image_format!r}.")


def optional_size(value: Optional[Any]) -> Optional[list]:
    """Returns [height, width] as a JSON-friendly list, or None."""
    return None if value is None else list(value)
