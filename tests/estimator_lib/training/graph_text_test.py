"""graph.pbtxt printed by protobuf's C printer: the same bytes as tf.io.write_graph's.

And tf.io.write_graph itself on TensorFlow 2.20 with protobuf 7 (tf_internals/patches.py, 6).
"""

import os
import re
import tempfile
from unittest import mock

import google.protobuf
import numpy as np
import tensorflow as tf
import tf_keras
from google.protobuf import text_format
from tensorflow.python.framework import graph_io

import estimator_lib as el
from estimator_lib.tf_internals import patches
from estimator_lib.tf_internals import versions
from estimator_lib.training import graph_text

_UP_TO_2_20 = versions.minor(tf.__version__) <= (2, 20)
_PROTOBUF_MAJOR = int(google.protobuf.__version__.split(".")[0])


def _written(graph_def) -> str:
    """What this TensorFlow's `tf.io.write_graph` writes of `graph_def` (after
    `import estimator_lib`): the text graph.pbtxt must equal."""
    path = tf.io.write_graph(graph_def, tempfile.mkdtemp(), "graph.pbtxt")
    with open(path, encoding="utf-8") as f:
        return f.read()


def _awkward_graph_def():
    """Every kind of value the rewrite handles: floats, doubles, bytes, maps in maps."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 3], name="x")
        kernel = tf.compat.v1.get_variable("kernel", [3, 2])
        loss = tf.reduce_mean(tf.nn.leaky_relu(tf.matmul(x, kernel), alpha=0.3))
        tf.compat.v1.train.AdamOptimizer(0.1).minimize(
            loss, global_step=tf.compat.v1.train.get_or_create_global_step())
        # Scalars: their value is printed as float_val / double_val (arrays as bytes).
        for value in [1.0, 0.1, 0.9, -0.0, float("nan"), float("-inf"), 1e-45, 3.4e38,
                      0.27216554, 16777217.0, -1.0954452]:
            tf.constant(value, tf.float32, name="float")
        for value in [1.0, 0.1, -0.0, float("nan"), 1e-300, 1 / 3]:
            tf.constant(value, tf.float64, name="double")
        tf.constant([0.5 + 1j], tf.complex64, name="complex")
        tf.constant([b"\x00\x01\x7f\xff'\"\\\n\t\r ?abc", "é".encode()], name="bytes")
        # Strings that look like float lines: left as they are.
        tf.constant([b"f: 1", b"\n  f: 1", b"float_val: 1"], name="lookalikes")

        @tf.function
        def scale(a):
            return a * 2.5 + 1.0

        scale.get_concrete_function(tf.TensorSpec([None], tf.float32)).add_to_graph(graph)
        # A function attr whose own attrs hold a function attr: maps inside maps.
        inner = tf.compat.v1.AttrValue(func=tf.compat.v1.NameAttrList(name="scale", attr={
            "z": tf.compat.v1.AttrValue(i=1), "a": tf.compat.v1.AttrValue(f=0.1),
            "m": tf.compat.v1.AttrValue(func=tf.compat.v1.NameAttrList(
                name="scale", attr={"y": tf.compat.v1.AttrValue(b=True),
                                    "b": tf.compat.v1.AttrValue(s=b"q")}))}))
    graph_def = graph.as_graph_def(add_shapes=True)
    graph_def.node[0].attr["zz_nested"].CopyFrom(inner)
    graph_def.node[0].attr["aa_list"].list.f.extend([0.1, 2.0])
    return graph_def


def _long_constants_graph_def():
    """Constants of 10 KiB (every byte value), 16 KiB (floats) and 16 bytes, and a
    function holding one of 10 KiB."""
    every_byte = np.frombuffer(bytes(range(256)) * 40, np.uint8)
    graph = tf.Graph()
    with graph.as_default():
        tf.constant(every_byte, name="every_byte")
        tf.constant(np.random.RandomState(0).rand(4096).astype(np.float32), name="floats")
        tf.constant(np.arange(16, dtype=np.uint8), name="short")

        @tf.function
        def lookup(index):
            return tf.gather(tf.constant(every_byte[::-1].copy()), index)

        lookup.get_concrete_function(tf.TensorSpec([], tf.int32)).add_to_graph(graph)
    return graph.as_graph_def()


class GraphTextTest(tf.test.TestCase):

    def test_same_text_as_the_python_printer(self):
        graph_def = _awkward_graph_def()
        self.assertEqual(_written(graph_def), graph_text.graph_text(graph_def))

    def test_maps_are_sorted_and_floats_printed_as_python_prints_them(self):
        # The two differences the rewrite exists for, shown on their own (so that a
        # rewrite that stopped making them fails here, not only in the comparison).
        graph_def = _awkward_graph_def()
        text = graph_text.graph_text(graph_def)
        if graph_text.write_graph_args():  # float_format='': the widened double's digits.
            self.assertIn("float_val: 0.27216553688049316\n", text)
            self.assertIn("float_val: 1.401298464324817e-45\n", text)
        else:
            self.assertIn("float_val: 0.27216554\n", text)
            self.assertIn("float_val: 1.4013e-45\n", text)
        self.assertIn("float_val: 1.0\n", text)
        self.assertIn("double_val: 0.3333333333333333\n", text)
        self.assertIn("float_val: nan\n", text)
        self.assertIn("float_val: -0.0\n", text)
        first_node = text[:text.index("\n}\n")]
        for indent, expected in [(4, ["_output_shapes", "aa_list", "dtype", "shape",
                                      "zz_nested"]),
                                 (10, ["a", "m", "z"]), (16, ["b", "y"])]:
            keys = re.findall(rf'^ {{{indent}}}key: "(.*)"$', first_node, re.MULTILINE)
            self.assertEqual(expected, keys)

    def test_long_tensor_contents_are_escaped_as_the_python_printer_escapes_them(self):
        # Every byte value, in constants long enough to be escaped after printing, in the
        # graph and in a function of its library; a short one stays with the C printer.
        graph_def = _awkward_graph_def()
        graph_def.MergeFrom(_long_constants_graph_def())
        schema = graph_text._Schema()  # Also where the probe keeps the C printer unused.
        mirror = schema.graph_def_class.FromString(graph_def.SerializeToString())
        lifted = graph_text._lift_tensor_contents(mirror, "token")
        self.assertLen(lifted, 3)
        self.assertIn(bytes(range(256)) * 40, lifted)
        self.assertIn('tensor_content: "token:2"', str(mirror))
        self.assertEqual(_written(graph_def), graph_text.graph_text(graph_def))

    def test_a_string_that_reads_as_a_marker_takes_the_python_printer(self):
        for lookalike in [b"token:0", b"token:7"]:  # A marker's index, and one past them.
            graph_def = _long_constants_graph_def()
            with tf.Graph().as_default() as graph:
                tf.constant([lookalike], name="lookalike")
            graph_def.MergeFrom(graph.as_graph_def())
            with mock.patch.object(graph_text.secrets, "token_hex", return_value="token"):
                text = graph_text.graph_text(graph_def)
            self.assertEqual(_written(graph_def), text)
            self.assertIn(f'string_val: "{lookalike.decode()}"', text)

    def test_non_ascii_text_takes_the_python_printer(self):
        # Not ASCII: left to the Python printer (how each printer escapes it may differ).
        graph_def = _awkward_graph_def()
        graph_def.node[0].device = "/job:café"
        text = graph_text.graph_text(graph_def)
        # "café" on protobuf 5+, "caf\\303\\251" on 4.25 (TF 2.16/2.17): either printer's.
        self.assertIn("/job:caf", text)
        self.assertEqual(_written(graph_def), text)

    def test_another_protobuf_runtime_takes_the_python_printer(self):
        graph_def = _awkward_graph_def()
        graph_text._schema.cache_clear()
        try:
            with mock.patch.object(graph_text.api_implementation, "Type",
                                   return_value="cpp"):
                self.assertIsNone(graph_text._schema())
                self.assertEqual(_written(graph_def), graph_text.graph_text(graph_def))
        finally:
            graph_text._schema.cache_clear()

    def test_the_c_printer_is_used_exactly_where_its_probe_text_is_equal(self):
        # protobuf 4.25 (TF 2.16/2.17) orders fields differently, 5.29 (TF 2.18/2.19)
        # leaves quotes unescaped: there the probe differs and the Python printer prints.
        probe = graph_text._probe_graph_def()
        equal = graph_text._c_printer_text(probe, graph_text._Schema()) == \
            text_format.MessageToString(probe, **graph_text.write_graph_args())
        self.assertEqual(equal, graph_text._schema() is not None)

    def test_the_probe_holds_what_the_printers_were_seen_to_differ_on(self):
        text = text_format.MessageToString(graph_text._probe_graph_def())
        for expected in ["\\'", '\\"', "\\\\", "\\000", "\\377", "\nversions {",
                         "\nlibrary {", "half_val: 15360", "float_val: 0.1\n",
                         "double_val: 0.3333333333333333\n", "arg_attr {",
                         "resource_arg_unique_id {", "placeholder: ", "type: DT_STRING"]:
            self.assertIn(expected, text)
        self.assertIn('tensor_content: "\\000\\001', text)  # Long: escaped after printing.

    def test_a_c_printer_unequal_on_the_probe_is_not_used(self):
        # As protobuf 5.29's: `'` left unescaped.
        real = graph_text._python_floats

        def unescaped(text, *args):
            return real(text, *args).replace("\\'", "'")

        graph_def = _awkward_graph_def()
        graph_text._schema.cache_clear()
        try:
            with mock.patch.object(graph_text, "_python_floats", unescaped):
                self.assertIsNone(graph_text._schema())
                self.assertEqual(_written(graph_def), graph_text.graph_text(graph_def))
        finally:
            graph_text._schema.cache_clear()

    def test_estimator_graph_pbtxt_is_the_python_printers_text_of_its_meta_graph(self):
        # model_to_estimator on the 2 logical CPU devices (conftest): the graph the
        # first-step profile measured. graph.pbtxt is the same graph as model.ckpt-0.meta's.
        model = tf_keras.Sequential([
            tf_keras.layers.Conv2D(4, 3, activation="relu", input_shape=(8, 8, 1)),
            tf_keras.layers.Dropout(0.25),
            tf_keras.layers.Flatten(),
            tf_keras.layers.Dense(3)])
        model.compile(tf_keras.optimizers.legacy.Adam(0.01),
                      tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        strategy = tf.distribute.MirroredStrategy(["CPU:0", "CPU:1"])
        estimator = el.model_to_estimator(
            model, config=el.RunConfig(model_dir=model_dir, train_distribute=strategy))
        images = np.random.RandomState(0).rand(16, 8, 8, 1).astype(np.float32)
        labels = np.arange(16, dtype=np.int64) % 3

        def input_fn():
            return tf.data.Dataset.from_tensor_slices((images, labels)).batch(4).repeat()

        estimator.train(input_fn, steps=1)
        meta = tf.compat.v1.MetaGraphDef()
        with open(os.path.join(model_dir, "model.ckpt-0.meta"), "rb") as f:
            meta.ParseFromString(f.read())
        with open(os.path.join(model_dir, "graph.pbtxt")) as f:
            written = f.read()
        self.assertGreater(len(meta.graph_def.node), 100)
        self.assertEqual(_written(meta.graph_def), written)


class WriteGraphTest(tf.test.TestCase):
    """What `tf.io.write_graph` gives MessageToString, and patch 6 where protobuf 7 took
    `float_format` away from TensorFlow 2.20 and earlier."""

    def test_float_format_up_to_2_20_where_protobuf_takes_it(self):
        if _PROTOBUF_MAJOR in (4, 5):  # TF 2.16/2.17 pin protobuf<5, 2.18/2.19 <6.
            self.assertTrue(patches.takes_float_format())
        if _PROTOBUF_MAJOR >= 7:
            self.assertFalse(patches.takes_float_format())
        expected = ({"float_format": ""} if _UP_TO_2_20 and patches.takes_float_format()
                    else {})
        self.assertEqual(expected, graph_text.write_graph_args())
        with tf.Graph().as_default() as graph:
            tf.constant(0.1, name="tenth")
        text = _written(graph.as_graph_def())
        self.assertEqual(text, graph_text.graph_text(graph.as_graph_def()))
        self.assertIn("float_val: 0.10000000149011612\n" if expected else
                      "float_val: 0.1\n", text)

    def test_patch_6_in_force_exactly_on_2_20_or_earlier_with_protobuf_7(self):
        in_force = _UP_TO_2_20 and not patches.takes_float_format()
        self.assertEqual(in_force, patches.write_graph_on_protobuf_7())
        self.assertEqual(in_force, isinstance(graph_io.text_format,
                                              patches._TextFormatWithoutFloatFormat))

    def test_patch_6_drops_float_format_and_nothing_else(self):
        graph_def = _awkward_graph_def()
        with mock.patch.object(graph_io, "text_format", text_format), \
                mock.patch.object(patches, "takes_float_format", return_value=False):
            self.assertFalse(patches.write_graph_on_protobuf_7("2.21.0"))
            self.assertIs(text_format, graph_io.text_format)
            self.assertTrue(patches.write_graph_on_protobuf_7("2.20.0"))
            shim = graph_io.text_format
            self.assertIsInstance(shim, patches._TextFormatWithoutFloatFormat)
            self.assertTrue(patches.write_graph_on_protobuf_7("2.16.2"))  # Idempotent.
            self.assertIs(shim, graph_io.text_format)
            self.assertEqual(text_format.MessageToString(graph_def),
                             shim.MessageToString(graph_def, float_format=""))
            self.assertEqual(text_format.MessageToString(graph_def, as_one_line=True),
                             shim.MessageToString(graph_def, as_one_line=True))
            self.assertIs(text_format.Parse, shim.Parse)
        with mock.patch.object(graph_io, "text_format", text_format), \
                mock.patch.object(patches, "takes_float_format", return_value=True):
            self.assertFalse(patches.write_graph_on_protobuf_7("2.20.0"))
            self.assertIs(text_format, graph_io.text_format)

    def test_a_callers_checkpoint_saver_hook_writes_graph_pbtxt(self):
        # TensorFlow's own hook, as legacy programs pass it: it writes graph.pbtxt with
        # tf.io.write_graph when its session starts (a TypeError on 2.20 + protobuf 7).
        model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        estimator = el.Estimator(_linear_model_fn, model_dir=model_dir)
        estimator.train(_input_fn, steps=2,
                        hooks=[el.CheckpointSaverHook(model_dir, save_steps=1)])
        with open(os.path.join(model_dir, "graph.pbtxt"), encoding="utf-8") as f:
            text = f.read()
        graph_def = text_format.Parse(text, tf.compat.v1.GraphDef())
        self.assertIn("global_step", [node.name for node in graph_def.node])
        # The learning rate, as this TensorFlow's write_graph prints a float.
        self.assertIn("float_val: 0.10000000149011612\n" if graph_text.write_graph_args()
                      else "float_val: 0.1\n", text)
        self.assertEqual(2, tf.train.load_variable(model_dir, "global_step"))


def _linear_model_fn(features, labels, mode):
    predictions = tf.compat.v1.layers.dense(features, 1)
    loss = tf.compat.v1.losses.mean_squared_error(labels, predictions)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return el.EstimatorSpec(mode, loss=loss, train_op=train_op)


def _input_fn():
    return tf.data.Dataset.from_tensors(([[1.0]], [[2.0]])).repeat()


if __name__ == "__main__":
    tf.test.main()
