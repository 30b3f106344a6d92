"""Tiny models and inputs shared by the estimator_lib tests."""

import os

import numpy as np
import tensorflow as tf

import estimator_lib as el


def separable_data(n=64, seed=0):
    """`n` examples of 4 features; the label is whether x0 + x1 > 0."""
    rng = np.random.RandomState(seed)
    x = rng.randn(n, 4).astype(np.float32)
    y = (x[:, 0] + x[:, 1] > 0).astype(np.int32)
    return x, y


def train_input_fn(batch_size=16, n=64):
    x, y = separable_data(n)

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(batch_size)

    return input_fn


def eval_input_fn(batch_size=16, n=64):
    x, y = separable_data(n)

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(batch_size)

    return input_fn


def linear_model_fn(features, labels, mode):
    """One tf.compat.v1.layers.dense layer, Adagrad, accuracy: the reference model_fn."""
    logits = tf.compat.v1.layers.dense(features["x"], 2)
    predictions = {"classes": tf.argmax(logits, 1), "probabilities": tf.nn.softmax(logits)}
    if mode == el.ModeKeys.PREDICT:
        return el.EstimatorSpec(mode, predictions=predictions)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = tf.compat.v1.train.AdagradOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    metrics = {"accuracy": tf.compat.v1.metrics.accuracy(labels, predictions["classes"])}
    return el.EstimatorSpec(mode, loss=loss, train_op=train_op, predictions=predictions,
                            eval_metric_ops=metrics)


def event_tags(directory):
    """All summary tags written to the event files directly in `directory`."""
    tags = set()
    for name in tf.io.gfile.listdir(directory):
        if not name.startswith("events.out.tfevents"):
            continue
        for event in tf.compat.v1.train.summary_iterator(os.path.join(directory, name)):
            for value in event.summary.value:
                tags.add(value.tag)
    return tags
