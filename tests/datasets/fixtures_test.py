"""tests/datasets/fixtures.py: without the project's shared/ folder (a fresh clone), the
tests that read real data get synthetic stand-ins of the same layout: none skips."""

import os

import numpy as np
import tensorflow as tf

from estimator_lib.datasets import idx
from tests.datasets import fixtures


class SharedDataTest(tf.test.TestCase):

    def setUp(self):
        super().setUp()
        self.absent = os.path.join(self.get_temp_dir(), "no_shared_data")

    def test_fashion_mnist_labels_stand_in(self):
        for name, count in (("train-labels-idx1-ubyte.gz", 60000),
                            ("t10k-labels-idx1-ubyte.gz", 10000)):
            path = fixtures.shared_data(self, "fashion-mnist", name, root=self.absent)
            self.assertStartsWith(path, self.get_temp_dir())
            labels = idx.read(path)
            self.assertEqual(labels.shape, (count,))
            self.assertAllEqual(np.bincount(labels), [count // 10] * 10)

    def test_oct_sample_stand_in(self):
        folder = fixtures.shared_data(self, "oct-sample", root=self.absent)
        self.assertStartsWith(folder, self.get_temp_dir())
        self.assertEqual(sorted(os.listdir(folder)), list(fixtures.OCT_CLASSES))
        for name in fixtures.OCT_CLASSES:
            files = os.listdir(os.path.join(folder, name))
            self.assertLen(files, 2)
            image = tf.io.decode_jpeg(tf.io.read_file(os.path.join(folder, name, files[0])))
            self.assertEqual(image.shape, (496, 512, 1))

    def test_real_files_are_used_when_present(self):
        root = os.path.join(self.get_temp_dir(), "shared")
        os.makedirs(os.path.join(root, "oct-sample"))
        self.assertEqual(fixtures.shared_data(self, "oct-sample", root=root),
                         os.path.join(root, "oct-sample"))


if __name__ == "__main__":
    tf.test.main()
