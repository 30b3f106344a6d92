"""Tests for datasets.folder_scan: every bad-data case, raised or skipped."""

import os
import sys
import tempfile

import numpy as np
import tensorflow as tf
from absl.testing import parameterized

from estimator_lib.datasets import folder_scan
from estimator_lib.datasets import synthetic
from tests.datasets import fixtures
from estimator_lib.datasets.errors import BadDataError


class ScanTest(tf.test.TestCase, parameterized.TestCase):

    def setUp(self):
        super().setUp()
        self.folder = tempfile.mkdtemp(dir=self.get_temp_dir())
        self.written = fixtures.write_image_folder(
            self.folder, class_names=("b", "a", "c"), per_class=2)
        self.logged = []

    def _scan(self, **kwargs):
        return folder_scan.scan_folder(self.folder, log=self.logged.append,
                                       **kwargs)

    def _write(self, relative, data):
        path = os.path.join(self.folder, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def _jpeg(self):
        with open(next(iter(self.written)), "rb") as f:
            return f.read()

    def test_lists_sorted_classes_and_labels(self):
        listing = self._scan()
        self.assertEqual(listing.class_names, ("a", "b", "c"))
        self.assertLen(listing.files, 6)
        for path, label in zip(listing.files, listing.labels):
            self.assertEqual(listing.class_names[label],
                             self.written[path][0])
        self.assertEqual(listing.counts, {"a": 2, "b": 2, "c": 2})
        self.assertEmpty(self.logged)

    def test_ignores_hidden_files_and_macos_folders(self):
        self._write("a/.DS_Store", b"junk")
        self._write("__MACOSX/a/x.jpeg", b"junk")
        self.assertLen(self._scan().files, 6)

    @parameterized.named_parameters(
        ("truncated", "a/cut.jpeg", "truncated", r"cut.jpeg is a bad image: "
         r"truncated JPEG"),
        ("not_jpeg", "a/fake.jpeg", "text", r"fake.jpeg is a bad image: "
         r"not a JPEG"),
        ("empty_file", "a/empty.jpg", "empty", r"empty.jpg is a bad image: "
         r"empty file"),
        ("non_image", "b/notes.txt", "text", r"notes.txt is not an image"),
    )
    def test_bad_file_raises_naming_it_or_is_skipped(self, relative, kind,
                                                     message):
        data = {"truncated": self._jpeg()[:200], "text": b"hello",
                "empty": b""}[kind]
        path = self._write(relative, data)
        with self.assertRaisesRegex(BadDataError, message) as caught:
            self._scan()
        self.assertEqual(caught.exception.path, path)
        listing = self._scan(on_bad_file="skip")
        self.assertLen(listing.files, 6)
        self.assertEqual([p for p, _ in listing.skipped], [path])
        self.assertLen(self.logged, 1)
        reason = listing.skipped[0][1]
        self.assertIn(f"; skipped 1 (1 {reason}): {path} ({reason}).", self.logged[0])

    def test_corrupt_data_inside_needs_decode_verification(self):
        source = synthetic.write_textured_jpegs(
            tempfile.mkdtemp(dir=self.get_temp_dir()), count=1, height=64,
            width=64)[0]
        with open(source, "rb") as f:
            data = bytearray(f.read())
        # Garbage after the headers, with the end marker kept.
        data[400:-2] = np.random.RandomState(0).randint(
            0, 256, len(data) - 402).astype(np.uint8).tobytes()
        path = self._write("c/corrupt.jpeg", bytes(data))
        self.assertIn(path, self._scan().files)
        with self.assertRaisesRegex(BadDataError,
                                    r"corrupt.jpeg is a bad image: corrupt"):
            self._scan(verify="decode")
        listing = self._scan(verify="decode", on_bad_file="skip")
        self.assertEqual(listing.skipped, ((path, "corrupt JPEG"),))

    def test_decoding_writes_no_libjpeg_lines_and_keeps_other_stderr(self):
        source = synthetic.write_textured_jpegs(
            tempfile.mkdtemp(dir=self.get_temp_dir()), count=1, height=64,
            width=64)[0]
        with open(source, "rb") as f:
            data = bytearray(f.read())
        data[400:-2] = np.random.RandomState(0).randint(
            0, 256, len(data) - 402).astype(np.uint8).tobytes()
        path = self._write("c/corrupt.jpeg", bytes(data))

        def noisy_check(file_path):
            os.write(2, b"a line of someone else's\n")
            return folder_scan.decode_problem(file_path)

        with tempfile.TemporaryFile() as err:
            sys.stderr.flush()
            saved = os.dup(2)
            os.dup2(err.fileno(), 2)
            try:
                problems = folder_scan._decode_all([path], noisy_check)
            finally:
                os.dup2(saved, 2)
                os.close(saved)
            err.seek(0)
            written = err.read().decode()
        self.assertEqual(problems, {path: "corrupt JPEG"})
        self.assertIn("a line of someone else's\n", written)
        # libjpeg's own; TensorFlow's log lines (W0000 ...) are kept, as any other.
        self.assertNotIn("Corrupt JPEG data", written)
        self.assertNotIn("Unsupported marker", written)

    def test_empty_class_folder(self):
        os.makedirs(os.path.join(self.folder, "d"))
        with self.assertRaisesRegex(BadDataError,
                                    r"Class folder .*/d has no usable image"):
            self._scan()
        listing = self._scan(on_bad_file="skip")
        self.assertEqual(listing.class_names, ("a", "b", "c", "d"))
        self.assertEqual(listing.empty_classes, ("d",))
        self.assertIn("empty class folders: d", self.logged[0])

    def test_unknown_class_folder(self):
        with self.assertRaisesRegex(
                BadDataError, r"Class folder .*/c is not one of the classes "
                r"\['a', 'b'\]"):
            self._scan(class_names=("a", "b"))
        listing = self._scan(class_names=("a", "b"), on_bad_file="skip")
        self.assertEqual(listing.counts, {"a": 2, "b": 2})
        self.assertEqual(listing.skipped[0][1], "unknown class folder")

    def test_missing_class_folder_keeps_label_order(self):
        with self.assertRaisesRegex(BadDataError, r"/z has no usable image"):
            self._scan(class_names=("a", "b", "c", "z"))
        listing = self._scan(class_names=("a", "b", "c", "z"),
                             on_bad_file="skip")
        self.assertEqual(listing.counts["z"], 0)

    def test_empty_or_missing_folder(self):
        empty = tempfile.mkdtemp(dir=self.get_temp_dir())
        with self.assertRaisesRegex(BadDataError, r"holds no class folders"):
            folder_scan.scan_folder(empty, on_bad_file="skip")
        with self.assertRaisesRegex(BadDataError, r"nope does not exist"):
            folder_scan.scan_folder(os.path.join(empty, "nope"))

    def test_rejects_unknown_options(self):
        with self.assertRaisesRegex(ValueError, r"on_bad_file='ignore'"):
            self._scan(on_bad_file="ignore")
        with self.assertRaisesRegex(ValueError, r"verify='full'"):
            self._scan(verify="full")


if __name__ == "__main__":
    tf.test.main()
