"""KMeansClustering: the original's numbers, model_dir, keys, signatures and argument checks."""

import os

import numpy as np
import tensorflow as tf

from estimator_lib import compat
from estimator_lib.canned.kmeans import KMeansClustering
from estimator_lib.export.receivers import ServingInputReceiver
from tests.estimator_lib.canned import kmeans_sdca_fixtures as fixtures

_RTOL = 1e-4


def _points():
    return np.array([[0.0, 0.0], [0.5, 0.0], [10.0, 10.0], [10.5, 10.0], [0.0, 0.5],
                     [10.0, 10.5]], np.float32)


def _input_fn(points):
    def input_fn():
        return tf.compat.v1.train.limit_epochs(tf.constant(points), num_epochs=1)
    return input_fn


class KMeansTest(tf.test.TestCase):

    def test_docstring_example_runs(self):
        # The class docstring's program (the original's, in Python 3 spelling).
        points = np.random.RandomState(0).uniform(0, 1000, [100, 2])

        def input_fn():
            return tf.compat.v1.train.limit_epochs(
                tf.convert_to_tensor(points, dtype=tf.float32), num_epochs=1)

        compat.install()
        self.addCleanup(compat.uninstall)
        kmeans = tf.compat.v1.estimator.experimental.KMeans(
            num_clusters=5, use_mini_batch=False, model_dir=self.get_temp_dir())
        scores = []
        for _ in range(3):
            kmeans.train(input_fn)
            scores.append(kmeans.score(input_fn))
        centers = kmeans.cluster_centers()
        indices = list(kmeans.predict_cluster_index(input_fn))
        self.assertEqual((5, 2), centers.shape)
        self.assertLessEqual(scores[-1], scores[0])
        self.assertEqual(100, len(indices))
        distances = ((points[:, None, :] - centers[None]) ** 2).sum(-1)
        self.assertAllEqual(np.argmin(distances, axis=1), indices)

    def test_equal_start_gives_the_originals_numbers(self):
        # Full-batch and mini-batch training (mini_batch_steps_per_iteration=1, which is
        # deterministic) give the original's numbers to 1e-4. (With more steps per
        # iteration, clustering_ops' sync step, in both, reads and scatter-updates its
        # ref variables unordered: not deterministic under load.)
        for name in ("kmeans", "kmeans_mini_batch"):
            rec = fixtures.record(name)
            est = fixtures.kmeans(os.path.join(self.get_temp_dir(), name), rec)
            est.train(fixtures.kmeans_input_fn(rec, repeat=True), steps=rec["steps"])
            eval_fn = fixtures.kmeans_input_fn(rec, repeat=False)
            self.assertAllClose(rec["cluster_centers"], est.cluster_centers(), rtol=_RTOL)
            self.assertAllClose(rec["evaluate"], est.evaluate(eval_fn), rtol=_RTOL)
            self.assertAllClose(rec["score"], est.score(eval_fn), rtol=_RTOL)
            # transform() gives distances; the all_distances prediction, squared ones.
            self.assertAllClose(rec["transform"], list(est.transform(eval_fn)), rtol=_RTOL,
                                atol=1e-4)
            predictions = list(est.predict(eval_fn))
            for key, values in rec["predictions"].items():
                self.assertAllClose(values, [p[key] for p in predictions], rtol=_RTOL,
                                    atol=1e-4)
            self.assertEqual(rec["variable_names"], est.get_variable_names())
            # Every variable's checksums (the cluster counts of mini-batch training
            # included), not only their names.
            fixtures.assert_checksums_close(self, rec["checksums"], est.model_dir, _RTOL)

    def test_the_mini_batch_record_tells_the_modes_apart(self):
        # From the mini-batch run's start, full-batch training ends >= 100x the
        # tolerance away from it: a mini-batch run that trained full batch would fail.
        rec = fixtures.record("kmeans_mini_batch")
        full = np.array(rec["full_batch_cluster_centers"])
        mini = np.array(rec["cluster_centers"])
        self.assertGreater(np.abs(full - mini).max() / np.abs(mini).max(), 100 * _RTOL)
        est = fixtures.kmeans(self.get_temp_dir(), dict(
            rec, args=dict(rec["args"], use_mini_batch=False)))
        est.train(fixtures.kmeans_input_fn(rec, repeat=True), steps=rec["steps"])
        self.assertAllClose(full, est.cluster_centers(), rtol=_RTOL)

    def test_resumes_the_originals_model_dir(self):
        rec = fixtures.record("kmeans")
        model_dir = fixtures.unpack_model_dir("kmeans", os.path.join(self.get_temp_dir(), "k"))
        est = fixtures.kmeans(model_dir, rec)
        eval_fn = fixtures.kmeans_input_fn(rec, repeat=False)
        self.assertAllClose(rec["evaluate"], est.evaluate(eval_fn), rtol=_RTOL)
        self.assertAllClose(rec["cluster_centers"], est.cluster_centers(), rtol=_RTOL)
        self.assertAllEqual(rec["predictions"]["cluster_index"],
                            list(est.predict_cluster_index(eval_fn)))
        est.train(fixtures.kmeans_input_fn(rec, repeat=True), steps=2)
        self.assertAllClose(rec["resumed_evaluate"], est.evaluate(eval_fn), rtol=_RTOL)

    def test_cosine_distance_and_dict_features(self):
        points = np.array([[1.0, 0.1], [2.0, 0.1], [0.1, 1.0], [0.1, 2.0], [1.0, 0.2],
                           [0.2, 1.0]], np.float32)
        est = KMeansClustering(
            num_clusters=2, initial_clusters=points[[0, 2]],
            distance_metric=KMeansClustering.COSINE_DISTANCE, use_mini_batch=False,
            model_dir=self.get_temp_dir())

        def input_fn():  # Two features, concatenated in key order: (a, b).
            return tf.data.Dataset.from_tensors(
                {"b": tf.constant(points[:, 1:]), "a": tf.constant(points[:, :1])})

        est.train(input_fn, steps=1)
        distances = list(est.transform(input_fn))
        self.assertEqual((2,), distances[0].shape)
        centers = est.cluster_centers()
        unit = points / np.linalg.norm(points, axis=1, keepdims=True)
        center_unit = centers / np.linalg.norm(centers, axis=1, keepdims=True)
        self.assertAllClose(1.0 - unit @ center_unit.T, distances, atol=1e-4)

    def test_relative_tolerance_stops_training(self):
        est = KMeansClustering(num_clusters=2, initial_clusters=_points()[[0, 2]],
                               use_mini_batch=False, relative_tolerance=1e-3,
                               model_dir=self.get_temp_dir())

        def input_fn():
            return tf.data.Dataset.from_tensors(tf.constant(_points())).repeat()

        est.train(input_fn, steps=50)
        # A step's loss is that of the centers it starts from: step 1 moves them to the
        # means, step 2 measures them, step 3 sees no change and stops.
        self.assertEqual(3, est.get_variable_value("global_step"))

    def test_predict_keys_and_export_signatures(self):
        est = KMeansClustering(num_clusters=2, initial_clusters=_points()[[0, 2]],
                               use_mini_batch=False, model_dir=self.get_temp_dir())
        est.train(_input_fn(_points()))
        self.assertEqual({"all_distances", "cluster_index"},
                         set(next(est.predict(_input_fn(_points())))))
        self.assertEqual({"score", "loss", "global_step"},
                         set(est.evaluate(_input_fn(_points()))))

        def receiver_fn():
            x = tf.compat.v1.placeholder(tf.float32, [None, 2], name="x")
            return ServingInputReceiver(x, {"x": x})

        path = est.export_saved_model(os.path.join(self.get_temp_dir(), "export"),
                                      receiver_fn)
        loaded = tf.saved_model.load(path.decode())
        self.assertEqual({"all_distances", "cluster_index", "serving_default"},
                         set(loaded.signatures))
        out = loaded.signatures["serving_default"](x=tf.constant(_points()[:2]))
        self.assertAllEqual([0, 0], list(out.values())[0])

    def test_bad_arguments_name_what_works(self):
        with self.assertRaisesRegex(ValueError, "Unsupported initialization algorithm 'k'"):
            KMeansClustering(2, initial_clusters="k")
        with self.assertRaisesRegex(ValueError, "Unsupported distance metric 'l1'.*cosine"):
            KMeansClustering(2, distance_metric="l1")


if __name__ == "__main__":
    tf.test.main()
