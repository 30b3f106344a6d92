"""Tests for datasets.idx: reading, writing and checking IDX files."""

import gzip
import os
import tempfile

import numpy as np
import tensorflow as tf
from absl.testing import parameterized

from estimator_lib.datasets import idx
from estimator_lib.datasets.errors import BadDataError
from tests.datasets import fixtures


class IdxTest(tf.test.TestCase, parameterized.TestCase):

    def setUp(self):
        super().setUp()
        self.folder = tempfile.mkdtemp(dir=self.get_temp_dir())

    def _path(self, name):
        return os.path.join(self.folder, name)

    @parameterized.parameters("x.idx", "x.idx.gz")
    def test_round_trip(self, name):
        array = np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4)
        idx.write(self._path(name), array)
        info = idx.read_info(self._path(name))
        self.assertEqual(info.shape, (2, 3, 4))
        self.assertEqual(info.header_bytes, 16)
        self.assertEqual(info.compressed, name.endswith(".gz"))
        self.assertAllEqual(idx.read(self._path(name)), array)

    def test_truncated_file_is_named(self):
        path = self._path("images.gz")
        idx.write(path, np.zeros((4, 28, 28), np.uint8))
        with gzip.open(path, "rb") as f:
            data = f.read()
        with gzip.open(path, "wb") as f:
            f.write(data[:-100])
        with self.assertRaisesRegex(BadDataError,
                                    r"images.gz holds 3036 data bytes.*"
                                    r"truncated"):
            idx.read_info(path)

    def test_not_idx_is_named(self):
        path = self._path("bad")
        with open(path, "wb") as f:
            f.write(b"hello world, not idx")
        with self.assertRaisesRegex(BadDataError, r"bad is not an IDX file"):
            idx.read_info(path)

    def test_broken_gzip_is_named(self):
        path = self._path("broken.gz")
        idx.write(path, np.zeros((50, 28, 28), np.uint8))
        with open(path, "rb") as f:
            data = f.read()
        with open(path, "wb") as f:
            f.write(data[:len(data) // 2])
        with self.assertRaisesRegex(BadDataError, r"broken.gz cannot be read"):
            idx.read_info(path)

    def test_mismatched_counts_name_both_files(self):
        idx.write(self._path("images"), np.zeros((5, 28, 28), np.uint8))
        idx.write(self._path("labels"), np.zeros((4,), np.uint8))
        with self.assertRaisesRegex(
                BadDataError, r"images holds 5 images but .*labels holds 4"):
            idx.check_pair(self._path("images"), self._path("labels"))

    def test_label_out_of_range_is_named(self):
        idx.write(self._path("images"), np.zeros((3, 28, 28), np.uint8))
        idx.write(self._path("labels"), np.array([1, 12, 3], np.uint8))
        with self.assertRaisesRegex(BadDataError,
                                    r"labels has label 12 at index 1"):
            idx.check_pair(self._path("images"), self._path("labels"))

    def test_wrong_image_shape(self):
        idx.write(self._path("images"), np.zeros((3, 32, 32), np.uint8))
        idx.write(self._path("labels"), np.zeros((3,), np.uint8))
        with self.assertRaisesRegex(BadDataError, r"shape \(32, 32\)"):
            idx.check_pair(self._path("images"), self._path("labels"))

    def test_real_label_files(self):
        for name, count in (("train-labels-idx1-ubyte.gz", 60000),
                            ("t10k-labels-idx1-ubyte.gz", 10000)):
            path = fixtures.shared_data(self, "fashion-mnist", name)
            labels = idx.read(path)
            self.assertEqual(labels.shape, (count,))
            self.assertAllEqual(np.bincount(labels), [count // 10] * 10)


if __name__ == "__main__":
    tf.test.main()
