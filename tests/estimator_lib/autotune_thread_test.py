"""tf_patches 5: the Datasets an input_fn returns run without tf.data's autotune thread.

That thread misses its cancellation and held every session close for up to its
optimisation period (0 to 15 s seen); the graph the Estimator builds must carry
`autotune.enabled = False` on every path that turns an input_fn's Dataset into an
iterator, and must keep an input_fn's own explicit choice.
"""

import tempfile

import tensorflow as tf
from tensorflow.core.framework import dataset_options_pb2

import estimator_lib as el
from estimator_lib.tf_internals import patches as tf_patches
from tests.estimator_lib import testing


def _autotune_settings(graph):
    """`autotune.enabled` of every OptionsDataset in `graph` and its functions (None: unset)."""
    graph_def = graph.as_graph_def()
    nodes = list(graph_def.node)
    for function in graph_def.library.function:
        nodes.extend(function.node_def)
    settings = []
    for node in nodes:
        if node.op == "OptionsDataset":
            options = dataset_options_pb2.Options()
            options.ParseFromString(node.attr["serialized_options"].s)
            autotune = options.autotune_options
            settings.append(autotune.enabled
                            if autotune.WhichOneof("optional_enabled") else None)
    return settings


class _GraphRecorder:
    """A model_fn that keeps the graph each call builds."""

    def __init__(self):
        self.graphs = []

    def __call__(self, features, labels, mode):
        graph = tf.compat.v1.get_default_graph()
        while getattr(graph, "outer_graph", None) is not None:  # an in-graph loop's body
            graph = graph.outer_graph
        self.graphs.append(graph)
        return testing.linear_model_fn(features, labels, mode)


def _estimator(recorder, **config):
    config.setdefault("log_step_count_steps", None)
    return el.Estimator(recorder, config=el.RunConfig(model_dir=tempfile.mkdtemp(), **config))


def _with_autotune(input_fn, enabled):
    def with_options():
        options = tf.data.Options()
        options.autotune.enabled = enabled
        return input_fn().with_options(options)
    return with_options


class AutotuneThreadOffTest(tf.test.TestCase):

    def test_an_unset_option_is_turned_off_and_a_set_one_is_kept(self):
        dataset = tf.data.Dataset.range(4).prefetch(tf.data.AUTOTUNE)
        self.assertIsNone(dataset.options().autotune.enabled)
        self.assertFalse(tf_patches.autotune_thread_off(dataset).options().autotune.enabled)
        for enabled in (True, False):
            options = tf.data.Options()
            options.autotune.enabled = enabled
            chosen = dataset.with_options(options)
            self.assertIs(tf_patches.autotune_thread_off(chosen), chosen)
        tensors = {"x": tf.constant([1.0])}
        self.assertIs(tf_patches.autotune_thread_off(tensors), tensors)

    def test_train_evaluate_and_predict_iterate_without_autotuning(self):
        recorder = _GraphRecorder()
        estimator = _estimator(recorder)
        estimator.train(testing.train_input_fn(), steps=2)
        estimator.evaluate(testing.eval_input_fn(), steps=1)
        next(estimator.predict(testing.eval_input_fn()))
        self.assertLen(recorder.graphs, 3)
        for graph in recorder.graphs:
            self.assertEqual(_autotune_settings(graph), [False])

    def test_an_input_fn_that_sets_autotune_keeps_it(self):
        recorder = _GraphRecorder()
        _estimator(recorder).train(_with_autotune(testing.train_input_fn(), True), steps=1)
        settings = _autotune_settings(recorder.graphs[0])
        self.assertIn(True, settings)
        self.assertNotIn(False, settings)

    def test_a_one_shot_iterator_made_in_the_input_fn(self):
        train = testing.train_input_fn()

        def input_fn():
            return tf.compat.v1.data.make_one_shot_iterator(train()).get_next()

        recorder = _GraphRecorder()
        _estimator(recorder).train(input_fn, steps=1)
        self.assertEqual(set(_autotune_settings(recorder.graphs[0])), {False})

    def test_the_in_graph_loop_of_steps_per_run(self):
        recorder = _GraphRecorder()
        _estimator(recorder, steps_per_run=2).train(testing.train_input_fn(), steps=4)
        self.assertIn(False, _autotune_settings(recorder.graphs[0]))
        self.assertNotIn(None, _autotune_settings(recorder.graphs[0]))

    def test_per_replica_input_under_mirrored_strategy(self):
        strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
        recorder = _GraphRecorder()
        _estimator(recorder, train_distribute=strategy).train(
            testing.train_input_fn(), steps=2)
        settings = _autotune_settings(recorder.graphs[0])
        # The input_fn's Dataset, and each device's dataset of the MultiDeviceIterator.
        self.assertEqual(settings.count(False), 1 + 2, settings)
        self.assertNotIn(True, settings)


def _ends_in_prefetch(dataset):
    """Whether `dataset`'s last transformation (below its OptionsDatasets) is a prefetch."""
    op = dataset._variant_tensor.op  # pylint: disable=protected-access
    while op.type == "OptionsDataset":
        op = op.inputs[0].op
    return op.type == "PrefetchDataset"


class InjectedPrefetchKeptTest(tf.test.TestCase):
    """With autotuning off, tf.data no longer injects its prefetch(AUTOTUNE); the
    Estimator appends it where the rewrite would have (the original's pipelining)."""

    def test_appended_where_inject_prefetch_would_add_one(self):
        with tf.Graph().as_default():
            batched = tf.data.Dataset.range(8).batch(2)
            self.assertTrue(_ends_in_prefetch(tf_patches.autotune_thread_off(batched)))
            prefetched = batched.prefetch(3)
            off = tf_patches.autotune_thread_off(prefetched)
            self.assertTrue(_ends_in_prefetch(off))
            self.assertIs(off._variant_tensor.op.inputs[0], prefetched._variant_tensor)  # pylint: disable=protected-access
            options = tf.data.Options()
            options.deterministic = True  # an OptionsDataset after the prefetch
            self.assertIs(tf_patches.autotune_thread_off(prefetched.with_options(options))
                          ._variant_tensor.op.inputs[0].op.inputs[0],  # pylint: disable=protected-access
                          prefetched._variant_tensor)  # pylint: disable=protected-access

    def test_not_appended_where_the_options_turn_the_rewrite_off(self):
        with tf.Graph().as_default():
            batched = tf.data.Dataset.range(8).batch(2)
            for field, value in (("inject_prefetch", False),
                                 ("apply_default_optimizations", False)):
                options = tf.data.Options()
                setattr(options.experimental_optimization, field, value)
                self.assertFalse(_ends_in_prefetch(tf_patches.autotune_thread_off(
                    batched.with_options(options))), field)
            self.assertFalse(_ends_in_prefetch(tf_patches.autotune_thread_off(
                batched, keep_injected_prefetch=False)))

    def test_every_element_arrives_once_in_order(self):
        with tf.Graph().as_default():
            dataset = tf_patches.autotune_thread_off(tf.data.Dataset.range(7).batch(2))
            iterator = tf.compat.v1.data.make_initializable_iterator(dataset)
            next_batch = iterator.get_next()
            with tf.compat.v1.Session() as session:
                session.run(iterator.initializer)
                batches = []
                with self.assertRaises(tf.errors.OutOfRangeError):
                    while True:
                        batches.append(session.run(next_batch).tolist())
        self.assertEqual(batches, [[0, 1], [2, 3], [4, 5], [6]])


if __name__ == "__main__":
    tf.test.main()
