"""Sessions close off the caller's thread, once, and are all closed by exit."""

import subprocess
import sys
import textwrap
import threading
import time

import tensorflow as tf

from estimator_lib.tf_internals import patches as tf_patches
from estimator_lib.training import session as session_lib


class _SlowSession:
    """Stands in for a tf.compat.v1.Session whose close blocks until released."""

    def __init__(self):
        self.release = threading.Event()
        self.closes = 0

    def close(self):
        self.closes += 1
        self.release.wait(timeout=30)


class CloseInBackgroundTest(tf.test.TestCase):

    def tearDown(self):
        tf_patches.wait_for_closing_sessions()
        super().tearDown()

    def test_close_returns_before_the_session_is_closed_and_runs_once(self):
        slow = tf_patches.close_in_background(_SlowSession())
        start = time.time()
        slow.close()
        slow.close()  # BaseSession.__del__ closes again.
        self.assertLess(time.time() - start, 5)
        slow.release.set()
        tf_patches.wait_for_closing_sessions()
        self.assertEqual(slow.closes, 1)

    def test_pending_closes_are_bounded(self):
        sessions = [tf_patches.close_in_background(_SlowSession())
                    for _ in range(tf_patches._MAX_CLOSING + 1)]
        for slow in sessions[:-1]:
            slow.close()
        sessions[0].release.set()  # The oldest is joined before one more starts.
        sessions[-1].close()
        self.assertEqual(sessions[0].closes, 1)
        self.assertLessEqual(len(tf_patches._closing), tf_patches._MAX_CLOSING)
        for slow in sessions:
            slow.release.set()

    def test_a_local_session_closes_on_the_callers_thread(self):
        with tf.Graph().as_default():
            value = tf.constant(3)
            creator = session_lib.ChiefSessionCreator()
            with tf.compat.v1.train.MonitoredSession(session_creator=creator) as session:
                self.assertEqual(session.run(value), 3)
                raw = session._tf_sess()
        self.assertTrue(raw._closed)  # Closed when MonitoredSession returned.

    def test_real_session_is_closed_in_the_background(self):
        with tf.Graph().as_default():
            value = tf.constant(3)
            creator = session_lib.ChiefSessionCreator(close_in_background=True)
            with tf.compat.v1.train.MonitoredSession(session_creator=creator) as session:
                self.assertEqual(session.run(value), 3)
                raw = session._tf_sess()
        tf_patches.wait_for_closing_sessions()
        self.assertTrue(raw._closed)


class ProcessExitTest(tf.test.TestCase):

    def test_train_twice_then_exit_cleanly(self):
        # A close cut off by interpreter exit would abort the process (status 134).
        program = textwrap.dedent("""
            import numpy as np
            import estimator_lib as el
            import tensorflow as tf

            def input_fn():
                x = np.random.RandomState(0).rand(256, 4).astype("float32")
                data = tf.data.Dataset.from_tensor_slices((x, x.sum(1, keepdims=True)))
                return data.repeat().batch(32).prefetch(tf.data.AUTOTUNE)

            def model_fn(features, labels, mode):
                predictions = tf.compat.v1.layers.dense(features, 1)
                loss = tf.compat.v1.losses.mean_squared_error(labels, predictions)
                train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
                    loss, global_step=tf.compat.v1.train.get_or_create_global_step())
                return el.EstimatorSpec(mode, loss=loss, train_op=train_op)

            estimator = el.Estimator(model_fn, model_dir=%r)
            estimator.train(input_fn, steps=20)
            estimator.train(input_fn, steps=20)
            print("metrics", estimator.evaluate(input_fn, steps=2)["global_step"])
        """ % self.get_temp_dir())
        result = subprocess.run([sys.executable, "-c", program], capture_output=True,
                                text=True, timeout=300, check=False)
        self.assertEqual(result.returncode, 0, result.stderr[-3000:])
        self.assertIn("metrics 40", result.stdout)


if __name__ == "__main__":
    tf.test.main()
