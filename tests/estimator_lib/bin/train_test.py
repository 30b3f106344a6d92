"""The train binary, driven through flagsaver on tiny settings."""

import contextlib
import io
import json
import os
import tempfile

import pytest
import tensorflow as tf
import tf_keras
from absl import app
from absl import flags as absl_flags
from absl.testing import flagsaver

from tests.datasets import fixtures
from estimator_lib.datasets.errors import BadDataError
from estimator_lib.bin.jobs import job
from estimator_lib.bin import make_tfrecords
from estimator_lib.bin import train
from estimator_lib.hooks import throughput

pytestmark = pytest.mark.timeout(300)


def _summary(model_dir):
    with open(os.path.join(model_dir, job.SUMMARY_FILENAME)) as f:
        return json.load(f)


class TrainBinaryTest(tf.test.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        if not absl_flags.FLAGS.is_parsed():
            absl_flags.FLAGS(["train_test"])

    def _main(self, **flags):
        out = io.StringIO()
        with flagsaver.flagsaver(**flags), contextlib.redirect_stdout(out):
            train.main(["train"])
        return out.getvalue()

    def test_trains_evaluates_and_exports_on_two_devices(self):
        model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        export_dir = os.path.join(model_dir, "export")
        printed = self._main(model_dir=model_dir, train_steps=4, batch_size=8, num_devices=2,
                             eval_steps=2, export_dir=export_dir, log_steps=2, warm_steps=1)
        summary = _summary(model_dir)
        self.assertEqual(summary["global_step"], 4)
        self.assertEqual(summary["strategy"], "mirrored")
        self.assertEqual(summary["global_batch_size"], 16)
        self.assertTrue(summary["shared_cores"])
        self.assertGreater(summary["examples_per_sec"], 0)
        self.assertEqual(summary["measured_steps"], 3)
        self.assertBetween(summary["accuracy"], 0.0, 1.0)
        self.assertLen(os.listdir(export_dir), 1)
        self.assertTrue(os.path.isdir(os.path.join(model_dir, "eval")))
        for text in ("accuracy", "examples/sec", "over all 2 replica(s)",
                     "time           training ", ", process ", "share the same"):
            self.assertIn(text, printed)
        # examples/sec comes from ExamplesPerSecondHook's records, every replica counted.
        final = throughput.read_records(
            os.path.join(model_dir, throughput.RECORDS_FILENAME), "examples_per_second")[-1]
        self.assertAlmostEqual(final["average_examples_per_sec"], summary["examples_per_sec"])
        self.assertEqual(final["global_batch_size"], 16)

    def test_global_batch_scope_splits_the_batch_across_replicas(self):
        model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        self._main(model_dir=model_dir, train_steps=2, batch_size=8,
                   batch_size_scope="global", num_devices=2, eval=False, warm_steps=0)
        summary = _summary(model_dir)
        self.assertEqual((summary["per_replica_batch_size"], summary["global_batch_size"]),
                         (4, 8))
        self.assertIsNone(summary["accuracy"])

    def test_mixed_bfloat16_on_one_device_then_the_policy_is_restored(self):
        model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        self._main(model_dir=model_dir, train_steps=2, batch_size=8, dtype="mixed_bfloat16",
                   eval=False, warm_steps=0)
        self.assertEqual(_summary(model_dir)["dtype"], "mixed_bfloat16")
        self.assertEqual(tf_keras.mixed_precision.global_policy().name, "float32")

    def test_vgg16_from_a_weights_file_trains_only_its_last_layers(self):
        root = self.get_temp_dir()
        records = os.path.join(root, "records")
        # The OCT layout, tiny: make_tfrecords converts every split.
        for split in ("train", "test"):
            fixtures.write_image_folder(os.path.join(root, "oct", "OCT2017", split),
                                       per_class=1, height=40, width=36)
        with flagsaver.flagsaver(data_dir=os.path.join(root, "oct"), output_dir=records,
                                 image_size=32), contextlib.redirect_stdout(io.StringIO()):
            make_tfrecords.main(["make_tfrecords"])
        base = tf_keras.applications.VGG16(include_top=False, weights=None,
                                           input_shape=(32, 32, 3))
        weights = os.path.join(root, "vgg16_notop.h5")
        base.save_weights(weights)
        model_dir = os.path.join(root, "vgg_run")
        self._main(model_dir=model_dir, dataset="tfrecords", data_dir=records, model="vgg16",
                   weights=weights, image_size=32, batch_size=2, num_devices=2, train_steps=2,
                   warm_steps=0)
        summary = _summary(model_dir)
        self.assertEqual(summary["eval_split"], "test")
        checkpoint = tf.train.load_checkpoint(model_dir)
        first = "layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE"
        last_conv = "layer_with_weights-12/kernel/.ATTRIBUTES/VARIABLE_VALUE"
        self.assertAllEqual(checkpoint.get_tensor(first),
                            base.get_layer("block1_conv1").kernel.numpy())
        self.assertNotAllClose(checkpoint.get_tensor(last_conv),
                               base.get_layer("block5_conv3").kernel.numpy())

    def test_epochs_set_the_steps(self):
        steps = job._train_steps  # pylint: disable=protected-access
        self.assertEqual(steps(job.JobConfig(epochs=2), 6000, 128), 94)
        self.assertEqual(steps(job.JobConfig(), 6000, 128), job.DEFAULT_TRAIN_STEPS)

    def test_xla_turns_on_auto_clustering(self):
        config = job._session_config(True, gpus=1)  # pylint: disable=protected-access
        self.assertEqual(config.graph_options.optimizer_options.global_jit_level,
                         tf.compat.v1.OptimizerOptions.ON_1)
        self.assertTrue(config.allow_soft_placement)

    def test_unexpected_arguments_are_a_usage_error(self):
        with self.assertRaisesRegex(app.UsageError, "Unexpected arguments"):
            train.main(["train", "extra"])

    def test_missing_data_dir_is_one_clear_error(self):
        with flagsaver.flagsaver(dataset="fashion_mnist",
                                 data_dir=os.path.join(self.get_temp_dir(), "nothing")):
            with self.assertRaisesRegex(BadDataError, "--data_dir=.*nothing does not exist"):
                train.main(["train"])

    def test_more_devices_than_exist_is_a_usage_error(self):
        with flagsaver.flagsaver(num_devices=64):
            with self.assertRaisesRegex(app.UsageError, "--num_devices=64"):
                train.main(["train"])


if __name__ == "__main__":
    tf.test.main()
