"""TPUEstimator.export_saved_model writes the original's MetaGraphs: serve, and serve+tpu.

Observed on the original (TF 2.15.1 + tensorflow-estimator 2.15.0) on a CPU with
use_tpu=False and the defaults export_to_tpu=True, export_to_cpu=True: two
MetaGraphs. The `{serve, tpu}` one (API V1) holds `TPUOrdinalSelector` and
`TPUPartitionedCall` over a function with `TPUReplicateMetadata`,
`TPUCompilationResult` and `TPUReplicatedOutput`, its signature's outputs are
`TPUPartitionedCall:N`, and loading it on a CPU fails restoring (no kernel for
TPUOrdinalSelector). With API V2 both load and give the same outputs.
"""

import os

import numpy as np
import tensorflow as tf
from tensorflow.core.protobuf import saved_model_pb2

import estimator_lib
from estimator_lib import tpu
from estimator_lib.tpu import tpu_estimator as tpu_estimator_lib

_X = np.arange(16, dtype=np.float32).reshape(8, 2) / 16.0
_Y = (np.arange(8) % 2).astype(np.int32)
_TPU_TAGS = [tf.saved_model.SERVING, tf.saved_model.TPU]


def _model_fn(calls):
    def model_fn(features, labels, mode, params):
        calls.append(params.get("use_tpu"))
        logits = tf.compat.v1.layers.dense(features["x"], 2, name="dense")
        predictions = {"logits": logits, "classes": tf.argmax(logits, 1)}
        if mode == estimator_lib.ModeKeys.PREDICT:
            return tpu.TPUEstimatorSpec(mode, predictions=predictions)
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step())
        return tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train_op)

    return model_fn


def _input_fn(params):
    return tf.data.Dataset.from_tensor_slices(({"x": _X}, _Y)).repeat().batch(
        params["batch_size"])


def _receiver_fn():
    x = tf.compat.v1.placeholder(tf.float32, [None, 2], name="x")
    return estimator_lib.export.ServingInputReceiver({"x": x}, {"x": x})


def _meta_graphs(export_dir):
    proto = saved_model_pb2.SavedModel()
    with open(os.path.join(export_dir, b"saved_model.pb"), "rb") as f:
        proto.ParseFromString(f.read())
    return {tuple(sorted(m.meta_info_def.tags)): m for m in proto.meta_graphs}


def _load_and_run(export_dir, tags):
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        meta_graph = tf.compat.v1.saved_model.load(session, tags, export_dir)
        signature = meta_graph.signature_def["serving_default"]
        return session.run({k: v.name for k, v in signature.outputs.items()},
                           {signature.inputs["x"].name: _X[:3]})


class TPUExportTest(tf.test.TestCase):

    def _export(self, calls, **kwargs):
        config = tpu.RunConfig(model_dir=os.path.join(self.get_temp_dir(), "model"))
        tpu.TPUEstimator(model_fn=_model_fn([]), config=config, use_tpu=False,
                         train_batch_size=4).train(_input_fn, max_steps=2)
        est = tpu.TPUEstimator(model_fn=_model_fn(calls), config=config, use_tpu=False,
                               **kwargs)
        return est.export_saved_model(os.path.join(self.get_temp_dir(), "export"),
                                      _receiver_fn)

    def test_default_export_writes_the_tpu_meta_graph_as_the_original(self):
        calls = []
        export_dir = self._export(calls)
        meta_graphs = _meta_graphs(export_dir)
        self.assertEqual({("serve",), ("serve", "tpu")}, set(meta_graphs))
        tpu_graph = meta_graphs[("serve", "tpu")].graph_def
        self.assertContainsSubset({"TPUOrdinalSelector", "TPUPartitionedCall"},
                                  {node.op for node in tpu_graph.node})
        self.assertContainsSubset(
            {"TPUReplicateMetadata", "TPUCompilationResult", "TPUReplicatedOutput", "MatMul"},
            {node.op for f in tpu_graph.library.function for node in f.node_def})
        outputs = meta_graphs[("serve", "tpu")].signature_def["serving_default"].outputs
        self.assertEqual({"classes", "logits"}, set(outputs))
        for output in outputs.values():
            self.assertStartsWith(output.name, "TPUPartitionedCall:")
        # The MetaGraph imports; only a TPU can run it (the original failed the same way).
        with tf.Graph().as_default():
            tf.compat.v1.train.import_meta_graph(meta_graphs[("serve", "tpu")])
        with self.assertRaisesRegex(tf.errors.InvalidArgumentError, "TPUOrdinalSelector"):
            _load_and_run(export_dir, _TPU_TAGS)
        self.assertEqual((3, 2), _load_and_run(export_dir, ["serve"])["logits"].shape)
        # As the original's V1: the model_fn runs in the rewrite with use_tpu False.
        self.assertEqual([False, False], calls)

    def test_api_v2_tpu_meta_graph_is_the_model_fn_called_plainly(self):
        calls = []
        export_dir = self._export(
            calls, export_saved_model_api_version=tpu_estimator_lib.ExportSavedModelApiVersion.V2)
        on_cpu = _load_and_run(export_dir, ["serve"])
        on_tpu_tags = _load_and_run(export_dir, _TPU_TAGS)
        self.assertAllClose(on_cpu["logits"], on_tpu_tags["logits"])
        self.assertEqual([False, True], calls)

    def test_export_to_cpu_false_writes_the_tpu_meta_graph_only(self):
        export_dir = self._export([], export_to_cpu=False, export_saved_model_api_version=2)
        self.assertEqual({("serve", "tpu")}, set(_meta_graphs(export_dir)))
        self.assertEqual((3, 2), _load_and_run(export_dir, _TPU_TAGS)["logits"].shape)

    def test_export_to_cpu_false_with_api_v1_needs_a_tpu(self):
        with self.assertRaisesRegex(ValueError, "export_to_cpu=True.*"
                                    "export_saved_model_api_version=ExportSavedModelApiVersion"):
            self._export([], export_to_cpu=False)

    def test_export_to_tpu_false_writes_the_cpu_meta_graph_only(self):
        export_dir = self._export([], export_to_tpu=False)
        self.assertEqual({("serve",)}, set(_meta_graphs(export_dir)))

    def test_neither_meta_graph_is_refused(self):
        with self.assertRaisesRegex(ValueError, "One of export_to_cpu and export_to_tpu "
                                    "must be true."):
            self._export([], export_to_cpu=False, export_to_tpu=False)

    def test_only_predict_is_exported_for_tpu(self):
        self._export([])
        est = tpu.TPUEstimator(
            model_fn=_model_fn([]), use_tpu=False,
            config=tpu.RunConfig(model_dir=os.path.join(self.get_temp_dir(), "model")))

        def supervised_receiver_fn():
            x = tf.compat.v1.placeholder(tf.float32, [None, 2], name="x")
            y = tf.compat.v1.placeholder(tf.int32, [None], name="y")
            return estimator_lib.experimental.build_raw_supervised_input_receiver_fn(
                {"x": x}, y)()

        with self.assertLogs("tensorflow", level="WARNING") as logs:
            export_dir = est.experimental_export_all_saved_models(
                os.path.join(self.get_temp_dir(), "all"),
                {estimator_lib.ModeKeys.TRAIN: supervised_receiver_fn,
                 estimator_lib.ModeKeys.PREDICT: _receiver_fn})
        self.assertIn("TPUEstimator only handles mode PREDICT for exporting when "
                      "`export_to_tpu` is `True`; Mode train will be ignored for TPU.",
                      "\n".join(logs.output))
        self.assertEqual({("train",), ("serve",), ("serve", "tpu")},
                         set(_meta_graphs(export_dir)))


if __name__ == "__main__":
    tf.test.main()
