"""The original's KMeans / LinearSDCA runs (tests/data/tf215_kmeans_sdca.json), rebuilt here.

tests/data/make_tf215_kmeans_sdca_fixtures.py recorded them on TF 2.15; these helpers
build the same estimators, inputs and session settings with estimator_lib, and unpack
the original's model_dirs.
"""

import json
import os
import shutil
import tarfile

import numpy as np
import tensorflow as tf

from estimator_lib import canned
from estimator_lib.canned.kmeans import KMeansClustering
from estimator_lib.experimental import LinearSDCA
from estimator_lib.core.run_config import RunConfig

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "data")
SDCA_NAMES = ("sdca_classifier_v2", "sdca_regressor_v1")


def record(name: str) -> dict:
    with open(os.path.join(DATA, "tf215_kmeans_sdca.json")) as f:
        records = json.load(f)
    return dict(records[name], data=records["data"]) if name.startswith("kmeans") \
        else records[name]


def run_config(model_dir: str) -> RunConfig:
    """The generator's config: seeded, single-threaded, one checkpoint at the end.

    Thread pools of the session's own (`use_per_session_threads`): otherwise a session
    runs on the process's global pool, sized by the first session the process made, so
    in a test process that already ran others the ops of mini-batch KMeans' unordered
    ref-variable updates ran on two threads and, once in a full suite, raced (centers
    1% off). The generator's fresh process had one thread, as this gives.
    """
    return RunConfig(model_dir=model_dir, tf_random_seed=1,
                     session_config=tf.compat.v1.ConfigProto(
                         intra_op_parallelism_threads=1, inter_op_parallelism_threads=1,
                         use_per_session_threads=True),
                     save_checkpoints_steps=1000, keep_checkpoint_max=1,
                     save_summary_steps=1000)


def unpack_model_dir(name: str, dest: str) -> str:
    """The original's pruned model_dir of run `name`, copied or extracted into `dest`."""
    if name == "kmeans":
        shutil.copytree(os.path.join(DATA, "tf215_kmeans_model_dir"), dest)
    else:
        with tarfile.open(os.path.join(DATA, f"tf215_{name}_model_dir.tar.gz")) as tar:
            tar.extractall(dest, filter="data")
    return dest


# ---------------------------------------------------------------------------- KMeans


def kmeans(model_dir: str, rec: dict) -> KMeansClustering:
    args = dict(rec["args"])
    args["initial_clusters"] = np.array(args["initial_clusters"], np.float32)
    return KMeansClustering(config=run_config(model_dir), **args)


def kmeans_input_fn(rec: dict, *, repeat: bool):
    def input_fn():
        dataset = tf.data.Dataset.from_tensors(
            tf.constant(rec["data"]["points"], tf.float32))
        return dataset.repeat() if repeat else dataset
    return input_fn


# ---------------------------------------------------------------------------- SDCA


def sdca(name: str, model_dir: str):
    """The run's LinearClassifier (v2) or tf.compat.v1 LinearRegressor with LinearSDCA."""
    rec = record(name)
    columns = [tf.feature_column.numeric_column("x"),
               tf.feature_column.categorical_column_with_vocabulary_list(
                   "cat", ["a", "b", "c"])]
    optimizer = LinearSDCA(**rec["args"])
    if name == "sdca_classifier_v2":
        return canned.LinearClassifierV2(columns, weight_column="weights",
                                         optimizer=optimizer, config=run_config(model_dir))
    return canned.LinearRegressor(columns, weight_column="weights", optimizer=optimizer,
                                  config=run_config(model_dir))


def sdca_input_fn(name: str, *, train: bool):
    """Training: one example a step, in order, repeated (the original's kernel shuffles
    larger batches from a random seed); otherwise the 8 examples as one batch."""
    data = record(name)["data"]
    regression = "regressor" in name

    def input_fn():
        features = {"example_id": tf.constant(data["example_id"]),
                    "x": tf.constant(data["x"], tf.float32),
                    "cat": tf.constant(data["cat"]),
                    "weights": tf.constant(data["weights"], tf.float32)}
        labels = tf.constant(data["labels"], tf.float32 if regression else tf.int64)
        if train:
            return tf.data.Dataset.from_tensor_slices((features, labels)).batch(1).repeat()
        return tf.data.Dataset.from_tensors((features, labels))
    return input_fn


def checksums(model_dir: str) -> dict:
    """Per checkpoint variable: shape and sum / sum of |x| (the table: non-empty keys)."""
    out = {}
    for name, shape in tf.train.list_variables(model_dir):
        value = tf.train.load_variable(model_dir, name)
        if name.endswith("-keys"):
            keys = np.asarray(value).reshape(-1, 2)
            out[name] = dict(shape=shape, non_empty=int((keys != 0).any(axis=1).sum()))
        else:
            value = np.asarray(value, np.float64)
            out[name] = dict(shape=shape, sum=float(value.sum()),
                             abs_sum=float(np.abs(value).sum()))
    return out


def assert_checksums_close(test, expected: dict, model_dir: str, rtol: float) -> None:
    """Fails `test` unless model_dir's checkpoint has `expected`'s variables (names,
    shapes) with checksum values within `rtol` (atol 1e-6) of the recorded ones."""
    sums = checksums(model_dir)
    test.assertEqual(sorted(expected), sorted(sums))
    for var, recorded in expected.items():
        test.assertEqual(sorted(recorded), sorted(sums[var]), var)
        for kind, value in recorded.items():
            test.assertAllClose(value, sums[var][kind], rtol=rtol, atol=1e-6,
                                msg=f"{var} {kind}")
