"""Writes tests/data/tf215_canned_* with the ORIGINAL canned estimators (TF 2.15.1).

Run by hand only, in the throw-away venv described in tests/data/README.md:

    TF_CPP_MIN_LOG_LEVEL=2 /tmp/tf215/bin/python tests/data/make_tf215_canned_fixtures.py

Each model is trained 3 steps on the tiny input of `canned_fixture_data()`
(the test rebuilds the same input), its model_dir is pruned to the last
checkpoint, and `<dir>.json` beside it records the class, evaluate() values,
variable names and the first prediction. Nothing of the original is copied:
only its outputs are kept.
"""

import json
import os
import shutil
import sys

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
STEPS = 3


def canned_fixture_data(regression: bool):
    """8 examples: numeric x, a two-word category, labels 0/1 (or a float target)."""
    n = 8
    x = (np.arange(n, dtype=np.float32) / n).reshape(n, 1)
    cat = np.array([[b"a"], [b"b"], [b"b"], [b"a"], [b"c"], [b"a"], [b"b"], [b"c"]])
    if regression:
        y = (2.0 * x + 0.5).astype(np.float32)
    else:
        y = np.array([[0], [1], [1], [0], [1], [0], [1], [1]], dtype=np.int64)
    return {"x": x, "cat": cat}, y


def columns(fc):
    x = fc.numeric_column("x")
    cat = fc.categorical_column_with_vocabulary_list("cat", ["a", "b", "c"])
    return x, cat, fc.embedding_column(cat, 2, initializer=tf.compat.v1.ones_initializer())


# name -> (API, class, kwargs builder(fc)); v2 = tf.estimator, v1 = tf.compat.v1.estimator.
def specs(fc):
    x, cat, emb = columns(fc)
    return {
        "dnn_classifier_v2": ("v2", "DNNClassifier", dict(hidden_units=[4], feature_columns=[x, emb])),
        "dnn_classifier_v1": ("v1", "DNNClassifier", dict(hidden_units=[4], feature_columns=[x, emb])),
        "linear_classifier_v2": ("v2", "LinearClassifier", dict(feature_columns=[x, cat])),
        "linear_classifier_v1": ("v1", "LinearClassifier", dict(feature_columns=[x, cat])),
        "dnn_linear_combined_classifier_v2": ("v2", "DNNLinearCombinedClassifier", dict(
            linear_feature_columns=[cat], dnn_feature_columns=[x, emb], dnn_hidden_units=[4])),
        "dnn_linear_combined_classifier_v1": ("v1", "DNNLinearCombinedClassifier", dict(
            linear_feature_columns=[cat], dnn_feature_columns=[x, emb], dnn_hidden_units=[4])),
        "dnn_regressor_v2": ("v2", "DNNRegressor", dict(hidden_units=[4], feature_columns=[x, emb])),
        "linear_regressor_v1": ("v1", "LinearRegressor", dict(feature_columns=[x, cat])),
        "baseline_classifier_v1": ("v1", "BaselineClassifier", dict()),
    }


def input_fn(regression, *, repeat):
    features, y = canned_fixture_data(regression)
    ds = tf.data.Dataset.from_tensor_slices((features, y))
    if repeat:
        ds = ds.repeat()
    return ds.batch(4)


def main():
    only = set(sys.argv[1:])
    for name, (api, cls_name, kwargs) in specs(tf.feature_column).items():
        if only and name not in only:
            continue
        module = tf.estimator if api == "v2" else tf.compat.v1.estimator
        model_dir = os.path.join(HERE, f"tf215_canned_{name}")
        shutil.rmtree(model_dir, ignore_errors=True)
        config = tf.estimator.RunConfig(tf_random_seed=1, save_checkpoints_steps=1000,
                                        keep_checkpoint_max=1, save_summary_steps=1000)
        est = getattr(module, cls_name)(model_dir=model_dir, config=config, **kwargs)
        regression = "Regressor" in cls_name
        est.train(lambda: input_fn(regression, repeat=True), steps=STEPS)
        ev = est.evaluate(lambda: input_fn(regression, repeat=False))
        pred = next(iter(est.predict(lambda: input_fn(regression, repeat=False))))
        record = dict(
            api=api, cls=cls_name, steps=STEPS,
            evaluate={k: float(v) for k, v in ev.items()},
            variable_names=est.get_variable_names(),
            prediction={k: np.asarray(v).tolist() for k, v in pred.items()
                        if np.asarray(v).dtype.kind in "fiu"})
        # Keep only what a resume reads: the last checkpoint.
        for entry in os.listdir(model_dir):
            path = os.path.join(model_dir, entry)
            if entry == "checkpoint" or (entry.startswith(f"model.ckpt-{STEPS}.")
                                         and not entry.endswith(".meta")):
                continue
            shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
        with open(model_dir + ".json", "w") as f:
            json.dump(record, f, indent=1, sort_keys=True)
        print(name, ev)


if __name__ == "__main__":
    main()
