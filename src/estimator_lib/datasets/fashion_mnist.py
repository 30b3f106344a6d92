"""Fashion-MNIST: the four IDX files, or the embedded synthetic twin.

Files are looked for in `data_dir`, then in the Keras cache
(`~/.keras/datasets/fashion-mnist`), and only then downloaded, into
`data_dir` when given, else into the Keras cache. Offline, the download fails
at once with one line saying where to put the files.

The input_fn streams the IDX files in the graph (FixedLengthRecordDataset
over the gzip), so 47 MB of pixels never become a constant in the graph or
the checkpoint's meta file, as the seed's `from_tensor_slices` did.
"""

import hashlib
import os
import shutil
import tempfile
import urllib.error
import urllib.request
from typing import Callable, Dict, Optional, Tuple

import numpy as np
import tensorflow as tf

from estimator_lib.datasets import errors, idx, pipeline, synthetic
from estimator_lib.datasets.errors import DownloadError

NUM_CLASSES = 10
IMAGE_SHAPE = (28, 28)
CLASS_NAMES = ("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
               "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot")
FILES = {
    "train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
    "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"),
}
MD5 = {
    "train-images-idx3-ubyte.gz": "8d4fb7e6c68d591d4c3dfef9ec88bf0d",
    "train-labels-idx1-ubyte.gz": "25c81989df183df01b3e8a0aad5dffbe",
    "t10k-images-idx3-ubyte.gz": "bef4ecab320f06d8554ea6380940ec79",
    "t10k-labels-idx1-ubyte.gz": "bb300cfdad3c16e7a12a480ee83cd310",
}
BASE_URL = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
DEFAULT_CACHE_DIR = os.path.join("~", ".keras")
SPLITS = tuple(FILES)


def keras_cache_dir(cache_dir: str = DEFAULT_CACHE_DIR) -> str:
    """Returns where `tf_keras.datasets.fashion_mnist.load_data` keeps the files."""
    return os.path.join(os.path.expanduser(cache_dir), "datasets",
                        "fashion-mnist")


def _find(directory: str, name: str) -> Optional[str]:
    # Accept the gunzipped file too: people often unpack them.
    for candidate in (name, name[:-len(".gz")]):
        path = os.path.join(directory, candidate)
        if os.path.isfile(path):
            return path
    return None


def _complete(directory: Optional[str]) -> Optional[Dict[str, str]]:
    if not directory or not os.path.isdir(directory):
        return None
    found = {name: _find(directory, name) for pair in FILES.values()
             for name in pair}
    return found if all(found.values()) else None


def locate_files(data_dir: Optional[str] = None, *,
                 cache_dir: str = DEFAULT_CACHE_DIR, download: bool = True,
                 base_url: str = BASE_URL, timeout: float = 30.0,
                 progress: Optional[Callable[[str], None]] = None
                 ) -> Dict[str, str]:
    """Returns the paths of the four IDX files, downloading if needed.

    Args:
        data_dir: Folder holding the files; searched first.
        cache_dir: The Keras cache root (`~/.keras`); searched second.
        download: Download missing files (into `data_dir` when given, else
            the Keras cache). False fails instead.
        base_url: Where to download from.
        timeout: Seconds to wait for the server before giving up.
        progress: Called with one line per file downloaded; default logs.

    Returns:
        File name (e.g. 'train-images-idx3-ubyte.gz') -> path.

    Raises:
        DownloadError: If the files are missing and cannot be downloaded.
    """
    if data_dir is not None and not isinstance(data_dir, str):
        raise ValueError(f"`data_dir` must be a path string or None. "
                         f"Received: data_dir={data_dir!r}.")
    cache = keras_cache_dir(cache_dir)
    for directory in (data_dir, cache):
        found = _complete(directory)
        if found:
            return found
    where = (f"{data_dir} or {cache}" if data_dir else cache)
    names = ", ".join(MD5)
    if not download:
        raise DownloadError(
            f"Fashion-MNIST files not found: put {names} in {where}, or use "
            f"the synthetic dataset ({errors.USE_SYNTHETIC}).")
    target = data_dir or cache
    report = progress or (lambda line: tf.compat.v1.logging.info(line))
    try:
        os.makedirs(target, exist_ok=True)
    except OSError as error:
        raise DownloadError(
            f"Cannot create {target} to download Fashion-MNIST into "
            f"({error.strerror}); put {names} in {where}.") from None
    for name, md5 in MD5.items():
        if _find(target, name):
            continue
        _download(base_url + name, os.path.join(target, name), md5,
                  timeout=timeout, where=where, names=names)
        report(f"Downloaded {name} to {target}.")
    return _complete(target)


def _download(url: str, path: str, md5: str, *, timeout: float, where: str,
              names: str) -> None:
    # Written under a temporary name, checked, then renamed: an interrupted
    # download never looks like a complete file.
    handle, partial = tempfile.mkstemp(prefix=".partial-",
                                       dir=os.path.dirname(path))
    try:
        with os.fdopen(handle, "wb") as out, urllib.request.urlopen(
                url, timeout=timeout) as response:
            shutil.copyfileobj(response, out, 1 << 20)
        with open(partial, "rb") as f:
            digest = hashlib.md5(f.read()).hexdigest()
        if digest != md5:
            raise DownloadError(
                f"Downloaded {url} but its md5 is {digest}, expected {md5}; "
                f"put {names} in {where} by hand.")
        os.replace(partial, path)
    except (urllib.error.URLError, OSError, ValueError) as error:
        reason = getattr(error, "reason", None) or error
        raise DownloadError(
            f"Could not download Fashion-MNIST from {url} ({reason}). Put "
            f"{names} in {where}, or use the synthetic dataset "
            f"({errors.USE_SYNTHETIC}).") from None
    finally:
        if os.path.exists(partial):
            os.remove(partial)


def load_data(data_dir: Optional[str] = None, *, synthetic_data: bool = False,
              seed: int = 0, cache_dir: str = DEFAULT_CACHE_DIR,
              download: bool = True
              ) -> Tuple[Tuple[np.ndarray, np.ndarray],
                         Tuple[np.ndarray, np.ndarray]]:
    """Returns `((x_train, y_train), (x_test, y_test))` as uint8 arrays.

    The shapes of `tf_keras.datasets.fashion_mnist.load_data`: images
    [N, 28, 28], labels [N]. `synthetic_data=True` returns the embedded
    synthetic set (60,000 and 10,000 examples).

    Args:
        data_dir: Folder holding the four IDX files; searched first.
        synthetic_data: Return the embedded synthetic set instead of reading
            files.
        seed: The synthetic set's seed.
        cache_dir: The Keras cache root (`~/.keras`); searched second.
        download: Download missing files (into `data_dir` when given, else
            the Keras cache). False fails instead.

    Raises:
        BadDataError: If a file is corrupt or image and label counts differ.
        DownloadError: If the files are missing and cannot be downloaded.
    """
    if synthetic_data:
        return (synthetic.load_arrays(synthetic.TRAIN_SIZE, seed=seed),
                synthetic.load_arrays(synthetic.TEST_SIZE, seed=seed,
                                      split="test"))
    paths = locate_files(data_dir, cache_dir=cache_dir, download=download)
    result = []
    for images_name, labels_name in FILES.values():
        idx.check_pair(paths[images_name], paths[labels_name],
                       image_shape=IMAGE_SHAPE, num_classes=NUM_CLASSES)
        result.append((idx.read(paths[images_name]),
                       idx.read(paths[labels_name])))
    return tuple(result)


def _idx_records(info: idx.IdxInfo) -> tf.data.Dataset:
    return tf.data.FixedLengthRecordDataset(
        info.path, info.record_bytes, header_bytes=info.header_bytes,
        compression_type="GZIP" if info.compressed else "",
        buffer_size=1 << 20)


def _decode(images, labels):
    images = tf.io.decode_raw(images, tf.uint8)
    labels = tf.io.decode_raw(labels, tf.uint8)[:, 0]
    return tf.reshape(images, [-1, *IMAGE_SHAPE]), labels


def make_input_fn(data_dir: Optional[str] = None, *, split: str = "train",
                  batch_size: Optional[int] = None,
                  global_batch_size: Optional[int] = None,
                  mode: Optional[str] = None, epochs: Optional[int] = None,
                  shuffle_buffer: int = 5000, seed: Optional[int] = None,
                  synthetic_data: bool = False,
                  num_examples: Optional[int] = None,
                  cache: bool = True, feature_key: Optional[str] = None,
                  prefetch_buffer: Optional[int] = pipeline.AUTOTUNE,
                  drop_remainder: bool = False,
                  deterministic: Optional[bool] = None,
                  cache_dir: str = DEFAULT_CACHE_DIR,
                  download: bool = True) -> pipeline.InputFn:
    """Builds an input_fn over Fashion-MNIST, real or synthetic.

    Features are float32 [B, 28, 28, 1] in [0, 1]; labels one-hot float32
    [B, 10], as the seed program's.

    Args:
        data_dir: Folder with the IDX files (see `locate_files`).
        split: 'train' or 'test'.
        batch_size: Batch per replica (the Estimator contract).
        global_batch_size: Or the global batch, split per replica through
            `input_context.get_per_replica_batch_size`.
        mode: TRAIN shuffles (`shuffle_buffer` examples, the seed's 5000) and
            repeats `epochs` times (None: forever); EVAL reads once in order;
            PREDICT yields features only. None: the caller's mode.
        epochs: Passes over the data in TRAIN.
        shuffle_buffer: Examples in the shuffle buffer.
        seed: Seeds the shuffle (each epoch differs, runs repeat).
        synthetic_data: Use the embedded synthetic set instead of files.
        num_examples: Size of the synthetic set; default the real split's.
        cache: Keep the examples in memory after the first epoch.
        feature_key: Return features as `{feature_key: images}`.
        prefetch_buffer: Batches prefetched; AUTOTUNE by default.
        drop_remainder: Drop a last partial batch.
        deterministic: Keep order in parallel stages; by default kept when
            seeded or outside TRAIN.
        cache_dir: The Keras cache root.
        download: Allow downloading missing files.

    Returns:
        An input_fn taking the optional mode/params/config/input_context;
        under multi-worker input each pipeline reads a disjoint shard.

    Raises:
        ValueError: If `split` or `mode` is unknown.
        BadDataError: If a file is corrupt or image and label counts differ.
        DownloadError: If the files are missing and cannot be downloaded.

    Examples:
        >>> input_fn = make_input_fn(synthetic_data=True, num_examples=64, batch_size=8)
        >>> make_input_fn(split="validation", synthetic_data=True, batch_size=8)
        Traceback (most recent call last):
        ...
        ValueError: `split` must be one of ('train', 'test'). Received: split='validation'.
        >>> make_input_fn(epochs=0, synthetic_data=True, batch_size=8)
        Traceback (most recent call last):
        ...
        ValueError: `epochs` must be a positive integer. Received: epochs=0.
    """
    if split not in SPLITS:
        raise ValueError(f"`split` must be one of {SPLITS}. "
                         f"Received: split={split!r}.")
    pipeline.check_epochs(epochs)
    if synthetic_data:
        size = num_examples or (synthetic.TRAIN_SIZE if split == "train"
                                else synthetic.TEST_SIZE)

        def source():
            return synthetic.dataset(size, seed=seed or 0, split=split)
    else:
        paths = locate_files(data_dir, cache_dir=cache_dir, download=download)
        images_name, labels_name = FILES[split]
        images_info, labels_info = idx.check_pair(
            paths[images_name], paths[labels_name], image_shape=IMAGE_SHAPE,
            num_classes=NUM_CLASSES)

        def source():
            records = tf.data.Dataset.zip(
                (_idx_records(images_info), _idx_records(labels_info)))
            return records.batch(1024).map(_decode).unbatch()

    def normalize(images, labels):
        features = tf.cast(images, tf.float32)[..., tf.newaxis] * (1 / 255.0)
        if feature_key:
            features = {feature_key: features}
        return features, tf.one_hot(tf.cast(labels, tf.int32), NUM_CLASSES)

    def build(call: pipeline.InputFnCall) -> tf.data.Dataset:
        batch = pipeline.resolve_batch_size(
            batch_size=batch_size, global_batch_size=global_batch_size,
            input_context=call.input_context)
        order = pipeline.default_deterministic(call.mode, seed, deterministic)
        data = pipeline.shard_for_input_context(source(), call.input_context)
        if cache:
            data = pipeline.cache(data)
        if call.mode == pipeline.TRAIN:
            data = pipeline.shuffle_and_repeat(
                data, buffer_size=shuffle_buffer, count=epochs, seed=seed)
        data = pipeline.batch_and_map(data, normalize, batch_size=batch,
                                      drop_remainder=drop_remainder,
                                      deterministic=order)
        if call.mode == pipeline.PREDICT:
            data = data.map(lambda features, labels: features)
        data = pipeline.prefetch(data, prefetch_buffer)
        return pipeline.with_options(data, deterministic=order)

    return pipeline.wrap_input_fn(build, mode=mode,
                                  name=f"fashion_mnist_{split}_input_fn")
