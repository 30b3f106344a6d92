"""Writes tests/data/tf215_rnn_* with the ORIGINAL RNN estimators (TF 2.15.1).

Run by hand only, in the throw-away venv described in tests/data/README.md:

    TF_CPP_MIN_LOG_LEVEL=2 /tmp/tf215/bin/python tests/data/make_tf215_rnn_fixtures.py

For each configuration of `CONFIGS` it builds the model graph once to learn every
variable (model weights, optimizer slots and hyperparameters, global step) and its
initial value, replaces the weights by fixed values (`fixed_values`), writes them
as `model.ckpt-0` of a fresh model_dir, trains STEPS steps from there on the fixed
input (`serialized_examples`, one batch, unshuffled; one-thread sessions) and
records evaluate(), every prediction and a checksum of every variable.

Written:
    tf215_rnn.json               per configuration: the initial values, the results
    tf215_rnn_model_dir/         the "classifier" run's final checkpoint (resumable)
    tf215_rnn_saved_model/       that model exported for EVAL and PREDICT (tf.Example
                                 input; saved_model.pb gzipped), and, in the JSON,
                                 what the original's SavedModelEstimator evaluates
                                 and predicts from it

Nothing of the original is copied: only its outputs are kept.
"""

import gzip
import json
import os
import shutil
import tempfile

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
STEPS = 5

# Four sequences of lengths 3, 1, 2, 3; `w` is an example weight, `sw` a per-step one.
EXAMPLES = [
    dict(price=[1.0, -0.5, 2.0], tokens=[b"a", b"b", b"c"], ctx=[0.5], w=[1.0],
         sw=[1.0, 0.5, 2.0], label_cls=[b"x"], label_bin=[1], label_seq=[1, 0, 1]),
    dict(price=[0.3], tokens=[b"c"], ctx=[-1.0], w=[2.0], sw=[1.0],
         label_cls=[b"z"], label_bin=[0], label_seq=[0]),
    dict(price=[-1.2, 0.7], tokens=[b"b", b"b"], ctx=[2.0], w=[0.5], sw=[0.5, 1.5],
         label_cls=[b"y"], label_bin=[1], label_seq=[1, 1]),
    dict(price=[0.1, 0.9, -0.4], tokens=[b"a", b"c", b"a"], ctx=[0.0], w=[1.0],
         sw=[2.0, 1.0, 0.5], label_cls=[b"x"], label_bin=[0], label_seq=[0, 1, 0]),
]


def serialized_examples():
    """The EXAMPLES as serialized tf.Example protos (what the SavedModel takes too)."""
    out = []
    for ex in EXAMPLES:
        feature = {}
        for key, values in ex.items():
            if isinstance(values[0], bytes):
                feature[key] = tf.train.Feature(bytes_list=tf.train.BytesList(value=values))
            elif isinstance(values[0], int):
                feature[key] = tf.train.Feature(int64_list=tf.train.Int64List(value=values))
            else:
                feature[key] = tf.train.Feature(float_list=tf.train.FloatList(value=values))
        out.append(tf.train.Example(
            features=tf.train.Features(feature=feature)).SerializeToString())
    return out


PARSE_SPEC = {
    "price": tf.io.VarLenFeature(tf.float32), "tokens": tf.io.VarLenFeature(tf.string),
    "ctx": tf.io.FixedLenFeature([1], tf.float32), "w": tf.io.FixedLenFeature([1], tf.float32),
    "sw": tf.io.VarLenFeature(tf.float32),
    "label_cls": tf.io.FixedLenFeature([1], tf.string),
    "label_bin": tf.io.FixedLenFeature([1], tf.int64),
    "label_seq": tf.io.VarLenFeature(tf.int64),
}
LABEL_KEYS = ("label_cls", "label_bin", "label_seq")


def input_fn(label_key, *, repeat):
    """The four examples as one batch: (features, labels[label_key])."""

    def fn():
        ds = tf.data.Dataset.from_tensors(serialized_examples())
        if repeat:
            ds = ds.repeat()

        def parse(serialized):
            features = tf.io.parse_example(serialized, PARSE_SPEC)
            labels = features[label_key]
            return {k: v for k, v in features.items() if k not in LABEL_KEYS}, labels

        return ds.map(parse)

    return fn


def columns(fc):
    price = fc.sequence_numeric_column("price")
    tokens = fc.embedding_column(
        fc.sequence_categorical_column_with_vocabulary_list("tokens", ["a", "b", "c"]), 2)
    return [price, tokens], [fc.numeric_column("ctx")]


# name -> (constructor kwargs but the columns and optimizer, optimizer spec, label key).
# Optimizer spec: a name, or ("SGD", lr) for a tf.keras.optimizers.legacy.SGD instance.
CONFIGS = {
    "classifier": (dict(units=[3], n_classes=3, label_vocabulary=["x", "y", "z"],
                        context=True), "Adagrad", "label_cls"),
    "lstm_weighted": (dict(units=2, cell_type="lstm", weight_column="w"), "Adam",
                      "label_bin"),
    "gru_sequential": (dict(units=[2, 2], cell_type="gru", return_sequences=True,
                            weight_column="sw", sequence_mask="mask"), ("SGD", 0.1),
                       "label_seq"),
}


def build_kwargs(name, fc, keras_optimizers):
    """RNNClassifier kwargs of a configuration (`keras_optimizers`: tf.keras.optimizers)."""
    kwargs, opt, label_key = CONFIGS[name]
    kwargs = dict(kwargs)
    seq, ctx = columns(fc)
    kwargs["sequence_feature_columns"] = seq
    if kwargs.pop("context", False):
        kwargs["context_feature_columns"] = ctx
    kwargs["optimizer"] = (opt if isinstance(opt, str)
                           else keras_optimizers.legacy.SGD(learning_rate=opt[1]))
    return kwargs, label_key


def run_config(run_config_cls, model_dir):
    return run_config_cls(
        model_dir=model_dir, tf_random_seed=0, save_checkpoints_steps=1000,
        save_summary_steps=1000, log_step_count_steps=1000, keep_checkpoint_max=1,
        session_config=tf.compat.v1.ConfigProto(intra_op_parallelism_threads=1,
                                                inter_op_parallelism_threads=1))


def fixed_values(variables):
    """{name: value}: the weights (trainable) replaced by 0.3 * sin(...), by sorted name;
    the rest keep their initial value; the global step 0."""
    out = {}
    for i, name in enumerate(sorted(variables)):
        value, trainable = variables[name]
        if trainable:
            value = (0.3 * np.sin(np.arange(value.size) * 0.7 + i + 1)).reshape(
                value.shape).astype(value.dtype)
        out[name] = value
    return out


def initial_variables(est, label_key):
    """{name: (initial value, trainable)} of every global variable of the TRAIN graph."""
    with tf.Graph().as_default():
        features, labels = tf.compat.v1.data.make_one_shot_iterator(
            input_fn(label_key, repeat=True)()).get_next()
        est.model_fn(features, labels, tf.estimator.ModeKeys.TRAIN, est.config)
        trainable = {v.op.name for v in tf.compat.v1.trainable_variables()}
        variables = tf.compat.v1.global_variables()
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            values = sess.run({v.op.name: v for v in variables})
    return {name: (np.asarray(value), name in trainable) for name, value in values.items()}


def write_checkpoint(values, model_dir):
    """Writes `values` ({name: array}) as model_dir/model.ckpt-0."""
    with tf.Graph().as_default():
        for name, value in values.items():
            tf.Variable(value, name=name)
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            tf.compat.v1.train.Saver().save(sess, os.path.join(model_dir, "model.ckpt"),
                                            global_step=0)


def checksums(est):
    return {name: [float(np.sum(v)), float(np.sum(np.square(v.astype(np.float64))))]
            for name in est.get_variable_names()
            for v in [np.asarray(est.get_variable_value(name))]}


def plain(value):
    value = np.asarray(value)
    if value.dtype.kind in "SO":
        return [x.decode() if isinstance(x, bytes) else x for x in value.reshape(-1).tolist()]
    return value.tolist()


def run(name, model_dir):
    """Trains configuration `name` in model_dir from its fixed start; returns its record."""
    def make_estimator():
        # A fresh optimizer instance each time: the original could not use one in two graphs.
        kwargs, label_key = build_kwargs(name, tf.feature_column, tf.keras.optimizers)
        config = run_config(tf.estimator.RunConfig, model_dir)
        return tf.estimator.experimental.RNNClassifier(config=config, **kwargs), label_key

    est, label_key = make_estimator()
    start = fixed_values(initial_variables(est, label_key))
    write_checkpoint(start, model_dir)
    est, label_key = make_estimator()
    est.train(input_fn(label_key, repeat=True), steps=STEPS)
    ev = est.evaluate(input_fn(label_key, repeat=False), steps=1)
    preds = list(est.predict(
        lambda: input_fn(label_key, repeat=False)().map(lambda features, _: features)))
    return est, dict(
        label_key=label_key, steps=STEPS,
        initial={k: dict(dtype=np.asarray(v).dtype.name, value=np.asarray(v).tolist())
                 for k, v in sorted(start.items())},
        evaluate={k: float(v) for k, v in ev.items()},
        predictions=[{k: plain(v) for k, v in p.items()} for p in preds],
        checksums=checksums(est))


def export_and_reload(est, record):
    """Exports EVAL (tf.Example + label placeholders) and PREDICT (tf.Example parsing)
    MetaGraphs, and records the original's SavedModelEstimator results on them."""
    # pylint: disable=g-import-not-at-top (TF 2.15's package: imported only when generating)
    from tensorflow_estimator.python.estimator.canned import saved_model_estimator
    from tensorflow_estimator.python.estimator.export import export_lib
    # pylint: enable=g-import-not-at-top
    seq, ctx = columns(tf.feature_column)
    feature_spec = tf.feature_column.make_parse_example_spec(seq + ctx)

    def supervised_receiver_fn():
        serialized = tf.compat.v1.placeholder(tf.string, [None], name="input_example_tensor")
        labels = tf.compat.v1.placeholder(tf.string, [None, 1], name="label")
        features = tf.compat.v1.io.parse_example(serialized, feature_spec)
        return export_lib.SupervisedInputReceiver(
            features, labels, {"examples": serialized, "label": labels})

    base = tempfile.mkdtemp()
    export_dir = est.experimental_export_all_saved_models(base, {
        tf.estimator.ModeKeys.EVAL: supervised_receiver_fn,
        tf.estimator.ModeKeys.PREDICT:
            tf.estimator.export.build_parsing_serving_input_receiver_fn(feature_spec)})
    target = os.path.join(HERE, "tf215_rnn_saved_model")
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(os.fsdecode(export_dir), target)
    shutil.rmtree(base)
    # saved_model.pb (380 KB: two MetaGraphs with their RNN loops) is kept gzipped
    # (42 KB); tests unpack it into a temporary copy.
    pb = os.path.join(target, "saved_model.pb")
    with open(pb, "rb") as src, gzip.GzipFile(pb + ".gz", "wb", mtime=0) as dst:
        dst.write(src.read())

    sme = saved_model_estimator.SavedModelEstimator(target, tempfile.mkdtemp())
    labels = [ex["label_cls"] for ex in EXAMPLES]
    ev = sme.evaluate(lambda: ({"examples": tf.constant(serialized_examples())},
                               tf.constant(labels)), steps=1)
    preds = list(sme.predict(lambda: tf.data.Dataset.from_tensors(
        {"inputs": tf.constant(serialized_examples())})))
    record["saved_model_estimator"] = dict(
        evaluate={k: float(v) for k, v in ev.items()},
        predictions=[{k: plain(v) for k, v in p.items()} for p in preds])
    os.remove(pb)


def prune(model_dir):
    """Keeps what a resume reads: the `checkpoint` file and the last checkpoint's data."""
    for entry in os.listdir(model_dir):
        path = os.path.join(model_dir, entry)
        if entry == "checkpoint" or (entry.startswith(f"model.ckpt-{STEPS}.")
                                     and not entry.endswith(".meta")):
            continue
        shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)


def main():
    records = {}
    for name in CONFIGS:
        if name == "classifier":
            model_dir = os.path.join(HERE, "tf215_rnn_model_dir")
            shutil.rmtree(model_dir, ignore_errors=True)
        else:
            model_dir = tempfile.mkdtemp()
        est, records[name] = run(name, model_dir)
        if name == "classifier":
            export_and_reload(est, records[name])
            prune(model_dir)
        else:
            shutil.rmtree(model_dir)
        print(name, records[name]["evaluate"])
    with open(os.path.join(HERE, "tf215_rnn.json"), "w") as f:
        json.dump(records, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
