"""IDX files (the MNIST format): read, write and check, gzipped or not.

An IDX file is a 4-byte magic (two zero bytes, a type code, the number of
dimensions), one big-endian uint32 per dimension, then the data. Only
unsigned bytes (type 0x08) are handled: that is all MNIST-style sets use.
"""

import dataclasses
import gzip
import os
import struct
from typing import Optional, Sequence, Tuple

import numpy as np

from estimator_lib.datasets.errors import BadDataError

_UBYTE = 0x08


@dataclasses.dataclass(frozen=True)
class IdxInfo:
    """What an IDX file's header says, and whether its size agrees.

    Attributes:
        path: The file.
        shape: The dimensions, the first being the number of items.
        header_bytes: Bytes before the data (4 + 4 per dimension).
        compressed: Whether the file is gzipped.
    """

    path: str
    shape: Tuple[int, ...]
    header_bytes: int
    compressed: bool

    @property
    def count(self) -> int:
        """How many items the file holds (its first dimension)."""
        return self.shape[0]

    @property
    def record_bytes(self) -> int:
        """Bytes per item: the product of the dimensions after the first (1 for labels)."""
        return int(np.prod(self.shape[1:], dtype=np.int64))


def _open(path: str):
    return gzip.open(path, "rb") if _is_gzip(path) else open(path, "rb")


def _is_gzip(path: str) -> bool:
    with open(path, "rb") as f:
        return f.read(2) == b"\x1f\x8b"


def read_info(path: str) -> IdxInfo:
    """Reads and checks an IDX file's header and total size.

    Raises:
        BadDataError: If the file is missing, not IDX, not unsigned bytes,
            or shorter or longer than its header says; the message names it.
    """
    if not os.path.isfile(path):
        raise BadDataError(f"IDX file {path} does not exist.", path=path)
    try:
        with _open(path) as f:
            magic = f.read(4)
            if len(magic) < 4 or magic[:2] != b"\0\0":
                raise BadDataError(
                    f"{path} is not an IDX file: its first bytes are "
                    f"{magic.hex() or 'missing'}, expected 0000 08 0N.",
                    path=path)
            if magic[2] != _UBYTE:
                raise BadDataError(
                    f"{path} holds IDX type 0x{magic[2]:02x}; only unsigned "
                    "bytes (0x08) are supported.", path=path)
            ndim = magic[3]
            raw = f.read(4 * ndim)
            if len(raw) < 4 * ndim:
                raise BadDataError(f"{path} is truncated inside its header.",
                                   path=path)
            shape = struct.unpack(f">{ndim}I", raw)
            data_bytes = _remaining_bytes(f)
    except (OSError, EOFError, gzip.BadGzipFile) as error:
        raise BadDataError(
            f"{path} cannot be read ({type(error).__name__}: {error}); it is "
            "probably truncated or not gzip.", path=path) from error
    expected = int(np.prod(shape, dtype=np.int64))
    if data_bytes != expected:
        raise BadDataError(
            f"{path} holds {data_bytes} data bytes but its header "
            f"{tuple(shape)} needs {expected}; the file is truncated or "
            "corrupt.", path=path)
    return IdxInfo(path=path, shape=tuple(shape), header_bytes=4 + 4 * ndim,
                   compressed=_is_gzip(path))


def _remaining_bytes(f) -> int:
    total = 0
    while True:
        chunk = f.read(1 << 22)
        if not chunk:
            return total
        total += len(chunk)


def read(path: str) -> np.ndarray:
    """Returns an IDX file's data as a uint8 array of its header's shape."""
    info = read_info(path)
    with _open(path) as f:
        f.seek(info.header_bytes)
        data = f.read()
    return np.frombuffer(data, dtype=np.uint8).reshape(info.shape)


def write(path: str, array: np.ndarray) -> None:
    """Writes a uint8 array as IDX; gzipped when `path` ends in .gz."""
    array = np.asarray(array)
    if array.dtype != np.uint8:
        raise ValueError(
            f"`array` must be uint8. Received: dtype={array.dtype}.")
    header = bytes([0, 0, _UBYTE, array.ndim]) + struct.pack(
        f">{array.ndim}I", *array.shape)
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "wb") as f:
        f.write(header)
        f.write(np.ascontiguousarray(array).tobytes())


def check_pair(images_path: str, labels_path: str, *,
               image_shape: Sequence[int] = (28, 28),
               num_classes: Optional[int] = 10) -> Tuple[IdxInfo, IdxInfo]:
    """Checks an images file and its labels file belong together.

    Args:
        images_path: The IDX file of the images.
        labels_path: The IDX file of the labels.
        image_shape: The shape each image must have.
        num_classes: Labels must be below this; None skips the check.

    Returns:
        The pair `(images info, labels info)` read from the headers.

    Raises:
        BadDataError: If either is unreadable, the image shape is wrong, the
            counts differ, or a label is outside [0, num_classes).
    """
    images = read_info(images_path)
    labels = read_info(labels_path)
    if images.shape[1:] != tuple(image_shape):
        raise BadDataError(
            f"{images_path} holds images of shape {images.shape[1:]}; "
            f"expected {tuple(image_shape)}.", path=images_path)
    if len(labels.shape) != 1:
        raise BadDataError(
            f"{labels_path} is not a labels file: its shape is "
            f"{labels.shape}, expected one dimension.", path=labels_path)
    if images.count != labels.count:
        raise BadDataError(
            f"{images_path} holds {images.count} images but {labels_path} "
            f"holds {labels.count} labels; the two files do not belong "
            "together.", path=images_path)
    if num_classes is not None:
        values = read(labels_path)
        if values.size and int(values.max()) >= num_classes:
            index = int(np.argmax(values >= num_classes))
            raise BadDataError(
                f"{labels_path} has label {int(values[index])} at index "
                f"{index}; labels must be in [0, {num_classes}).",
                path=labels_path)
    return images, labels
