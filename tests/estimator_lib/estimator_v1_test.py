"""EstimatorV1: every v1 class keeps export_savedmodel; the v2 classes hide it."""

import os
import tempfile

import numpy as np
import tensorflow as tf

import estimator_lib as el
from estimator_lib.engine import estimator_v1
from estimator_lib.canned import linear
from estimator_lib.tpu import tpu_config
from estimator_lib.tpu import tpu_estimator
from tests.estimator_lib import testing


def _receiver_fn():
    features = {"x": tf.compat.v1.placeholder(tf.float32, [None, 4])}
    return el.export.ServingInputReceiver(features, features)


class ExportSavedmodelTest(tf.test.TestCase):

    def _model_dir(self):
        return tempfile.mkdtemp(dir=self.get_temp_dir())

    def _assert_exported(self, export_dir, signature):
        with tf.compat.v1.Session(graph=tf.Graph()) as session:
            meta_graph = tf.compat.v1.saved_model.load(session, ["serve"], export_dir.decode())
            inputs = meta_graph.signature_def[signature].inputs
            outputs = meta_graph.signature_def[signature].outputs
            result = session.run({k: v.name for k, v in outputs.items()},
                                 {inputs["x"].name: np.ones((2, 4), np.float32)})
        self.assertEqual(result["probabilities"].shape, (2, 2))

    def test_a_v1_canned_estimator_exports_after_training(self):
        # The legacy script that crashed after training finished.
        column = tf.feature_column.numeric_column("x", shape=(4,))
        est = linear.LinearClassifier([column], model_dir=self._model_dir())
        est.train(testing.train_input_fn(), steps=2)
        with self.assertLogs("tensorflow", level="WARNING") as logs:
            export_dir = est.export_savedmodel(os.path.join(self.get_temp_dir(), "e"),
                                               _receiver_fn)
        self.assertIn("export_savedmodel", "".join(logs.output))
        self._assert_exported(export_dir, "predict")

    def test_tpu_estimator_exports_after_training(self):
        def model_fn(features, labels, mode, params):
            del params
            spec = testing.linear_model_fn(features, labels, mode)
            return spec._replace(eval_metric_ops={})

        def input_fn(params):
            return testing.train_input_fn(batch_size=params["batch_size"])()

        config = tpu_config.RunConfig(model_dir=self._model_dir())
        est = tpu_estimator.TPUEstimator(model_fn, config=config, use_tpu=False,
                                         train_batch_size=8)
        est.train(input_fn, steps=2)
        export_dir = est.export_savedmodel(os.path.join(self.get_temp_dir(), "t"),
                                           _receiver_fn)
        self._assert_exported(export_dir, "serving_default")

    def test_v2_classes_hide_it_as_the_original(self):
        column = tf.feature_column.numeric_column("x", shape=(4,))
        est = linear.LinearClassifierV2([column], model_dir=self._model_dir())
        self.assertTrue(hasattr(type(est), "export_savedmodel"))  # A hidden property.
        with self.assertRaisesRegex(AttributeError, "Please use `export_saved_model`"):
            est.export_savedmodel  # pylint: disable=pointless-statement
        self.assertIsInstance(est, estimator_v1.EstimatorV1)  # As EstimatorV2's base was v1.


class OverrideCheckTest(tf.test.TestCase):

    def test_a_v1_subclass_may_not_override_export_savedmodel(self):
        class Sub(estimator_v1.EstimatorV1):
            def export_savedmodel(self, *args, **kwargs):  # pylint: disable=arguments-differ
                return None

        with self.assertRaisesRegex(ValueError, "cannot override members of Estimator.*"
                                    "export_savedmodel"):
            Sub(testing.linear_model_fn, model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()))

    def test_a_v2_subclass_may_not_override_train_but_may_latest_checkpoint(self):
        class Sub(el.Estimator):
            def train(self, *args, **kwargs):  # pylint: disable=arguments-differ
                return self

        class Allowed(el.Estimator):
            def latest_checkpoint(self):
                return None

        model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        with self.assertRaisesRegex(ValueError, "does override train"):
            Sub(testing.linear_model_fn, model_dir=model_dir)
        Allowed(testing.linear_model_fn, model_dir=model_dir)


if __name__ == "__main__":
    tf.test.main()
