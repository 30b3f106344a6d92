"""Process-wide swaps shared by threads: 8 threads race each, nothing stays swapped.

Entries are staggered and exits come in the order of entry, the order in which a swap
that saves "the original" per thread (the earlier large_arrays_fed) left TensorFlow's
functions replaced for good; a free race through a barrier follows.
"""

import contextlib
import threading
import warnings

import numpy as np
import tensorflow as tf
from tensorflow.python.data.ops import dataset_ops
from tensorflow.python.data.ops import multi_device_iterator_ops
from tensorflow.python.framework import constant_op

from estimator_lib.tf_internals import patches
from estimator_lib.tf_internals import process_swaps

_THREADS = 8
_TIMEOUT = 60


def _originals():
    # pylint: disable=protected-access
    return (constant_op._constant_impl, dataset_ops.DatasetV1._make_one_shot_iterator,
            multi_device_iterator_ops._create_device_dataset)


def _race(context, *, staggered: bool):
    """Runs `context()` in 8 threads, all inside at once; returns their errors.

    staggered: thread i enters after thread i-1 entered, and leaves after it left.
    """
    inside = threading.Barrier(_THREADS, timeout=_TIMEOUT)
    entered = [threading.Event() for _ in range(_THREADS)]
    left = [threading.Event() for _ in range(_THREADS)]
    errors = []

    def run(index):
        try:
            if staggered and index:
                assert entered[index - 1].wait(_TIMEOUT)
            with context():
                entered[index].set()
                inside.wait()
                if staggered and index:
                    assert left[index - 1].wait(_TIMEOUT)
            left[index].set()
        except Exception as error:  # pylint: disable=broad-except
            errors.append(error)
            inside.abort()
            entered[index].set()
            left[index].set()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(_THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(_TIMEOUT)
    return errors


class SharedSwapTest(tf.test.TestCase):

    @staticmethod
    @contextlib.contextmanager
    def _both_contexts():
        with tf.Graph().as_default():
            with patches.large_arrays_fed(), patches.per_device_autotune_off():
                yield

    def test_eight_threads_leave_tensorflow_as_found(self):
        before = _originals()
        for staggered in (True, False):
            errors = _race(self._both_contexts, staggered=staggered)
            self.assertEqual(errors, [])
            after = _originals()
            for name, first, last in zip(("_constant_impl", "_make_one_shot_iterator",
                                          "_create_device_dataset"), before, after):
                self.assertIs(last, first, f"{name} left swapped (staggered={staggered})")

    def test_other_threads_see_tensorflow_unchanged_while_one_is_inside(self):
        entered, leave = threading.Event(), threading.Event()

        def inside():
            with tf.Graph().as_default(), patches.large_arrays_fed():
                entered.set()
                leave.wait(_TIMEOUT)

        thread = threading.Thread(target=inside)
        thread.start()
        try:
            self.assertTrue(entered.wait(_TIMEOUT))
            array = np.zeros(patches.LARGE_ARRAY_BYTES // 4, np.float32)
            with tf.Graph().as_default():
                constant = tf.constant(array)
                self.assertEqual(constant.op.type, "Const")  # Not a placeholder.
                dataset = tf.compat.v1.data.Dataset.range(3)
                next_element = tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()
                with tf.compat.v1.Session() as session:
                    self.assertEqual(session.run(next_element), 0)
        finally:
            leave.set()
            thread.join(_TIMEOUT)

    def test_the_thread_inside_feeds_its_large_arrays(self):
        array = np.zeros(patches.LARGE_ARRAY_BYTES // 4, np.float32)
        with tf.Graph().as_default():
            with patches.large_arrays_fed() as feeds:
                tensor = tf.constant(array)
            self.assertEqual(tensor.op.type, "Placeholder")
            self.assertIn(tensor, feeds)


class IgnoringWarningsTest(tf.test.TestCase):

    def test_eight_threads_leave_the_filters_as_found(self):
        before = list(warnings.filters)
        for staggered in (True, False):
            errors = _race(lambda: process_swaps.ignoring_warnings("estimator_lib test",
                                                                   UserWarning),
                           staggered=staggered)
            self.assertEqual(errors, [])
            self.assertEqual(warnings.filters, before)

    def test_the_warning_is_ignored_inside_only(self):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with process_swaps.ignoring_warnings("estimator_lib test", UserWarning):
                warnings.warn("estimator_lib test: inside", UserWarning)
            warnings.warn("estimator_lib test: outside", UserWarning)
        self.assertEqual([str(w.message) for w in caught], ["estimator_lib test: outside"])

    def test_a_filter_the_program_added_meanwhile_stays(self):
        with warnings.catch_warnings():
            with process_swaps.ignoring_warnings("estimator_lib test", UserWarning):
                warnings.filterwarnings("error", message="the program's own")
            self.assertEqual(warnings.filters[0][0], "error")
            self.assertFalse(any(f[1] is not None and f[1].pattern == "estimator_lib test"
                                 for f in warnings.filters))


if __name__ == "__main__":
    tf.test.main()
