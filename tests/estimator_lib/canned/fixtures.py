"""Builds, here, the models tests/data/make_tf215_canned_fixtures.py trained with the original."""

import json
import os
import shutil

import numpy as np
import tensorflow as tf

import estimator_lib
from estimator_lib import canned

DATA = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "data")
NAMES = (
    "dnn_classifier_v2", "dnn_classifier_v1", "linear_classifier_v2", "linear_classifier_v1",
    "dnn_linear_combined_classifier_v2", "dnn_linear_combined_classifier_v1",
    "dnn_regressor_v2", "linear_regressor_v1", "baseline_classifier_v1",
)


def canned_fixture_data(regression: bool):
    """The generator's 8 examples (same formula)."""
    n = 8
    x = (np.arange(n, dtype=np.float32) / n).reshape(n, 1)
    cat = np.array([[b"a"], [b"b"], [b"b"], [b"a"], [b"c"], [b"a"], [b"b"], [b"c"]])
    if regression:
        y = (2.0 * x + 0.5).astype(np.float32)
    else:
        y = np.array([[0], [1], [1], [0], [1], [0], [1], [1]], dtype=np.int64)
    return {"x": x, "cat": cat}, y


def input_fn(regression: bool, *, repeat: bool):
    def fn():
        features, y = canned_fixture_data(regression)
        ds = tf.data.Dataset.from_tensor_slices((features, y))
        if repeat:
            ds = ds.repeat()
        return ds.batch(4)
    return fn


def columns():
    fc = tf.feature_column
    x = fc.numeric_column("x")
    cat = fc.categorical_column_with_vocabulary_list("cat", ["a", "b", "c"])
    return x, cat, fc.embedding_column(cat, 2, initializer=tf.compat.v1.ones_initializer())


def spec(name):
    x, cat, emb = columns()
    return {
        "dnn_classifier_v2": (canned.DNNClassifierV2, dict(hidden_units=[4],
                                                           feature_columns=[x, emb])),
        "dnn_classifier_v1": (canned.DNNClassifier, dict(hidden_units=[4],
                                                         feature_columns=[x, emb])),
        "linear_classifier_v2": (canned.LinearClassifierV2, dict(feature_columns=[x, cat])),
        "linear_classifier_v1": (canned.LinearClassifier, dict(feature_columns=[x, cat])),
        "dnn_linear_combined_classifier_v2": (canned.DNNLinearCombinedClassifierV2, dict(
            linear_feature_columns=[cat], dnn_feature_columns=[x, emb], dnn_hidden_units=[4])),
        "dnn_linear_combined_classifier_v1": (canned.DNNLinearCombinedClassifier, dict(
            linear_feature_columns=[cat], dnn_feature_columns=[x, emb], dnn_hidden_units=[4])),
        "dnn_regressor_v2": (canned.DNNRegressorV2, dict(hidden_units=[4],
                                                         feature_columns=[x, emb])),
        "linear_regressor_v1": (canned.LinearRegressor, dict(feature_columns=[x, cat])),
        "baseline_classifier_v1": (canned.BaselineClassifier, dict()),
    }[name]


def record(name):
    with open(os.path.join(DATA, f"tf215_canned_{name}.json")) as f:
        return json.load(f)


def build(name, model_dir, *, copy_fixture: bool, **config_kwargs):
    """The estimator of fixture `name` in `model_dir` (the original's checkpoint copied in)."""
    if copy_fixture:
        shutil.copytree(os.path.join(DATA, f"tf215_canned_{name}"), model_dir)
    cls, kwargs = spec(name)
    config = estimator_lib.RunConfig(model_dir=model_dir, tf_random_seed=1,
                                     save_checkpoints_steps=1000, keep_checkpoint_max=1,
                                     save_summary_steps=1000, **config_kwargs)
    return cls(config=config, **kwargs)


def is_regression(name):
    return "regressor" in name
