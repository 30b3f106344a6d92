"""The original's `inputs/queues/feeding_queue_runner._FeedingQueueRunner`, for code that
builds its own fed queues with it (numpy_input_fn and pandas_input_fn here feed tf.data,
not queues: legacy/numpy_io.py).

compat.install() puts it at `tensorflow_estimator.python.estimator.inputs.queues.
feeding_queue_runner` (legacy/original_tree.py). A `tf.compat.v1.train.QueueRunner`
whose enqueue threads each call a feed function before every enqueue; it keeps its own
count of the threads still running per session (the last one to see the queue closed
closes it), and touches nothing private of TensorFlow's QueueRunner.
"""

import threading

import tensorflow as tf

logging = tf.compat.v1.logging


class _FeedingQueueRunner(tf.compat.v1.train.queue_runner.QueueRunner):
    """A QueueRunner whose enqueue ops are run with `feed_fns()`'s feed dicts.

    Args:
        queue: The `Queue`.
        enqueue_ops: The enqueue ops, each run in a thread of its own.
        close_op: Closes the queue (pending enqueues kept).
        cancel_op: Closes the queue and cancels pending enqueues.
        feed_fns: One function per enqueue op returning its feed dict (None: no feed).
        queue_closed_exception_types: The errors that mean the queue was closed;
            `(tf.errors.OutOfRangeError, tf.errors.CancelledError)` by default.

    Raises:
        ValueError: If `feed_fns` is not as long as `enqueue_ops`.
    """

    def __init__(self, queue=None, enqueue_ops=None, close_op=None, cancel_op=None,
                 feed_fns=None, queue_closed_exception_types=None):
        if queue_closed_exception_types is None:
            queue_closed_exception_types = (tf.errors.OutOfRangeError,
                                            tf.errors.CancelledError)
        super().__init__(queue, enqueue_ops, close_op, cancel_op,
                         queue_closed_exception_types=queue_closed_exception_types)
        if feed_fns is None:
            feed_fns = [None] * len(enqueue_ops)
        elif len(feed_fns) != len(enqueue_ops):
            raise ValueError("If feed_fns is not None, it must have the same length as "
                             "enqueue_ops.")
        self._feed_fns = feed_fns
        self._feeding_lock = threading.Lock()
        self._feeding_threads = {}  # session -> enqueue threads still running
        self._feeding_errors = []

    @property
    def exceptions_raised(self):
        """The errors the enqueue threads raised without a coordinator to report to."""
        return self._feeding_errors

    def _run(self, sess, enqueue_op, feed_fn, coord=None):  # pylint: disable=arguments-differ
        """Runs `enqueue_op` with `feed_fn()`'s feeds until the queue closes or `coord`
        stops; the last thread of `sess` to finish closes the queue."""
        if coord:
            coord.register_thread(threading.current_thread())
        closed = False
        try:
            while not (coord and coord.should_stop()):
                try:
                    sess.run(enqueue_op, feed_dict=None if feed_fn is None else feed_fn())
                except self.queue_closed_exception_types:
                    closed = True
                    if self._finished(sess):
                        try:
                            sess.run(self.close_op)
                        except Exception as e:  # pylint: disable=broad-except
                            logging.vlog(1, "Ignored exception: %s", str(e))
                    return
        except Exception as e:  # pylint: disable=broad-except
            if not coord:
                logging.error("Exception in QueueRunner: %s", str(e))
                with self._feeding_lock:
                    self._feeding_errors.append(e)
                raise
            coord.request_stop(e)
        finally:
            if not closed:
                self._finished(sess)

    def _finished(self, sess) -> bool:
        """Counts one thread of `sess` done; True for its last."""
        with self._feeding_lock:
            self._feeding_threads[sess] -= 1
            return self._feeding_threads[sess] == 0

    def create_threads(self, sess, coord=None, daemon=False, start=False):
        """Returns a thread per enqueue op for `sess` (none while earlier ones still run),
        and with `coord` one more that cancels the queue when it stops.

        Args:
            sess: The `Session` the graph runs in.
            coord: An optional `tf.train.Coordinator` the threads report to.
            daemon: Whether the threads are daemon threads.
            start: Whether to start them.
        """
        with self._feeding_lock:
            if self._feeding_threads.get(sess, 0) > 0:
                return []
            self._feeding_threads[sess] = len(self.enqueue_ops)
            self._feeding_errors = []
        daemon = daemon or None  # None: the creating thread's, as the original.
        threads = [threading.Thread(target=self._run, args=(sess, op, feed_fn, coord),
                                    daemon=daemon)
                   for op, feed_fn in zip(self.enqueue_ops, self._feed_fns)]
        if coord:
            threads.append(threading.Thread(target=self._cancel_on_stop, daemon=daemon,
                                            args=(sess, self.cancel_op, coord)))
        for thread in threads:
            if start:
                thread.start()
        return threads

    @staticmethod
    def _cancel_on_stop(sess, cancel_op, coord):
        coord.wait_for_stop()
        try:
            sess.run(cancel_op)
        except Exception as e:  # pylint: disable=broad-except
            logging.vlog(1, "Ignored exception: %s", str(e))

    def _init_from_proto(self, queue_runner_def):  # pylint: disable=arguments-differ
        raise NotImplementedError(
            f"{type(self).__name__} does not support initialization from proto.")

    def to_proto(self):  # pylint: disable=arguments-differ
        """Raises NotImplementedError: a feed function has no proto form."""
        raise NotImplementedError(
            f"{type(self).__name__} does not support serialization to proto.")
