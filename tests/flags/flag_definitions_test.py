"""flags/definitions.py: every flag once, with help; validators name the flag and what works."""

import os

import tensorflow as tf
from absl import flags as absl_flags
from absl.testing import flagsaver
from absl.testing import parameterized

from estimator_lib.flags import definitions as defs

FLAGS = absl_flags.FLAGS


def _holders():
    return [value for value in vars(defs).values() if isinstance(value, absl_flags.FlagHolder)]


class DefinitionsTest(parameterized.TestCase, tf.test.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        if not FLAGS.is_parsed():
            FLAGS(["flag_definitions_test"])

    def test_every_flag_has_help_and_is_defined_here(self):
        names = [holder.name for holder in _holders()]
        self.assertLen(set(names), len(names))
        for holder in _holders():
            flag = FLAGS[holder.name]
            self.assertGreater(len(flag.help), 20, holder.name)
        for name in ("model_dir", "dataset", "data_dir", "model", "weights", "batch_size",
                     "batch_size_scope", "epochs", "train_steps", "num_devices", "devices",
                     "distribution_strategy", "cross_device_ops", "eval", "export_dir",
                     "dtype", "xla", "seed", "log_steps", "save_summary_steps"):
            self.assertIn(name, names)
        self.assertEqual(FLAGS["num_gpus"].help, "Alias for --num_devices.")

    def test_batch_size_scope_is_explicit(self):
        self.assertEqual(defs.BATCH_SIZE_SCOPE.default, "per_replica")
        self.assertIn("--batch_size_scope", FLAGS["batch_size"].help)

    @parameterized.named_parameters(
        ("oct_without_data_dir", dict(dataset="oct"), "--data_dir"),
        ("vgg16_on_28x28", dict(model="vgg16"), "--dataset=oct"),
        ("imagenet_on_cnn", dict(weights="imagenet"), "--model=vgg16"),
        ("missing_weights_file", dict(weights="/no/such/file.h5"), "no such file"),
        ("steps_and_epochs", dict(train_steps=3, epochs=1), "not both"),
        ("no_strategy_on_two", dict(num_devices=2, distribution_strategy="none"),
         "one device"),
        ("ops_without_mirrored", dict(cross_device_ops="nccl", distribution_strategy="none"),
         "MirroredStrategy"),
        ("devices_not_numbers", dict(devices=["1", "x"]), "--devices=1,x"),
        ("devices_twice", dict(devices=["2", "2"]), "twice"),
        ("unknown_split", dict(splits=["train", "dev"]), "--splits=train,dev"),
        ("zero_batch", dict(batch_size=0), "batch_size"),
    )
    def test_bad_values_are_refused_with_the_flag_named(self, values, pattern):
        with flagsaver.flagsaver():
            with self.assertRaisesRegex(absl_flags.IllegalFlagValueError, pattern):
                for name, value in values.items():
                    setattr(FLAGS, name, value)

    def test_good_combinations_pass(self):
        weights = os.path.join(self.get_temp_dir(), "w.h5")
        open(weights, "w").close()
        with flagsaver.flagsaver(dataset="oct", data_dir="/data", model="vgg16",
                                 weights=weights, num_devices=2, epochs=2,
                                 cross_device_ops="hierarchical_copy", devices=["1", "2", "8"],
                                 dtype="mixed_float16"):  # Mixed precision on 2 replicas too.
            self.assertEqual(defs.MODEL.value, "vgg16")

    def test_flagfile_sets_flags(self):
        path = os.path.join(self.get_temp_dir(), "run.flags")
        with open(path, "w") as f:
            f.write("--dataset=fashion_mnist\n--batch_size=32\n--batch_size_scope=global\n")
        with flagsaver.flagsaver():
            FLAGS(["prog", f"--flagfile={path}"])
            self.assertEqual((defs.DATASET.value, defs.BATCH_SIZE.value,
                              defs.BATCH_SIZE_SCOPE.value), ("fashion_mnist", 32, "global"))


if __name__ == "__main__":
    tf.test.main()
