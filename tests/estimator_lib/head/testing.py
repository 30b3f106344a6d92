"""Builds one head EstimatorSpec in a fresh graph and runs what a test needs of it.

Expected numbers in these tests were obtained by running the same programs on
the original (TensorFlow 2.15.1 + tensorflow-estimator 2.15.0).
"""

import numpy as np
import tensorflow as tf

import estimator_lib

ModeKeys = estimator_lib.ModeKeys

# Four examples shared by the tests.
LOGITS_1 = np.array([[2.], [-1.], [0.5], [-3.]], np.float32)
LABELS_01 = np.array([[1.], [0.], [0.], [1.]], np.float32)
LOGITS_3 = np.array([[2., 1., -1.], [0., 3., 1.], [1., 1., 1.], [-2., 0., 5.]], np.float32)
CLASS_IDS = np.array([[0], [1], [2], [1]], np.int64)
LOGITS_2 = np.array([[2., 1.], [0., 3.], [1., 1.], [-2., 0.]], np.float32)
TARGETS_2 = np.array([[1., 1.], [0., 2.], [2., 1.], [-1., 1.]], np.float32)
WEIGHTS = {"w": np.array([[1.], [2.], [0.5], [3.]], np.float32)}


def loss_as_string(loss):
    """A train_op_fn whose 'train op' is the loss, printed: shows what it was given."""
    return tf.strings.as_string(loss, precision=3)


def run_spec(head, mode, logits, labels=None, features=None, **kwargs):
    """Returns (spec, results): loss, metric values, predictions, train op value, summaries."""
    graph = tf.Graph()
    with graph.as_default():
        global_step = tf.compat.v1.train.get_or_create_global_step()
        features = {k: tf.constant(v) for k, v in (features or {"x": LOGITS_1}).items()}
        if kwargs.get("regularization_losses") is not None:  # floats, made here in the graph
            kwargs["regularization_losses"] = [
                tf.constant(v, tf.float32) for v in kwargs["regularization_losses"]]
        spec = head.create_estimator_spec(
            features=features, mode=mode, logits=tf.constant(logits),
            labels=None if labels is None else _labels(labels), **kwargs)
        results = {}
        with tf.compat.v1.Session() as sess:
            sess.run([tf.compat.v1.global_variables_initializer(),
                      tf.compat.v1.local_variables_initializer(),
                      tf.compat.v1.tables_initializer()])
            if mode == ModeKeys.EVAL:
                sess.run([update for _, update in spec.eval_metric_ops.values()])
                results["metrics"] = {k: sess.run(value)
                                      for k, (value, _) in spec.eval_metric_ops.items()}
            if spec.loss is not None:
                results["loss"] = sess.run(spec.loss)
            results["predictions"] = sess.run(spec.predictions)
            if mode == ModeKeys.TRAIN:
                results["train_op"] = sess.run(spec.train_op)
                results["global_step"] = sess.run(global_step)
                summaries = sorted((op for op in graph.get_operations()
                                    if op.type == "ScalarSummary"), key=lambda op: op.name)
                results["summaries"] = {
                    sess.run(op.inputs[0]).decode(): sess.run(op.inputs[1])
                    for op in summaries}
    return spec, results


def _labels(labels):
    if isinstance(labels, dict):
        return {k: tf.constant(v) for k, v in labels.items()}
    if isinstance(labels, tf.compat.v1.SparseTensorValue):
        return tf.SparseTensor.from_value(labels)
    return tf.constant(labels)
