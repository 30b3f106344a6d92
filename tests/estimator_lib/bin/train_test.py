"""The train binary, driven through flagsaver on tiny settings."""

import os
import tempfile

import pytest
import tensorflow as tf
from absl import flags as absl_flags
from absl.testing import flagsaver

from estimator_lib.bin import train

pytestmark = pytest.mark.timeout(300)


class TrainBinaryTest(tf.test.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        if not absl_flags.FLAGS.is_parsed():
            absl_flags.FLAGS(["train_test"])

    def test_trains_evaluates_and_exports_on_two_devices(self):
        model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        export_dir = os.path.join(model_dir, "export")
        with flagsaver.flagsaver(model_dir=model_dir, train_steps=4, batch_size=8,
                                 num_devices=2, eval_steps=2, export_dir=export_dir,
                                 log_steps=2):
            train.main(["train"])
        self.assertEqual(tf.train.load_variable(
            model_dir, "estimator_global_step/.ATTRIBUTES/VARIABLE_VALUE"), 4)
        self.assertLen(os.listdir(export_dir), 1)
        self.assertTrue(os.path.isdir(os.path.join(model_dir, "eval")))

    def test_unexpected_arguments_are_a_usage_error(self):
        with self.assertRaisesRegex(Exception, "Unexpected arguments"):
            train.main(["train", "extra"])

    def test_missing_data_dir_is_one_clear_usage_error(self):
        with flagsaver.flagsaver(dataset="fashion_mnist",
                                 data_dir=os.path.join(self.get_temp_dir(), "nothing")):
            with self.assertRaisesRegex(Exception, "fashion"):
                train.main(["train"])


if __name__ == "__main__":
    tf.test.main()
