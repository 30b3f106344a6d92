"""Writes tests/data/tf215_kmeans_sdca* with the ORIGINAL KMeans and LinearSDCA (TF 2.15.1).

Run by hand only, in the throw-away venv described in tests/data/README.md:

    TF_CPP_MIN_LOG_LEVEL=2 /tmp/tf215/bin/python tests/data/make_tf215_kmeans_sdca_fixtures.py

Three runs, each from a fixed start on fixed data read whole and in order, in a
single-threaded session (intra/inter_op_parallelism_threads=1):

- kmeans: tf.compat.v1.estimator.experimental.KMeans, full batch, initial centers
  given; also a mini-batch run (numbers only) with mini_batch_steps_per_iteration=1
  (deterministic: with more, clustering_ops' sync step reads and scatter-updates its
  ref variables unordered) from a start where it ends 20% away from full-batch
  training's centers (recorded too, as `full_batch_cluster_centers`), so a test at
  rtol 1e-4 tells the two apart;
- sdca_classifier_v2: tf.estimator.LinearClassifier(optimizer=LinearSDCA(...)) over a
  numeric, a categorical and a weight column, with L1, one example per step (see
  sdca_input_fn: the kernel shuffles larger batches at random);
- sdca_regressor_v1: tf.compat.v1.estimator.LinearRegressor(optimizer=LinearSDCA(...)).

`tf215_kmeans_sdca.json` records, per run: the input data, the constructor arguments,
the steps, final cluster centers (kmeans), evaluate(), predict(), every checkpoint
variable's shape and checksums (sum, sum of |x|; the SDCA example-state table as
its number of non-empty keys and the float64 sum of its values), and evaluate()
after `RESUME_STEPS` more steps from the kept checkpoint. The model_dirs are pruned
to the last checkpoint (no .meta, events or graph); the SDCA ones are stored as
.tar.gz, their example-state table filling 4 MB of empty buckets. Nothing of the
original is copied: only its outputs are kept.
"""

import json
import os
import shutil
import sys
import tarfile
import tempfile

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
KMEANS_STEPS = 4
SDCA_STEPS = 12  # one example a step: 1.5 passes over the 8
RESUME_STEPS = 2


def session_config():
    return tf.compat.v1.ConfigProto(intra_op_parallelism_threads=1,
                                    inter_op_parallelism_threads=1)


def run_config(model_dir):
    return tf.estimator.RunConfig(model_dir=model_dir, tf_random_seed=1,
                                  session_config=session_config(),
                                  save_checkpoints_steps=1000, keep_checkpoint_max=1,
                                  save_summary_steps=1000)


def kmeans_data():
    points = np.random.RandomState(0).uniform(0, 10, [12, 2]).astype(np.float32)
    return {"points": points.tolist(), "initial_clusters": points[[0, 5, 9]].tolist()}


def sdca_data(regression):
    """8 examples: ids, a numeric x, a category from {a, b, c}, weights, labels."""
    x = [[0.1], [0.9], [0.4], [0.8], [0.2], [0.7], [0.3], [0.6]]
    cat = [["a"], ["b"], ["b"], ["c"], ["a"], ["c"], ["a"], ["b"]]
    weights = [[1.0], [2.0], [1.0], [1.0], [0.5], [1.0], [1.0], [1.5]]
    if regression:
        labels = [[round(2.0 * v[0] - 0.5 + (0.3 if c[0] == "b" else 0.0), 3)]
                  for v, c in zip(x, cat)]
    else:
        labels = [[0], [1], [1], [1], [0], [1], [0], [0]]
    return {"example_id": [str(i) for i in range(8)], "x": x, "cat": cat,
            "weights": weights, "labels": labels}


def sdca_input_fn(data, *, train, regression):
    """Training: one example per step, in order, repeated; else the 8 as one batch.

    One example a batch because the original's SDCA kernel visits a batch's examples
    in an order shuffled from std::random_device: with more, equal starts give
    different numbers (3 runs of the regressor below with the whole batch per step:
    average_loss 0.0801, 0.0899, 0.1024).
    """
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


def sdca_columns(fc):
    return [fc.numeric_column("x"),
            fc.categorical_column_with_vocabulary_list("cat", ["a", "b", "c"])]


SDCA_ARGS = {
    "sdca_classifier_v2": dict(example_id_column="example_id",
                               symmetric_l1_regularization=0.05,
                               symmetric_l2_regularization=1.5),
    "sdca_regressor_v1": dict(example_id_column="example_id",
                              symmetric_l2_regularization=2.0),
}


def make_sdca(name, model_dir, api):
    regression = "regressor" in name
    optimizer = api.LinearSDCA(**SDCA_ARGS[name])
    columns = sdca_columns(tf.feature_column)
    config = run_config(model_dir)
    if name == "sdca_classifier_v2":
        return tf.estimator.LinearClassifier(columns, weight_column="weights",
                                             optimizer=optimizer, config=config)
    assert regression
    return tf.compat.v1.estimator.LinearRegressor(columns, weight_column="weights",
                                                  optimizer=optimizer, config=config)


def make_kmeans(model_dir, **kwargs):
    return tf.compat.v1.estimator.experimental.KMeans(
        config=run_config(model_dir), **kwargs)


def kmeans_args(data, mini_batch):
    initial = data["initial_clusters"] if not mini_batch else data["points"][:3]
    args = dict(num_clusters=3, initial_clusters=np.array(initial, np.float32),
                use_mini_batch=mini_batch, seed=7)
    if mini_batch:
        args["mini_batch_steps_per_iteration"] = 1
    return args


def kmeans_input_fn(data, *, repeat):
    def input_fn():
        dataset = tf.data.Dataset.from_tensors(tf.constant(data["points"], tf.float32))
        return dataset.repeat() if repeat else dataset
    return input_fn


def plain(value):
    value = np.asarray(value)
    if value.dtype.kind in "SUO":
        return [v.decode() if isinstance(v, bytes) else str(v) for v in value.ravel()]
    return value.tolist()


def checksums(model_dir):
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


def prune(model_dir, step):
    for entry in os.listdir(model_dir):
        if entry == "checkpoint" or (entry.startswith(f"model.ckpt-{step}.")
                                     and not entry.endswith(".meta")):
            continue
        path = os.path.join(model_dir, entry)
        shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)


def resumed_evaluate(model_dir, build, train_fn, eval_fn):
    """evaluate() after RESUME_STEPS more steps from a copy of the pruned dir."""
    copy = tempfile.mkdtemp()
    shutil.rmtree(copy)
    shutil.copytree(model_dir, copy)
    est = build(copy)
    est.train(train_fn, steps=RESUME_STEPS)
    result = {k: float(v) for k, v in est.evaluate(eval_fn).items()}
    shutil.rmtree(copy)
    return result


def record_kmeans(data, runs=(False, True)):
    record = {"data": data}
    for mini_batch in runs:
        key = "kmeans_mini_batch" if mini_batch else "kmeans"
        model_dir = os.path.join(HERE, "tf215_kmeans_model_dir") if not mini_batch \
            else tempfile.mkdtemp()
        shutil.rmtree(model_dir, ignore_errors=True)
        args = kmeans_args(data, mini_batch)
        est = make_kmeans(model_dir, **args)
        est.train(kmeans_input_fn(data, repeat=True), steps=KMEANS_STEPS)
        eval_fn = kmeans_input_fn(data, repeat=False)
        predictions = list(est.predict(eval_fn))
        record[key] = dict(
            args={k: plain(v) for k, v in args.items()}, steps=KMEANS_STEPS,
            cluster_centers=plain(est.cluster_centers()),
            evaluate={k: float(v) for k, v in est.evaluate(eval_fn).items()},
            score=float(est.score(eval_fn)),
            transform=[plain(t) for t in est.transform(eval_fn)],
            predictions={k: [plain(p[k]) for p in predictions] for k in predictions[0]},
            variable_names=est.get_variable_names(),
            checksums=checksums(model_dir))
        if mini_batch:
            shutil.rmtree(model_dir)
            full = make_kmeans(model_dir, **dict(args, use_mini_batch=False))
            full.train(kmeans_input_fn(data, repeat=True), steps=KMEANS_STEPS)
            record[key]["full_batch_cluster_centers"] = plain(full.cluster_centers())
            shutil.rmtree(model_dir)
            continue
        prune(model_dir, KMEANS_STEPS)
        record[key]["resumed_evaluate"] = resumed_evaluate(
            model_dir, lambda d: make_kmeans(d, **args),
            kmeans_input_fn(data, repeat=True), eval_fn)
        print(key, record[key]["evaluate"])
    return record


def record_sdca(name):
    regression = "regressor" in name
    data = sdca_data(regression)
    api = tf.estimator.experimental
    work = tempfile.mkdtemp()
    model_dir = os.path.join(work, "model_dir")
    est = make_sdca(name, model_dir, api)
    train_fn = sdca_input_fn(data, train=True, regression=regression)
    eval_fn = sdca_input_fn(data, train=False, regression=regression)
    est.train(train_fn, steps=SDCA_STEPS)
    predictions = list(est.predict(eval_fn))
    record = dict(
        data=data, args=SDCA_ARGS[name], steps=SDCA_STEPS,
        evaluate={k: float(v) for k, v in est.evaluate(eval_fn).items()},
        predictions={k: [plain(p[k]) for p in predictions] for k in predictions[0]},
        variable_names=est.get_variable_names(), checksums=checksums(model_dir))
    prune(model_dir, SDCA_STEPS)
    record["resumed_evaluate"] = resumed_evaluate(
        model_dir, lambda d: make_sdca(name, d, api), train_fn, eval_fn)
    archive = os.path.join(HERE, f"tf215_{name}_model_dir.tar.gz")
    with tarfile.open(archive, "w:gz") as tar:
        for entry in sorted(os.listdir(model_dir)):
            tar.add(os.path.join(model_dir, entry), arcname=entry)
    shutil.rmtree(work)
    print(name, record["evaluate"])
    return record


def main(argv):
    tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.WARN)
    path = os.path.join(HERE, "tf215_kmeans_sdca.json")
    if argv[1:] == ["kmeans_mini_batch"]:  # Re-records that run alone.
        with open(path) as f:
            records = json.load(f)
        records.update(record_kmeans(kmeans_data(), runs=(True,)))
        with open(path, "w") as f:
            json.dump(records, f, indent=1, sort_keys=True)
        return
    records = {"versions": dict(tensorflow=tf.__version__)}
    records.update(record_kmeans(kmeans_data()))
    for name in SDCA_ARGS:
        records[name] = record_sdca(name)
    with open(path, "w") as f:
        json.dump(records, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv)
