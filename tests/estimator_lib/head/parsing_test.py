"""classifier_parse_example_spec and regressor_parse_example_spec."""

import tensorflow as tf

from estimator_lib.head import classifier_parse_example_spec
from estimator_lib.head import regressor_parse_example_spec


class ParsingTest(tf.test.TestCase):

    def test_classifier_spec_adds_label_and_weight(self):
        spec = classifier_parse_example_spec(
            [tf.feature_column.numeric_column("x", shape=(2,))], label_key="y",
            weight_column="w")
        self.assertEqual({
            "x": tf.io.FixedLenFeature((2,), tf.float32),
            "y": tf.io.FixedLenFeature((1,), tf.int64),
            "w": tf.io.FixedLenFeature((1,), tf.float32),
        }, spec)

    def test_regressor_spec_has_label_dimension_and_v1_columns(self):
        spec = regressor_parse_example_spec(
            [tf.compat.v1.feature_column.numeric_column("x")], label_key="y",
            label_dimension=3, label_default=(0., 0., 0.))
        self.assertEqual(tf.io.FixedLenFeature((3,), tf.float32, (0., 0., 0.)), spec["y"])

    def test_label_or_weight_used_as_feature_is_refused(self):
        column = tf.feature_column.numeric_column("x")
        with self.assertRaisesRegex(ValueError, "label should not be used as feature"):
            classifier_parse_example_spec([column], label_key="x")
        with self.assertRaisesRegex(ValueError, "weight_column should not be used as feature"):
            classifier_parse_example_spec([column], label_key="y", weight_column="x")
        with self.assertRaisesRegex(ValueError, "weight_column should be an instance"):
            regressor_parse_example_spec([column], label_key="y", weight_column=3)


if __name__ == "__main__":
    tf.test.main()
