"""A worker that dies mid-training ends the others with an error naming it; a restart resumes.

The process test starts a chief and a worker on 127.0.0.1 and kills the worker with
SIGKILL; every process is killed with SIGKILL if the test runs out of time.
"""

import os
import socket
import tempfile
import time
from unittest import mock

from absl import logging
import pytest
import tensorflow as tf

from estimator_lib.distribute import strategies
from estimator_lib.distribute import job_shape
from estimator_lib.training import session as session_lib
from tests.estimator_lib.distribute.multi_worker.launch import free_port
from tests.estimator_lib.distribute.multi_worker.launch import kill_all
from tests.estimator_lib.distribute.multi_worker.launch import launch
from tests.estimator_lib.distribute.multi_worker.launch import wait_all
from tests.estimator_lib.distribute.multi_worker.launch import wait_for_line

# Short enough that a chief stuck in a collective op (no RPC error ever arrives)
# fails well within _FAIL_WITHIN_SECS, long enough for the first step on a loaded CPU.
_OPERATION_TIMEOUT_SECS = 20
_FAIL_WITHIN_SECS = 90  # Generous: the tasks share a loaded CPU. A pass takes 1-21 s.
_START_WITHIN_SECS = 120
_CHECKPOINT_STEPS = 4  # program.py's save_checkpoints_steps.


def _log(out_dir, name):
    with open(os.path.join(out_dir, name + ".log")) as f:
        return f.read()


def _fake_strategy(cluster):
    strategy = mock.Mock()
    strategy.extended._update_config_proto = lambda config: config
    strategy.extended.experimental_between_graph = True
    strategy.extended.worker_devices = ["/job:chief/replica:0/task:0/device:CPU:0"]
    strategy.cluster_resolver.cluster_spec.return_value = tf.train.ClusterSpec(cluster)
    return strategy


class OperationTimeoutTest(tf.test.TestCase):

    def test_a_multi_worker_session_gets_no_deadline_unless_asked(self):
        # As the original: a chief saving a large checkpoint or running a long hook
        # keeps the others waiting in the next step, and that must not end the job.
        strategy = _fake_strategy({"chief": ["a:1"], "worker": ["b:1"]})
        config = strategies.session_config_for(strategy, tf.compat.v1.ConfigProto())
        self.assertEqual(config.operation_timeout_in_ms, 0)

    def test_the_session_config_chooses_its_own_deadline(self):
        strategy = _fake_strategy({"chief": ["a:1"], "worker": ["b:1"]})
        for own in (5000, -1):  # Negative: no deadline.
            config = strategies.session_config_for(
                strategy, tf.compat.v1.ConfigProto(operation_timeout_in_ms=own))
            self.assertEqual(config.operation_timeout_in_ms, own)

    def test_a_single_machine_session_gets_none(self):
        config = strategies.session_config_for(_fake_strategy({}), tf.compat.v1.ConfigProto())
        self.assertEqual(config.operation_timeout_in_ms, 0)
        strategy = tf.distribute.MirroredStrategy(["CPU:0"])
        config = strategies.session_config_for(strategy, tf.compat.v1.ConfigProto())
        self.assertEqual(config.operation_timeout_in_ms, 0)

    def _run_past_the_deadline(self, cluster):
        """A training session whose run waits on an empty queue for 100 ms."""
        model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        with tf.Graph().as_default():
            tf.compat.v1.train.get_or_create_global_step()
            never_filled = tf.queue.FIFOQueue(1, tf.float32).dequeue()
            job = job_shape.JobShape(
                mode=job_shape.MULTI_WORKER if cluster else job_shape.LOCAL, strategy=None,
                device_fn=None, initializes=True, writes=True, cluster=cluster,
                session_config=tf.compat.v1.ConfigProto(operation_timeout_in_ms=100),
                master="")
            with session_lib.training_session(
                    job, model_dir=model_dir, restore_from=None,
                    scaffold=tf.compat.v1.train.Scaffold(), hooks=[],
                    max_wait_secs=10) as session:
                session.run(never_filled)

    def test_a_run_past_the_deadline_names_the_unreachable_task(self):
        with socket.socket() as listening:
            listening.bind(("127.0.0.1", 0))
            listening.listen(1)
            alive = f"127.0.0.1:{listening.getsockname()[1]}"
            dead = f"127.0.0.1:{free_port()}"
            with self.assertRaisesRegex(
                    RuntimeError,
                    r"A task of the multi-worker job stopped; a run of the training session "
                    r"waited past its deadline \(session_config.operation_timeout_in_ms=100\)"
                    rf"\. Unreachable: worker:0 \({dead}\)\. Restart every task: training "
                    r"resumes from the newest checkpoint \(None\)\. If every task is healthy"):
                self._run_past_the_deadline({"chief": [alive], "worker": [dead]})

    def test_a_run_past_the_deadline_with_every_task_reachable_says_so(self):
        with socket.socket() as listening:
            listening.bind(("127.0.0.1", 0))
            listening.listen(2)
            alive = f"127.0.0.1:{listening.getsockname()[1]}"
            with self.assertRaisesRegex(RuntimeError, r"Unreachable: none \(every task accepts "
                                                      r"connections: one may be stuck or slow\)"):
                self._run_past_the_deadline({"chief": [alive], "worker": [alive]})

    def test_a_single_machine_run_past_the_deadline_stays_a_tensorflow_error(self):
        with self.assertRaises(tf.errors.DeadlineExceededError):
            self._run_past_the_deadline(None)


@pytest.mark.timeout(_START_WITHIN_SECS * 2 + _FAIL_WITHIN_SECS + 60)
class DeadWorkerTest(tf.test.TestCase):

    def test_the_chief_fails_naming_a_killed_worker_and_a_restart_resumes(self):
        cluster = {"chief": [f"127.0.0.1:{free_port()}"],
                   "worker": [f"127.0.0.1:{free_port()}"]}
        model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        out_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        procs = launch([("chief", 0), ("worker", 0)], cluster, model_dir, out_dir,
                       "--max_steps=1000000", "--print_steps",
                       f"--operation_timeout_secs={_OPERATION_TIMEOUT_SECS}")
        try:
            # Past a checkpoint: both tasks are training in step.
            step_line = f"STEP {_CHECKPOINT_STEPS + 2}"
            self.assertTrue(
                wait_for_line(procs, out_dir, "worker0", step_line,
                              time.time() + _START_WITHIN_SECS),
                f"The worker never printed {step_line!r}:\n{_log(out_dir, 'worker0')[-3000:]}")
            procs["worker0"].kill()
            killed = time.time()
            procs["chief0"].wait(timeout=_FAIL_WITHIN_SECS)
            failed_after = time.time() - killed
        finally:
            kill_all(procs)
        chief_log = _log(out_dir, "chief0")
        logging.info("The chief failed %.1f s after the worker's SIGKILL (%s).", failed_after,
                     "deadline" if "past its deadline" in chief_log else "RPC error")
        self.assertNotEqual(procs["chief0"].returncode, 0, chief_log[-3000:])
        newest = tf.train.latest_checkpoint(model_dir)
        self.assertIsNotNone(newest)
        self.assertIn("RuntimeError: A task of the multi-worker job stopped; ", chief_log)
        self.assertIn(f"Unreachable: worker:0 ({cluster['worker'][0]}). Restart every task: "
                      f"training resumes from the newest checkpoint ({newest}).", chief_log)

        step = tf.train.load_variable(newest, "global_step")
        out_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        procs = launch([("chief", 0), ("worker", 0)], cluster, model_dir, out_dir,
                       f"--max_steps={step + 4}")
        wait_all(procs, time.time() + _START_WITHIN_SECS)
        for name, proc in procs.items():
            log = _log(out_dir, name)
            self.assertEqual(proc.returncode, 0, f"{name} failed:\n{log[-3000:]}")
            self.assertIn(f"START STEP {step}\n", log)
        self.assertEqual(tf.train.load_variable(model_dir, "global_step"), step + 4)


if __name__ == "__main__":
    tf.test.main()
