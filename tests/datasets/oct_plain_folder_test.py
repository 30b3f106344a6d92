"""--dataset=oct on a plain CLASS/*.jpeg folder: a seeded, per-class train/test split."""

import os
import tempfile

import tensorflow as tf

from estimator_lib.datasets import folder_scan
from estimator_lib.datasets import oct_folder
from estimator_lib.datasets.errors import BadDataError
from tests.datasets import fixtures


class PlainFolderTest(tf.test.TestCase):

    def setUp(self):
        super().setUp()
        self.folder = tempfile.mkdtemp(dir=self.get_temp_dir())
        fixtures.write_image_folder(self.folder, per_class=5)

    def test_splits_each_class_the_same_way_every_time(self):
        self.assertTrue(oct_folder.is_class_folder(self.folder))
        self.assertEqual(oct_folder.available_splits(self.folder), ["train", "test"])
        train = oct_folder.make_input_fn(self.folder, split="train", batch_size=2)
        test = oct_folder.make_input_fn(self.folder, split="test", batch_size=2)
        self.assertEqual(train.listing.counts, {c: 4 for c in oct_folder.CLASS_NAMES})
        self.assertEqual(test.listing.counts, {c: 1 for c in oct_folder.CLASS_NAMES})
        self.assertEmpty(set(train.listing.files) & set(test.listing.files))
        again = oct_folder.make_input_fn(self.folder, split="test", batch_size=2)
        self.assertEqual(again.listing.files, test.listing.files)
        with self.assertRaisesRegex(BadDataError, "plain CLASS/\\*.jpeg folder"):
            oct_folder.make_input_fn(self.folder, split="val", batch_size=2)

    def test_the_test_split_reads_only_its_own_files(self):
        test = oct_folder.make_input_fn(self.folder, split="test", batch_size=8,
                                        mode="eval", image_size=8)
        images, labels = next(iter(test()))
        self.assertEqual(images.shape[0], 4)
        self.assertEqual(sorted(tf.argmax(labels, 1).numpy().tolist()), [0, 1, 2, 3])

    def test_split_listing(self):
        listing = folder_scan.scan_folder(self.folder)
        train, test = folder_scan.split_listing(listing, test_fraction=0.4, seed=1)
        self.assertLen(test.files, 8)
        self.assertLen(train.files, 12)
        self.assertTrue(train.subset and test.subset)
        with self.assertRaisesRegex(ValueError, "test_fraction"):
            folder_scan.split_listing(listing, test_fraction=1.0)

    def test_the_oct_layout_is_still_read_by_split(self):
        fixtures.write_image_folder(os.path.join(self.folder, "OCT2017", "train"))
        self.assertFalse(oct_folder.is_class_folder(os.path.join(self.folder, "OCT2017")))


if __name__ == "__main__":
    tf.test.main()
