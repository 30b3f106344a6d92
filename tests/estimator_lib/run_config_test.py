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

    def test_private_attributes_are_the_originals_backing_fields(self):
        # Libraries assign these (adanet's tests: `config._is_chief = True`); the
        # original's properties read them.
        config = el.RunConfig(model_dir="/tmp/a", save_summary_steps=7)
        self.assertEqual(("/tmp/a", 7, True, 0), (config._model_dir, config._save_summary_steps,
                                                  config._is_chief, config._num_ps_replicas))
        config._is_chief = False
        config._num_ps_replicas = 2
        config._model_dir = "/tmp/b"
        self.assertEqual((False, 2, "/tmp/b"),
                         (config.is_chief, config.num_ps_replicas, config.model_dir))
        self.assertFalse(config.replace(save_summary_steps=1).is_chief)
        with self.assertRaises(AttributeError):
            config.is_chief = True
        with self.assertRaises(AttributeError):
            config._not_an_original_attribute  # pylint: disable=pointless-statement

    def test_a_subclass_property_may_read_its_private_attribute(self):
        # The original's early_stopping_test: a RunConfig subclass sets `_is_chief` and
        # its `is_chief` property returns it (this recursed once here).
        class FakeRunConfig(el.RunConfig):
            def __init__(self, is_chief):
                super().__init__()
                self._is_chief = is_chief

            @property
            def is_chief(self):
                return self._is_chief

        config = FakeRunConfig(is_chief=False)
        self.assertFalse(config.is_chief)
        self.assertFalse(el.Estimator(lambda features, labels, mode: None,
                                      config=config).config.is_chief)

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
        with self.assertRaisesRegex(ValueError, "Replacing task_type is not supported"):
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
             message="trainer is not a valid task_type in the cluster_spec"),
        dict(tf_config={"cluster": _CLUSTER, "task": {"type": "worker", "index": 3}},
             message="3 is not a valid task_id for task_type worker"),
        dict(tf_config={"cluster": _CLUSTER, "task": {"type": "worker"}},
             message="task index must be set"),
        dict(tf_config={"cluster": {"worker": ["a:1", "b:1"]},
                        "task": {"type": "worker", "index": 0}},
             message='must have one "chief" node'),
        dict(tf_config={"task": {"type": "worker", "index": 1}},
             message="task index must be 0"),
        dict(tf_config={"task": {"type": "chief", "index": 0}},
             message="task type must be WORKER"),
        dict(tf_config={"cluster": {"chief": ["a:1"], "master": ["b:1"]},
                        "task": {"type": "chief", "index": 0}},
             message="job `chief` is not supported"),
        dict(tf_config={"cluster": {"master": ["a:1"], "worker": ["b:1"]},
                        "task": {"type": "evaluator", "index": 0}},
             message="task_type `evaluator` is not supported"),
        dict(tf_config={"cluster": {"chief": ["a:1"], "worker": ["b:1"]},
                        "task": {"type": "worker", "index": -1}},
             message="Task index must be non-negative number"),
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


class ChieflessClusterTest(parameterized.TestCase, tf.test.TestCase):
    """As the original: with a non-TPU strategy, a cluster of workers only is accepted
    and worker 0 is its chief (TensorFlow's multi-worker tutorial lays jobs out so)."""

    _WORKERS = {"worker": ["host0:2222", "host1:2222", "host2:2222"]}

    def _config(self, cluster, task_type, index, strategy=None):
        with _with_tf_config({"cluster": cluster, "task": {"type": task_type, "index": index}}):
            return el.RunConfig(
                train_distribute=strategy or tf.distribute.OneDeviceStrategy("/cpu:0"))

    @parameterized.parameters((0, True, "grpc://host0:2222"), (1, False, "grpc://host1:2222"),
                              (2, False, "grpc://host2:2222"))
    def test_worker_0_is_the_chief(self, index, is_chief, master):
        config = self._config(self._WORKERS, "worker", index)
        self.assertEqual((config.task_type, config.task_id), ("worker", index))
        self.assertEqual(config.is_chief, is_chief)
        self.assertEqual(config.master, master)
        self.assertEqual(config.num_worker_replicas, 3)
        self.assertEqual(config.num_ps_replicas, 0)
        self.assertEqual(config.global_id_in_cluster, index)
        self.assertEqual(config.cluster_spec.as_dict(), self._WORKERS)

    def test_an_evaluator_beside_workers_only(self):
        config = self._config(self._WORKERS, "evaluator", 0)
        self.assertEqual(config.task_type, "evaluator")
        self.assertFalse(config.is_chief)
        self.assertEqual(config.cluster_spec.as_dict(), {})

    def test_a_chief_stays_the_chief(self):
        cluster = {"chief": ["host9:2222"], **self._WORKERS}
        self.assertTrue(self._config(cluster, "chief", 0).is_chief)
        worker = self._config(cluster, "worker", 0)
        self.assertFalse(worker.is_chief)
        self.assertEqual((worker.num_worker_replicas, worker.global_id_in_cluster), (4, 1))

    def test_without_a_strategy_a_chief_is_needed(self):
        with _with_tf_config({"cluster": self._WORKERS, "task": {"type": "worker", "index": 0}}):
            with self.assertRaisesRegex(ValueError, 'must have one "chief" node.*'
                                        "MultiWorkerMirroredStrategy"):
                el.RunConfig()

    def test_a_tpu_strategy_or_a_master_job_keeps_the_chief_rule(self):
        class TPUStrategyV2(tf.distribute.OneDeviceStrategy):
            pass

        with self.assertRaisesRegex(ValueError, 'must have one "chief" node'):
            self._config(self._WORKERS, "worker", 0, TPUStrategyV2("/cpu:0"))
        # A legacy `master` is the chief, strategy or not (the original's rule for it).
        self.assertFalse(self._config({"master": ["a:1"], "worker": ["b:1"]}, "worker", 0)
                         .is_chief)

    def test_still_one_chief_at_most_and_tasks_in_range(self):
        with self.assertRaisesRegex(ValueError, 'only one "chief" node'):
            self._config({"chief": ["a:1", "b:1"]}, "chief", 0)
        with self.assertRaisesRegex(ValueError, "3 is not a valid task_id"):
            self._config(self._WORKERS, "worker", 3)


class RunConfigAttributesAndSubclassesTest(tf.test.TestCase):
    """As the original's properties: fields read-only, other attributes free, subclasses."""

    def test_fields_are_read_only_other_attributes_can_be_added(self):
        config = el.RunConfig(model_dir="/tmp/a")
        with self.assertRaisesRegex(AttributeError, "read-only.*replace"):
            config.model_dir = "/tmp/b"
        with self.assertRaises(AttributeError):
            config.task_type = "chief"
        config.i_am_test = True  # as the original allowed
        self.assertTrue(config.i_am_test)
        self.assertEqual(config.model_dir, "/tmp/a")

    def test_a_subclass_may_override_a_field_with_a_property(self):
        class FixedDirConfig(el.RunConfig):
            @property
            def model_dir(self):
                return "/tmp/fixed"

        config = FixedDirConfig()
        self.assertEqual(config.model_dir, "/tmp/fixed")
        est = el.Estimator(lambda features, labels, mode: None, config=config)
        self.assertEqual(est.model_dir, "/tmp/fixed")
        self.assertIsInstance(est.config, FixedDirConfig)

    def test_a_subclass_with_its_own_init_is_replaced_as_itself(self):
        class ChiefConfig(el.RunConfig):
            def __init__(self, is_chief):
                super().__init__()
                self._my_chief = is_chief

            @property
            def is_chief(self):
                return self._my_chief

        replaced = ChiefConfig(False).replace(save_summary_steps=7)
        self.assertIsInstance(replaced, ChiefConfig)
        self.assertFalse(replaced.is_chief)
        self.assertEqual(replaced.save_summary_steps, 7)

    def test_empty_model_dir_in_the_estimator_means_none(self):
        est = el.Estimator(lambda features, labels, mode: None, model_dir="")
        self.assertTrue(est.model_dir)  # a temporary folder, as with None

    def test_config_type_is_checked_before_model_fn(self):
        with self.assertRaisesRegex(ValueError, "an instance of `RunConfig`"):
            el.Estimator(model_fn=None, config="not a config")


class TfConfigAsTheOriginalTest(tf.test.TestCase):

    def test_a_custom_task_type_is_a_member_of_the_cluster(self):
        cluster = {"chief": ["a:1"], "worker": ["b:1", "c:1"], "other_type": ["d:1"],
                   "ps": ["e:1"]}
        with _with_tf_config({"cluster": cluster, "task": {"type": "other_type",
                                                           "index": 0}}):
            config = el.RunConfig()
        self.assertEqual(config.task_type, "other_type")
        self.assertEqual(config.global_id_in_cluster, 1)  # chief, then jobs by name
        self.assertFalse(config.is_chief)

    def test_service_must_be_a_dict(self):
        with _with_tf_config({"service": "not a dict"}):
            with self.assertRaisesRegex(TypeError, "must be a dict"):
                el.RunConfig()

    def test_model_dir_in_tf_config_must_be_non_empty(self):
        with _with_tf_config({"model_dir": ""}):
            with self.assertRaisesRegex(ValueError, "model_dir in TF_CONFIG should be non-empty"):
                el.RunConfig()


if __name__ == "__main__":
    tf.test.main()
