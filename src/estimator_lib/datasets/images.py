"""Decoding and resizing JPEGs, shared by the folder, TFRecord and bench paths.
"""

from typing import Sequence, Tuple, Union

import tensorflow as tf

DEFAULT_IMAGE_SIZE = (224, 224)
ImageSize = Union[int, Sequence[int]]


def normalize_image_size(image_size: ImageSize) -> Tuple[int, int]:
    """Returns (height, width) from an int or a pair.

    Raises:
        ValueError: If the size is not one or two positive integers.
    """
    size = (image_size, image_size) if isinstance(image_size, int) else tuple(
        image_size)
    if len(size) != 2 or not all(
            isinstance(s, int) and not isinstance(s, bool) and s > 0
            for s in size):
        raise ValueError(
            "`image_size` must be a positive int or a (height, width) pair "
            f"of them. Received: image_size={image_size!r}.")
    return size


def check_channels(channels: int) -> None:
    """Raises ValueError unless `channels` is 1 or 3."""
    if channels not in (1, 3):
        raise ValueError(
            f"`channels` must be 1 or 3. Received: channels={channels!r}.")


def resize_pixels(image: tf.Tensor, size: Tuple[int, int]) -> tf.Tensor:
    """Resizes uint8 pixels bilinearly, to float32 still in [0, 255]."""
    return tf.image.resize(image, size, method=tf.image.ResizeMethod.BILINEAR)


def decode_and_resize_pixels(contents: tf.Tensor, *,
                             image_size: ImageSize = DEFAULT_IMAGE_SIZE,
                             channels: int = 3) -> tf.Tensor:
    """Decodes one JPEG and resizes it; float32 [h, w, channels] in [0, 255].

    A grayscale JPEG asked for 3 channels is decoded and resized as one
    channel and then copied to three: the same numbers as decoding to RGB
    first (libjpeg copies Y to R, G and B), for a third of the resize work.
    The number of components is read from the JPEG header.

    Args:
        contents: The encoded JPEG, a scalar string tensor.
        image_size: The output size: an int (square) or `(height, width)`.
        channels: The output channels (1 or 3).

    Returns:
        A float32 tensor `[height, width, channels]` with values in [0, 255].
    """
    return _decode_resized(contents, image_size, channels, scale=None)


def decode_and_resize(contents: tf.Tensor, *,
                      image_size: ImageSize = DEFAULT_IMAGE_SIZE,
                      channels: int = 3) -> tf.Tensor:
    """Decodes and resizes one JPEG to float32 [h, w, channels] in [0, 1].

    The seed's map function: decode, convert to float, resize (bilinear).
    Scaling after the resize (and before copying a gray channel) gives the
    same values up to float rounding and touches fewer pixels.

    Args:
        contents: The encoded JPEG, a scalar string tensor.
        image_size: The output size: an int (square) or `(height, width)`.
        channels: The output channels (1 or 3).

    Returns:
        A float32 tensor `[height, width, channels]` with values in [0, 1].
    """
    return _decode_resized(contents, image_size, channels, scale=1 / 255.0)


def _decode_resized(contents, image_size, channels, scale):
    size = normalize_image_size(image_size)
    check_channels(channels)

    def decode(decoded_channels):
        image = resize_pixels(
            tf.io.decode_jpeg(contents, channels=decoded_channels), size)
        return image if scale is None else image * scale

    if channels == 1:
        return decode(1)
    components = tf.image.extract_jpeg_shape(contents)[2]
    image = tf.cond(tf.equal(components, 1),
                    lambda: gray_to_channels(decode(1), 3),
                    lambda: decode(3))
    return tf.ensure_shape(image, [*size, 3])


def to_uint8(pixels: tf.Tensor) -> tf.Tensor:
    """Rounds float pixels in [0, 255] to uint8 (for pre-resized storage)."""
    return tf.cast(tf.clip_by_value(tf.round(pixels), 0.0, 255.0), tf.uint8)


def gray_to_channels(image: tf.Tensor, channels: int,
                     scale: float = 1.0) -> tf.Tensor:
    """Copies a one-channel float image (or batch) to `channels`, scaled.

    Done as a [pixels, 1] x [1, channels] matrix product: on a batch of
    224x224 images it costs less than half of `tf.tile` (whose kernel is
    slow for an inner dimension of 1), and the scaling comes for free.

    Args:
        image: A float image `[h, w, 1]` or batch `[n, h, w, 1]`.
        channels: The output channels (1 or 3).
        scale: A factor every pixel is multiplied by.

    Returns:
        The image with its last dimension `channels`, times `scale`.
    """
    if channels == 1:
        return image if scale == 1.0 else image * scale
    shape = tf.concat([tf.shape(image)[:-1], [channels]], axis=0)
    weights = tf.fill([1, channels], tf.cast(scale, image.dtype))
    copied = tf.matmul(tf.reshape(image, [-1, 1]), weights)
    copied = tf.reshape(copied, shape)
    return tf.ensure_shape(copied, image.shape[:-1].concatenate([channels]))
