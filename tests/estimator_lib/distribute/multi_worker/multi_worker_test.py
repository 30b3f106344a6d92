"""Two training processes and an evaluator on 127.0.0.1, each with its own TF_CONFIG.

Every process is killed with SIGKILL if the test runs out of time.
"""

import os
import socket
import tempfile
import time

import numpy as np
import pytest
import tensorflow as tf

import estimator_lib as el
from estimator_lib.distribute import job_shape
from estimator_lib.training import session as session_lib
from tests.estimator_lib.distribute.multi_worker import program
from tests.estimator_lib.distribute.multi_worker.launch import free_port
from tests.estimator_lib.distribute.multi_worker.launch import launch
from tests.estimator_lib.distribute.multi_worker.launch import wait_all

_DEADLINE_SECS = 240


@pytest.mark.timeout(_DEADLINE_SECS + 60)
class MultiWorkerTest(tf.test.TestCase):

    def test_chief_and_worker_train_in_sync_and_evaluator_evaluates(self):
        cluster = {"chief": [f"127.0.0.1:{free_port()}"],
                   "worker": [f"127.0.0.1:{free_port()}"]}
        model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        out_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        procs = launch([("chief", 0), ("worker", 0), ("evaluator", 0)], cluster, model_dir,
                       out_dir)
        wait_all(procs, time.time() + _DEADLINE_SECS)

        def log(name):
            with open(os.path.join(out_dir, name + ".log")) as f:
                return f.read()

        for name, proc in procs.items():
            self.assertEqual(proc.returncode, 0, f"{name} failed:\n{log(name)[-3000:]}")
            self.assertIn(f"DONE {name}", log(name))
        # Synchronous training: both workers end with identical weights ...
        chief = np.load(os.path.join(out_dir, "chief0.npy"))
        worker = np.load(os.path.join(out_dir, "worker0.npy"))
        self.assertAllEqual(chief, worker)
        # ... the chief alone wrote one set of checkpoints, up to max_steps ...
        self.assertEqual(tf.train.load_variable(model_dir, "global_step"), program.MAX_STEPS)
        self.assertEqual(np.asarray(tf.train.load_variable(model_dir, "dense/kernel")).shape,
                         chief.shape)
        self.assertAllClose(tf.train.load_variable(model_dir, "dense/kernel"), chief)
        # ... and the evaluator evaluated them, the last at max_steps.
        results = el.experimental.read_eval_metrics(os.path.join(model_dir, "eval"))
        self.assertIn(program.MAX_STEPS, results)
        self.assertIn("accuracy", results[program.MAX_STEPS])

    def test_early_stopping_stops_every_worker_at_the_same_step(self):
        cluster = {"chief": [f"127.0.0.1:{free_port()}"],
                   "worker": [f"127.0.0.1:{free_port()}"]}
        model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        out_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        procs = launch([("chief", 0), ("worker", 0)], cluster, model_dir, out_dir,
                       "--early_stop")
        wait_all(procs, time.time() + _DEADLINE_SECS)
        for name, proc in procs.items():
            with open(os.path.join(out_dir, name + ".log")) as f:
                self.assertEqual(proc.returncode, 0, f"{name} failed:\n{f.read()[-3000:]}")
        # The chief voted at step 6 (its second check): both stopped there, in step.
        self.assertEqual(tf.train.load_variable(model_dir, "global_step"), 6)
        # The original's stop variable holds the votes' sum: the chief's one replica.
        self.assertEqual(tf.train.load_variable(model_dir, "signal_early_stopping/STOP"), 1)
        self.assertAllEqual(np.load(os.path.join(out_dir, "chief0.npy")),
                            np.load(os.path.join(out_dir, "worker0.npy")))

    def test_unreachable_tasks_are_named(self):
        with socket.socket() as listening:
            listening.bind(("127.0.0.1", 0))
            listening.listen(1)
            alive = f"127.0.0.1:{listening.getsockname()[1]}"
            dead = f"127.0.0.1:{free_port()}"
            self.assertEqual(session_lib.unreachable_tasks(
                {"chief": [alive], "worker": [alive, dead]}), [f"worker:1 ({dead})"])

    def test_a_time_cadence_is_refused_across_workers(self):
        estimator = el.Estimator(program.model_fn,
                                 model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()))
        with tf.compat.v1.test.mock.patch.object(job_shape, "mode_of",
                                                 return_value=job_shape.MULTI_WORKER):
            with self.assertRaisesRegex(ValueError, "run_every_steps=N"):
                el.experimental.stop_if_no_decrease_hook(estimator, "loss", 10)


if __name__ == "__main__":
    tf.test.main()
