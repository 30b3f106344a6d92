"""Repeated session runs through callables: what a run returns, raises and records is
what `Session.run` gives; only the interpretation of the fetches is reused."""

import collections
from unittest import mock

import numpy as np
import tensorflow as tf

import estimator_lib  # noqa: F401  (legacy Keras switch before TensorFlow's)
# pylint: disable-next=g-direct-tensorflow-import
from tensorflow.python.client import pywrap_tf_session as tf_session
from estimator_lib.tf_internals import session_runs

Pair = collections.namedtuple("Pair", ["a", "b"])


class _Key:
    """Stands for a hook: MonitoredSession keys the hooks' fetches by the hook object."""


class RepeatedRunsTest(tf.test.TestCase):

    def setUp(self):
        super().setUp()
        self.graph = tf.Graph()
        with self.graph.as_default():
            self.v = tf.compat.v1.get_variable("v", initializer=0.0)
            self.inc = tf.compat.v1.assign_add(self.v, 1.0, name="inc")
            # Read after the increment: fetched in the same run as `inc`, an unordered
            # read could see either value (it did, 2 runs in 15 under load).
            with tf.control_dependencies([self.inc]):
                self.v_now = self.v.read_value()
            self.c = tf.constant([1.0, 2.0], name="c")
            self.x = tf.compat.v1.placeholder(tf.float32, [2], name="x")
            self.doubled = self.x * 2.0
            self.bad = tf.debugging.check_numerics(tf.constant(np.inf), "made to fail",
                                                   name="bad")
            self.sparse = tf.SparseTensor([[0, 1]], [3.0], [2, 2])
            init = tf.compat.v1.global_variables_initializer()
        self.graph.finalize()
        self.plain = tf.compat.v1.Session(graph=self.graph)
        self.fast = session_runs.fast_repeated_runs(tf.compat.v1.Session(graph=self.graph))
        for session in (self.plain, self.fast):
            session.run(init)

    def tearDown(self):
        self.plain.close()
        self.fast.close()
        super().tearDown()

    def _both(self, fetches, **kwargs):
        return self.plain.run(fetches, **kwargs), self.fast.run(fetches, **kwargs)

    def test_results_have_the_structure_session_run_gives(self):
        key = _Key()
        for fetches in (self.c, self.inc, "c:0", [self.inc, self.c],
                        {"caller": [self.inc, self.c], key: {"v": self.v_now}},
                        Pair(self.c, (self.inc, "c:0")), self.sparse,
                        collections.OrderedDict(a=self.c), [],
                        {"a": self.c, "b": [self.c, self.inc], key: ()}):
            plain, fast = self._both(fetches)
            self._assert_same(plain, fast)
        self.assertEqual(self.plain.run(self.v), self.fast.run(self.v))  # both stepped alike

    def test_a_tensor_fetched_twice_is_one_value_as_session_run_gives(self):
        for session in (self.plain, self.fast):
            for _ in range(2):  # The fast session's second run is its callable's.
                result = session.run({"a": self.c, "b": [self.c, self.inc]})
                self.assertIs(result["a"], result["b"][0])

    def _assert_same(self, plain, fast):
        self.assertEqual(type(plain), type(fast))
        if isinstance(plain, dict):
            self.assertEqual(list(plain), list(fast))
            for k in plain:
                self._assert_same(plain[k], fast[k])
        elif isinstance(plain, (list, tuple)) and not hasattr(plain, "indices"):
            self.assertEqual(len(plain), len(fast))
            for a, b in zip(plain, fast):
                self._assert_same(a, b)
        elif plain is None:
            self.assertIsNone(fast)
        elif hasattr(plain, "indices"):  # SparseTensorValue
            for a, b in zip(plain, fast):
                self.assertAllEqual(a, b)
        else:
            tf.nest.map_structure(self.assertAllEqual, tuple(np.atleast_1d(plain)),
                                  tuple(np.atleast_1d(fast)))

    def test_an_equal_structure_reuses_its_callable(self):
        key = _Key()
        traced = tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.FULL_TRACE)
        with mock.patch.object(session_runs, "_flat_run", wraps=session_runs._flat_run) as make:
            for options in (None, traced, None):
                # A new dict each run, as MonitoredSession builds one for every step.
                result = self.fast.run({"caller": [self.inc, self.c], key: self.v_now},
                                       options=options)
                self.assertAllEqual(result["caller"][1], [1.0, 2.0])
                self.assertLen(result, 2)
            self.assertEqual(make.call_count, 1)
            self.fast.run({"caller": [self.inc], key: self.v_now})  # another structure
            self.assertEqual(make.call_count, 2)
            self.fast.run({"caller": [self.inc, self.c], key: self.v_now})
            self.assertEqual(make.call_count, 2)

    def test_traced_and_untraced_runs_share_session_runs_executors(self):
        # TF_SessionRun keeps one set of executors per list of fetched and target names,
        # for every run of the session; a C++ callable (_make_callable_from_options)
        # builds its own, which a traced run (a hook's RunOptions) then built again
        # inside the traced step (InputStallHook read that as compute).
        calls = []

        def session_run(options, feeds, fetch_list, target_list, metadata):
            calls.append(([(tf_session.TF_OperationName(o.oper), o.index) for o in fetch_list],
                          [tf_session.TF_OperationName(op) for op in target_list],
                          options is not None))
            return real(options, feeds, fetch_list, target_list, metadata)

        real = self.fast._call_tf_sessionrun
        key, other = _Key(), _Key()
        traced = tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.SOFTWARE_TRACE)
        with mock.patch.object(self.fast, "_call_tf_sessionrun", session_run), \
                mock.patch.object(self.fast, "_make_callable_from_options") as callable_:
            self.fast.run({"caller": [self.inc, self.c]}, options=tf.compat.v1.RunOptions(),
                          run_metadata=tf.compat.v1.RunMetadata())
            metadata = tf.compat.v1.RunMetadata()
            self.fast.run({"caller": [self.inc, self.c], key: self.c, other: (self.inc,)},
                          options=traced, run_metadata=metadata)
        callable_.assert_not_called()
        self.assertTrue(metadata.step_stats.dev_stats)
        self.assertLen(calls, 2)  # Both runs: the same names, so the same executors.
        self.assertEqual(calls[0][:2], calls[1][:2])
        self.assertIn(("c", 0), calls[0][0])
        self.assertEqual([traced for _, _, traced in calls], [False, True])

    def test_runs_that_feed_take_session_run(self):
        with mock.patch.object(self.fast, "make_callable") as make:
            result = self.fast.run(self.doubled, feed_dict={self.x: [1.0, 2.0]})
        self.assertAllEqual(result, [2.0, 4.0])
        make.assert_not_called()
        with self.assertRaisesRegex(ValueError, "Cannot feed value of shape"):
            self.fast.run(self.doubled, feed_dict={self.x: [1.0]})

    def test_errors_are_session_runs_errors(self):
        with self.assertRaises(tf.errors.InvalidArgumentError) as plain:
            self.plain.run([self.inc, self.bad])
        with self.assertRaises(tf.errors.InvalidArgumentError) as fast:
            self.fast.run([self.inc, self.bad])
        self.assertEqual(fast.exception.message, plain.exception.message)
        self.assertIn("made to fail", fast.exception.message)
        self.assertIs(fast.exception.op, self.bad.op)
        self.assertEqual(fast.exception.node_def, self.bad.op.node_def)

    def test_options_and_run_metadata_as_session_run(self):
        options = tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.FULL_TRACE)
        metadata = tf.compat.v1.RunMetadata()
        self.fast.run([self.inc, self.c], options=options, run_metadata=metadata)
        self.assertTrue(metadata.step_stats.dev_stats)
        empty = tf.compat.v1.RunMetadata()
        self.fast.run([self.inc, self.c], options=tf.compat.v1.RunOptions(),
                      run_metadata=empty)
        plain_empty = tf.compat.v1.RunMetadata()
        self.plain.run([self.inc, self.c], options=tf.compat.v1.RunOptions(),
                       run_metadata=plain_empty)
        self.assertEqual(empty, plain_empty)

    def test_many_structures_stay_correct(self):
        fetches = [{str(i): self.c, "n": self.inc} for i in range(session_runs._MAX_CALLABLES + 8)]
        for _ in range(2):
            for f in fetches:
                self.assertAllEqual(self.fast.run(f)[next(iter(f))], [1.0, 2.0])

    def test_a_closed_session_says_so(self):
        self.fast.run(self.c)
        self.fast.close()
        with self.assertRaisesRegex(RuntimeError, "Attempted to use a closed Session"):
            self.fast.run(self.c)

    def test_a_graph_still_being_built_takes_session_run(self):
        graph = tf.Graph()
        with graph.as_default():
            a = tf.constant(1.0)
            session = session_runs.fast_repeated_runs(tf.compat.v1.Session())
            with mock.patch.object(session, "make_callable") as make:
                self.assertEqual(session.run(a), 1.0)
                b = a + 1.0  # the graph grows after a run
                self.assertEqual(session.run(b), 2.0)
            make.assert_not_called()
            session.close()


class MonitoredTrainingTest(tf.test.TestCase):

    def test_estimator_sessions_run_through_callables(self):
        import estimator_lib as el  # pylint: disable=import-outside-toplevel
        made = []
        real = session_runs.fast_repeated_runs

        def counting(session):
            made.append(session)
            return real(session)

        def model_fn(features, labels, mode):
            del labels
            w = tf.compat.v1.get_variable("w", initializer=1.0)
            loss = tf.reduce_mean(features * w)
            train_op = tf.compat.v1.train.GradientDescentOptimizer(0.0).minimize(
                loss, global_step=tf.compat.v1.train.get_global_step())
            return el.EstimatorSpec(mode, loss=loss, predictions={"y": features * w},
                                    train_op=train_op)

        def input_fn():
            return tf.data.Dataset.from_tensors((tf.ones([2]), tf.ones([2]))).repeat(5)

        est = el.Estimator(model_fn, model_dir=self.get_temp_dir())
        with mock.patch.object(session_runs, "fast_repeated_runs", counting):
            est.train(input_fn)
            self.assertEqual(est.get_variable_value("global_step"), 5)
            self.assertEqual(est.evaluate(input_fn)["loss"], 1.0)
            self.assertLen(list(est.predict(input_fn)), 10)
        self.assertLen(made, 3)


if __name__ == "__main__":
    tf.test.main()
