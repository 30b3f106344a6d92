"""Tests for datasets.fashion_mnist: finding files, input_fn, synthetic."""

import hashlib
import os
import tempfile
import time
from unittest import mock

import numpy as np
import tensorflow as tf
from absl.testing import parameterized

from estimator_lib.datasets import fashion_mnist, idx, pipeline
from tests.datasets import fixtures
from estimator_lib.datasets.errors import BadDataError, DownloadError



def _batches(dataset):
    return list(dataset.as_numpy_iterator())


class LocateTest(tf.test.TestCase):

    def setUp(self):
        super().setUp()
        self.root = tempfile.mkdtemp(dir=self.get_temp_dir())
        self.data_dir = os.path.join(self.root, "data")
        self.cache_dir = os.path.join(self.root, "keras")

    def test_data_dir_first(self):
        fixtures.write_fashion_mnist(self.data_dir)
        paths = fashion_mnist.locate_files(self.data_dir,
                                           cache_dir=self.cache_dir,
                                           download=False)
        self.assertStartsWith(paths["train-images-idx3-ubyte.gz"],
                              self.data_dir)

    def test_keras_cache_second(self):
        cache = fashion_mnist.keras_cache_dir(self.cache_dir)
        self.assertEndsWith(cache, os.path.join("datasets", "fashion-mnist"))
        fixtures.write_fashion_mnist(cache, gzipped=False)
        paths = fashion_mnist.locate_files(self.data_dir,
                                           cache_dir=self.cache_dir,
                                           download=False)
        self.assertEqual(paths["t10k-labels-idx1-ubyte.gz"],
                         os.path.join(cache, "t10k-labels-idx1-ubyte"))

    def test_missing_without_download_says_where_to_put_files(self):
        with self.assertRaisesRegex(
                DownloadError, r"put train-images-idx3-ubyte.gz.* in "
                r".*data or .*fashion-mnist"):
            fashion_mnist.locate_files(self.data_dir,
                                       cache_dir=self.cache_dir,
                                       download=False)

    def test_offline_download_fails_at_once_with_one_line(self):
        start = time.time()
        with self.assertRaisesRegex(
                DownloadError, r"^Could not download Fashion-MNIST from "
                r"http://127.0.0.1:9/.*Put .* in .*data") as caught:
            fashion_mnist.locate_files(self.data_dir,
                                       cache_dir=self.cache_dir,
                                       base_url="http://127.0.0.1:9/",
                                       timeout=5)
        self.assertNotIn("\n", str(caught.exception))
        self.assertLess(time.time() - start, 5)
        self.assertEqual(
            [n for n in os.listdir(self.data_dir) if n.startswith(".")], [])

    def test_download_checks_md5_and_renames(self):
        source = os.path.join(self.root, "mirror")
        arrays = fixtures.write_fashion_mnist(source)
        digests = {}
        for name in arrays:
            with open(os.path.join(source, name), "rb") as f:
                digests[name] = hashlib.md5(f.read()).hexdigest()
        lines = []
        with mock.patch.dict(fashion_mnist.MD5, digests):
            paths = fashion_mnist.locate_files(
                self.data_dir, cache_dir=self.cache_dir,
                base_url="file://" + source + "/", progress=lines.append)
        self.assertLen(lines, 4)
        self.assertAllEqual(idx.read(paths["train-labels-idx1-ubyte.gz"]),
                            arrays["train-labels-idx1-ubyte.gz"])
        with self.assertRaisesRegex(DownloadError, r"md5 is .*expected"):
            fashion_mnist.locate_files(
                os.path.join(self.root, "other"), cache_dir=self.cache_dir,
                base_url="file://" + source + "/")


class InputFnTest(tf.test.TestCase, parameterized.TestCase):

    def setUp(self):
        super().setUp()
        self.data_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        self.arrays = fixtures.write_fashion_mnist(self.data_dir, train=24,
                                                  test=10)

    def _fn(self, **kwargs):
        kwargs.setdefault("download", False)
        return fashion_mnist.make_input_fn(self.data_dir, **kwargs)

    def test_eval_yields_scaled_images_and_one_hot_labels_in_order(self):
        batches = _batches(self._fn(split="test", batch_size=4,
                                    mode=pipeline.EVAL)())
        self.assertEqual([b[0].shape for b in batches],
                         [(4, 28, 28, 1), (4, 28, 28, 1), (2, 28, 28, 1)])
        images = np.concatenate([b[0] for b in batches])
        labels = np.concatenate([b[1] for b in batches])
        self.assertEqual(images.dtype, np.float32)
        self.assertAllClose(images[..., 0] * 255,
                            self.arrays["t10k-images-idx3-ubyte.gz"],
                            atol=1e-3)
        self.assertAllEqual(labels.argmax(1),
                            self.arrays["t10k-labels-idx1-ubyte.gz"])
        self.assertAllEqual(labels.sum(1), np.ones(10))

    def test_predict_yields_features_only_and_feature_key(self):
        batch = next(iter(self._fn(split="test", batch_size=10,
                                   feature_key="image",
                                   mode=pipeline.PREDICT)()))
        self.assertEqual(list(batch), ["image"])
        self.assertEqual(batch["image"].shape, (10, 28, 28, 1))

    def test_train_shuffles_per_epoch_and_repeats_with_seed(self):
        def labels(seed):
            data = self._fn(batch_size=24, mode=pipeline.TRAIN, epochs=2,
                            seed=seed)()
            return [b[0][:, 10:14, 10:14, 0].sum((1, 2)) for b in
                    data.as_numpy_iterator()]

        first, again = labels(5), labels(5)
        self.assertAllEqual(first[0], again[0])
        self.assertAllEqual(first[1], again[1])
        self.assertNotAllEqual(first[0], first[1])
        self.assertAllClose(np.sort(first[0]), np.sort(first[1]))

    def test_workers_read_disjoint_shards(self):
        seen = []
        for worker in range(2):
            context = tf.distribute.InputContext(2, worker, 2)
            data = self._fn(split="test", global_batch_size=4,
                            mode=pipeline.EVAL)(input_context=context)
            batches = _batches(data)
            self.assertEqual(batches[0][0].shape[0], 2)
            seen.append(np.concatenate([b[0] for b in batches]))
        self.assertEqual(len(seen[0]) + len(seen[1]), 10)
        both = np.concatenate(seen).reshape(10, -1)
        self.assertLen(np.unique(both, axis=0), 10)

    def test_mismatched_counts_fail_naming_the_files(self):
        idx.write(os.path.join(self.data_dir, "t10k-labels-idx1-ubyte.gz"),
                  np.zeros(9, np.uint8))
        with self.assertRaisesRegex(
                BadDataError, r"t10k-images.* holds 10 images but "
                r".*t10k-labels.* holds 9 labels"):
            self._fn(split="test", batch_size=4, mode=pipeline.EVAL)

    def test_unknown_split(self):
        with self.assertRaisesRegex(ValueError, r"split='val'"):
            self._fn(split="val", batch_size=4)

    def test_load_data_matches_keras_shapes(self):
        (x_train, y_train), (x_test, y_test) = fashion_mnist.load_data(
            self.data_dir, download=False)
        self.assertEqual(x_train.shape, (24, 28, 28))
        self.assertEqual(y_test.shape, (10,))
        self.assertAllEqual(y_train, self.arrays["train-labels-idx1-ubyte.gz"])
        self.assertEqual(x_test.dtype, np.uint8)

    def test_synthetic_input_fn(self):
        input_fn = fashion_mnist.make_input_fn(
            synthetic_data=True, num_examples=40, batch_size=16,
            mode=pipeline.EVAL)
        batches = _batches(input_fn())
        self.assertEqual([len(b[0]) for b in batches], [16, 16, 8])
        self.assertEqual(batches[0][1].shape, (16, 10))
        self.assertBetween(float(batches[0][0].max()), 0.5, 1.0)

    def test_real_label_file_with_generated_images(self):
        labels_path = fixtures.shared_data(self, "fashion-mnist", "t10k-labels-idx1-ubyte.gz")
        real = idx.read(labels_path)
        folder = tempfile.mkdtemp(dir=self.get_temp_dir())
        fixtures.write_fashion_mnist(folder, train=8, test=len(real),
                                    labels_override={"t10k": real})
        data = fashion_mnist.make_input_fn(folder, split="test",
                                           batch_size=500, mode=pipeline.EVAL,
                                           download=False)()
        first = next(iter(data))[1].numpy().argmax(1)
        self.assertAllEqual(first, real[:500])


if __name__ == "__main__":
    tf.test.main()
