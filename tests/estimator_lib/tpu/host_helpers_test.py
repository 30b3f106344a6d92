"""The no-TPU helpers of the original's tpu_estimator.py and tpu/util.py."""

import signal

import tensorflow as tf

from estimator_lib.tpu import host_helpers
from estimator_lib.tpu import tpu_estimator
from estimator_lib.tpu import util


class HostHelpersTest(tf.test.TestCase):

    def test_reexported_at_the_original_modules(self):
        self.assertIs(host_helpers.BatchConfig, tpu_estimator.BatchConfig)
        self.assertIs(host_helpers.PeriodicLogger, tpu_estimator.PeriodicLogger)
        self.assertIs(host_helpers.InstallSignalHandlerHook,
                      tpu_estimator.InstallSignalHandlerHook)
        self.assertIs(host_helpers.MultiHostDatasetInitializerHook,
                      util.MultiHostDatasetInitializerHook)

    def test_batch_config(self):
        config = host_helpers.BatchConfig(2, 8, 100, [4, 8])
        self.assertEqual((2, 8, 100, [4, 8], 100), tuple(config))
        self.assertEqual(5, config._replace(max_enqueued_batches=5).max_enqueued_batches)

    def test_periodic_logger(self):
        now = [100.0]
        logger = host_helpers.PeriodicLogger(10, clock=lambda: now[0])
        with self.assertLogs("tensorflow", "INFO") as logs:
            logger.log("one %d", 1)
            now[0] = 105.0
            logger.log("two")  # Within 10 s: not logged.
            now[0] = 111.0
            logger.log("three")
        self.assertEqual(["one 1", "three"], [r.getMessage() for r in logs.records])

    def test_signal_handler_hook_restores_the_handler(self):
        def handler(signum, frame):
            del signum, frame

        previous = signal.signal(signal.SIGINT, handler)
        try:
            hook = host_helpers.InstallSignalHandlerHook()
            hook.before_run(None)
            self.assertIs(signal.SIG_DFL, signal.getsignal(signal.SIGINT))
            hook.end(None)
            self.assertIs(handler, signal.getsignal(signal.SIGINT))
        finally:
            signal.signal(signal.SIGINT, previous)

    def test_multi_host_dataset_initializer_hook(self):
        with tf.Graph().as_default():
            iterator = tf.compat.v1.data.make_initializable_iterator(
                tf.data.Dataset.range(3))
            next_element = iterator.get_next()
            hook = host_helpers.MultiHostDatasetInitializerHook([iterator.initializer])
            with self.assertLogs("tensorflow", "INFO") as logs, \
                    tf.compat.v1.train.MonitoredSession(hooks=[hook]) as session:
                self.assertEqual(0, session.run(next_element))
            self.assertIn("Initialized dataset iterators in", "\n".join(logs.output))


if __name__ == "__main__":
    tf.test.main()
