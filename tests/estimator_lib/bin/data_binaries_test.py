"""input_benchmark, make_tfrecords and download_oct, driven through flagsaver."""

import contextlib
import io
import json
import os
from unittest import mock

import tensorflow as tf
from absl import app
from absl import flags as absl_flags
from absl.testing import flagsaver

from estimator_lib.datasets import make_tfrecord_input_fn
from tests.datasets import fixtures
from estimator_lib.datasets.errors import BadDataError
from estimator_lib.datasets.errors import DownloadError
from estimator_lib.bin import download_oct
from estimator_lib.bin import input_benchmark
from estimator_lib.bin import make_tfrecords
from estimator_lib.bin.jobs import progress


def _run(main, **flags):
    out = io.StringIO()
    with flagsaver.flagsaver(**flags), contextlib.redirect_stdout(out):
        main(["binary"])
    return out.getvalue()


class _FlagsParsed(tf.test.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        if not absl_flags.FLAGS.is_parsed():
            absl_flags.FLAGS(["data_binaries_test"])


class InputBenchmarkTest(_FlagsParsed):

    def test_measures_pipeline_and_loop_on_generated_images(self):
        output_dir = os.path.join(self.get_temp_dir(), "input")
        printed = _run(input_benchmark.main, num_images=8, batch_size=4, image_size=32,
                       repeats=1, output_dir=output_dir)
        self.assertIn("| loop |", printed)
        self.assertIn("| loop_3ch |", printed)
        self.assertIn("| pipeline |", printed)
        # The pipeline against both references, every time (docs quote either).
        self.assertIn("| x loop | x loop_3ch |", printed)
        self.assertIn("| images/s, median (min-max) |", printed)
        self.assertIn("median (min-max) of 1 interleaved passes", printed)
        self.assertRegex(printed, r"\| pipeline \| [\d,]+ \([\d,]+-[\d,]+\) \|")
        self.assertRegex(printed, r"after; \d{4}-\d\d-\d\d \d\d:\d\d UTC, commit [0-9a-f]{7,}")
        self.assertRegex(printed, r"\(\d+\.\d\dx loop, \d+\.\d\dx loop_3ch on the same files\)")
        self.assertIn("will wait for input", printed)
        with open(os.path.join(output_dir, "input_benchmark.json")) as f:
            report = json.load(f)
        self.assertEqual(report["images"], 8)
        for name in ("loop", "loop_3ch", "pipeline"):
            self.assertGreater(report["results"][name]["images_per_sec"], 0)

    def test_reads_an_oct_folder(self):
        data_dir = os.path.join(self.get_temp_dir(), "oct")
        fixtures.write_image_folder(os.path.join(data_dir, "OCT2017", "train"), per_class=2)
        printed = _run(input_benchmark.main, data_dir=data_dir, num_images=6, batch_size=4,
                       image_size=32, repeats=1)
        self.assertIn("6 OCT train images", printed)


class MakeTfrecordsTest(_FlagsParsed):

    def test_converts_every_oct_split_and_reads_back(self):
        data_dir = os.path.join(self.get_temp_dir(), "oct")
        for split in ("train", "val"):
            fixtures.write_image_folder(os.path.join(data_dir, "OCT2017 ", split), per_class=1)
        output_dir = os.path.join(self.get_temp_dir(), "records")
        printed = _run(make_tfrecords.main, data_dir=data_dir, output_dir=output_dir,
                       image_size=32, num_shards=2)
        self.assertIn("No 'test' split", printed)
        self.assertIn("train: 4 examples", printed)
        self.assertIn("val: 4 examples", printed)
        self.assertIn("Converting train [", printed)
        input_fn = make_tfrecord_input_fn(output_dir, name="val", batch_size=4, mode="eval")
        images, labels = next(iter(input_fn()))
        self.assertEqual(images.shape, (4, 32, 32, 3))
        self.assertAllEqual(sorted(tf.argmax(labels, 1).numpy()), [0, 1, 2, 3])

    def test_converts_a_plain_class_folder_holding_out_the_oct_test_split(self):
        data_dir = os.path.join(self.get_temp_dir(), "plain")  # CLASS/*.jpeg, 5 a class.
        fixtures.write_image_folder(data_dir, per_class=5)
        output_dir = os.path.join(self.get_temp_dir(), "sample")
        printed = _run(make_tfrecords.main, data_dir=data_dir, output_dir=output_dir,
                       image_format="jpeg")
        self.assertIn("converting it as one CLASS/*.jpeg folder, 20% of each class held out "
                      "as 'test' (the draw --dataset=oct makes).", printed)
        for name, count in (("train", 16), ("test", 4)):
            metadata = make_tfrecord_input_fn(output_dir, name=name, batch_size=8).metadata
            self.assertEqual(metadata["num_examples"], count)
            self.assertEqual(metadata["class_names"], ["CNV", "DME", "DRUSEN", "NORMAL"])

    def test_bad_image_is_a_data_error(self):
        data_dir = os.path.join(self.get_temp_dir(), "bad")
        fixtures.write_image_folder(data_dir, per_class=1)
        with open(os.path.join(data_dir, "CNV", "broken.jpeg"), "wb") as f:
            f.write(b"\xff\xd8\xff not a jpeg")
        with self.assertRaises(BadDataError):
            _run(make_tfrecords.main, data_dir=data_dir,
                 output_dir=os.path.join(self.get_temp_dir(), "out"), image_size=32)

    def test_missing_data_dir(self):
        with self.assertRaisesRegex(app.UsageError, "does not exist"):
            _run(make_tfrecords.main, data_dir="/nonexistent/oct", output_dir="/tmp/x")


class DownloadOctTest(_FlagsParsed):

    def test_without_credentials_is_one_line(self):
        home = self.get_temp_dir()
        environ = {"HOME": home, "KAGGLE_CONFIG_DIR": home}
        with mock.patch.dict(os.environ, environ):
            for name in ("KAGGLE_USERNAME", "KAGGLE_KEY", "KAGGLE_API_TOKEN"):
                os.environ.pop(name, None)
            with self.assertRaisesRegex(DownloadError, "^No Kaggle credentials found"):
                _run(download_oct.main, data_dir=os.path.join(home, "oct"))

    def test_reports_what_was_downloaded(self):
        data_dir = os.path.join(self.get_temp_dir(), "oct")

        def fake_download(target, **kwargs):
            self.assertEqual(kwargs["force"], False)
            for split in ("train", "test"):
                fixtures.write_image_folder(os.path.join(target, "OCT2017 ", split),
                                           per_class=1)
            return os.path.join(target, "OCT2017 ")

        with mock.patch.object(download_oct, "download_oct", fake_download):
            printed = _run(download_oct.main, data_dir=data_dir)
        self.assertIn("train 4, test 4 images", printed)
        self.assertIn("--dataset=oct", printed)


class ProgressDisplayTest(tf.test.TestCase):

    def test_log_lines_every_tenth(self):
        times = iter([0.0, 1.0, 2.0, 3.0, 4.0])
        out = io.StringIO()
        display = progress.ProgressDisplay("Converting", stream=out, clock=lambda: next(times),
                                           interactive=False, width=10)
        display(10, 100)
        display(12, 100)  # Same tenth: not shown.
        display(100, 100)
        lines = out.getvalue().splitlines()
        self.assertLen(lines, 2)
        self.assertEqual(lines[0], "Converting [#---------]  10% 10/100 images, 10/s, 0:09 left")
        self.assertTrue(lines[1].startswith("Converting [##########] 100% 100/100 images"))

    def test_terminal_rewrites_one_line(self):
        times = iter([0.0, 1.0, 2.0])
        out = io.StringIO()
        display = progress.ProgressDisplay("X", stream=out, clock=lambda: next(times),
                                           interactive=True, width=4)
        display(1, 2)
        display(2, 2)
        self.assertEqual(out.getvalue(), "\rX [##--]  50% 1/2 images, 1/s, 0:01 left"
                                         "\rX [####] 100% 2/2 images, 1/s, 0:02\n")


if __name__ == "__main__":
    tf.test.main()
