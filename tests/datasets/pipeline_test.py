"""Tests for datasets.pipeline: the card's builders and the input_fn contract.
"""

import os
import tempfile

import numpy as np
import tensorflow as tf
from absl.testing import parameterized

from estimator_lib.datasets import pipeline


def _values(dataset):
    return [int(x) for x in dataset.as_numpy_iterator()]


class InputFnContractTest(tf.test.TestCase, parameterized.TestCase):

    def _fn(self, mode=None):
        calls = []

        def build(call):
            calls.append(call)
            return tf.data.Dataset.range(3)

        return pipeline.wrap_input_fn(build, mode=mode), calls

    def test_accepts_the_optional_estimator_arguments(self):
        fn, calls = self._fn(mode=pipeline.EVAL)
        context = tf.distribute.InputContext(2, 1, 4)
        fn()
        fn(mode=pipeline.TRAIN, params={"a": 1}, config="cfg",
           input_context=context)
        self.assertEqual(calls[0].mode, pipeline.EVAL)
        # The builder's mode wins over the caller's.
        self.assertEqual(calls[1].mode, pipeline.EVAL)
        self.assertEqual(calls[1].params, {"a": 1})
        self.assertIs(calls[1].input_context, context)

    def test_takes_the_callers_mode_when_builder_has_none(self):
        fn, calls = self._fn()
        fn(mode=pipeline.PREDICT)
        self.assertEqual(calls[0].mode, pipeline.PREDICT)

    def test_no_mode_anywhere_is_a_clear_error(self):
        fn, _ = self._fn()
        with self.assertRaisesRegex(ValueError, "`mode` was given neither"):
            fn()

    def test_unknown_mode_is_rejected(self):
        with self.assertRaisesRegex(ValueError,
                                    r"`mode` must be one of .*'fit'"):
            self._fn(mode="fit")

    def test_signature_names_every_optional_argument(self):
        fn, _ = self._fn(mode=pipeline.TRAIN)
        names = fn.__code__.co_varnames[:fn.__code__.co_argcount]
        self.assertEqual(names, ("mode", "params", "config", "input_context"))


class BatchSizeTest(tf.test.TestCase, parameterized.TestCase):

    @parameterized.named_parameters(
        ("per_replica", 8, None, None, 8),
        ("per_replica_ignores_replicas", 8, None, (1, 0, 2), 8),
        ("global_no_context", None, 16, None, 16),
        ("global_two_replicas", None, 16, (1, 0, 2), 8),
    )
    def test_resolves(self, batch, global_batch, context, expected):
        ctx = tf.distribute.InputContext(*context) if context else None
        self.assertEqual(
            pipeline.resolve_batch_size(batch_size=batch,
                                        global_batch_size=global_batch,
                                        input_context=ctx), expected)

    @parameterized.named_parameters(
        ("both", 8, 16, None, "exactly one"),
        ("neither", None, None, None, "exactly one"),
        ("zero", 0, None, None, "positive integer.*batch_size=0"),
        ("not_divisible", None, 9, (1, 0, 2), "divide evenly across 2"),
    )
    def test_rejects(self, batch, global_batch, context, message):
        ctx = tf.distribute.InputContext(*context) if context else None
        with self.assertRaisesRegex(ValueError, message):
            pipeline.resolve_batch_size(batch_size=batch,
                                        global_batch_size=global_batch,
                                        input_context=ctx)


class BuildersTest(tf.test.TestCase):

    def test_shards_are_disjoint_and_complete(self):
        data = tf.data.Dataset.range(10)
        parts = [
            _values(pipeline.shard_for_input_context(
                data, tf.distribute.InputContext(3, i, 3))) for i in range(3)
        ]
        self.assertCountEqual(sum(parts, []), range(10))
        self.assertEmpty(set(parts[0]) & set(parts[1]))

    def test_one_pipeline_reads_everything(self):
        data = tf.data.Dataset.range(5)
        context = tf.distribute.InputContext(1, 0, 2)
        self.assertEqual(
            _values(pipeline.shard_for_input_context(data, context)),
            list(range(5)))

    def test_list_files_no_match_names_the_pattern(self):
        pattern = os.path.join(self.get_temp_dir(), "nothing", "*.jpeg")
        with self.assertRaisesRegex(ValueError, r"matches no file"):
            pipeline.list_files(pattern)

    def test_list_files_is_sorted(self):
        folder = self.get_temp_dir()
        for name in ("b.txt", "a.txt", "c.txt"):
            with open(os.path.join(folder, name), "w") as f:
                f.write(name)
        files = pipeline.list_files(os.path.join(folder, "*.txt"))
        self.assertEqual([os.path.basename(f) for f in
                          files.as_numpy_iterator()],
                         [b"a.txt", b"b.txt", b"c.txt"])

    def test_shuffle_differs_per_epoch_and_repeats_with_seed(self):
        def run():
            data = pipeline.shuffle_and_repeat(
                tf.data.Dataset.range(20), buffer_size=20, count=2, seed=7)
            return _values(data)

        first, second = run(), run()
        self.assertEqual(first, second)
        self.assertNotEqual(first[:20], first[20:])
        self.assertCountEqual(first[:20], range(20))

    def test_map_and_batch_keeps_order_when_deterministic(self):
        data = pipeline.map_and_batch(tf.data.Dataset.range(7),
                                      lambda x: x * 2, batch_size=3,
                                      deterministic=True)
        batches = [b.tolist() for b in data.as_numpy_iterator()]
        self.assertEqual(batches, [[0, 2, 4], [6, 8, 10], [12]])

    def test_options_are_applied(self):
        data = pipeline.with_options(tf.data.Dataset.range(3),
                                     deterministic=False,
                                     private_threadpool_size=2,
                                     max_intra_op_parallelism=1)
        options = data.options()
        self.assertFalse(options.deterministic)
        self.assertEqual(options.threading.private_threadpool_size, 2)
        self.assertEqual(options.threading.max_intra_op_parallelism, 1)

    def test_prefetch_and_cache_keep_elements(self):
        data = pipeline.prefetch(pipeline.cache(tf.data.Dataset.range(4)))
        self.assertEqual(_values(data), [0, 1, 2, 3])
        self.assertEqual(_values(data), [0, 1, 2, 3])

    def test_interleave_reads_every_file(self):
        files = tf.data.Dataset.range(3)
        data = pipeline.interleave_files(
            files, lambda f: tf.data.Dataset.from_tensors(f).repeat(2),
            cycle_length=2, deterministic=True)
        self.assertCountEqual(_values(data), [0, 0, 1, 1, 2, 2])


class FileInputFnTest(tf.test.TestCase):

    def setUp(self):
        super().setUp()
        self.folder = tempfile.mkdtemp(dir=self.get_temp_dir())
        for i in range(6):
            with open(os.path.join(self.folder, f"{i}.txt"), "w") as f:
                f.write(str(i))

    def _fn(self, **kwargs):
        def parse(path):
            value = tf.strings.to_number(tf.io.read_file(path), tf.int64)
            return value, value * 10

        return pipeline.make_file_input_fn(
            os.path.join(self.folder, "*.txt"), parse_fn=parse, **kwargs)

    def test_eval_reads_once_in_order(self):
        data = self._fn(batch_size=4, mode=pipeline.EVAL)()
        batches = [(f.tolist(), l.tolist())
                   for f, l in data.as_numpy_iterator()]
        self.assertEqual(batches, [([0, 1, 2, 3], [0, 10, 20, 30]),
                                   ([4, 5], [40, 50])])

    def test_train_repeats_epochs(self):
        data = self._fn(batch_size=4, mode=pipeline.TRAIN, epochs=2, seed=1)()
        values = np.concatenate([f for f, _ in data.as_numpy_iterator()])
        self.assertCountEqual(values.tolist(), list(range(6)) * 2)

    def test_predict_yields_features_only(self):
        data = self._fn(batch_size=6, mode=pipeline.PREDICT)()
        self.assertEqual(next(iter(data)).numpy().tolist(), list(range(6)))

    def test_runs_in_a_v1_graph_session_like_the_estimator(self):
        input_fn = self._fn(global_batch_size=4)
        with tf.Graph().as_default():
            data = input_fn(mode=pipeline.EVAL,
                            input_context=tf.distribute.InputContext(1, 0, 2))
            iterator = tf.compat.v1.data.make_initializable_iterator(data)
            features, _ = iterator.get_next()
            with tf.compat.v1.Session() as session:
                session.run(iterator.initializer)
                self.assertEqual(session.run(features).tolist(), [0, 1])


if __name__ == "__main__":
    tf.test.main()
