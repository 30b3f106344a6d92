"""checkpoint_converter: the original tool's output, and the v2 canned estimators read it.

tests/data/tf215_checkpoint_converter.json is what tensorflow-estimator 2.15's tool
wrote for the v1 canned fixtures (make_tf215_converted_checkpoints.py); ours must
write the same variables with the same values. The v2 classes then restore them.
"""

import json
import os

import numpy as np
import pytest
import tensorflow as tf

from estimator_lib.legacy import checkpoint_converter
from tests.estimator_lib.canned import fixtures

pytestmark = pytest.mark.timeout(300)

with open(os.path.join(fixtures.DATA, "tf215_checkpoint_converter.json")) as _f:
    _RECORDED = json.load(_f)["conversions"]


def _convert(test, name):
    record = _RECORDED[name]
    source = os.path.join(fixtures.DATA, record["source"])
    work = test.get_temp_dir()
    graph = os.path.join(work, f"{name}.pbtxt")
    with open(graph, "w"):
        pass  # An empty text GraphDef, as the generator used.
    target_dir = os.path.join(work, name)
    os.makedirs(target_dir, exist_ok=True)
    target = os.path.join(target_dir, os.path.basename(source))
    checkpoint_converter.convert_checkpoint(record["estimator_type"], source, graph, target)
    return target_dir, target


class ConvertTest(tf.test.TestCase):

    def _assert_as_recorded(self, name, target_dir, target):
        record = _RECORDED[name]
        self.assertEqual(record["target_files"], sorted(os.listdir(target_dir)))
        reader = tf.train.load_checkpoint(target)
        shapes = reader.get_variable_to_shape_map()
        self.assertEqual(sorted(record["variables"]), sorted(shapes))
        for var_name, expected in record["variables"].items():
            value = reader.get_tensor(var_name)
            self.assertEqual(expected["dtype"], str(value.dtype), msg=var_name)
            self.assertAllEqual(np.array(expected["value"], dtype=value.dtype), value,
                                msg=var_name)

    def test_same_output_as_the_original(self):
        for name in _RECORDED:
            with self.subTest(name):
                self._assert_as_recorded(name, *_convert(self, name))

    def test_command_line(self):
        name = "linear_classifier_v1"
        record = _RECORDED[name]
        source = os.path.join(fixtures.DATA, record["source"])
        graph = os.path.join(self.get_temp_dir(), "graph.pbtxt")
        with open(graph, "w"):
            pass
        target_dir = os.path.join(self.get_temp_dir(), "cli")
        os.makedirs(target_dir)
        target = os.path.join(target_dir, "model.ckpt-3")
        with self.assertRaises(SystemExit) as exit_:  # absl's app.run exits.
            checkpoint_converter.run(["checkpoint_converter", "linear", source, graph, target])
        self.assertIn(exit_.exception.code, (None, 0))  # Success.
        self._assert_as_recorded(name, target_dir, target)

    def test_bad_estimator_type_is_refused(self):
        with self.assertRaises(SystemExit):  # argparse's usage error.
            checkpoint_converter.run(["checkpoint_converter", "rnn", "a", "b", "c"])

    def test_combined_with_two_sgd_optimizers_is_refused(self):
        with tf.Graph().as_default():
            tf.compat.v1.train.get_or_create_global_step()
            tf.compat.v1.get_variable("dnn/logits/bias", initializer=[0.0])
            with tf.compat.v1.Session() as session:
                session.run(tf.compat.v1.global_variables_initializer())
                source = tf.compat.v1.train.Saver().save(
                    session, os.path.join(self.get_temp_dir(), "sgd", "model.ckpt"))
        with self.assertRaisesRegex(ValueError, "Two `SGD` optimizers"):
            checkpoint_converter.convert_checkpoint("combined", source, "unused", "unused")


class V2RestoreTest(tf.test.TestCase):

    def test_v2_classes_continue_from_a_converted_checkpoint(self):
        for v1_name, v2_name in (("dnn_classifier_v1", "dnn_classifier_v2"),
                                 ("linear_classifier_v1", "linear_classifier_v2")):
            with self.subTest(v1_name):
                target_dir, target = _convert(self, v1_name)
                estimator = fixtures.build(v2_name, target_dir, copy_fixture=False)
                reader = tf.train.load_checkpoint(target)
                model_variables = [n for n in reader.get_variable_to_shape_map()
                                   if not n.startswith("training/")]
                for var_name in model_variables:
                    self.assertAllEqual(reader.get_tensor(var_name),
                                        estimator.get_variable_value(var_name))
                # Training restores every variable it has (slots, hyperparameters) from it.
                estimator.train(fixtures.input_fn(False, repeat=True), steps=1)
                self.assertEqual(4, estimator.get_variable_value("global_step"))


if __name__ == "__main__":
    tf.test.main()
