"""Multi-worker jobs on 127.0.0.1, each task a process with its own TF_CONFIG: a chief,
a worker and an evaluator; the tutorial's workers only. Each task's exit status,
model_dir's files and what `estimator.config` said on each task are compared with what
the original did (tests/data/tf215_multi_worker.json, recorded by
tests/data/make_tf215_multi_worker.py running the same program.py on TF 2.15): the
record on one side, our run on the other. Where we differ on purpose
(docs/multi_worker.md, "What a program observes"), the record is checked to hold the
original's side of the documented difference and our run ours.

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


def _with_worker_copies(files, non_chief_workers):
    """`files` (ours) plus what the original's non-chief workers also wrote and left:
    a copy of model_dir's top-level files in tmp_worker_<i>/ each (docs/multi_worker.md,
    "Files": the one difference; estimator_lib's workers write nothing)."""
    copies = [f"tmp_worker_{i}/{f}" for i in non_chief_workers for f in files if "/" not in f]
    return sorted(files + copies)


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


# What the original's `estimator.config` said on every training task after
# train_and_evaluate (docs/multi_worker.md: its distribute coordinator trained a copy).
_ORIGINAL_TRAINING_TASK_VIEW = _view("worker", 0, True, 1, 0)


@pytest.mark.timeout(_DEADLINE_SECS + 60)
class MultiWorkerTest(tf.test.TestCase):

    def _assert_as_the_original(self, layout, procs, model_dir, out_dir, real_views,
                                non_chief_workers):
        """Our run of `layout` against the original's record: the same exit statuses and
        evaluator view; the files and training tasks' views as documented."""
        original = _original(layout)
        self.assertEqual({name: proc.returncode for name, proc in procs.items()},
                         original["returncodes"])
        files = _model_dir_files(model_dir)
        self.assertEqual(_with_worker_copies(files, non_chief_workers), original["files"])
        ours = _config_views(out_dir, procs)
        self.assertEqual(sorted(ours), sorted(original["config"]))
        for name, view in ours.items():
            with self.subTest(name):
                if name.startswith("evaluator"):
                    self.assertEqual(view, original["config"][name])
                    continue
                # The deliberate difference: the original's local view; each task's real
                # role here (docs/multi_worker.md's table).
                self.assertEqual(original["config"][name], _ORIGINAL_TRAINING_TASK_VIEW)
                self.assertEqual(view, real_views[name])

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
        # The original's exit statuses, files (the step-0 checkpoint included) and
        # config views, but for the documented differences.
        self.assertTrue(tf.io.gfile.exists(os.path.join(model_dir, "model.ckpt-0.index")))
        self._assert_as_the_original(
            "chief_worker_evaluator", procs, model_dir, out_dir,
            {"chief0": _view("chief", 0, True, 2, 0),
             "worker0": _view("worker", 0, False, 2, 1)}, non_chief_workers=[0])

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
        self.assertAllEqual(np.load(os.path.join(out_dir, "worker0.npy")),
                            np.load(os.path.join(out_dir, "worker1.npy")))
        self.assertAllClose(tf.train.load_variable(model_dir, "dense/kernel"),
                            np.load(os.path.join(out_dir, "worker0.npy")))
        # Worker 0 wrote model_dir, as the original's chief: the same files, the same
        # exit statuses; the config views as documented.
        self._assert_as_the_original(
            "workers", procs, model_dir, out_dir,
            {"worker0": _view("worker", 0, True, 2, 0),
             "worker1": _view("worker", 1, False, 2, 1)}, non_chief_workers=[1])

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
