"""Multi-worker jobs on 127.0.0.1, each task a process with its own TF_CONFIG: a chief,
a worker and an evaluator; the tutorial's workers only. model_dir's files are compared
with what the original left (tests/data/tf215_multi_worker.json, recorded by
tests/data/make_tf215_multi_worker.py running the same program.py on TF 2.15).

Every process is killed with SIGKILL if the test runs out of time.
"""

import json
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
_RECORD = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))), "data", "tf215_multi_worker.json")


def _original(layout):
    with open(_RECORD) as f:
        return json.load(f)[layout]


def _model_dir_files(model_dir):
    """As the recorder lists them: relative, sorted, event files without time and host."""
    files = set()
    for dirpath, _, names in os.walk(model_dir):
        for name in names:
            if name.startswith("events.out.tfevents."):
                name = "events.out.tfevents.*"
            files.add(os.path.relpath(os.path.join(dirpath, name), model_dir))
    return sorted(files)


def _original_files(layout):
    """The original's model_dir files but the copies its non-chief workers saved in
    tmp_worker_<i>/ and left there (docs/multi_worker.md: we write no such copies)."""
    return [f for f in _original(layout)["files"] if not f.startswith("tmp_worker_")]


def _config_views(out_dir, names):
    views = {}
    for name in names:
        with open(os.path.join(out_dir, name + ".log")) as f:
            views[name] = [json.loads(line[len("CONFIG "):]) for line in f
                           if line.startswith("CONFIG ")][-1]
    return views


def _view(task_type, task_id, is_chief, replicas, global_id):
    return {"task_type": task_type, "task_id": task_id, "is_chief": is_chief,
            "num_worker_replicas": replicas, "global_id_in_cluster": global_id}


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
        # The original's files, the step-0 checkpoint included.
        self.assertEqual(_model_dir_files(model_dir), _original_files("chief_worker_evaluator"))
        self.assertTrue(tf.io.gfile.exists(os.path.join(model_dir, "model.ckpt-0.index")))
        # Each task's real role (the original left every task worker 0, chief, 1 replica).
        self.assertEqual(_config_views(out_dir, procs), {
            "chief0": _view("chief", 0, True, 2, 0), "worker0": _view("worker", 0, False, 2, 1),
            "evaluator0": _view("evaluator", 0, False, 0, None)})

    def test_workers_only_as_the_tutorial_lays_them_out(self):
        # TensorFlow's "Multi-worker training with Estimator": every task a `worker`.
        cluster = {"worker": [f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"]}
        model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        out_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        procs = launch([("worker", 0), ("worker", 1)], cluster, model_dir, out_dir)
        wait_all(procs, time.time() + _DEADLINE_SECS)
        for name, proc in procs.items():
            with open(os.path.join(out_dir, name + ".log")) as f:
                self.assertEqual(proc.returncode, 0, f"{name} failed:\n{f.read()[-3000:]}")
        self.assertEqual(_original("workers")["returncodes"], {"worker0": 0, "worker1": 0})
        self.assertAllEqual(np.load(os.path.join(out_dir, "worker0.npy")),
                            np.load(os.path.join(out_dir, "worker1.npy")))
        # Worker 0 wrote model_dir, as the original's chief: the same files.
        self.assertEqual(_model_dir_files(model_dir), _original_files("workers"))
        self.assertAllClose(tf.train.load_variable(model_dir, "dense/kernel"),
                            np.load(os.path.join(out_dir, "worker0.npy")))
        self.assertEqual(_config_views(out_dir, procs), {
            "worker0": _view("worker", 0, True, 2, 0), "worker1": _view("worker", 1, False, 2, 1)})

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
