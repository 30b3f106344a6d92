"""Writes tests/data/tf215_receivers.json: the ORIGINAL's serving and supervised receivers.

Run by hand only, in the throw-away venv described in tests/data/README.md:

    TF_CPP_MIN_LOG_LEVEL=2 /tmp/tf215/bin/python tests/data/make_tf215_receivers.py

For every case of `cases(api)` (each receiver builder and receiver class, features of
rank 0, 1 and 2 and of several dtypes, with and without `default_batch_size`) it
records what the receiver fn returns, called in a fresh graph: its type, and each
receiver tensor's and feature's kind, name, dtype and shape; then it exports a tiny
model with it and records every signature def of the SavedModel (method, and each
input's and output's tensor name, dtype and shape). An error is recorded as its type.
It also records the installed versions (`versions`).
About 30 s. Only the original's outputs are kept.

`tests/estimator_lib/export/receivers_table_test.py` imports this module and runs
`describe_all(api, work_dir)` on estimator_lib's `tf.estimator` (after
`compat.install()`), then compares. Importing it runs nothing.
"""

import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUTPUT = os.path.join(HERE, "tf215_receivers.json")


def _features(tf, prefix=""):
    """Eager tensors of rank 0, 1 and 2 and each dtype a receiver passes through."""
    return {
        f"{prefix}r0_float32": tf.constant(3.),
        f"{prefix}r0_int64": tf.constant(3, tf.int64),
        f"{prefix}r1_int32": tf.constant([1, 2], tf.int32),
        f"{prefix}r1_string": tf.constant(["a", "b"]),
        f"{prefix}r2_float64": tf.constant([[1., 2.]], tf.float64),
        f"{prefix}r2_bool": tf.constant([[True, False]]),
    }


def _feature_spec(tf):
    return {
        "r0_float32": tf.io.FixedLenFeature([], tf.float32),
        "r1_int64": tf.io.FixedLenFeature([2], tf.int64),
        "r2_string": tf.io.FixedLenFeature([2, 2], tf.string, default_value=[""] * 4),
        "var_float32": tf.io.VarLenFeature(tf.float32),
        "var_int64": tf.io.VarLenFeature(tf.int64),
    }


def cases(api, tf, supervised_receiver):
    """{name: (mode, a function returning the receiver fn)}; mode: 'serve' or
    'supervised' (exported for TRAIN and EVAL). `supervised_receiver`: the
    SupervisedInputReceiver class (not public in tf.estimator: export/export.py's)."""
    export = api.export
    experimental = api.experimental

    def tensor_receiver(feature):
        def fn():
            return export.TensorServingInputReceiver(feature(), {"x": feature()})
        return fn

    def dense_placeholder(shape, dtype=None):
        return lambda: tf.compat.v1.placeholder(dtype or tf.float32, shape, name="x")

    def sparse_feature():
        indices = tf.compat.v1.placeholder(tf.int64, [None, 2], name="indices")
        values = tf.compat.v1.placeholder(tf.float32, [None], name="values")
        dense_shape = tf.compat.v1.placeholder(tf.int64, [2], name="dense_shape")
        return (tf.SparseTensor(indices, values, dense_shape),
                {"indices": indices, "values": values, "dense_shape": dense_shape})

    def sparse_from_placeholders():
        sparse, fed = sparse_feature()
        return export.ServingInputReceiver({"sp": sparse}, fed)

    def sparse_fed():
        sparse = tf.compat.v1.sparse_placeholder(tf.float32, [None, 4], name="sp")
        return export.ServingInputReceiver({"sp": sparse}, {"sp": sparse})

    def supervised(features_dict):
        def fn():
            x = tf.compat.v1.placeholder(tf.float32, [None, 2], name="x")
            y = tf.compat.v1.placeholder(tf.int32, [None], name="y")
            features = {"x": x} if features_dict else x
            return supervised_receiver(features, y, {"x": x, "y": y})
        return fn

    return {
        "raw_dict": ("serve", lambda: export.build_raw_serving_input_receiver_fn(
            _features(tf))),
        "raw_dict_batch_4": ("serve", lambda: export.build_raw_serving_input_receiver_fn(
            _features(tf), default_batch_size=4)),
        "raw_guide_scalar": ("serve", lambda: export.build_raw_serving_input_receiver_fn(
            {"input": tf.constant(3.)})),
        "raw_graph_tensors": ("serve", lambda: _raw_from_graph_tensors(api, tf)),
        "parsing": ("serve", lambda: export.build_parsing_serving_input_receiver_fn(
            _feature_spec(tf))),
        "parsing_batch_3": ("serve", lambda: export.build_parsing_serving_input_receiver_fn(
            _feature_spec(tf), default_batch_size=3)),
        "tensor_receiver_r0": ("serve", lambda: tensor_receiver(dense_placeholder([]))),
        "tensor_receiver_r1_int64": ("serve", lambda: tensor_receiver(
            dense_placeholder([None], tf.int64))),
        "tensor_receiver_r2": ("serve", lambda: tensor_receiver(dense_placeholder([None, 3]))),
        "sparse_feature_dense_receivers": ("serve", lambda: sparse_from_placeholders),
        "sparse_feature_sparse_receiver": ("serve", lambda: sparse_fed),
        "raw_supervised_dicts": ("supervised", lambda: (
            experimental.build_raw_supervised_input_receiver_fn(
                _features(tf), {"label": tf.constant([1], tf.int32)}))),
        "raw_supervised_tensors": ("supervised", lambda: (
            experimental.build_raw_supervised_input_receiver_fn(
                tf.constant([[1., 2.]]), tf.constant(1)))),
        "raw_supervised_batch_2": ("supervised", lambda: (
            experimental.build_raw_supervised_input_receiver_fn(
                {"a": tf.constant(1.), "b": tf.constant([[1, 2]], tf.int64)},
                tf.constant([[0.5]]), default_batch_size=2))),
        "supervised_receiver_dict": ("supervised", lambda: supervised(True)),
        "supervised_receiver_tensor": ("supervised", lambda: supervised(False)),
    }


def _raw_from_graph_tensors(api, tf):
    """Features made in a graph (as a TF1 program writes them): their op names are kept."""
    with tf.Graph().as_default():
        features = {"age": tf.compat.v1.placeholder(tf.float32, [None], name="age_in"),
                    "ids": tf.compat.v1.placeholder(tf.int64, [None, 3], name="ids_in")}
    return api.export.build_raw_serving_input_receiver_fn(features)


def _shape(shape):
    return None if shape.rank is None else [d for d in shape.as_list()]


def _describe_value(tf, value):
    if isinstance(value, tf.SparseTensor):
        return {"kind": "SparseTensor", "name": value.values.name,
                "dtype": value.dtype.name, "shape": _shape(value.shape)}
    return {"kind": type(value).__name__ if not isinstance(value, tf.Tensor) else "Tensor",
            "name": value.name, "dtype": value.dtype.name, "shape": _shape(value.shape)}


def _describe_tensors(tf, value):
    if isinstance(value, dict):
        return {str(k): _describe_value(tf, v) for k, v in sorted(value.items())}
    return _describe_value(tf, value)


def describe_receiver(tf, receiver_fn):
    with tf.Graph().as_default():
        receiver = receiver_fn()
        record = {"type": type(receiver).__name__,
                  "features": _describe_tensors(tf, receiver.features),
                  "receiver_tensors": _describe_tensors(tf, receiver.receiver_tensors)}
        if hasattr(receiver, "labels"):
            record["labels"] = _describe_tensors(tf, receiver.labels)
        return record


def _model_fn(tf, api):
    def model_fn(features, labels, mode):
        del features
        w = tf.compat.v1.get_variable("w", [], initializer=tf.compat.v1.ones_initializer())
        prediction = tf.reshape(w * 2., [1])
        loss = tf.square(w)
        if labels is not None:
            first = labels if not isinstance(labels, dict) else labels[sorted(labels)[0]]
            loss += 0. * tf.reduce_sum(tf.cast(first, tf.float32))
        train_op = tf.compat.v1.assign_add(tf.compat.v1.train.get_or_create_global_step(), 1)
        return api.EstimatorSpec(mode, predictions={"y": prediction}, loss=loss,
                                 train_op=train_op,
                                 eval_metric_ops={"m": tf.compat.v1.metrics.mean(loss)})
    return model_fn


def _trained(tf, api, work_dir):
    estimator = api.Estimator(_model_fn(tf, api), model_dir=os.path.join(work_dir, "model"))
    estimator.train(lambda: ({"x": tf.constant([[1.]])}, tf.constant([1])), steps=1)
    return estimator


def _tensor_info(info):
    shape = (None if info.tensor_shape.unknown_rank
             else [d.size if d.size >= 0 else None for d in info.tensor_shape.dim])
    encoding = info.WhichOneof("encoding")
    name = info.name if encoding == "name" else {
        "coo_sparse": lambda: [info.coo_sparse.indices_tensor_name,
                               info.coo_sparse.values_tensor_name,
                               info.coo_sparse.dense_shape_tensor_name]}.get(
            encoding, lambda: encoding)()
    from tensorflow import dtypes  # pylint: disable=import-outside-toplevel
    return {"encoding": encoding, "name": name,
            "dtype": dtypes.as_dtype(info.dtype).name, "shape": shape}


def describe_signatures(tf, export_dir, tags):
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        meta_graph = tf.compat.v1.saved_model.loader.load(session, tags, export_dir)
    return {key: {"method_name": sig.method_name,
                  "inputs": {k: _tensor_info(v) for k, v in sorted(sig.inputs.items())},
                  "outputs": {k: _tensor_info(v) for k, v in sorted(sig.outputs.items())}}
            for key, sig in sorted(meta_graph.signature_def.items())}


def _error(e):
    return {"error": type(e).__name__}


def describe_case(tf, api, estimator, mode, make_fn, work_dir):
    try:
        receiver_fn = make_fn()
        record = {"receiver": describe_receiver(tf, receiver_fn)}
    except Exception as e:  # pylint: disable=broad-except
        return {"receiver": _error(e)}
    try:
        if mode == "serve":
            path = estimator.export_saved_model(os.path.join(work_dir, "export"), receiver_fn)
            record["signatures"] = describe_signatures(tf, path, ["serve"])
        else:
            path = estimator.experimental_export_all_saved_models(
                os.path.join(work_dir, "export"),
                {api.ModeKeys.TRAIN: receiver_fn, api.ModeKeys.EVAL: receiver_fn})
            record["signatures"] = {
                tag: describe_signatures(tf, path, [tag]) for tag in ("train", "eval")}
    except Exception as e:  # pylint: disable=broad-except
        record["signatures"] = _error(e)
    if not isinstance(record["signatures"], dict) or "error" not in record["signatures"]:
        path = path.decode() if isinstance(path, bytes) else path
        record["export_dir_made"] = os.path.isdir(path)
    return record


def describe_all(api, tf, supervised_receiver, work_dir, names=None):
    estimator = _trained(tf, api, work_dir)
    table = cases(api, tf, supervised_receiver)
    return {name: describe_case(tf, api, estimator, *table[name], work_dir)
            for name in (names or sorted(table))}


def main():
    # pylint: disable=import-outside-toplevel
    import tensorflow as tf
    from tensorflow_estimator.python.estimator.export import export
    from importlib import metadata
    record = {"versions": {"tensorflow": tf.__version__,
                           "tensorflow_estimator": metadata.version("tensorflow-estimator"),
                           "keras": metadata.version("keras"),
                           "python": sys.version.split()[0]}}
    with tempfile.TemporaryDirectory() as work_dir:
        record.update(describe_all(tf.estimator, tf, export.SupervisedInputReceiver, work_dir))
    with open(OUTPUT, "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps(record, indent=1, sort_keys=True))


if __name__ == "__main__":
    sys.exit(main())
