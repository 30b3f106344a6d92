"""Corrupt checkpoints, unwritable model_dirs, concurrent runs and hostile inputs."""

import errno
import glob
import json
import os
import socket
import subprocess
import sys
import tempfile
from unittest import mock

import tensorflow as tf
import tf_keras

import estimator_lib as el
from estimator_lib.training import model_dir_lock
from tests.estimator_lib import testing


def _corrupt(prefix):
    """Truncates the data file of checkpoint `prefix` to half its size."""
    for path in glob.glob(prefix + ".data-*"):
        size = os.path.getsize(path)
        with open(path, "r+b") as f:
            f.truncate(size // 2)


class CorruptCheckpointTest(tf.test.TestCase):

    def _trained(self):
        estimator = el.Estimator(testing.linear_model_fn, config=el.RunConfig(
            model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()), save_checkpoints_steps=2))
        estimator.train(testing.train_input_fn(), steps=4)  # Checkpoints 0, 2, 4.
        return estimator

    def test_training_resumes_from_the_newest_readable_checkpoint(self):
        estimator = self._trained()
        newest = estimator.latest_checkpoint()
        _corrupt(newest)
        with self.assertLogs("tensorflow", level="WARNING") as captured:
            estimator.train(testing.train_input_fn(), steps=1)
        warning = [r.getMessage() for r in captured.records if "unreadable" in r.getMessage()]
        self.assertLen(warning, 1)
        self.assertIn("model.ckpt-4", warning[0])
        self.assertIn("model.ckpt-4.data-00000-of-00001", warning[0])
        self.assertIn("resuming from", warning[0])
        self.assertEqual(estimator.get_variable_value("global_step"), 3)  # 2 + 1.

    def test_a_relative_model_dir_is_named_once_in_the_warning(self):
        base = tempfile.mkdtemp(dir=self.get_temp_dir())
        previous = os.getcwd()
        os.chdir(base)
        try:
            estimator = el.Estimator(testing.linear_model_fn, config=el.RunConfig(
                model_dir=os.path.join("runs", "relative"), save_checkpoints_steps=2))
            estimator.train(testing.train_input_fn(), steps=4)
            _corrupt(os.path.join("runs", "relative", "model.ckpt-4"))
            with self.assertLogs("tensorflow", level="WARNING") as captured:
                estimator.train(testing.train_input_fn(), steps=1)
        finally:
            os.chdir(previous)
        warning = [r.getMessage() for r in captured.records if "unreadable" in r.getMessage()]
        self.assertLen(warning, 1)
        self.assertIn(os.path.join("runs", "relative", "model.ckpt-4 "), warning[0])
        self.assertNotIn(os.path.join("runs", "relative", "runs", "relative"), warning[0])
        self.assertIn("resuming from " + os.path.join("runs", "relative", "model.ckpt-2"),
                      warning[0])

    def test_evaluation_and_export_refuse_a_corrupt_checkpoint(self):
        estimator = self._trained()
        _corrupt(estimator.latest_checkpoint())
        with self.assertRaisesRegex(ValueError, r"model.ckpt-4 is unreadable .*files: "):
            estimator.evaluate(testing.eval_input_fn())
        receiver = el.export.build_raw_serving_input_receiver_fn({"x": tf.zeros([1, 4])})
        with self.assertRaisesRegex(ValueError, "is unreadable"):
            estimator.export_saved_model(os.path.join(self.get_temp_dir(), "export"),
                                         receiver)
        self.assertFalse(os.path.exists(os.path.join(self.get_temp_dir(), "export")) and any(
            name.isdigit() for name in os.listdir(os.path.join(self.get_temp_dir(), "export"))))

    def test_no_readable_checkpoint_is_an_error_not_a_fresh_start(self):
        estimator = self._trained()
        for prefix in {p[:-len(".index")] for p in glob.glob(
                os.path.join(estimator.model_dir, "model.ckpt-*.index"))}:
            _corrupt(prefix)
        with self.assertRaisesRegex(RuntimeError, "No readable checkpoint in"):
            estimator.train(testing.train_input_fn(), steps=1)


def _grown_model_fn(iterations):
    """A model_fn with one linear layer per iteration, `iteration_<i>/w` (adanet's way)."""

    def model_fn(features, labels, mode):
        logits = 0.
        for i in range(iterations):
            with tf.compat.v1.variable_scope(f"iteration_{i}"):
                w = tf.compat.v1.get_variable("w", [4, 2])
            logits += tf.matmul(features["x"], w)
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step())
        return el.EstimatorSpec(mode, loss=loss, train_op=train_op)

    return model_fn


class StateFileCheckpointTest(tf.test.TestCase):

    def test_the_state_files_checkpoint_is_restored_on_a_tie_of_steps(self):
        # adanet grows its graph between iterations: a second Saver restores the old
        # variables and writes the grown graph as `increment.ckpt-1` next to
        # `model.ckpt-1`; the state file names it, and the original restored it.
        model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        el.Estimator(_grown_model_fn(1), model_dir=model_dir).train(
            testing.train_input_fn(), steps=1)
        old = tf.train.latest_checkpoint(model_dir)
        self.assertEndsWith(old, "model.ckpt-1")
        with tf.Graph().as_default():
            tf.compat.v1.train.create_global_step()
            with tf.compat.v1.variable_scope("iteration_0"):
                w0 = tf.compat.v1.get_variable("w", [4, 2])
            with tf.compat.v1.variable_scope("iteration_1"):
                tf.compat.v1.get_variable("w", [4, 2], initializer=tf.ones_initializer())
            restorer = tf.compat.v1.train.Saver(
                var_list=[w0, tf.compat.v1.train.get_global_step()])
            grower = tf.compat.v1.train.Saver()
            grower.recover_last_checkpoints(
                tf.train.get_checkpoint_state(model_dir).all_model_checkpoint_paths)
            with tf.compat.v1.Session() as session:
                session.run(tf.compat.v1.global_variables_initializer())
                restorer.restore(session, old)
                grower.save(session, os.path.join(model_dir, "increment.ckpt"), global_step=1)
        self.assertEndsWith(tf.train.latest_checkpoint(model_dir), "increment.ckpt-1")

        grown = el.Estimator(_grown_model_fn(2), model_dir=model_dir)
        grown.train(testing.train_input_fn(), steps=1)
        self.assertEqual(grown.get_variable_value("global_step"), 2)
        # Trained on from the grown checkpoint's ones, not initialised afresh.
        self.assertAllClose(grown.get_variable_value("iteration_1/w"), tf.ones([4, 2]),
                            atol=0.2)


class UnwritableModelDirTest(tf.test.TestCase):

    def test_read_only_model_dir_fails_at_the_first_write(self):
        estimator = el.Estimator(testing.linear_model_fn,
                                 model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()))
        with mock.patch.object(model_dir_lock.os, "open",
                               side_effect=OSError(errno.EROFS, "Read-only file system")):
            with self.assertRaisesRegex(RuntimeError, "Cannot write into model_dir .*"
                                                      "Read-only file system"):
                estimator.train(testing.train_input_fn(), steps=1)

    def test_full_disk_stops_training_with_the_newest_complete_checkpoint_named(self):
        estimator = el.Estimator(testing.linear_model_fn, config=el.RunConfig(
            model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()), save_checkpoints_steps=2))
        estimator.train(testing.train_input_fn(), steps=2)
        real_save = tf.compat.v1.train.Saver.save
        calls = []

        def save_until_full(saver, session, path, global_step=None, **kwargs):
            calls.append(global_step)
            if len(calls) > 1:
                raise OSError(errno.ENOSPC, "No space left on device")
            return real_save(saver, session, path, global_step=global_step, **kwargs)

        with mock.patch.object(tf.compat.v1.train.Saver, "save", save_until_full):
            with self.assertRaisesRegex(RuntimeError, r"Could not write checkpoint 4 .*No "
                                                      r"space left.*newest complete one is "
                                                      r".*model.ckpt-2"):
                estimator.train(testing.train_input_fn(), steps=4)
        self.assertEqual(estimator.get_variable_value("global_step"), 2)
        # The failed run released its lock: training can go on once there is space.
        estimator.train(testing.train_input_fn(), steps=1)


class ConcurrentTrainingTest(tf.test.TestCase):

    def _lock(self, model_dir, pid):
        with open(os.path.join(model_dir, model_dir_lock.LOCK_NAME), "w") as f:
            json.dump({"pid": pid, "host": socket.gethostname(), "started": 0}, f)

    def test_a_second_training_into_the_same_model_dir_is_refused(self):
        model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        try:
            self._lock(model_dir, other.pid)
            estimator = el.Estimator(testing.linear_model_fn, model_dir=model_dir)
            with self.assertRaisesRegex(RuntimeError, rf"in use by another training \(pid "
                                                      rf"{other.pid} on "):
                estimator.train(testing.train_input_fn(), steps=1)
            self.assertIsNone(estimator.latest_checkpoint())
        finally:
            other.kill()
            other.wait()
        # The owner is gone now: its stale lock is taken over.
        with self.assertLogs("tensorflow", level="WARNING"):
            estimator.train(testing.train_input_fn(), steps=1)
        self.assertFalse(os.path.exists(os.path.join(model_dir, model_dir_lock.LOCK_NAME)))


class HostileInputTest(tf.test.TestCase):

    def test_lambda_layers_from_a_path_need_an_opt_in(self):
        tf_keras.backend.clear_session()
        model = tf_keras.Sequential([
            tf_keras.layers.Dense(2, input_shape=(4,)),
            tf_keras.layers.Lambda(lambda x: x * 2.0)])
        model.compile("sgd", "mse")
        paths = [os.path.join(tempfile.mkdtemp(dir=self.get_temp_dir()), name)
                 for name in ("model.h5", "saved_model_dir")]
        for path in paths:  # Before any conversion, which leaves the model unusable.
            model.save(path)
        for path in paths:
            with self.assertRaisesRegex(ValueError, "has a Lambda layer holding a Python "
                                                    "`lambda`.*safe_mode=False"):
                el.model_to_estimator(keras_model_path=path,
                                      model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()))
            estimator = el.model_to_estimator(
                keras_model_path=path, safe_mode=False,
                model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()))
            self.assertIsNotNone(estimator)


if __name__ == "__main__":
    tf.test.main()
