"""Every input_fn builder honours the Estimator's input_fn contract.

Each is called as the Estimator calls it: in a fresh v1 graph, with only the
arguments it names, run through an initializable iterator in a Session; and
through a tf.distribute strategy's input context. None freezes its data into
the graph.
"""

import os
import tempfile

import tensorflow as tf
from absl.testing import parameterized

from estimator_lib.datasets import (fashion_mnist, image_folder, oct_folder, pipeline, tfrecord_reader, tfrecord_writer)
from tests.datasets import fixtures

_ROOT = None


def setUpModule():
    global _ROOT
    _ROOT = tempfile.mkdtemp()
    fixtures.write_fashion_mnist(os.path.join(_ROOT, "fmnist"), train=40,
                                test=8)
    fixtures.write_image_folder(os.path.join(_ROOT, "OCT2017 ", "train"),
                               per_class=10, height=16, width=16)
    tfrecord_writer.convert_folder_to_tfrecords(
        os.path.join(_ROOT, "OCT2017 ", "train"), os.path.join(_ROOT, "tfr"),
        image_format="raw", image_size=8, channels=1, num_shards=2)


def tearDownModule():
    tf.io.gfile.rmtree(_ROOT)


def _builders():
    return {
        "fashion_mnist": lambda **kw: fashion_mnist.make_input_fn(
            os.path.join(_ROOT, "fmnist"), download=False, **kw),
        "synthetic": lambda **kw: fashion_mnist.make_input_fn(
            synthetic_data=True, num_examples=64, **kw),
        "image_folder": lambda **kw: image_folder.make_input_fn(
            os.path.join(_ROOT, "OCT2017 ", "train"), image_size=8, **kw),
        "oct": lambda **kw: oct_folder.make_input_fn(_ROOT, image_size=8,
                                                     **kw),
        "tfrecord": lambda **kw: tfrecord_reader.make_input_fn(
            os.path.join(_ROOT, "tfr"), **kw),
    }


NAMES = ("fashion_mnist", "synthetic", "image_folder", "oct", "tfrecord")


class ContractTest(tf.test.TestCase, parameterized.TestCase):

    @parameterized.parameters(*NAMES)
    def test_runs_in_a_fresh_graph_without_frozen_data(self, name):
        input_fn = _builders()[name](batch_size=4)
        graph = tf.Graph()
        with graph.as_default():
            data = input_fn(mode=pipeline.TRAIN, params={}, config=None)
            iterator = tf.compat.v1.data.make_initializable_iterator(data)
            features, labels = iterator.get_next()
            with tf.compat.v1.Session() as session:
                session.run(iterator.initializer)
                features_value, labels_value = session.run(
                    (features, labels))
        self.assertEqual(features_value.shape[0], 4)
        self.assertEqual(labels_value.shape[0], 4)
        self.assertLess(graph.as_graph_def().ByteSize(), 200_000)

    @parameterized.parameters(*NAMES)
    def test_strategy_input_context_gives_per_replica_batches(self, name):
        input_fn = _builders()[name](global_batch_size=4,
                                     mode=pipeline.EVAL)
        strategy = tf.distribute.MirroredStrategy(["CPU:0"])
        dataset = strategy.distribute_datasets_from_function(
            lambda context: input_fn(input_context=context))
        features, _ = next(iter(dataset))
        self.assertEqual(features.shape[0], 4)


if __name__ == "__main__":
    tf.test.main()
