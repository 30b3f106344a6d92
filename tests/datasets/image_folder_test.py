"""Tests for datasets.image_folder and datasets.images."""

import os
import tempfile

import numpy as np
import tensorflow as tf
from absl.testing import parameterized

from estimator_lib.datasets import image_folder, images, pipeline
from estimator_lib.datasets import synthetic
from tests.datasets import fixtures
from estimator_lib.datasets.errors import BadDataError

CLASSES = ("DRUSEN", "CNV", "NORMAL")


def _examples(dataset):
    """(level, label index) of every image; levels are 8 apart."""
    out = []
    for features, labels in dataset.as_numpy_iterator():
        means = features.mean(axis=(1, 2, 3)) * 255
        levels = (np.round(means / 8) * 8).astype(int)
        out.extend(zip(levels.tolist(), labels.argmax(1).tolist()))
    return out


class ImagesTest(tf.test.TestCase, parameterized.TestCase):

    def test_gray_fast_path_equals_rgb_decode(self):
        folder = tempfile.mkdtemp(dir=self.get_temp_dir())
        path = synthetic.write_textured_jpegs(folder, count=1, height=48,
                                            width=40)[0]
        contents = tf.io.read_file(path)
        ours = images.decode_and_resize(contents, image_size=(20, 30))
        seed = tf.image.resize(
            tf.image.convert_image_dtype(
                tf.io.decode_jpeg(contents, channels=3), tf.float32), (20, 30))
        self.assertEqual(ours.shape, (20, 30, 3))
        self.assertAllClose(ours, seed, atol=1e-6)

    def test_color_jpeg_keeps_its_colors(self):
        pixels = np.zeros((16, 16, 3), np.uint8)
        pixels[..., 0] = 250
        contents = tf.constant(fixtures.jpeg_bytes(pixels))
        image = images.decode_and_resize(contents, image_size=8)
        self.assertGreater(float(image[..., 0].numpy().mean()), 0.9)
        self.assertLess(float(image[..., 1].numpy().mean()), 0.1)
        self.assertEqual(
            images.decode_and_resize(contents, image_size=8,
                                     channels=1).shape, (8, 8, 1))

    @parameterized.parameters((0,), ((3,),), ((2, 0),), ("224",), (True,))
    def test_bad_image_size(self, size):
        with self.assertRaisesRegex(ValueError, r"`image_size` must be"):
            images.normalize_image_size(size)


class InputFnTest(tf.test.TestCase, parameterized.TestCase):

    def setUp(self):
        super().setUp()
        self.folder = tempfile.mkdtemp(dir=self.get_temp_dir())
        self.written = fixtures.write_image_folder(self.folder,
                                                  class_names=CLASSES,
                                                  per_class=3)
        names = sorted(CLASSES)
        self.expected = sorted((level, names.index(name))
                               for name, level in self.written.values())

    def _fn(self, **kwargs):
        kwargs.setdefault("image_size", 16)
        return image_folder.make_input_fn(self.folder, **kwargs)

    def test_labels_match_folders(self):
        data = self._fn(batch_size=4, mode=pipeline.EVAL)()
        self.assertEqual(sorted(_examples(data)), self.expected)

    @parameterized.parameters(((16, 12), 3), ((8, 8), 1))
    def test_shapes_and_range(self, size, channels):
        data = self._fn(batch_size=4, mode=pipeline.EVAL, image_size=size,
                        channels=channels)()
        features, labels = next(iter(data))
        self.assertEqual(features.shape, (4, *size, channels))
        self.assertEqual(labels.shape, (4, 3))
        self.assertEqual(features.dtype, tf.float32)
        self.assertBetween(float(tf.reduce_max(features)), 0.0, 1.0)

    def test_grayscale_mode_gives_the_same_tensors_for_gray_images(self):
        folder = tempfile.mkdtemp(dir=self.get_temp_dir())
        synthetic.write_textured_jpegs(folder, count=4, height=40, width=36,
                                     class_names=("a", "b"))
        results = []
        for grayscale in (False, True):
            input_fn = image_folder.make_input_fn(
                folder, batch_size=4, image_size=(12, 10),
                grayscale=grayscale)
            results.append(next(iter(input_fn(mode=pipeline.EVAL))))
            predicted = next(iter(input_fn(mode=pipeline.PREDICT)))
        self.assertAllClose(results[0][0], results[1][0], atol=1e-6)
        self.assertAllEqual(results[0][1], results[1][1])
        self.assertEqual(predicted.shape, (4, 12, 10, 3))

    def test_grayscale_mode_makes_colour_images_gray(self):
        folder = tempfile.mkdtemp(dir=self.get_temp_dir())
        fixtures.write_image_folder(folder, class_names=("a",), per_class=1,
                                   channels=3)
        path = os.path.join(folder, "a", "img_000.jpeg")
        pixels = np.zeros((16, 16, 3), np.uint8)
        pixels[..., 0] = 250
        with open(path, "wb") as f:
            f.write(fixtures.jpeg_bytes(pixels))
        features, _ = next(iter(image_folder.make_input_fn(
            folder, batch_size=1, image_size=8, grayscale=True,
            mode=pipeline.EVAL)()))
        self.assertAllClose(features[..., 0], features[..., 1])

    def test_default_size_is_224(self):
        data = image_folder.make_input_fn(self.folder, batch_size=2,
                                          mode=pipeline.EVAL)()
        self.assertEqual(next(iter(data))[0].shape, (2, 224, 224, 3))

    def test_integer_labels(self):
        data = self._fn(batch_size=9, mode=pipeline.EVAL, one_hot=False)()
        labels = next(iter(data))[1].numpy()
        self.assertEqual(labels.dtype, np.int32)
        self.assertCountEqual(labels.tolist(), [0, 0, 0, 1, 1, 1, 2, 2, 2])

    def test_predict_yields_images_only(self):
        data = self._fn(batch_size=9, mode=pipeline.PREDICT)()
        self.assertEqual(next(iter(data)).shape, (9, 16, 16, 3))

    def test_workers_read_disjoint_files(self):
        parts = []
        for worker in range(2):
            context = tf.distribute.InputContext(2, worker, 2)
            data = self._fn(global_batch_size=4, mode=pipeline.TRAIN,
                            epochs=1, seed=3)(input_context=context)
            batches = list(data.as_numpy_iterator())
            self.assertEqual(batches[0][0].shape[0], 2)
            parts.append(_examples(data))
        self.assertEmpty(set(parts[0]) & set(parts[1]))
        self.assertEqual(sorted(parts[0] + parts[1]), self.expected)

    def test_shuffle_differs_per_epoch_and_repeats_with_seed(self):
        def order(seed):
            return _examples(self._fn(batch_size=3, mode=pipeline.TRAIN,
                                      epochs=2, seed=seed)())

        first = order(11)
        self.assertEqual(first, order(11))
        self.assertNotEqual(first[:9], first[9:])
        self.assertEqual(sorted(first[:9]), self.expected)
        self.assertNotEqual(first, order(12))

    def test_skipped_bad_files_never_reach_the_pipeline(self):
        bad = os.path.join(self.folder, "CNV", "zz_bad.jpeg")
        with open(bad, "wb") as f:
            f.write(b"\xff\xd8\xff not really")
        with self.assertRaisesRegex(BadDataError, r"zz_bad.jpeg"):
            self._fn(batch_size=4, mode=pipeline.EVAL)
        input_fn = self._fn(batch_size=4, mode=pipeline.EVAL,
                            on_bad_file="skip")
        self.assertEqual(input_fn.listing.skipped,
                         ((bad, "truncated JPEG"),))
        self.assertEqual(sorted(_examples(input_fn())), self.expected)

    def test_files_are_labelled_by_their_own_folder(self):
        listing = self._fn(batch_size=1, mode=pipeline.EVAL).listing
        pairs = list(image_folder.files_dataset(listing).as_numpy_iterator())
        self.assertLen(pairs, 9)
        for path, label in pairs:
            folder = os.path.basename(os.path.dirname(path.decode()))
            self.assertEqual(listing.class_names[label], folder)

    def test_graph_mode_with_global_batch_over_two_replicas(self):
        input_fn = self._fn(global_batch_size=6)
        with tf.Graph().as_default():
            context = tf.distribute.InputContext(1, 0, 2)
            data = input_fn(mode=pipeline.EVAL, input_context=context)
            iterator = tf.compat.v1.data.make_initializable_iterator(data)
            features, labels = iterator.get_next()
            with tf.compat.v1.Session() as session:
                session.run(iterator.initializer)
                values = session.run(labels)
        self.assertEqual(values.shape, (3, 3))

    def test_no_file_list_is_frozen_into_the_graph(self):
        input_fn = self._fn(batch_size=2, mode=pipeline.TRAIN)
        graph = tf.Graph()
        with graph.as_default():
            input_fn()
        serialized = graph.as_graph_def().SerializeToString()
        self.assertNotIn(b"img_000.jpeg", serialized)
        self.assertIn(b"*.jpeg", serialized)

    def test_glob_characters_in_the_folder_still_work(self):
        folder = os.path.join(self.get_temp_dir(), "odd[1]")
        fixtures.write_image_folder(folder, class_names=("a", "b"),
                                   per_class=1)
        data = image_folder.make_input_fn(folder, batch_size=2, image_size=4,
                                          mode=pipeline.EVAL)()
        self.assertEqual(next(iter(data))[1].numpy().argmax(1).tolist(),
                         [0, 1])


if __name__ == "__main__":
    tf.test.main()
