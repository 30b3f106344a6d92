"""Tests for datasets.archive: safe, resumable zip extraction."""

import os
import stat
import tempfile
import zipfile

import tensorflow as tf
from absl.testing import parameterized

from estimator_lib.datasets import archive
from estimator_lib.datasets.errors import BadDataError


class ExtractTest(tf.test.TestCase, parameterized.TestCase):

    def setUp(self):
        super().setUp()
        self.root = tempfile.mkdtemp(dir=self.get_temp_dir())
        self.zip_path = os.path.join(self.root, "data.zip")
        self.destination = os.path.join(self.root, "out")

    def _zip(self, entries):
        with zipfile.ZipFile(self.zip_path, "w") as z:
            for name, data in entries:
                if isinstance(data, zipfile.ZipInfo):
                    z.writestr(data, name)
                else:
                    z.writestr(name, data)

    def test_extracts_the_oct_layout_with_its_trailing_space(self):
        self._zip([("OCT2017 /train/CNV/a.jpeg", b"a" * 10),
                   ("oct2017/OCT2017 /test/DME/b.jpeg", b"b" * 5)])
        progress = []
        written = archive.extract(self.zip_path, self.destination,
                                  progress=lambda d, t: progress.append(
                                      (d, t)))
        self.assertEqual(written, 2)
        self.assertEqual(progress, [(1, 2), (2, 2)])
        with open(os.path.join(self.destination, "OCT2017 ", "train", "CNV",
                               "a.jpeg"), "rb") as f:
            self.assertEqual(f.read(), b"a" * 10)

    def test_resumes_keeping_complete_files(self):
        self._zip([("x/done.bin", b"1" * 8), ("x/half.bin", b"2" * 8)])
        os.makedirs(os.path.join(self.destination, "x"))
        with open(os.path.join(self.destination, "x", "done.bin"), "wb") as f:
            f.write(b"1" * 8)
        with open(os.path.join(self.destination, "x", "half.bin"), "wb") as f:
            f.write(b"2" * 3)
        self.assertEqual(archive.extract(self.zip_path, self.destination), 1)
        with open(os.path.join(self.destination, "x", "half.bin"), "rb") as f:
            self.assertEqual(f.read(), b"2" * 8)

    @parameterized.named_parameters(
        ("dot_dot", "../evil.txt", "'..' component"),
        ("nested_dot_dot", "a/../../evil.txt", "'..' component"),
        ("absolute", "/tmp/evil.txt", "absolute path"),
        ("windows_drive", "C:/evil.txt", "drive letter"),
        ("backslash_dot_dot", "a\\..\\..\\evil.txt", "'..' component"),
    )
    def test_rejects_escaping_entries_before_writing_anything(self, name,
                                                              reason):
        info = zipfile.ZipInfo("ok.txt")
        with zipfile.ZipFile(self.zip_path, "w") as z:
            z.writestr(info, b"fine")
            z.writestr(zipfile.ZipInfo(name), b"evil")
        with self.assertRaisesRegex(BadDataError,
                                    f"entry .* is unsafe \\({reason}\\)"):
            archive.extract(self.zip_path, self.destination)
        self.assertFalse(os.path.exists(self.destination))

    def test_rejects_symbolic_links(self):
        info = zipfile.ZipInfo("link")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        with zipfile.ZipFile(self.zip_path, "w") as z:
            z.writestr(info, "/etc/passwd")
        with self.assertRaisesRegex(BadDataError, r"symbolic link"):
            archive.extract(self.zip_path, self.destination)

    def test_truncated_archive_is_named(self):
        self._zip([("a.bin", os.urandom(5000))])
        with open(self.zip_path, "rb") as f:
            data = f.read()
        with open(self.zip_path, "wb") as f:
            f.write(data[:1000])
        with self.assertRaisesRegex(BadDataError,
                                    r"data.zip is not a readable zip"):
            archive.extract(self.zip_path, self.destination)


if __name__ == "__main__":
    tf.test.main()
