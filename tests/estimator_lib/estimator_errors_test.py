"""Bad input to an Estimator: each a clear error, and no checkpoint left behind."""

import os
import tempfile

import tensorflow as tf

import estimator_lib as el
from tests.estimator_lib import testing


class EstimatorErrorsTest(tf.test.TestCase):

    def setUp(self):
        super().setUp()
        self.model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())

    def _assert_nothing_written(self):
        self.assertEqual([n for n in tf.io.gfile.listdir(self.model_dir)
                          if n.startswith("model.ckpt") or n == "checkpoint"], [])

    def test_model_fn_is_required(self):
        with self.assertRaisesRegex(ValueError, "model_fn must be provided"):
            el.Estimator(None)

    def test_model_fn_returning_no_spec(self):
        estimator = el.Estimator(lambda features, labels, mode: {"loss": 1},
                                 model_dir=self.model_dir)
        with self.assertRaisesRegex(ValueError, "model_fn should return an EstimatorSpec. "
                                                "Received: dict"):
            estimator.train(testing.train_input_fn(), steps=1)
        self._assert_nothing_written()

    def test_missing_loss_in_train(self):
        def model_fn(features, labels, mode):
            del labels
            return el.EstimatorSpec(mode, train_op=tf.no_op(),
                                    predictions=features["x"])

        with self.assertRaisesRegex(ValueError, "Missing loss"):
            el.Estimator(model_fn, model_dir=self.model_dir).train(testing.train_input_fn(),
                                                                   steps=1)
        self._assert_nothing_written()

    def test_tensor_from_another_graph(self):
        with tf.Graph().as_default():
            foreign = tf.constant(0.5)

        def model_fn(features, labels, mode):
            del features, labels
            step = tf.compat.v1.train.get_global_step()
            return el.EstimatorSpec(mode, loss=foreign, train_op=step.assign_add(1))

        with self.assertRaisesRegex(ValueError, "`loss` must be from the default graph"):
            el.Estimator(model_fn, model_dir=self.model_dir).train(testing.train_input_fn(),
                                                                   steps=1)

    def test_input_fn_returning_three_items(self):
        x, y = testing.separable_data(8)
        estimator = el.Estimator(testing.linear_model_fn, model_dir=self.model_dir)
        with self.assertRaisesRegex(ValueError, "len 2 tuple.*tuple of length 3"):
            estimator.train(lambda: (tf.constant(x), tf.constant(y), tf.constant(y)), steps=1)

    def test_labels_without_labels_argument(self):
        def model_fn(features, mode):
            del features, mode

        with self.assertRaisesRegex(ValueError, "model_fn does not take labels, but input_fn "
                                                "returns labels"):
            el.Estimator(model_fn, model_dir=self.model_dir).train(testing.train_input_fn(),
                                                                   steps=1)

    def test_incompatible_checkpoint_in_model_dir(self):
        el.Estimator(testing.linear_model_fn, model_dir=self.model_dir).train(
            testing.train_input_fn(), steps=2)
        before = sorted(tf.io.gfile.listdir(self.model_dir))

        def wider_model_fn(features, labels, mode):
            features = {"x": tf.concat([features["x"], features["x"]], axis=1)}
            return testing.linear_model_fn(features, labels, mode)

        def renamed_model_fn(features, labels, mode):
            with tf.compat.v1.variable_scope("tower"):
                return testing.linear_model_fn(features, labels, mode)

        with self.assertRaisesRegex(ValueError, r"does not match.*shapes that differ: "
                                                r"\['dense/kernel: graph \[8, 2\] vs checkpoint"):
            el.Estimator(wider_model_fn, model_dir=self.model_dir).train(
                testing.train_input_fn(), steps=1)
        with self.assertRaisesRegex(ValueError, r"variables not in the checkpoint: .*tower/dense"):
            el.Estimator(renamed_model_fn, model_dir=self.model_dir).evaluate(
                testing.eval_input_fn())
        self.assertEqual(sorted(tf.io.gfile.listdir(self.model_dir)), before)

    def test_a_metagraph_added_without_check_variables_reads_no_checkpoint(self):
        # The original restored (and failed on a missing variable) only where
        # check_variables or save_variables held; a subclass may pass False.
        def model_fn(features, labels, mode):
            if mode == el.ModeKeys.PREDICT:
                tf.compat.v1.get_variable("serving_only", [1])
            return testing.linear_model_fn(features, labels, mode)

        class Unchecked(el.Estimator):
            def _add_meta_graph_for_mode(self, builder, mode, receiver_fn, checkpoint_path,
                                         save_variables, export_tags=None,
                                         check_variables=True):
                super()._add_meta_graph_for_mode(
                    builder, mode, receiver_fn, checkpoint_path, save_variables,
                    export_tags=export_tags, check_variables=save_variables)

        el.Estimator(model_fn, model_dir=self.model_dir).train(testing.train_input_fn(),
                                                               steps=1)
        receivers = {
            el.ModeKeys.TRAIN: el.experimental.build_raw_supervised_input_receiver_fn(
                {"x": tf.zeros([1, 4])}, tf.zeros([1], tf.int32)),
            el.ModeKeys.PREDICT: el.export.build_raw_serving_input_receiver_fn(
                {"x": tf.zeros([1, 4])})}
        base = os.path.join(self.get_temp_dir(), "export")
        with self.assertRaisesRegex(ValueError, r"variables not in the checkpoint: "
                                                r"\['serving_only'\]"):
            el.Estimator(model_fn, model_dir=self.model_dir
                         ).experimental_export_all_saved_models(base, receivers)
        exported = Unchecked(model_fn, model_dir=self.model_dir
                             ).experimental_export_all_saved_models(base, receivers)
        self.assertTrue(tf.io.gfile.exists(os.path.join(exported, b"saved_model.pb")))

    def test_conflicting_model_dirs(self):
        with self.assertRaisesRegex(ValueError, "`model_dir` are set both in constructor and "
                                                "`RunConfig`"):
            el.Estimator(testing.linear_model_fn, model_dir="/tmp/a",
                         config=el.RunConfig(model_dir="/tmp/b"))

    def test_temporary_model_dir_is_announced(self):
        with self.assertLogs("tensorflow", level="WARNING") as captured:
            estimator = el.Estimator(testing.linear_model_fn)
        self.assertTrue(os.path.isdir(estimator.model_dir))
        self.assertIn(f"Using temporary folder as model directory: {estimator.model_dir}",
                      [r.getMessage() for r in captured.records])

    def test_config_must_be_a_run_config(self):
        with self.assertRaisesRegex(ValueError, "config must be an instance of `RunConfig`, "
                                                "but provided dict"):
            el.Estimator(testing.linear_model_fn, config={"model_dir": "/tmp/a"})

    def test_params_are_passed_and_copied(self):
        seen = []

        def model_fn(features, labels, mode, params):
            seen.append(params)
            params["mutated"] = True
            return testing.linear_model_fn(features, labels, mode)

        params = {"units": 2}
        estimator = el.Estimator(model_fn, model_dir=self.model_dir, params=params)
        estimator.train(testing.train_input_fn(), steps=1)
        self.assertEqual(seen[0]["units"], 2)
        self.assertEqual(params, {"units": 2})
        self.assertEqual(estimator.params, {"units": 2})

    def test_subclasses_may_not_override_members(self):
        class Overriding(el.Estimator):
            def train(self, *args, **kwargs):  # pylint: disable=useless-parent-delegation
                return super().train(*args, **kwargs)

        with self.assertRaisesRegex(ValueError, "cannot override members of Estimator.*train"):
            Overriding(testing.linear_model_fn, model_dir=self.model_dir)

    def test_add_metrics(self):
        estimator = el.Estimator(testing.linear_model_fn, model_dir=self.model_dir)
        estimator.train(testing.train_input_fn(), steps=2)

        def metric_fn(labels, predictions):
            return {"mean_class": tf.compat.v1.metrics.mean(predictions["classes"]),
                    "label_mean": tf.compat.v1.metrics.mean(labels)}

        extended = el.add_metrics(estimator, metric_fn)
        results = extended.evaluate(testing.eval_input_fn())
        self.assertEqual(sorted(results), ["accuracy", "global_step", "label_mean", "loss",
                                           "mean_class"])
        with self.assertRaisesRegex(ValueError, r"not expected args: \['mode'\]"):
            el.add_metrics(estimator, lambda predictions, mode: {})

    def test_no_checkpoint_for_variable_queries(self):
        estimator = el.Estimator(testing.linear_model_fn, model_dir=self.model_dir)
        self.assertIsNone(estimator.latest_checkpoint())
        with self.assertRaisesRegex(ValueError, "Could not find trained model in model_dir"):
            estimator.get_variable_names()


if __name__ == "__main__":
    tf.test.main()
