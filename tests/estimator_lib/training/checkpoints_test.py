"""What lands in model_dir: numpy inputs are fed, not frozen; model constants stay."""

import os
import tempfile

import numpy as np
import tensorflow as tf
from google.protobuf import text_format

import estimator_lib as el


def _conv_model_fn(features, labels, mode):
    net = tf.compat.v1.layers.flatten(features)
    logits = tf.compat.v1.layers.dense(net, 10)
    loss = tf.compat.v1.losses.softmax_cross_entropy(labels, logits)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return el.EstimatorSpec(mode, loss=loss, train_op=train_op)


class LargeNumpyInputTest(tf.test.TestCase):

    def test_model_dir_stays_the_size_of_the_weights(self):
        # 4,000 Fashion-MNIST-sized images: 12.5 MB frozen into the graph by from_tensor_slices.
        images = np.random.RandomState(0).rand(4000, 28, 28, 1).astype(np.float32)
        labels = np.eye(10, dtype=np.float32)[np.arange(4000) % 10]

        def input_fn():
            return tf.data.Dataset.from_tensor_slices((images, labels)).repeat().batch(64)

        model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        estimator = el.Estimator(_conv_model_fn, model_dir=model_dir)
        estimator.train(input_fn, steps=2)
        # The data was fed, not frozen: training saw real batches (not zeros) ...
        self.assertGreater(estimator.evaluate(lambda: input_fn().take(2))["loss"], 0)
        sizes = {name: os.path.getsize(os.path.join(model_dir, name))
                 for name in os.listdir(model_dir)}
        self.assertLess(sum(sizes.values()), 2_000_000, sizes)
        # The saved graph still imports: the data became a placeholder.
        graph_def = tf.compat.v1.GraphDef()
        with open(os.path.join(model_dir, "model.ckpt-2.meta"), "rb") as f:
            meta = tf.compat.v1.MetaGraphDef.FromString(f.read())
        graph_def.CopyFrom(meta.graph_def)
        # ... and the saved graph holds a placeholder where the array would have been.
        self.assertTrue(any(node.op == "Placeholder" and node.name.endswith("_fed")
                            for node in graph_def.node))
        with tf.Graph().as_default():
            tf.compat.v1.train.import_meta_graph(os.path.join(model_dir, "model.ckpt-2.meta"))

    def test_large_arrays_as_plain_tensors_are_fed_every_step(self):
        images = np.random.RandomState(2).rand(2000, 28, 28, 1).astype(np.float32)
        labels = np.eye(10, dtype=np.float32)[np.arange(2000) % 10]
        estimator = el.Estimator(_conv_model_fn,
                                 model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()))
        estimator.train(lambda: (tf.constant(images), tf.constant(labels)), steps=2)
        self.assertEqual(estimator.get_variable_value("global_step"), 2)

    def test_predictions_from_fed_arrays_are_the_data(self):
        x = np.random.RandomState(1).rand(3000, 100).astype(np.float32)  # 1.2 MB: fed.

        def model_fn(features, mode):
            return el.EstimatorSpec(mode, predictions=features * 1.0)

        estimator = el.Estimator(model_fn, model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()))
        rows = list(estimator.predict(
            lambda: tf.data.Dataset.from_tensor_slices(x).batch(1000)))
        self.assertAllClose(np.stack(rows), x)



class ModelConstantsTest(tf.test.TestCase):
    """Only the input_fn's arrays are fed: a model_fn's constants stay constants."""

    def test_a_large_constant_of_the_model_fn_stays_in_meta_and_graph_pbtxt(self):
        # 2.4 MB, over the size at which an input_fn's arrays are fed.
        table = np.random.RandomState(3).rand(6000, 100).astype(np.float32)

        def model_fn(features, labels, mode):
            embeddings = tf.constant(table, name="embedding_matrix")
            rows = tf.nn.embedding_lookup(embeddings, features["id"])
            logits = tf.compat.v1.layers.dense(rows, 2, name="dense")
            loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
            train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
                loss, global_step=tf.compat.v1.train.get_global_step())
            return el.EstimatorSpec(mode, loss=loss, train_op=train_op)

        def input_fn():
            ids = np.arange(8, dtype=np.int64)
            return tf.data.Dataset.from_tensor_slices(({"id": ids}, ids % 2)).repeat().batch(4)

        model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        el.Estimator(model_fn, model_dir=model_dir).train(input_fn, steps=2)

        graph_def = tf.compat.v1.GraphDef()
        with open(os.path.join(model_dir, "graph.pbtxt")) as f:
            text_format.Parse(f.read(), graph_def)
        nodes = {node.name: node for node in graph_def.node}
        self.assertEqual("Const", nodes["embedding_matrix"].op)
        # The .meta imports, restores and computes with the matrix, as the original's.
        with tf.Graph().as_default() as graph, tf.compat.v1.Session() as session:
            saver = tf.compat.v1.train.import_meta_graph(
                os.path.join(model_dir, "model.ckpt-2.meta"))
            saver.restore(session, os.path.join(model_dir, "model.ckpt-2"))
            matrix = graph.get_tensor_by_name("embedding_matrix:0")
            self.assertEqual("Const", matrix.op.type)
            self.assertAllEqual(table, session.run(matrix))
            self.assertEqual(2, session.run(tf.compat.v1.train.get_global_step()))


if __name__ == "__main__":
    tf.test.main()
