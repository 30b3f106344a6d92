"""Tests for datasets.oct_folder: the Kaggle layout and the real samples."""

import os
import shutil
import tempfile

import numpy as np
import tensorflow as tf

from estimator_lib.datasets import oct_folder, pipeline, tfrecord_reader
from tests.datasets import fixtures
from estimator_lib.datasets.errors import BadDataError



class LayoutTest(tf.test.TestCase):

    def setUp(self):
        super().setUp()
        self.data_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        # The real archive: 'OCT2017 ' with a trailing space, plus a
        # duplicate lower-case tree holding the same images again.
        for top in ("OCT2017 ", os.path.join("oct2017", "OCT2017 ")):
            for split, per_class in (("train", 2), ("test", 1), ("val", 1)):
                fixtures.write_image_folder(
                    os.path.join(self.data_dir, top, split),
                    per_class=per_class)
        self.logged = []

    def test_finds_the_trailing_space_tree_and_ignores_the_duplicate(self):
        root = oct_folder.find_root(self.data_dir, log=self.logged.append)
        self.assertEqual(root, os.path.join(self.data_dir, "OCT2017 "))
        self.assertLen(self.logged, 1)
        self.assertRegex(self.logged[0], r"ignoring the duplicate .*oct2017")

    def test_each_split_is_read_once_with_the_oct_classes(self):
        sizes = {}
        for split in oct_folder.SPLITS:
            input_fn = oct_folder.make_input_fn(
                self.data_dir, split=split, batch_size=16, image_size=8,
                mode=pipeline.EVAL)
            self.assertEqual(input_fn.listing.class_names,
                             oct_folder.CLASS_NAMES)
            labels = np.concatenate(
                [b[1] for b in input_fn().as_numpy_iterator()])
            self.assertEqual(labels.shape[1], 4)
            sizes[split] = len(labels)
        self.assertEqual(sizes, {"train": 8, "test": 4, "val": 4})

    def test_data_dir_may_be_the_split_root(self):
        root = os.path.join(self.data_dir, "OCT2017 ")
        self.assertEqual(oct_folder.find_root(root), root)
        self.assertEqual(oct_folder.split_dir(root, "val"),
                         os.path.join(root, "val"))

    def test_missing_split_and_unknown_split(self):
        shutil.rmtree(os.path.join(self.data_dir, "OCT2017 ", "val"))
        with self.assertRaisesRegex(BadDataError, r"No 'val' split under"):
            oct_folder.split_dir(self.data_dir, "val")
        with self.assertRaisesRegex(ValueError, r"split='dev'"):
            oct_folder.split_dir(self.data_dir, "dev")

    def test_unknown_class_folder_is_refused(self):
        fixtures.write_image_folder(
            os.path.join(self.data_dir, "OCT2017 ", "train"),
            class_names=("GLAUCOMA",), per_class=1)
        with self.assertRaisesRegex(BadDataError,
                                    r"GLAUCOMA is not one of the classes"):
            oct_folder.make_input_fn(self.data_dir, batch_size=2,
                                     mode=pipeline.TRAIN)

    def test_empty_data_dir_says_how_to_get_the_data(self):
        empty = tempfile.mkdtemp(dir=self.get_temp_dir())
        with self.assertRaisesRegex(BadDataError,
                                    r"holds no OCT2017 folder.*download_oct"):
            oct_folder.make_input_fn(empty, batch_size=2, mode=pipeline.TRAIN)


class RealSampleTest(tf.test.TestCase):

    def setUp(self):
        super().setUp()
        sample = fixtures.shared_data(self, "oct-sample")
        self.data_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        train = os.path.join(self.data_dir, "OCT2017 ", "train")
        shutil.copytree(sample, train,
                        ignore=shutil.ignore_patterns("README.md"))

    def test_real_jpegs_decode_to_224_rgb_with_folder_labels(self):
        input_fn = oct_folder.make_input_fn(self.data_dir, batch_size=8,
                                            mode=pipeline.EVAL)
        features, labels = next(iter(input_fn()))
        self.assertEqual(features.shape, (8, 224, 224, 3))
        self.assertAllClose(features[..., 0], features[..., 2])
        expected = [oct_folder.CLASS_NAMES.index(os.path.basename(
            os.path.dirname(p))) for p in input_fn.listing.files]
        self.assertAllEqual(labels.numpy().argmax(1), expected)
        self.assertEqual(input_fn.listing.counts,
                         {name: 2 for name in oct_folder.CLASS_NAMES})

    def test_converts_to_tfrecords_and_reads_back(self):
        output = os.path.join(self.data_dir, "records")
        results = oct_folder.convert_oct_to_tfrecords(
            self.data_dir, output, image_format="raw", image_size=32)
        self.assertEqual(list(results), ["train"])
        self.assertEqual(results["train"]["num_examples"], 8)
        data = tfrecord_reader.make_input_fn(output, name="train",
                                             batch_size=8,
                                             mode=pipeline.EVAL)()
        features, labels = next(iter(data))
        self.assertEqual(features.shape, (8, 32, 32, 3))
        self.assertAllEqual(np.sort(labels.numpy().argmax(1)),
                            [0, 0, 1, 1, 2, 2, 3, 3])


if __name__ == "__main__":
    tf.test.main()
