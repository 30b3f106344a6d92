"""input_fn builders on tf.data: Fashion-MNIST, OCT folders, TFRecords.

Plain tf.data; never imports estimator_lib and reads no flags. Every
`make_*input_fn` returns `input_fn(mode=None, params=None, config=None,
input_context=None)`: `batch_size` is per replica (the Estimator contract),
`global_batch_size` is split with `input_context.get_per_replica_batch_size`,
and under multi-worker input each pipeline reads a disjoint shard.

    from datasets import oct_folder
    input_fn = oct_folder.make_input_fn('/data/oct', split='train',
                                        batch_size=32, mode='train')
"""

from datasets import fashion_mnist
from datasets import image_folder
from datasets import oct_folder
from datasets import pipeline
from datasets import synthetic
from datasets.errors import BadDataError
from datasets.errors import DownloadError
from datasets.folder_scan import FolderListing
from datasets.folder_scan import scan_folder
from datasets.kaggle_download import download_dataset
from datasets.oct_folder import download_oct
from datasets.pipeline import EVAL
from datasets.pipeline import PREDICT
from datasets.pipeline import TRAIN
from datasets.tfrecord_reader import make_input_fn as make_tfrecord_input_fn
from datasets.tfrecord_writer import convert_folder_to_tfrecords

__all__ = [
    "BadDataError",
    "DownloadError",
    "EVAL",
    "FolderListing",
    "PREDICT",
    "TRAIN",
    "convert_folder_to_tfrecords",
    "download_dataset",
    "download_oct",
    "fashion_mnist",
    "image_folder",
    "make_tfrecord_input_fn",
    "oct_folder",
    "pipeline",
    "scan_folder",
    "synthetic",
]
