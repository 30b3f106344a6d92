"""The job's shape, decided once from RunConfig and TF_CONFIG."""

import dataclasses
import json
import os
from unittest import mock

import tensorflow as tf

import estimator_lib as el
from estimator_lib.distribute import job_shape


def _config(tf_config=None, **kwargs):
    env = {"TF_CONFIG": json.dumps(tf_config)} if tf_config else {}
    with mock.patch.dict(os.environ, env, clear=False):
        if not tf_config:
            os.environ.pop("TF_CONFIG", None)
        return el.RunConfig(**kwargs)


_PS_CLUSTER = {"chief": ["localhost:1"], "worker": ["localhost:2"], "ps": ["localhost:3"]}


class JobShapeTest(tf.test.TestCase):

    def test_local_job_initializes_and_writes_with_the_given_session_config(self):
        session_config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=1)
        job = job_shape.decide(_config(), session_config)
        self.assertEqual(job.mode, job_shape.LOCAL)
        self.assertIsNone(job.strategy)
        self.assertIsNone(job.device_fn)
        self.assertIsNone(job.cluster)
        self.assertTrue(job.initializes and job.writes)
        self.assertIs(job.session_config, session_config)
        self.assertEqual((job.num_replicas, job.steps_per_run), (1, 1))
        self.assertIsNone(job.prepare_task)
        self.assertFalse(job.is_evaluator)
        self.assertEqual(job.role.part_in_train_and_evaluate(),
                         job_shape.TRAIN_AND_EVALUATE_LOCALLY)
        self.assertTrue(job.role.trains and job.role.single_machine and job.role.is_chief)

    def test_an_in_process_strategy_gives_the_session_its_devices(self):
        strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
        job = job_shape.decide(_config(train_distribute=strategy), tf.compat.v1.ConfigProto())
        self.assertEqual(job.mode, job_shape.IN_PROCESS)
        self.assertIs(job.strategy, strategy)
        self.assertIsNone(job.cluster)
        self.assertIn("one", job.describe().lower())
        self.assertEqual(job.num_replicas, 1)

    def test_steps_per_run_travels_in_the_shape(self):
        job = job_shape.decide(_config(steps_per_run=4), tf.compat.v1.ConfigProto())
        self.assertEqual(job.steps_per_run, 4)

    def test_parameter_server_chief_places_variables_and_sets_no_run_deadline(self):
        config = _config({"cluster": _PS_CLUSTER, "task": {"type": "chief", "index": 0}})
        job = job_shape.decide(config, tf.compat.v1.ConfigProto())
        self.assertEqual(job.mode, job_shape.PARAMETER_SERVER)
        self.assertIsNone(job.strategy)
        self.assertIsNotNone(job.device_fn)
        self.assertEqual(job.cluster, _PS_CLUSTER)
        self.assertTrue(job.initializes and job.writes)
        self.assertEqual(job.session_config.operation_timeout_in_ms, 0)  # The user's to set.
        self.assertIsNotNone(job.prepare_task)  # Its server and the ps tasks' wait.
        self.assertEqual(job.role.part_in_train_and_evaluate(),
                         job_shape.PARAMETER_SERVER_TRAINER)
        self.assertFalse(job.role.single_machine)

    def test_parameter_server_worker_neither_initializes_nor_writes(self):
        config = _config({"cluster": _PS_CLUSTER, "task": {"type": "worker", "index": 0}})
        job = job_shape.decide(config, tf.compat.v1.ConfigProto())
        self.assertEqual(job.mode, job_shape.PARAMETER_SERVER)
        self.assertFalse(job.initializes or job.writes)
        self.assertEqual(job_shape.mode_of(config), job_shape.PARAMETER_SERVER)

    def test_roles_in_train_and_evaluate(self):
        def part(task_type, index=0, cluster=_PS_CLUSTER, **kwargs):
            config = _config({"cluster": cluster, "task": {"type": task_type, "index": index}},
                             **kwargs)
            return job_shape.role_of(config)

        self.assertEqual(part("ps").part_in_train_and_evaluate(),
                         job_shape.PARAMETER_SERVER_HOST)
        self.assertFalse(part("ps").trains)
        evaluator = part("evaluator")
        self.assertTrue(evaluator.is_evaluator)
        self.assertFalse(evaluator.trains)
        self.assertEqual(evaluator.part_in_train_and_evaluate(), job_shape.EVALUATOR)
        master = part("master", cluster={"master": ["localhost:1"], "ps": ["localhost:3"]})
        self.assertTrue(master.evaluates_while_training)
        self.assertEqual(part("worker", cluster={"chief": ["localhost:1"],
                                                 "worker": ["localhost:2"]}
                              ).part_in_train_and_evaluate(), job_shape.TRAINER)

    def test_roles_refused_name_what_arrived(self):
        second = _config({"cluster": {"chief": ["localhost:1"], "evaluator": ["localhost:2"]},
                          "task": {"type": "evaluator", "index": 0}})
        self.assertEqual(job_shape.role_of(second).part_in_train_and_evaluate(),
                         job_shape.EVALUATOR)
        role = dataclasses.replace(job_shape.role_of(second), task_id=1)
        with self.assertRaisesRegex(ValueError, "only be one `evaluator`.*Given task id 1"):
            role.part_in_train_and_evaluate()
        local = dataclasses.replace(job_shape.role_of(second), task_type="local")
        with self.assertRaisesRegex(ValueError, "cannot be `local`"):
            local.part_in_train_and_evaluate()
        strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
        ps = dataclasses.replace(job_shape.role_of(second), task_type="ps", strategy=strategy,
                                 in_cluster=True,
                                 mode=job_shape.IN_PROCESS)
        with self.assertRaisesRegex(ValueError, "train_distribute=OneDeviceStrategy"):
            ps.part_in_train_and_evaluate()

    def test_training_tasks_in_tf_config(self):
        cluster = {"chief": ["127.0.0.1:1"], "worker": ["127.0.0.1:2", "127.0.0.1:3"],
                   "ps": ["127.0.0.1:4"]}
        with mock.patch.dict(os.environ, {"TF_CONFIG": json.dumps(
                {"cluster": cluster, "task": {"type": "worker", "index": 0}})}):
            self.assertEqual(job_shape.training_tasks_in_tf_config(), 3)
        with mock.patch.dict(os.environ, {"TF_CONFIG": ""}):
            self.assertEqual(job_shape.training_tasks_in_tf_config(), 1)

    def test_a_device_fn_of_the_config_wins(self):
        device_fn = lambda op: "/cpu:0"  # noqa: E731
        job = job_shape.decide(_config(device_fn=device_fn), tf.compat.v1.ConfigProto())
        self.assertIs(job.device_fn, device_fn)


if __name__ == "__main__":
    tf.test.main()
