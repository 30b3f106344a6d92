"""The job's shape, decided once from RunConfig and TF_CONFIG."""

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

    def test_an_in_process_strategy_gives_the_session_its_devices(self):
        strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
        job = job_shape.decide(_config(train_distribute=strategy), tf.compat.v1.ConfigProto())
        self.assertEqual(job.mode, job_shape.IN_PROCESS)
        self.assertIs(job.strategy, strategy)
        self.assertIsNone(job.cluster)
        self.assertIn("one", job.describe().lower())

    def test_parameter_server_chief_places_variables_and_sets_no_run_deadline(self):
        config = _config({"cluster": _PS_CLUSTER, "task": {"type": "chief", "index": 0}})
        job = job_shape.decide(config, tf.compat.v1.ConfigProto())
        self.assertEqual(job.mode, job_shape.PARAMETER_SERVER)
        self.assertIsNone(job.strategy)
        self.assertIsNotNone(job.device_fn)
        self.assertEqual(job.cluster, _PS_CLUSTER)
        self.assertTrue(job.initializes and job.writes)
        self.assertEqual(job.session_config.operation_timeout_in_ms, 0)  # The user's to set.

    def test_parameter_server_worker_neither_initializes_nor_writes(self):
        config = _config({"cluster": _PS_CLUSTER, "task": {"type": "worker", "index": 0}})
        job = job_shape.decide(config, tf.compat.v1.ConfigProto())
        self.assertEqual(job.mode, job_shape.PARAMETER_SERVER)
        self.assertFalse(job.initializes or job.writes)
        self.assertEqual(job_shape.mode_of(config), job_shape.PARAMETER_SERVER)

    def test_a_device_fn_of_the_config_wins(self):
        device_fn = lambda op: "/cpu:0"  # noqa: E731
        job = job_shape.decide(_config(device_fn=device_fn), tf.compat.v1.ConfigProto())
        self.assertIs(job.device_fn, device_fn)


if __name__ == "__main__":
    tf.test.main()
