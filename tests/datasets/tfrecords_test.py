"""Tests for the TFRecord writer, reader and format."""

import json
import os
import shutil
import tempfile

import numpy as np
import tensorflow as tf
from absl.testing import parameterized

from estimator_lib.datasets import image_folder, images, pipeline, tfrecord_reader, tfrecord_writer, tfrecords
from estimator_lib.datasets import synthetic
from tests.datasets import fixtures
from estimator_lib.datasets.errors import BadDataError

CLASSES = ("CNV", "DME", "NORMAL")


def _by_level(dataset):
    """{gray level: (image, label)}; generated images are flat, 8 apart."""
    out = {}
    for features, labels in dataset.as_numpy_iterator():
        for image, label in zip(features, labels):
            level = int(np.round(image.mean() * 255 / 8) * 8)
            out[level] = (image, int(label.argmax()))
    return out


class ConversionTest(tf.test.TestCase, parameterized.TestCase):

    def setUp(self):
        super().setUp()
        root = tempfile.mkdtemp(dir=self.get_temp_dir())
        self.folder = os.path.join(root, "train")
        self.output = os.path.join(root, "records")
        self.written = fixtures.write_image_folder(
            self.folder, class_names=CLASSES, per_class=4, height=20,
            width=18)

    def _convert(self, **kwargs):
        kwargs.setdefault("num_shards", 3)
        return tfrecord_writer.convert_folder_to_tfrecords(
            self.folder, self.output, **kwargs)

    @parameterized.parameters(False, True)
    def test_jpeg_round_trip_equals_the_folder_pipeline(self, grayscale):
        metadata = self._convert(image_format="jpeg")
        records = _by_level(tfrecord_reader.make_input_fn(
            self.output, batch_size=5, image_size=12, grayscale=grayscale,
            mode=pipeline.EVAL)())
        folder = _by_level(image_folder.make_input_fn(
            self.folder, batch_size=5, image_size=12, grayscale=grayscale,
            mode=pipeline.EVAL)())
        self.assertLen(records, 12)
        self.assertEqual(sorted(records), sorted(folder))
        for level, (image, label) in records.items():
            self.assertAllEqual(image, folder[level][0])
            self.assertEqual(label, folder[level][1])
        self.assertEqual(metadata["class_names"], sorted(CLASSES))
        self.assertEqual(metadata["counts"], {c: 4 for c in CLASSES})

    def test_raw_round_trip_is_exact(self):
        self._convert(image_format="raw", image_size=(10, 8), channels=1)
        records = {}
        for record in tf.data.TFRecordDataset(
                tf.io.gfile.glob(os.path.join(self.output, "*.tfrecord"))):
            example = tf.io.parse_single_example(record, tfrecords.FEATURES)
            name = example[tfrecords.FILENAME].numpy().decode()
            records[name] = example
        self.assertLen(records, 12)
        for path, (name, _) in self.written.items():
            example = records[f"{name}/{os.path.basename(path)}"]
            expected = images.to_uint8(images.decode_and_resize_pixels(
                tf.io.read_file(path), image_size=(10, 8), channels=1))
            stored = tf.io.decode_raw(example[tfrecords.ENCODED], tf.uint8)
            self.assertAllEqual(stored, tf.reshape(expected, [-1]))
            self.assertEqual(example[tfrecords.TEXT].numpy().decode(), name)
            self.assertEqual(int(example[tfrecords.HEIGHT]), 10)
        data = tfrecord_reader.make_input_fn(self.output, batch_size=12,
                                             mode=pipeline.EVAL)()
        features, labels = next(iter(data))
        self.assertEqual(features.shape, (12, 10, 8, 3))
        self.assertEqual(labels.shape, (12, 3))

    @parameterized.parameters((1, 3), (3, 3), (3, 1), (1, 1))
    def test_raw_channels_stored_and_read(self, stored, read):
        self._convert(image_format="raw", image_size=6, channels=stored)
        features, _ = next(iter(tfrecord_reader.make_input_fn(
            self.output, batch_size=12, channels=read,
            mode=pipeline.EVAL)()))
        self.assertEqual(features.shape, (12, 6, 6, read))
        levels = sorted(np.round(features.numpy().mean(axis=(1, 2, 3)) * 255
                                 / 8).astype(int) * 8)
        self.assertEqual(levels, sorted(v for _, v in self.written.values()))

    def test_files_metadata_and_no_temporary_files_left(self):
        metadata = self._convert(name="val")
        names = sorted(os.listdir(self.output))
        self.assertEqual(names, ["val-00000-of-00003.tfrecord",
                                 "val-00001-of-00003.tfrecord",
                                 "val-00002-of-00003.tfrecord",
                                 "val.metadata.json"])
        with open(os.path.join(self.output, "val.metadata.json")) as f:
            self.assertEqual(json.load(f), metadata)
        self.assertEqual(sum(s["num_examples"] for s in metadata["shards"]),
                         12)
        self.assertEqual(metadata["num_examples"], 12)

    @parameterized.named_parameters(
        ("count", 3, 100, 1000, 3),
        ("count_capped_by_examples", 50, 100, 1000, 10),
        ("target_100mb", None, 10000, 250 * 2**20, 3),
        ("at_least_one", None, 10, 1, 1),
    )
    def test_plans_shards(self, shards, examples, total, expected):
        self.assertEqual(
            tfrecord_writer.plan_num_shards(
                total, min(examples, 10), num_shards=shards), expected)

    def test_target_shard_bytes_sets_the_count(self):
        metadata = self._convert(num_shards=None, image_format="raw",
                                 image_size=16, channels=1,
                                 target_shard_bytes=4 * (16 * 16 + 200))
        self.assertLen(metadata["shards"], 3)

    def test_corrupt_image_is_named_or_skipped_and_counted(self):
        source = synthetic.write_textured_jpegs(
            tempfile.mkdtemp(dir=self.get_temp_dir()), count=1, height=64,
            width=64)[0]
        with open(source, "rb") as f:
            data = bytearray(f.read())
        data[400:-2] = np.random.RandomState(0).randint(
            0, 256, len(data) - 402).astype(np.uint8).tobytes()
        bad = os.path.join(self.folder, "DME", "corrupt.jpeg")
        with open(bad, "wb") as f:
            f.write(bytes(data))
        with self.assertRaisesRegex(BadDataError,
                                    r"corrupt.jpeg is a bad image"):
            self._convert()
        self.assertFalse(os.path.exists(
            tfrecords.metadata_path(self.output, "train")))
        self.assertEmpty([n for n in os.listdir(self.output)
                          if n.endswith(".partial")])
        metadata = self._convert(on_bad_file="skip")
        self.assertEqual(metadata["num_skipped"], 1)
        self.assertEqual(metadata["skipped"][0]["path"], bad)
        self.assertEqual(metadata["num_examples"], 12)

    def test_reader_refuses_incomplete_conversions(self):
        with self.assertRaisesRegex(BadDataError,
                                    r"train.metadata.json is missing"):
            tfrecord_reader.make_input_fn(self.output, batch_size=2)
        self._convert()
        os.remove(os.path.join(self.output, "train-00001-of-00003.tfrecord"))
        with self.assertRaisesRegex(
                BadDataError, r"Shard .*train-00001-of-00003.tfrecord .*"
                r"missing"):
            tfrecord_reader.make_input_fn(self.output, batch_size=2)


class RealSampleTest(tf.test.TestCase):

    def test_real_oct_sample_round_trips_exactly(self):
        sample = fixtures.shared_data(self, "oct-sample")
        output = tempfile.mkdtemp(dir=self.get_temp_dir())
        metadata = tfrecord_writer.convert_folder_to_tfrecords(
            sample, output, name="sample", num_shards=2)
        self.assertEqual(metadata["counts"],
                         {"CNV": 2, "DME": 2, "DRUSEN": 2, "NORMAL": 2})
        folder = image_folder.make_input_fn(sample, batch_size=8,
                                            mode=pipeline.EVAL)
        records = tfrecord_reader.make_input_fn(output, name="sample",
                                                batch_size=8,
                                                mode=pipeline.EVAL)
        expected, expected_labels = next(iter(folder()))
        got, got_labels = next(iter(records()))
        # Records are shuffled across shards: match images by content.
        order = [int(np.argmin(np.abs(expected.numpy() - image).sum(
            axis=(1, 2, 3)))) for image in got.numpy()]
        self.assertCountEqual(order, range(8))
        self.assertAllEqual(got, tf.gather(expected, order))
        self.assertAllEqual(got_labels, tf.gather(expected_labels, order))


class ReaderTest(tf.test.TestCase, parameterized.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        root = cls.root = tempfile.mkdtemp()
        cls.folder = os.path.join(root, "images")
        cls.output = os.path.join(root, "records")
        fixtures.write_image_folder(cls.folder, class_names=CLASSES,
                                   per_class=4, height=8, width=8)
        tfrecord_writer.convert_folder_to_tfrecords(
            cls.folder, cls.output, image_format="raw", image_size=8,
            channels=1, num_shards=4)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.root, ignore_errors=True)
        super().tearDownClass()

    def _levels(self, input_context=None, **kwargs):
        input_fn = tfrecord_reader.make_input_fn(self.output, **kwargs)
        data = input_fn(input_context=input_context)
        return [int(np.round(image.mean() * 255 / 8) * 8)
                for features, _ in data.as_numpy_iterator()
                for image in features]

    def test_workers_read_disjoint_shards(self):
        parts = [set(self._levels(global_batch_size=4, mode=pipeline.EVAL,
                                  input_context=tf.distribute.InputContext(
                                      2, i, 2))) for i in range(2)]
        self.assertEmpty(parts[0] & parts[1])
        self.assertLen(parts[0] | parts[1], 12)

    def test_fewer_shards_than_workers_splits_records(self):
        parts = [set(self._levels(batch_size=4, mode=pipeline.EVAL,
                                  input_context=tf.distribute.InputContext(
                                      5, i, 5))) for i in range(5)]
        self.assertEqual(sum(len(p) for p in parts), 12)
        self.assertLen(set.union(*parts), 12)

    def test_shard_order_and_records_reshuffle_each_epoch(self):
        first = self._levels(batch_size=4, mode=pipeline.TRAIN, epochs=2,
                             seed=9)
        self.assertEqual(first, self._levels(batch_size=4,
                                             mode=pipeline.TRAIN, epochs=2,
                                             seed=9))
        self.assertLen(first, 24)
        self.assertNotEqual(first[:12], first[12:])
        self.assertCountEqual(first, 2 * sorted(set(first)))

    def test_eval_order_is_stable(self):
        self.assertEqual(self._levels(batch_size=4, mode=pipeline.EVAL),
                         self._levels(batch_size=4, mode=pipeline.EVAL))

    def test_predict_yields_images_only(self):
        data = tfrecord_reader.make_input_fn(self.output, batch_size=3,
                                             mode=pipeline.PREDICT)()
        self.assertEqual(next(iter(data)).shape, (3, 8, 8, 3))


if __name__ == "__main__":
    tf.test.main()
