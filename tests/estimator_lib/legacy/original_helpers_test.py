"""The original's module-level helpers, with the values TF 2.15's own returned."""

import pathlib

import numpy as np
import tensorflow as tf

from estimator_lib.legacy import original_helpers as helpers
from estimator_lib.core.run_config import RunConfig


class MaybeOverwriteConfigTest(tf.test.TestCase):

    def test_no_config_gets_defaults_and_the_model_dir(self):
        model_dir = pathlib.Path(self.get_temp_dir()) / "m"
        with self.assertLogs("tensorflow", "INFO") as logs:
            config = helpers.maybe_overwrite_model_dir_and_session_config(None, model_dir)
        self.assertIn("Using default config.", "\n".join(logs.output))
        self.assertIsInstance(config, RunConfig)
        self.assertEqual(str(model_dir), config.model_dir)
        # The original's default session config: soft placement, one Grappler pass.
        self.assertTrue(config.session_config.allow_soft_placement)
        self.assertEqual(
            1, config.session_config.graph_options.rewrite_options.meta_optimizer_iterations)

    def test_a_session_config_given_is_kept(self):
        session_config = tf.compat.v1.ConfigProto(log_device_placement=True)
        config = helpers.maybe_overwrite_model_dir_and_session_config(
            RunConfig(session_config=session_config, model_dir="/a"), None)
        self.assertIs(session_config, config.session_config)
        self.assertEqual("/a", config.model_dir)

    def test_no_model_dir_anywhere_makes_a_temporary_one(self):
        with self.assertLogs("tensorflow", "WARNING") as logs:
            config = helpers.maybe_overwrite_model_dir_and_session_config(RunConfig(), "")
        self.assertTrue(tf.io.gfile.isdir(config.model_dir))
        self.assertIn("Using temporary folder as model directory", "\n".join(logs.output))

    def test_conflicting_model_dirs_are_refused(self):
        # '' conflicts too, as in the original (only None means "not given").
        for model_dir in ("/b", ""):
            with self.assertRaisesRegex(
                    ValueError, "`model_dir` are set both in constructor and `RunConfig`, but "
                                f"with different values. In constructor: '{model_dir}', in "
                                "`RunConfig`: '/a' "):
                helpers.maybe_overwrite_model_dir_and_session_config(
                    RunConfig(model_dir="/a"), model_dir)

    def test_not_a_run_config_is_refused(self):
        with self.assertRaisesRegex(ValueError,
                                    "config must be an instance of `RunConfig`, but provided"):
            helpers.maybe_overwrite_model_dir_and_session_config(object(), "/b")


class SmallHelpersTest(tf.test.TestCase):

    def test_path_to_str(self):
        self.assertEqual("a/b", helpers.path_to_str(pathlib.Path("a/b")))
        self.assertEqual(b"abc", helpers.path_to_str(b"abc"))
        self.assertIsNone(helpers.path_to_str(None))

    def test_standardize_sample_weights(self):
        self.assertEqual([None, None], helpers.standardize_sample_weights(None, ["a", "b"]))
        self.assertEqual([1], helpers.standardize_sample_weights({"a": 1}, ["a"]))
        self.assertEqual([None, 2], helpers.standardize_sample_weights({"b": 2}, ["a", "b"]))
        self.assertEqual([3], helpers.standardize_sample_weights(3, ["a"]))
        with self.assertRaisesRegex(ValueError, "was a list of 1 elements, but the model has "
                                                 "2 outputs"):
            helpers.standardize_sample_weights([1], ["a", "b"])
        with self.assertRaisesRegex(ValueError, r"Unknown entries .*\['c'\]"):
            helpers.standardize_sample_weights({"c": 1}, ["a", "b"])
        with self.assertRaisesRegex(TypeError, "type not understood: 3"):
            helpers.standardize_sample_weights(3, ["a", "b"])

    def test_parse_iterator_result(self):
        self.assertEqual(({"a": 1}, 2), helpers.parse_iterator_result(({"a": 1}, 2)))
        self.assertEqual(({"a": 1}, None), helpers.parse_iterator_result({"a": 1}))
        with self.assertRaisesRegex(ValueError, "as a len 2 tuple"):
            helpers.parse_iterator_result((1, 2, 3))

    def test_constants(self):
        self.assertEqual("loss", helpers.LOSS_METRIC_KEY)
        self.assertEqual("average_loss", helpers.AVERAGE_LOSS_METRIC_KEY)
        self.assertEqual(10, helpers.MAX_DIRECTORY_CREATION_ATTEMPTS)
        self.assertEqual(["a", "b"], list(helpers.fn_args(lambda a, b=1: None)))
        self.assertIsInstance(helpers.HAS_PANDAS, bool)
        self.assertIsNone(helpers.track_usage("tool", ["tag"]))
        self.assertIsNone(helpers.track_numerical_issues(None))


class GraphHelpersTest(tf.test.TestCase):

    def test_parse_input_fn_result_initialises_a_dataset(self):
        with tf.Graph().as_default():
            dataset = tf.data.Dataset.from_tensor_slices(
                ({"x": np.arange(3.0, dtype=np.float32)}, np.arange(3)))
            features, labels, hooks = helpers.parse_input_fn_result(dataset)
            with tf.compat.v1.train.MonitoredSession(hooks=hooks) as session:
                self.assertEqual((0.0, 0), session.run((features["x"], labels)))
                self.assertEqual((1.0, 1), session.run((features["x"], labels)))

    def test_distributed_iterator_initializer_hook_runs_initialize(self):
        with tf.Graph().as_default():
            counter = tf.compat.v1.get_variable("n", initializer=0, use_resource=True)

            class Iterator:
                def initialize(self):
                    return counter.assign_add(1)

            hook = helpers.DistributedIteratorInitializerHook(Iterator())
            with tf.compat.v1.train.MonitoredSession(hooks=[hook]) as session:
                self.assertEqual(1, session.run(counter))

    def test_ready_for_local_init_op(self):
        with tf.Graph().as_default():
            tf.compat.v1.get_variable("v", initializer=1.0)
            # An op (the original tested the field's truth, which a Tensor refuses).
            given = tf.no_op()
            self.assertIs(given, helpers.create_per_replica_ready_for_local_init_op(
                tf.compat.v1.train.Scaffold(ready_for_local_init_op=given)))
            op = helpers.create_per_replica_ready_for_local_init_op(
                tf.compat.v1.train.Scaffold())
            self.assertEqual([op], tf.compat.v1.get_collection(
                tf.compat.v1.GraphKeys.READY_FOR_LOCAL_INIT_OP))
            with tf.compat.v1.Session() as session:
                self.assertEqual([b"v"], list(session.run(op)))


if __name__ == "__main__":
    tf.test.main()
