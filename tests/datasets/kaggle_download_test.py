"""Tests for datasets.kaggle_download and download_oct, with no network."""

import json
import os
import sys
import tempfile
import zipfile
from unittest import mock

import tensorflow as tf
from absl.testing import parameterized

from estimator_lib.datasets import kaggle_download, oct_folder
from estimator_lib.datasets.errors import DownloadError

SECRET = "0123456789abcdef-secret"


class _FakeApi:
    """Stands in for kaggle.api: writes a small archive like Kaggle's."""

    def __init__(self, entries=None, error=None):
        self.calls = []
        self.entries = entries or [
            (f"OCT2017 /{split}/{name}/{name}-1-{i}.jpeg", b"\xff\xd8\xff")
            for split in ("train", "test") for name in oct_folder.CLASS_NAMES
            for i in range(2)]
        self.error = error

    def dataset_download_files(self, dataset, path, force, quiet, unzip):
        self.calls.append((dataset, path, force, quiet, unzip))
        if self.error:
            raise self.error
        with zipfile.ZipFile(os.path.join(path, "kermany2018.zip"), "w") as z:
            for name, data in self.entries:
                z.writestr(name, data)


class _HttpError(Exception):

    def __init__(self, status):
        super().__init__(f"{status} Client Error for url "
                         f"https://www.kaggle.com/api?key={SECRET}")
        self.response = mock.Mock(status_code=status)


class CredentialsTest(tf.test.TestCase, parameterized.TestCase):

    def setUp(self):
        super().setUp()
        self.home = tempfile.mkdtemp(dir=self.get_temp_dir())

    def test_missing_credentials_is_one_clear_line_without_importing_kaggle(
            self):
        imported = "kaggle" in sys.modules
        data_dir = os.path.join(self.home, "data")
        with mock.patch.dict(os.environ, {"HOME": self.home}, clear=True):
            with self.assertRaisesRegex(
                    DownloadError, r"^No Kaggle credentials found: set "
                    r"KAGGLE_USERNAME and KAGGLE_KEY, or KAGGLE_API_TOKEN, "
                    r"or put kaggle.json .*~/.kaggle/") as caught:
                oct_folder.download_oct(data_dir)
        self.assertNotIn("\n", str(caught.exception))
        self.assertIsNone(caught.exception.__cause__)
        if not imported:
            self.assertNotIn("kaggle", sys.modules)

    @parameterized.named_parameters(
        ("username_key", {"KAGGLE_USERNAME": "u", "KAGGLE_KEY": "k"}, None,
         "KAGGLE_USERNAME/KAGGLE_KEY"),
        ("token", {"KAGGLE_API_TOKEN": "t"}, None, "KAGGLE_API_TOKEN"),
        ("home_json", {}, ".kaggle", "kaggle.json"),
        ("config_dir_json", {"KAGGLE_CONFIG_DIR": "{home}/cfg"}, "cfg",
         "kaggle.json"),
        ("xdg_json", {}, ".config/kaggle", "kaggle.json"),
    )
    def test_finds_each_kind_of_credentials(self, environ, folder, expected):
        environ = {k: v.format(home=self.home) for k, v in environ.items()}
        if folder:
            os.makedirs(os.path.join(self.home, folder))
            with open(os.path.join(self.home, folder, "kaggle.json"),
                      "w") as f:
                json.dump({"username": "u", "key": "k"}, f)
        found = kaggle_download.find_credentials(environ, self.home)
        self.assertIn(expected, found)

    def test_username_without_key_is_not_credentials(self):
        self.assertIsNone(kaggle_download.find_credentials(
            {"KAGGLE_USERNAME": "u"}, self.home))


class DownloadTest(tf.test.TestCase, parameterized.TestCase):

    def setUp(self):
        super().setUp()
        self.data_dir = os.path.join(tempfile.mkdtemp(dir=self.get_temp_dir()),
                                     "oct")
        self.environ = {"KAGGLE_USERNAME": "someone", "KAGGLE_KEY": SECRET}

    def _download(self, api, **kwargs):
        return kaggle_download.download_dataset(
            oct_folder.KAGGLE_DATASET, self.data_dir, api_factory=lambda: api,
            environ=self.environ, **kwargs)

    def test_downloads_unzips_and_resumes_as_done(self):
        api = _FakeApi()
        root = oct_folder.download_oct(self.data_dir, api_factory=lambda: api)
        self.assertEqual(root, os.path.join(self.data_dir, "OCT2017 "))
        self.assertEqual(api.calls, [(oct_folder.KAGGLE_DATASET,
                                      self.data_dir, False, False, False)])
        self.assertFalse(os.path.exists(
            os.path.join(self.data_dir, "kermany2018.zip")))
        self.assertTrue(os.path.exists(
            os.path.join(self.data_dir, ".kermany2018.complete")))
        oct_folder.download_oct(self.data_dir, api_factory=lambda: api)
        self.assertLen(api.calls, 1)
        oct_folder.download_oct(self.data_dir, api_factory=lambda: api,
                                force=True)
        self.assertLen(api.calls, 2)

    def test_keep_archive(self):
        self._download(_FakeApi(), keep_archive=True)
        self.assertTrue(os.path.exists(
            os.path.join(self.data_dir, "kermany2018.zip")))

    @parameterized.named_parameters(
        ("refused", _HttpError(401), r"refused the credentials \(HTTP 401\)"),
        ("not_found", _HttpError(404), r"no such dataset"),
        ("offline", ConnectionError(
            f"Max retries exceeded with url: /?token={SECRET}\nmore"),
         r"no network connection to Kaggle"),
        ("exit", SystemExit(1), r"Could not download .*: 1"),
    )
    def test_failures_are_one_line_without_credentials(self, error, message):
        with self.assertRaisesRegex(DownloadError, message) as caught:
            self._download(_FakeApi(error=error))
        text = str(caught.exception)
        self.assertNotIn(SECRET, text)
        self.assertNotIn("\n", text)
        self.assertTrue(text.startswith("Could not download "
                                        "paultimothymooney/kermany2018"))

    def test_unsafe_archive_is_refused(self):
        api = _FakeApi(entries=[("../../evil.sh", b"rm -rf /")])
        with self.assertRaisesRegex(DownloadError, r"unsafe \('..' "):
            self._download(api)
        self.assertFalse(os.path.exists(
            os.path.join(self.data_dir, ".kermany2018.complete")))

    def test_bad_dataset_name(self):
        with self.assertRaisesRegex(ValueError, r"dataset='kermany'"):
            kaggle_download.download_dataset("kermany", self.data_dir)


if __name__ == "__main__":
    tf.test.main()
