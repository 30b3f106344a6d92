"""input_fn builders on tf.data: Fashion-MNIST, OCT folders, TFRecords.

Plain tf.data; never imports estimator_lib and reads no flags. Every
`make_*input_fn` returns `input_fn(mode=None, params=None, config=None,
input_context=None)`: `batch_size` is per replica (the Estimator contract),
`global_batch_size` is split with `input_context.get_per_replica_batch_size`,
and under multi-worker input each pipeline reads a disjoint shard.

    from estimator_lib.datasets import oct_folder
    input_fn = oct_folder.make_input_fn('/data/oct', split='train',
                                        batch_size=32, mode='train')
"""

from estimator_lib.datasets import fashion_mnist
from estimator_lib.datasets import image_folder
from estimator_lib.datasets import oct_folder
from estimator_lib.datasets import pipeline
from estimator_lib.datasets import synthetic
from estimator_lib.datasets.errors import BadDataError
from estimator_lib.datasets.errors import DownloadError
from estimator_lib.datasets.folder_scan import FolderListing
from estimator_lib.datasets.folder_scan import scan_folder
from estimator_lib.datasets.kaggle_download import download_dataset
from estimator_lib.datasets.oct_folder import download_oct
from estimator_lib.datasets.pipeline import EVAL
from estimator_lib.datasets.pipeline import PREDICT
from estimator_lib.datasets.pipeline import TRAIN
from estimator_lib.datasets.tfrecord_reader import make_input_fn as make_tfrecord_input_fn
from estimator_lib.datasets.tfrecord_writer import convert_folder_to_tfrecords

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
