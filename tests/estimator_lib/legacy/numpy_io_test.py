"""numpy_input_fn / pandas_input_fn: the original's arguments and batches, on tf.data."""

import tempfile
import types
from unittest import mock

import numpy as np
import tensorflow as tf
from absl.testing import parameterized

import estimator_lib as el
from estimator_lib.tf_internals import patches as tf_patches
from estimator_lib.legacy import numpy_io
from tests.estimator_lib import testing


def _batches(input_fn, limit=100):
    """The input_fn's batches as numpy values: its tensors run until the input ends."""
    batches = []
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        tensors = input_fn()
        while len(batches) < limit:
            try:
                batches.append(session.run(tensors))
            except tf.errors.OutOfRangeError:
                break
    return batches


class NumpyInputFnTest(parameterized.TestCase, tf.test.TestCase):

    def test_dict_x_and_array_y_in_order_with_a_smaller_last_batch(self):
        x = {"a": np.arange(10, dtype=np.float32), "b": np.arange(10, 20)}
        y = np.arange(100, 110)
        batches = _batches(numpy_io.numpy_input_fn(x, y, batch_size=4, shuffle=False))
        self.assertEqual([len(labels) for _, labels in batches], [4, 4, 2])
        features, labels = batches[0]
        self.assertEqual(sorted(features), ["a", "b"])
        self.assertAllEqual(features["a"], [0, 1, 2, 3])
        self.assertAllEqual(features["b"], [10, 11, 12, 13])
        self.assertAllEqual(labels, [100, 101, 102, 103])
        self.assertEqual(features["a"].dtype, np.float32)  # dtypes are kept

    def test_array_x_gives_a_tensor_and_no_y_gives_features_only(self):
        x = np.arange(12, dtype=np.float32).reshape(6, 2)
        batches = _batches(numpy_io.numpy_input_fn(x, batch_size=3, shuffle=False))
        self.assertLen(batches, 2)
        self.assertAllEqual(batches[0], x[:3])

    def test_dict_y_gives_a_dict_of_labels(self):
        x = {"a": np.arange(4)}
        y = {"t1": np.arange(4) * 2, "t2": np.arange(4) * 3}
        (features, labels), = _batches(numpy_io.numpy_input_fn(x, y, batch_size=4,
                                                               shuffle=False))
        self.assertAllEqual(features["a"], [0, 1, 2, 3])
        self.assertAllEqual(labels["t2"], [0, 3, 6, 9])

    def test_num_epochs(self):
        x = np.arange(5)
        two = _batches(numpy_io.numpy_input_fn(x, batch_size=2, num_epochs=2, shuffle=False))
        self.assertAllEqual(np.concatenate(two), [0, 1, 2, 3, 4] * 2)
        # num_epochs=None repeats forever, in full batches only (the original's
        # dequeue_many).
        forever = _batches(numpy_io.numpy_input_fn(x, batch_size=2, num_epochs=None,
                                                   shuffle=False), limit=7)
        self.assertLen(forever, 7)
        self.assertTrue(all(len(batch) == 2 for batch in forever))

    def test_shuffle_is_a_permutation_per_epoch(self):
        x = np.arange(32)
        values = np.concatenate(_batches(numpy_io.numpy_input_fn(
            x, batch_size=8, shuffle=True, queue_capacity=32)))
        self.assertCountEqual(values, x)
        self.assertNotAllEqual(values, x)

    @parameterized.named_parameters(
        ("none", None), ("int", 1), ("string", "True"))
    def test_shuffle_is_required(self, shuffle):
        with self.assertRaisesRegex(ValueError, r"shuffle must be provided and explicitly set as boolean .*Received"):
            numpy_io.numpy_input_fn(np.arange(3), shuffle=shuffle)

    def test_shuffle_has_no_default(self):
        with self.assertRaisesRegex(ValueError, "shuffle=None"):
            numpy_io.numpy_input_fn({"a": np.arange(3)}, np.arange(3))

    @parameterized.named_parameters(
        ("empty_dict", dict(x={}), "x cannot be an empty dict"),
        ("empty_array", dict(x=np.array([])), "x cannot be an empty array"),
        ("empty_y", dict(x={"a": np.arange(2)}, y={}), "y cannot be empty dict, use None"),
        ("duplicate_keys", dict(x={"a": np.arange(2)}, y={"a": np.arange(2)}),
         r"duplicate keys are found in both x and y: \['a'\]"),
        ("lengths", dict(x={"a": np.arange(2)}, y=np.arange(3)),
         "Length of tensors in x and y is mismatched"),
        ("batch_size", dict(x=np.arange(2), batch_size=0),
         "`batch_size` must be a positive integer. Received: batch_size=0"),
        ("num_epochs", dict(x=np.arange(2), num_epochs=-1),
         "`num_epochs` must be a non-negative integer or None"),
        ("queue_capacity", dict(x=np.arange(2), queue_capacity=-1), "`queue_capacity`"),
        ("num_threads", dict(x=np.arange(2), num_threads=1.5), "`num_threads`"),
    )
    def test_bad_arguments(self, kwargs, message):
        with self.assertRaisesRegex(ValueError, message):
            numpy_io.numpy_input_fn(shuffle=False, **kwargs)

    def test_x_of_another_type_is_a_type_error(self):
        with self.assertRaisesRegex(TypeError, "x must be a dict or array"):
            numpy_io.numpy_input_fn([1, 2], shuffle=False)

    def test_calling_the_input_fn_gives_tensors_as_the_original(self):
        # Legacy code calls the input_fn itself and runs its tensors in a session.
        x = {"a": np.arange(4.0), "b": np.arange(32, 36)}
        with tf.Graph().as_default(), tf.compat.v1.Session() as session:
            features, labels = numpy_io.numpy_input_fn(
                x, np.arange(-32, -28), batch_size=2, shuffle=False)()
            self.assertIsInstance(labels, tf.Tensor)
            first = session.run([features, labels])
            session.run([features, labels])
            with self.assertRaises(tf.errors.OutOfRangeError):
                session.run([features, labels])
            # No queue, so no queue-fullness summary (the original's queues added one).
            self.assertEmpty(tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.SUMMARIES))
        self.assertAllEqual(first[0]["b"], [32, 33])
        self.assertAllEqual(first[1], [-32, -31])

    def test_zero_epochs_and_automatic_queue_capacity(self):
        self.assertEqual(_batches(numpy_io.numpy_input_fn(np.arange(4), shuffle=False,
                                                          num_epochs=0)), [])
        values = _batches(numpy_io.numpy_input_fn(np.arange(6), shuffle=True,
                                                  queue_capacity=None, batch_size=6))
        self.assertCountEqual(values[0], np.arange(6))

    def test_a_wrapping_input_fn_gets_tensors_inside_the_estimator(self):
        x, y = testing.separable_data(64)
        inner = numpy_io.numpy_input_fn({"x": x}, y, batch_size=16, num_epochs=None,
                                        shuffle=True)

        def input_fn():
            features, labels = inner()
            return {"x": features["x"] * 1.0}, labels

        est = el.Estimator(testing.linear_model_fn,
                           model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()))
        est.train(input_fn, steps=2)
        self.assertEqual(est.get_variable_value("global_step"), 2)

    def test_paths_that_consume_datasets_get_the_dataset(self):
        # A strategy's per-replica input and the in-graph loop take Datasets only.
        x, y = testing.separable_data(64)
        for options in (dict(train_distribute=tf.distribute.MirroredStrategy(
                ["CPU:0", "CPU:1"])), dict(steps_per_run=2)):
            est = el.Estimator(testing.linear_model_fn, config=el.RunConfig(
                model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()), **options))
            est.train(numpy_io.numpy_input_fn({"x": x}, y, batch_size=8, num_epochs=None,
                                              shuffle=True), steps=4)
            self.assertEqual(est.get_variable_value("global_step"), 4)

    def test_trains_and_evaluates_an_estimator(self):
        x, y = testing.separable_data(64)
        est = el.Estimator(testing.linear_model_fn,
                           model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()))
        est.train(numpy_io.numpy_input_fn({"x": x}, y, batch_size=16, num_epochs=None,
                                          shuffle=True), steps=3)
        results = est.evaluate(numpy_io.numpy_input_fn({"x": x}, y, batch_size=32,
                                                       shuffle=False))
        self.assertEqual(results["global_step"], 3)
        self.assertEqual(sorted(results), ["accuracy", "global_step", "loss"])

    def test_large_arrays_are_fed_not_frozen_into_the_graph(self):
        x = np.zeros((40000, 8), np.float32)  # 1.28 MB: over the size the Estimator feeds.
        with tf.Graph().as_default():
            with tf_patches.large_arrays_fed() as feeds:
                numpy_io.numpy_input_fn({"x": x}, np.zeros(40000), shuffle=True)()
        self.assertIn((40000, 8), [array.shape for array in feeds.values()])
        self.assertLen(feeds.initializers, 1)  # the one-shot iterator became initializable


class _FakeSeries:

    def __init__(self, values, index):
        self.values = np.asarray(values)
        self.index = list(index)


class _FakeDataFrame:

    def __init__(self, columns, index):
        self._columns = {name: _FakeSeries(values, index) for name, values in columns.items()}
        self.columns = list(columns)
        self.index = list(index)

    def __getitem__(self, name):
        return self._columns[name]


_FAKE_PANDAS = types.SimpleNamespace(DataFrame=_FakeDataFrame, Series=_FakeSeries)


def _pandas_modules():
    """The fake pandas always; the real one too when it is installed."""
    modules = [("fake", _FAKE_PANDAS)]
    real = numpy_io._import_pandas()  # pylint: disable=protected-access
    if real is not None:
        modules.append(("real", real))
    return modules


class PandasInputFnTest(parameterized.TestCase, tf.test.TestCase):

    def _frame(self, pandas, columns, index):
        if pandas is _FAKE_PANDAS:
            return _FakeDataFrame(columns, index)
        return pandas.DataFrame(columns, index=index)

    def _series(self, pandas, values, index):
        if pandas is _FAKE_PANDAS:
            return _FakeSeries(values, index)
        return pandas.Series(values, index=index)

    @parameterized.named_parameters(*_pandas_modules())
    def test_columns_become_features_and_series_labels(self, pandas):
        index = list(range(10, 15))
        x = self._frame(pandas, {"a": np.arange(5), "b": np.arange(5) * 2.0}, index)
        y = self._series(pandas, np.arange(5) * 10, index)
        with mock.patch.object(numpy_io, "_import_pandas", return_value=pandas):
            input_fn = numpy_io.pandas_input_fn(x, y, batch_size=2, shuffle=False)
        batches = _batches(input_fn)
        self.assertLen(batches, 3)
        features, labels = batches[0]
        self.assertEqual(sorted(features), ["a", "b"])
        self.assertAllEqual(features["b"], [0.0, 2.0])
        self.assertAllEqual(labels, [0, 10])

    @parameterized.named_parameters(*_pandas_modules())
    def test_dataframe_labels_are_a_dict(self, pandas):
        x = self._frame(pandas, {"a": np.arange(3)}, [0, 1, 2])
        y = self._frame(pandas, {"t": np.arange(3) + 5}, [0, 1, 2])
        with mock.patch.object(numpy_io, "_import_pandas", return_value=pandas):
            (_, labels), = _batches(numpy_io.pandas_input_fn(x, y, shuffle=False))
        self.assertAllEqual(labels["t"], [5, 6, 7])

    @parameterized.named_parameters(*_pandas_modules())
    def test_errors(self, pandas):
        x = self._frame(pandas, {"a": np.arange(3), "target": np.arange(3)}, [0, 1, 2])
        with mock.patch.object(numpy_io, "_import_pandas", return_value=pandas):
            with self.assertRaisesRegex(ValueError, "shuffle=None"):
                numpy_io.pandas_input_fn(x)
            with self.assertRaisesRegex(ValueError, "Cannot use name 'target'"):
                numpy_io.pandas_input_fn(x, self._series(pandas, [1, 2, 3], [0, 1, 2]),
                                         shuffle=False)
            with self.assertRaisesRegex(ValueError, "Index for x and y are mismatched"):
                numpy_io.pandas_input_fn(x, self._series(pandas, [1, 2, 3], [1, 2, 3]),
                                         shuffle=False, target_column="label")
            with self.assertRaisesRegex(TypeError, "`x` must be a pandas DataFrame"):
                numpy_io.pandas_input_fn(np.arange(3), shuffle=False)

    def test_without_pandas_says_so(self):
        with mock.patch.object(numpy_io, "_import_pandas", return_value=None):
            with self.assertRaisesRegex(TypeError, "pandas_input_fn needs pandas"):
                numpy_io.pandas_input_fn(object(), shuffle=False)


if __name__ == "__main__":
    tf.test.main()
