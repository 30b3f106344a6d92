"""LinearSDCA in LinearClassifier / LinearRegressor: the original's numbers, names and checks."""

import os

from absl.testing import parameterized
import tensorflow as tf

from estimator_lib import canned
from estimator_lib import compat
from estimator_lib.canned.linear_sdca import LinearSDCA
from tests.estimator_lib.canned import kmeans_sdca_fixtures as fixtures

_RTOL = 1e-4


def _assert_dicts_close(test, expected, actual):
    test.assertEqual(sorted(expected), sorted(actual))
    for key, value in expected.items():
        test.assertAllClose(value, actual[key], rtol=_RTOL, atol=1e-6, msg=key)


class LinearSDCATest(tf.test.TestCase, parameterized.TestCase):

    @parameterized.parameters(*fixtures.SDCA_NAMES)
    def test_equal_start_gives_the_originals_numbers(self, name):
        rec = fixtures.record(name)
        est = fixtures.sdca(name, os.path.join(self.get_temp_dir(), name))
        est.train(fixtures.sdca_input_fn(name, train=True), steps=rec["steps"])
        eval_fn = fixtures.sdca_input_fn(name, train=False)
        _assert_dicts_close(self, rec["evaluate"], est.evaluate(eval_fn))
        predictions = list(est.predict(eval_fn))
        for key, values in rec["predictions"].items():
            if key in ("classes", "all_classes"):
                self.assertAllEqual(values, [[c.decode() for c in p[key]] for p in predictions])
            else:
                self.assertAllClose(values, [p[key] for p in predictions], rtol=_RTOL,
                                    atol=1e-6, msg=key)
        # Same variables, slots and example-state table; same values.
        self.assertEqual(rec["variable_names"], est.get_variable_names())
        fixtures.assert_checksums_close(self, rec["checksums"], est.model_dir, _RTOL)

    @parameterized.parameters(*fixtures.SDCA_NAMES)
    def test_resumes_the_originals_model_dir(self, name):
        rec = fixtures.record(name)
        model_dir = fixtures.unpack_model_dir(name, os.path.join(self.get_temp_dir(), name))
        est = fixtures.sdca(name, model_dir)
        eval_fn = fixtures.sdca_input_fn(name, train=False)
        _assert_dicts_close(self, rec["evaluate"], est.evaluate(eval_fn))
        first = next(est.predict(eval_fn))
        self.assertAllClose(rec["predictions"]["logits"][0] if "logits" in rec["predictions"]
                            else rec["predictions"]["predictions"][0],
                            first.get("logits", first.get("predictions")), rtol=_RTOL)
        # Training on restores the slots and the example states: the original's
        # evaluate() two steps later.
        est.train(fixtures.sdca_input_fn(name, train=True), steps=2)
        _assert_dicts_close(self, rec["resumed_evaluate"], est.evaluate(eval_fn))

    def test_docstring_example_runs(self):
        compat.install()
        self.addCleanup(compat.uninstall)
        real_feature_column = tf.feature_column.numeric_column("x")
        sparse_feature_column = tf.feature_column.categorical_column_with_hash_bucket(
            "country", 5)

        def input_fn_train():
            return {"example_id": tf.constant(["1", "2", "3"]),
                    "x": tf.constant([[0.2], [0.9], [0.4]]),
                    "country": tf.constant([["IT"], ["US"], ["GB"]]),
                    "w": tf.constant([[1.0], [1.0], [2.0]])}, tf.constant([[1], [0], [1]])

        linear_sdca = tf.estimator.experimental.LinearSDCA(
            example_id_column="example_id", num_loss_partitions=1, num_table_shards=1,
            symmetric_l2_regularization=2.0)
        classifier = tf.estimator.LinearClassifier(
            feature_columns=[real_feature_column, sparse_feature_column],
            weight_column="w", optimizer=linear_sdca, model_dir=self.get_temp_dir())
        classifier.train(input_fn_train, steps=50)
        metrics = classifier.evaluate(input_fn=input_fn_train, steps=1)
        self.assertEqual(50, metrics["global_step"])
        self.assertLess(metrics["loss"], 0.69)

    def test_partitioned_v1_regressor_trains(self):
        x = tf.feature_column.numeric_column("x")
        cat = tf.feature_column.categorical_column_with_hash_bucket("cat", 6)

        def input_fn():
            return {"example_id": tf.constant(["a", "b", "c", "d"]),
                    "x": tf.constant([[1.0], [2.0], [3.0], [4.0]]),
                    "cat": tf.constant([["p"], ["q"], ["p"], ["r"]])}, \
                tf.constant([[1.0], [2.0], [3.0], [4.0]])

        est = canned.LinearRegressor(
            [x, cat], optimizer=LinearSDCA("example_id", symmetric_l2_regularization=0.1),
            partitioner=tf.compat.v1.fixed_size_partitioner(num_shards=2, axis=0),
            model_dir=self.get_temp_dir())
        est.train(input_fn, steps=20)
        self.assertLess(est.evaluate(input_fn, steps=1)["average_loss"], 0.05)
        self.assertIn("linear/linear/linear_model/cat/weights/part_1_unshrunk",
                      est.get_variable_names())

    def test_bad_arguments_name_what_works(self):
        columns = [tf.feature_column.numeric_column("x")]
        sdca = LinearSDCA("example_id")
        with self.assertRaisesRegex(ValueError, "multi-class"):
            canned.LinearClassifierV2(columns, n_classes=3, optimizer=sdca)
        with self.assertRaisesRegex(ValueError, 'sparse_combiner must be "sum"'):
            canned.LinearClassifierV2(columns, optimizer=sdca, sparse_combiner="mean")
        with self.assertRaisesRegex(ValueError, "one-dimensional label"):
            canned.LinearRegressorV2(columns, label_dimension=2, optimizer=sdca)
        with tf.Graph().as_default():  # v1 shared embeddings are graph-only.
            v1_only = tf.compat.v1.feature_column.shared_embedding_columns(
                [tf.compat.v1.feature_column.categorical_column_with_identity("c", 3)], 2)
        with self.assertRaisesRegex(ValueError, "V2 feature columns required"):
            canned.LinearRegressor(v1_only, optimizer=sdca)


if __name__ == "__main__":
    tf.test.main()
