"""A TFX/TFMA-era trainer's shape: a custom model_fn over feature columns whose head is
a MultiHead of a binary-class and a regression head, metric keys from the canned
module paths, and a serving export of tf.Examples."""

import os
import sys

import numpy as np
import tensorflow as tf
from tensorflow.python.estimator.canned import metric_keys  # What such trainers import.

from report import report


def input_fn(n, seed, repeat):
    rng = np.random.RandomState(seed)
    x = rng.randn(n, 3).astype(np.float32)
    features = {"x": x}
    labels = {"click": (x[:, 0] > 0).astype(np.int64)[:, None],
              "dwell": (2 * x[:, 1:2] + 0.5).astype(np.float32)}
    dataset = tf.data.Dataset.from_tensor_slices((features, labels))
    return (dataset.repeat() if repeat else dataset).batch(16)


COLUMNS = [tf.feature_column.numeric_column("x", shape=[3])]


def model_fn(features, labels, mode, params):
    head = tf.estimator.MultiHead([tf.estimator.BinaryClassHead(name="click"),
                                   tf.estimator.RegressionHead(name="dwell")])
    net = tf.compat.v1.feature_column.input_layer(features, COLUMNS)
    hidden = tf.compat.v1.layers.dense(net, params["hidden"], activation=tf.nn.relu)
    logits = {"click": tf.compat.v1.layers.dense(hidden, 1, name="click_logits"),
              "dwell": tf.compat.v1.layers.dense(hidden, 1, name="dwell_logits")}
    optimizer = tf.compat.v1.train.AdagradOptimizer(0.1)
    return head.create_estimator_spec(
        features=features, mode=mode, logits=logits, labels=labels,
        train_op_fn=lambda loss: optimizer.minimize(
            loss, global_step=tf.compat.v1.train.get_global_step()))


def main(model_dir):
    estimator = tf.estimator.Estimator(model_fn, model_dir=model_dir, params={"hidden": 8})
    estimator.train(lambda: input_fn(64, 0, True), steps=30)
    evaluation = estimator.evaluate(lambda: input_fn(32, 1, False))
    print("AUC of click:", evaluation[metric_keys.MetricKeys.AUC + "/click"])
    predictions = list(estimator.predict(lambda: input_fn(8, 2, False)))
    spec = tf.feature_column.make_parse_example_spec(COLUMNS)
    export_dir = estimator.export_saved_model(
        os.path.join(model_dir, "export"),
        tf.estimator.export.build_parsing_serving_input_receiver_fn(spec))
    report(estimator, evaluation, predictions, export_dir)


if __name__ == "__main__":
    main(sys.argv[1])
