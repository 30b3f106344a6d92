"""The original's `_FeedingQueueRunner` at its path: fed enqueues, the queue closed by the
last thread, the original's refusals (census: a GitHub trainer imports it)."""

import tensorflow as tf

from estimator_lib import compat
from estimator_lib.legacy.feeding_queue_runner import _FeedingQueueRunner


def _fed_queue(count, threads=1):
    """(queue, runner) whose `threads` enqueue threads share the values 0..count-1."""
    # Capacity 2: the threads block on a full queue until the test dequeues, so they
    # are still running when it asks for threads again.
    queue = tf.queue.FIFOQueue(2, tf.int32, shapes=[])
    value = tf.compat.v1.placeholder(tf.int32, [])
    values = iter(range(count))

    def feed():
        try:
            return {value: next(values)}
        except StopIteration:
            raise tf.errors.OutOfRangeError(None, None, "no more values") from None

    runner = _FeedingQueueRunner(queue, [queue.enqueue(value)] * threads, queue.close(),
                                 queue.close(cancel_pending_enqueues=True),
                                 feed_fns=[feed] * threads)
    return queue, runner


class FeedingQueueRunnerTest(tf.test.TestCase):

    def test_feeds_every_enqueue_and_the_last_thread_closes_the_queue(self):
        with tf.Graph().as_default():
            queue, runner = _fed_queue(7, threads=2)
            dequeue = queue.dequeue()
            with tf.compat.v1.Session() as session:
                coord = tf.train.Coordinator()
                threads = runner.create_threads(session, coord=coord, start=True)
                self.assertLen(threads, 3)  # Two enqueue threads and the canceller.
                self.assertEqual([], runner.create_threads(session))  # Still running.
                got = sorted(session.run(dequeue) for _ in range(7))
                with self.assertRaises(tf.errors.OutOfRangeError):
                    session.run(dequeue)  # Closed once both threads saw the end.
                coord.request_stop()
                coord.join(threads)
        self.assertEqual(list(range(7)), got)
        self.assertEqual([], runner.exceptions_raised)

    def test_the_originals_refusals(self):
        with tf.Graph().as_default():
            queue = tf.queue.FIFOQueue(1, tf.int32, shapes=[])
            with self.assertRaisesRegex(ValueError, "must have the same length as "
                                                    "enqueue_ops"):
                _FeedingQueueRunner(queue, [queue.enqueue(1)], feed_fns=[None, None])
            runner = _FeedingQueueRunner(queue, [queue.enqueue(1)])
            with self.assertRaisesRegex(NotImplementedError, "_FeedingQueueRunner does not "
                                                             "support serialization"):
                runner.to_proto()

    def test_it_stands_at_the_originals_path(self):
        was_installed = compat.is_installed()
        compat.install()
        try:
            # pylint: disable-next=import-outside-toplevel
            from tensorflow_estimator.python.estimator.inputs.queues import (
                feeding_queue_runner)
            self.assertIs(feeding_queue_runner._FeedingQueueRunner, _FeedingQueueRunner)
        finally:
            if not was_installed:
                compat.uninstall()


if __name__ == "__main__":
    tf.test.main()
