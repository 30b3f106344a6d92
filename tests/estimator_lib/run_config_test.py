"""RunConfig defaults, validation, replace() and TF_CONFIG parsing (reference 1.6)."""

import json
import os
from unittest import mock

import tensorflow as tf
from absl.testing import parameterized

import estimator_lib as el


def _with_tf_config(value):
    raw = value if isinstance(value, str) else json.dumps(value)
    return mock.patch.dict(os.environ, {"TF_CONFIG": raw})


_CLUSTER = {"chief": ["host0:2222"], "ps": ["host1:2222", "host2:2222"],
            "worker": ["host3:2222", "host4:2222", "host5:2222"]}


class RunConfigTest(parameterized.TestCase, tf.test.TestCase):

    def test_defaults(self):
        config = el.RunConfig()
        self.assertIsNone(config.model_dir)
        self.assertIsNone(config.tf_random_seed)
        self.assertEqual(config.save_summary_steps, 100)
        self.assertIsNone(config.save_checkpoints_steps)
        self.assertEqual(config.save_checkpoints_secs, 600)
        self.assertEqual(config.keep_checkpoint_max, 5)
        self.assertEqual(config.keep_checkpoint_every_n_hours, 10000)
        self.assertEqual(config.log_step_count_steps, 100)
        self.assertEqual(config.session_creation_timeout_secs, 7200)
        self.assertTrue(config.checkpoint_save_graph_def)
        self.assertEqual(config.task_type, "worker")
        self.assertEqual(config.task_id, 0)
        self.assertTrue(config.is_chief)
        self.assertEqual(config.master, "")
        self.assertEqual(config.num_ps_replicas, 0)
        self.assertEqual(config.num_worker_replicas, 1)
        self.assertEqual(config.global_id_in_cluster, 0)

    def test_setting_checkpoint_steps_clears_secs(self):
        config = el.RunConfig(save_checkpoints_steps=10)
        self.assertEqual((config.save_checkpoints_steps, config.save_checkpoints_secs), (10, None))
        replaced = config.replace(save_checkpoints_secs=30)
        self.assertEqual((replaced.save_checkpoints_steps, replaced.save_checkpoints_secs),
                         (None, 30))
        with self.assertRaisesRegex(ValueError, "cannot be both set"):
            el.RunConfig(save_checkpoints_steps=1, save_checkpoints_secs=1)

    def test_replace_refuses_unknown_fields_and_revalidates(self):
        config = el.RunConfig(model_dir="/tmp/a")
        self.assertEqual(config.replace(model_dir="/tmp/b").model_dir, "/tmp/b")
        self.assertEqual(config.model_dir, "/tmp/a")
        with self.assertRaisesRegex(ValueError, "task_type is not a replaceable"):
            config.replace(task_type="chief")
        with self.assertRaisesRegex(ValueError, "keep_checkpoint_max"):
            config.replace(keep_checkpoint_max=-1)

    @parameterized.parameters(
        dict(kwargs=dict(model_dir=""), message="model_dir should be non-empty"),
        dict(kwargs=dict(save_summary_steps=-1), message="save_summary_steps"),
        dict(kwargs=dict(log_step_count_steps=0), message="log_step_count_steps"),
        dict(kwargs=dict(keep_checkpoint_every_n_hours=0), message="keep_checkpoint_every"),
        dict(kwargs=dict(tf_random_seed=1.5), message="tf_random_seed must be integer"),
        dict(kwargs=dict(session_config="x"), message="ConfigProto"),
        dict(kwargs=dict(device_fn=lambda a, b: None), message="device_fn"),
        dict(kwargs=dict(protocol="http"), message="protocol"),
        dict(kwargs=dict(session_creation_timeout_secs=0), message="session_creation_timeout"),
        dict(kwargs=dict(train_distribute="mirrored"), message="tf.distribute.Strategy"),
    )
    def test_validation(self, kwargs, message):
        with self.assertRaisesRegex(ValueError, message):
            el.RunConfig(**kwargs)

    def test_chief(self):
        with _with_tf_config({"cluster": _CLUSTER, "task": {"type": "chief", "index": 0}}):
            config = el.RunConfig()
        self.assertEqual(config.master, "grpc://host0:2222")
        self.assertTrue(config.is_chief)
        self.assertEqual(config.num_ps_replicas, 2)
        self.assertEqual(config.num_worker_replicas, 4)
        self.assertEqual(config.global_id_in_cluster, 0)
        self.assertEqual(config.cluster_spec.as_dict(), _CLUSTER)

    def test_worker(self):
        with _with_tf_config({"cluster": _CLUSTER, "task": {"type": "worker", "index": 1}}):
            config = el.RunConfig()
        self.assertEqual(config.master, "grpc://host4:2222")
        self.assertEqual((config.task_type, config.task_id), ("worker", 1))
        self.assertFalse(config.is_chief)
        # chief 0, then workers 1..3, parameter servers last.
        self.assertEqual(config.global_id_in_cluster, 2)

    def test_ps_ids_come_last(self):
        with _with_tf_config({"cluster": _CLUSTER, "task": {"type": "ps", "index": 1}}):
            self.assertEqual(el.RunConfig().global_id_in_cluster, 5)

    def test_evaluator_is_outside_the_cluster(self):
        with _with_tf_config({"cluster": _CLUSTER, "task": {"type": "evaluator", "index": 0}}):
            config = el.RunConfig()
        self.assertEqual(config.cluster_spec.as_dict(), {})
        self.assertFalse(config.is_chief)
        self.assertEqual((config.num_worker_replicas, config.num_ps_replicas), (0, 0))
        self.assertIsNone(config.global_id_in_cluster)

    def test_legacy_master_is_chief(self):
        cluster = {"master": ["host0:2222"], "worker": ["host1:2222"]}
        with _with_tf_config({"cluster": cluster, "task": {"type": "master", "index": 0}}):
            config = el.RunConfig()
        self.assertTrue(config.is_chief)
        self.assertEqual(config.num_worker_replicas, 2)

    def test_single_node_cluster_runs_locally(self):
        with _with_tf_config({"cluster": {"chief": ["host0:2222"]},
                              "task": {"type": "chief", "index": 0}}):
            self.assertEqual(el.RunConfig().master, "")

    def test_model_dir_from_tf_config(self):
        with _with_tf_config({"model_dir": "/tmp/from_env"}):
            self.assertEqual(el.RunConfig().model_dir, "/tmp/from_env")
            with self.assertRaisesRegex(ValueError, "must have the same value"):
                el.RunConfig(model_dir="/tmp/other")

    @parameterized.parameters(
        dict(tf_config="{not json", message="TF_CONFIG is not valid JSON"),
        dict(tf_config="[1, 2]", message="must be a JSON object"),
        dict(tf_config={"cluster": _CLUSTER, "task": {"type": "trainer", "index": 0}},
             message="unknown task type 'trainer'"),
        dict(tf_config={"cluster": {"chief": ["a:1"], "gpu_box": ["b:1"]},
                        "task": {"type": "chief", "index": 0}},
             message=r"unknown task types \['gpu_box'\]"),
        dict(tf_config={"cluster": _CLUSTER, "task": {"type": "worker", "index": 3}},
             message="3 is not a valid task_id for task_type worker"),
        dict(tf_config={"cluster": _CLUSTER, "task": {"type": "worker"}},
             message="task index must be set"),
        dict(tf_config={"cluster": {"worker": ["a:1", "b:1"]},
                        "task": {"type": "worker", "index": 0}},
             message='must have one "chief" node'),
        dict(tf_config={"task": {"type": "worker", "index": 1}},
             message="must be worker 0"),
        dict(tf_config={"cluster": {"chief": ["a:1"], "master": ["b:1"]},
                        "task": {"type": "chief", "index": 0}},
             message="`chief` or a legacy `master`"),
    )
    def test_bad_tf_config_gets_one_clear_error(self, tf_config, message):
        with _with_tf_config(tf_config):
            with self.assertRaisesRegex(ValueError, message):
                el.RunConfig()

    def test_the_v2_parameter_server_strategy_is_refused_naming_the_v1_one(self):
        class ParameterServerStrategyV2(tf.distribute.Strategy):
            def __init__(self):  # pylint: disable=super-init-not-called
                pass

        # The original's message, and the default (no strategy) mode.
        with self.assertRaisesRegex(
                ValueError, r"Please use `tf.compat.v1.distribute.experimental.Parameter"
                            r"ServerStrategy` for parameter server strategy with estimator"):
            el.RunConfig(train_distribute=ParameterServerStrategyV2())

    def test_distribution_strategy_is_accepted(self):
        strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
        config = el.RunConfig(train_distribute=strategy)
        self.assertIs(config.train_distribute, strategy)


if __name__ == "__main__":
    tf.test.main()
