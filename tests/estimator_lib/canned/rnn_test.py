"""RNNClassifier / RNNEstimator: layers, names, arguments, optimizer defaults, export."""

import importlib
import os
from unittest import mock

import numpy as np
import tensorflow as tf
import tf_keras

import estimator_lib as el
from estimator_lib.canned import rnn
from estimator_lib.head import binary_class_head
from estimator_lib.head import RegressionHead
from estimator_lib.head import sequential_head


def _price_column():
    return tf.feature_column.sequence_numeric_column("price")


def _input_fn():
    # Two sequences, of lengths 2 and 1.
    return {"price": tf.sparse.SparseTensor(values=[10., 5., 2.], indices=[[0, 0], [0, 1], [1, 0]],
                                            dense_shape=[2, 2])}, [[0], [1]]


class RNNLayerTest(tf.test.TestCase):

    def test_list_of_units_builds_an_rnn_over_cells_of_the_type(self):
        layer = rnn._make_rnn_layer(None, [2, 3], "gru", return_sequences=False)
        self.assertIsInstance(layer, tf_keras.layers.RNN)
        self.assertIsInstance(layer.cell, tf_keras.layers.StackedRNNCells)
        self.assertIsInstance(layer.cell.cells[1], tf_keras.layers.GRUCell)

    def test_int_units_builds_the_fused_layer(self):
        for cell_type, layer_type in (("lstm", tf_keras.layers.LSTM),
                                      ("gru", tf_keras.layers.GRU),
                                      ("simple_rnn", tf_keras.layers.SimpleRNN)):
            layer = rnn._make_rnn_layer(None, 2, cell_type, return_sequences=True)
            self.assertIsInstance(layer, layer_type)
            self.assertTrue(layer.return_sequences)

    def test_default_cell_is_simple_rnn(self):
        layer = rnn._make_rnn_layer(None, [4], rnn.USE_DEFAULT, return_sequences=False)
        self.assertIsInstance(layer.cell, tf_keras.layers.SimpleRNNCell)

    def test_unknown_cell_type_names_the_supported_ones(self):
        with self.assertRaisesRegex(ValueError, r"Supported strings are: \['simple_rnn', "
                                                r"'lstm', 'gru'\]"):
            rnn._make_rnn_layer(None, [2], "lstmm", return_sequences=False)


class ConstructorTest(tf.test.TestCase):

    def test_rnn_cell_fn_excludes_units_and_cell_type(self):
        for kwargs in (dict(units=[2]), dict(cell_type="lstm")):
            with self.assertRaisesRegex(ValueError, "units and cell_type must not be specified"):
                rnn.RNNClassifier([_price_column()], rnn_cell_fn=lambda: None, **kwargs)

    def test_return_sequences_needs_a_sequential_head(self):
        with self.assertRaisesRegex(ValueError, "must be a `_SequentialHead` object"):
            rnn.RNNEstimator(RegressionHead(), [_price_column()], units=[2],
                             return_sequences=True)

    def test_unknown_optimizer_name_is_refused_at_construction(self):
        with self.assertRaisesRegex(ValueError, "Unsupported optimizer name: Adagradd"):
            rnn.RNNClassifier([_price_column()], units=[2], optimizer="Adagradd")


class TrainingTest(tf.test.TestCase):

    def test_variables_have_the_originals_names(self):
        est = rnn.RNNClassifier([_price_column()], units=[2, 3], n_classes=3,
                                model_dir=self.get_temp_dir())
        est.train(_input_fn, steps=1)
        names = [n for n in est.get_variable_names() if not n.startswith("training/")]
        self.assertEqual([
            "global_step", "rnn_model/logits/bias", "rnn_model/logits/kernel",
            "rnn_model/rnn/stacked_rnn_cells/simple_rnn_cell/bias",
            "rnn_model/rnn/stacked_rnn_cells/simple_rnn_cell/kernel",
            "rnn_model/rnn/stacked_rnn_cells/simple_rnn_cell/recurrent_kernel",
            "rnn_model/rnn/stacked_rnn_cells/simple_rnn_cell_1/bias",
            "rnn_model/rnn/stacked_rnn_cells/simple_rnn_cell_1/kernel",
            "rnn_model/rnn/stacked_rnn_cells/simple_rnn_cell_1/recurrent_kernel"], names)
        self.assertEqual((3, 3), est.get_variable_value("rnn_model/logits/kernel").shape)

    def test_optimizer_by_name_clips_gradients_to_norm_5(self):
        seen = []
        original = binary_class_head.BinaryClassHead.create_estimator_spec

        def spy(head, features, mode, logits, labels=None, optimizer=None, **kwargs):
            if optimizer is not None:
                config = optimizer.get_config()  # Hyperparameters still plain values.
                seen.append((config.get("clipnorm"), config["learning_rate"]))
            return original(head, features, mode, logits, labels=labels, optimizer=optimizer,
                            **kwargs)

        with mock.patch.object(binary_class_head.BinaryClassHead, "create_estimator_spec", spy):
            rnn.RNNClassifier([_price_column()], units=[2],
                              model_dir=os.path.join(self.get_temp_dir(), "a")).train(
                                  _input_fn, steps=1)
            rnn.RNNClassifier([_price_column()], units=[2],
                              optimizer=tf_keras.optimizers.legacy.SGD(0.5),
                              model_dir=os.path.join(self.get_temp_dir(), "b")).train(
                                  _input_fn, steps=1)
        (clipnorm, learning_rate), (instance_clipnorm, _) = seen
        self.assertEqual(5.0, clipnorm)
        self.assertAllClose(0.05, learning_rate)
        self.assertIsNone(instance_clipnorm)  # An instance is used as given.

    def test_sequential_predictions_carry_the_mask(self):
        est = rnn.RNNClassifier([_price_column()], units=[2], return_sequences=True,
                                sequence_mask="my-mask", model_dir=self.get_temp_dir())
        est.train(lambda: (_input_fn()[0], tf.sparse.SparseTensor(
            values=[0, 1, 0], indices=[[0, 0], [0, 1], [1, 0]], dense_shape=[2, 2])), steps=2)
        pred = list(est.predict(lambda: tf.data.Dataset.from_tensors(_input_fn()[0])))
        self.assertAllEqual([True, True], pred[0]["my-mask"])
        self.assertAllEqual([True, False], pred[1]["my-mask"])
        self.assertEqual((2, 1), pred[0]["logits"].shape)

    def test_exports_a_serving_signature(self):
        est = rnn.RNNClassifier([_price_column()], units=[2], model_dir=self.get_temp_dir())
        est.train(_input_fn, steps=1)
        spec = tf.feature_column.make_parse_example_spec([_price_column()])
        export_dir = est.export_saved_model(
            os.path.join(self.get_temp_dir(), "export"),
            el.export.build_parsing_serving_input_receiver_fn(spec))
        self.assertTrue(tf.io.gfile.exists(os.path.join(export_dir, b"saved_model.pb")))


class RNNModelTest(tf.test.TestCase):

    def test_config_round_trip(self):
        column = tf.feature_column.embedding_column(
            tf.feature_column.sequence_categorical_column_with_hash_bucket("t", 5), 2)
        model = rnn.RNNModel(tf_keras.layers.SimpleRNN(3), units=4,
                             sequence_feature_columns=[column],
                             context_feature_columns=[tf.feature_column.numeric_column("c")],
                             activation=tf_keras.activations.sigmoid, return_sequences=True,
                             name="m")
        rebuilt = rnn.RNNModel.from_config(model.get_config())
        config = rebuilt.get_config()
        self.assertEqual(model.get_config(), config)
        self.assertEqual(4, config["units"])
        self.assertEqual("m", config["name"])

    def test_units_must_be_an_int(self):
        with self.assertRaisesRegex(ValueError, "units must be an int"):
            rnn.RNNModel(tf_keras.layers.SimpleRNN(3), units=[4],
                         sequence_feature_columns=[_price_column()])

    def test_inputs_must_be_a_dict(self):
        model = rnn.RNNModel(tf_keras.layers.SimpleRNN(3), units=1,
                             sequence_feature_columns=[_price_column()])
        with tf.Graph().as_default():
            with self.assertRaisesRegex(ValueError, "inputs should be a dictionary"):
                model(np.zeros([1, 2]))


class PublicNamesTest(tf.test.TestCase):

    def test_experimental_names_are_v2_only_as_the_original(self):
        el.compat.install()
        try:
            self.assertIs(rnn.RNNClassifier, tf.estimator.experimental.RNNClassifier)
            self.assertIs(rnn.RNNEstimator, tf.estimator.experimental.RNNEstimator)
            self.assertFalse(hasattr(tf.compat.v1.estimator.experimental, "RNNClassifier"))
            paths = "tensorflow_estimator.python.estimator."
            self.assertIs(rnn, importlib.import_module(paths + "canned.rnn"))
            self.assertIs(sequential_head, importlib.import_module(paths + "head.sequential_head"))
        finally:
            el.compat.uninstall()


if __name__ == "__main__":
    tf.test.main()
