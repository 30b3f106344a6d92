"""TPUConfig, InputPipelineConfig and the TPU RunConfig: fields, defaults, checks."""

import json
import os
from unittest import mock

import tensorflow as tf
from absl.testing import parameterized

import estimator_lib
from estimator_lib import tpu
from estimator_lib.tpu import util


def _tf_config(value):
    return mock.patch.dict(os.environ, {"TF_CONFIG": json.dumps(value)})


class TPUConfigTest(tf.test.TestCase, parameterized.TestCase):

    def test_defaults_are_the_originals(self):
        config = tpu.TPUConfig()
        self.assertEqual(2, config.iterations_per_loop)
        self.assertIsNone(config.num_shards)
        self.assertIsNone(config.num_cores_per_replica)
        self.assertEqual(tpu.InputPipelineConfig.PER_HOST_V1,
                         config.per_host_input_for_training)
        self.assertIsNone(config.tpu_job_name)
        self.assertEqual(tpu.InputPipelineConfig.PER_HOST_V1,
                         config.eval_training_input_configuration)
        self.assertEqual(1, config.experimental_host_call_every_n_steps)
        self.assertFalse(config.experimental_allow_per_host_v2_parallel_get_next)
        self.assertIsNone(config.experimental_feed_hook)
        self.assertEqual((1, 2, 3, 4, 5), (
            tpu.InputPipelineConfig.PER_SHARD_V1, tpu.InputPipelineConfig.PER_HOST_V1,
            tpu.InputPipelineConfig.PER_HOST_V2, tpu.InputPipelineConfig.BROADCAST,
            tpu.InputPipelineConfig.SLICED))

    def test_legacy_booleans_map_to_pipelines(self):
        self.assertEqual(tpu.InputPipelineConfig.PER_SHARD_V1,
                         tpu.TPUConfig(per_host_input_for_training=False)
                         .per_host_input_for_training)
        self.assertEqual(tpu.InputPipelineConfig.PER_HOST_V2,
                         tpu.TPUConfig(per_host_input_for_training=3)
                         .per_host_input_for_training)

    @parameterized.parameters(0, -1, "-1h", "-1m", "-1s", "1d", "x")
    def test_invalid_iterations_per_loop(self, value):
        with self.assertRaisesRegex(ValueError, "must be positive"):
            tpu.TPUConfig(iterations_per_loop=value)

    @parameterized.parameters((1, 1, "count"), (100, 100, "count"), ("300s", 300, "seconds"),
                              ("1m", 60, "seconds"), ("2h", 7200, "seconds"))
    def test_iterations_per_loop_parses(self, value, expected, unit):
        config = tpu.TPUConfig(iterations_per_loop=value)
        self.assertEqual(value, config.iterations_per_loop)
        self.assertEqual((expected, unit), tuple(util.parse_iterations_per_loop(value)))

    def test_invalid_values(self):
        with self.assertRaisesRegex(ValueError, "must be positive"):
            tpu.TPUConfig(num_shards=0)
        with self.assertRaisesRegex(TypeError, "must be int"):
            tpu.TPUConfig(num_shards=2.0)
        with self.assertRaisesRegex(ValueError, "num_cores_per_replica must be 1, 2, 4, 8, "
                                    "16, 32, 64, 128; got 7"):
            tpu.TPUConfig(num_cores_per_replica=7)
        with self.assertRaisesRegex(ValueError, "must be PER_HOST_V1 or SLICED"):
            tpu.TPUConfig(eval_training_input_configuration=tpu.InputPipelineConfig.BROADCAST)
        with self.assertRaisesRegex(TypeError, "initial_infeed_sleep_secs must be int"):
            tpu.TPUConfig(initial_infeed_sleep_secs=1.5)

    def test_input_partition_dims(self):
        with self.assertRaisesRegex(ValueError, "only supported in PER_HOST_V2 mode"):
            tpu.TPUConfig(input_partition_dims=[[1, 2, 1, 1], None])
        v2 = tpu.InputPipelineConfig.PER_HOST_V2
        with self.assertRaisesRegex(ValueError, "requires setting num_cores_per_replica"):
            tpu.TPUConfig(per_host_input_for_training=v2,
                          input_partition_dims=[[1, 2, 1, 1], None])
        with self.assertRaisesRegex(ValueError, "with one or two elements"):
            tpu.TPUConfig(per_host_input_for_training=v2, num_cores_per_replica=2,
                          input_partition_dims=[[1], None, None])
        config = tpu.TPUConfig(per_host_input_for_training=v2, num_cores_per_replica=2,
                               input_partition_dims=[[1, 2, 1, 1], None])
        self.assertEqual([[1, 2, 1, 1], None], config.input_partition_dims)

    def test_job_name_from_tf_config(self):
        with _tf_config({"service": {"tpu_worker_job_name": "_my_job"}}):
            self.assertEqual("_my_job", tpu.TPUConfig().tpu_job_name)
        self.assertEqual("named", tpu.TPUConfig(tpu_job_name="named").tpu_job_name)


class RunConfigTest(tf.test.TestCase):

    def test_is_an_estimator_lib_run_config(self):
        config = tpu.RunConfig(model_dir="/tmp/x", save_checkpoints_steps=5)
        self.assertIsInstance(config, estimator_lib.RunConfig)
        self.assertEqual(tpu.TPUConfig(), config.tpu_config)
        self.assertEqual(5, config.save_checkpoints_steps)
        self.assertIsNone(config.save_checkpoints_secs)
        self.assertIsNone(config.session_config)
        self.assertIsNone(config.cluster)

    def test_masters(self):
        self.assertEqual(("", ""), (tpu.RunConfig().master, tpu.RunConfig().evaluation_master))
        config = tpu.RunConfig(master="_m")
        self.assertEqual(("_m", "_m"), (config.master, config.evaluation_master))
        config = tpu.RunConfig(master="_m", evaluation_master="_e")
        self.assertEqual(("_m", "_e"), (config.master, config.evaluation_master))

    def test_masters_from_tf_config(self):
        with _tf_config({"session_master": "_m", "eval_session_master": "_e"}):
            config = tpu.RunConfig()
            self.assertEqual(("_m", "_e"), (config.master, config.evaluation_master))
            config = tpu.RunConfig(master="_new")
            self.assertEqual(("_new", "_e"), (config.master, config.evaluation_master))
        with _tf_config({"session_master": "_m"}):
            self.assertEqual("_m", tpu.RunConfig().evaluation_master)

    def test_evaluator_task_keeps_its_evaluation_master(self):
        with _tf_config({"cluster": {"chief": ["host0:0"]},
                         "task": {"type": "evaluator", "index": 0}}):
            self.assertEqual("", tpu.RunConfig(master="_something").evaluation_master)

    def test_replace_keeps_tpu_fields(self):
        config = tpu.RunConfig(master="_m", tpu_config=tpu.TPUConfig(iterations_per_loop=7))
        replaced = config.replace(model_dir="/tmp/y", log_step_count_steps=None)
        self.assertIsInstance(replaced, tpu.RunConfig)
        self.assertEqual(("/tmp/y", None, "_m", 7), (
            replaced.model_dir, replaced.log_step_count_steps, replaced.master,
            replaced.tpu_config.iterations_per_loop))
        replaced = config.replace(tpu_config=tpu.TPUConfig(iterations_per_loop=3))
        self.assertEqual(3, replaced.tpu_config.iterations_per_loop)
        self.assertEqual(7, config.tpu_config.iterations_per_loop)
        with self.assertRaisesRegex(ValueError, "Replacing master is not supported"):
            config.replace(master="_other")

    def test_cluster_resolver(self):
        spec = tf.train.ClusterSpec({"worker": ["10.0.0.1:8470"]})
        resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
            spec, master="grpc://10.0.0.1:8470")
        config = tpu.RunConfig(cluster=resolver)
        self.assertIs(resolver, config.cluster)
        self.assertEqual("grpc://10.0.0.1:8470", config.master)
        self.assertEqual("grpc://10.0.0.1:8470", config.evaluation_master)
        self.assertEqual(spec.as_dict(), config.cluster_spec.as_dict())
        self.assertEqual(spec.as_cluster_def(), config.session_config.cluster_def)
        self.assertTrue(config.session_config.isolate_session_state)
        with self.assertRaisesRegex(ValueError, "Both master and cluster are set"):
            tpu.RunConfig(cluster=resolver, master="x")
        with self.assertRaisesRegex(ValueError, "cannot provide a ClusterResolver and "
                                    "session_config.cluster_def"):
            tpu.RunConfig(cluster=resolver, session_config=tf.compat.v1.ConfigProto(
                cluster_def=spec.as_cluster_def()))

    def test_as_dict_shows_tpu_config(self):
        values = tpu.RunConfig(master="_m").as_dict()
        self.assertEqual("_m", values["master"])
        self.assertEqual(tpu.TPUConfig(), values["tpu_config"])


if __name__ == "__main__":
    tf.test.main()


class ClusterSessionConfigTest(tf.test.TestCase):

    def test_a_cluster_gives_no_default_session_config_to_the_tpu_run_config(self):
        # The core RunConfig gives a ps cluster the original's device filters; the
        # original's TPU RunConfig never did.
        cluster = {"cluster": {"chief": ["h:3"], "ps": ["a:1"], "worker": ["b:2"]},
                   "task": {"type": "chief", "index": 0}}
        with mock.patch.dict(os.environ, {"TF_CONFIG": json.dumps(cluster)}):
            self.assertIsNone(tpu.RunConfig().session_config)
            self.assertEqual(list(estimator_lib.RunConfig().session_config.device_filters),
                             ["/job:ps", "/job:chief"])
            given = tf.compat.v1.ConfigProto(allow_soft_placement=True)
            self.assertIs(tpu.RunConfig(session_config=given).session_config, given)
