#!/usr/bin/env python3
"""Records the checkpoint variables (name, shape, dtype) the ORIGINAL tf.estimator writes.

THIS SCRIPT IS NOT PART OF THE TEST SUITE AND MUST NOT BE RUN BY CI. It runs the
original (TF 2.15.1 + tensorflow-estimator 2.15.0 + keras 2.15.0) in the throw-away
venv of tests/data/README.md and keeps only what it wrote:

    cd <repo root>
    TF_CPP_MIN_LOG_LEVEL=2 /tmp/tf215/bin/python tests/data/make_tf215_variable_lists.py

writes tests/data/tf215_variable_lists.json: for each program of PROGRAMS, the
variables of the newest checkpoint in its model_dir (and, for model_to_estimator,
of `keras/keras_model.ckpt`), each `[shape, dtype]`. A checkpoint holding exactly
these is restored by the original's graph of the same program, and the other way
round, so tests/estimator_lib/variable_lists_test.py runs the same programs against
estimator_lib (through `estimator_lib.compat.install()`: the programs use only the
`tf.estimator` API and `tf.keras`) and compares.

Arguments: program names to record only those (the others are kept from the file).
"""

import json
import os
import sys
import tempfile

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
OUTPUT = os.path.join(HERE, "tf215_variable_lists.json")
STEPS = 2


# --------------------------------------------------------------------------- inputs

def _features(n=8):
    x = (np.arange(n, dtype=np.float32) / n).reshape(n, 1)
    cat = np.array([[b"a"], [b"b"], [b"b"], [b"a"], [b"c"], [b"a"], [b"b"], [b"c"]][:n])
    return {"x": x, "cat": cat}


def _labels(kind, n=8):
    """Labels of `kind`: binary, multi_class (3), regression, multi_label (3), multi_head."""
    rows = np.arange(n)
    if kind == "binary":
        return (rows % 2).reshape(n, 1).astype(np.int64)
    if kind == "multi_class":
        return (rows % 3).reshape(n, 1).astype(np.int64)
    if kind == "regression":
        return (rows / n).reshape(n, 1).astype(np.float32)
    if kind == "multi_label":
        return np.stack([rows % 2, (rows // 2) % 2, (rows // 4) % 2], 1).astype(np.int64)
    if kind == "multi_head":
        return {"a": _labels("binary", n), "b": _labels("regression", n)}
    raise ValueError(f"Unknown label kind: {kind!r}.")


def _input_fn(kind, keys=("x", "cat")):
    def input_fn():
        features = {key: value for key, value in _features().items() if key in keys}
        ds = tf.data.Dataset.from_tensor_slices((features, _labels(kind)))
        return ds.repeat().batch(4)
    return input_fn


def _columns():
    fc = tf.feature_column
    x = fc.numeric_column("x")
    cat = fc.categorical_column_with_vocabulary_list("cat", ["a", "b", "c"])
    return x, cat, fc.embedding_column(cat, 2)


def _config(**kwargs):
    return tf.estimator.RunConfig(tf_random_seed=1, save_summary_steps=1000,
                                  log_step_count_steps=1000, **kwargs)


# ------------------------------------------------------------------------ canned

def _canned(api, cls_name, labels, columns, **kwargs):
    """A program training `api`.`cls_name` (api 'v1': tf.compat.v1.estimator)."""
    def program(model_dir):
        module = tf.estimator if api == "v2" else tf.compat.v1.estimator
        x, cat, emb = _columns()
        by_role = {"dnn": dict(feature_columns=[x, emb]),
                   "linear": dict(feature_columns=[x, cat]),
                   "combined": dict(linear_feature_columns=[cat],
                                    dnn_feature_columns=[x, emb]),
                   "none": {}}[columns]
        arguments = dict(by_role, **{key: value() if callable(value) else value
                                     for key, value in kwargs.items()})
        estimator = getattr(module, cls_name)(model_dir=model_dir, config=_config(),
                                              **arguments)
        # One feature for the baselines: the original's v2 ones fail to train on several
        # ("the iterator has not been initialized"; estimator_lib trains them).
        keys = ("x",) if columns == "none" else ("x", "cat")
        estimator.train(_input_fn(labels, keys), steps=STEPS)
    return program


def _decayed_adam(api):
    """An Adam whose learning rate decays with the global step (an optimizer callable)."""
    rate = tf.compat.v1.train.exponential_decay(
        0.1, tf.compat.v1.train.get_global_step(), 10, 0.9)
    if api == "v1":
        return tf.compat.v1.train.AdamOptimizer(rate)
    return tf.keras.optimizers.legacy.Adam(lambda: rate)


def _head(name, *args, **kwargs):
    """A head built when the program runs (after compat.install() here)."""
    return lambda: getattr(tf.estimator, name)(*args, **kwargs)


def _multi_head():
    return tf.estimator.MultiHead([tf.estimator.BinaryClassHead(name="a"),
                                   tf.estimator.RegressionHead(name="b")])


def _canned_programs():
    programs = {}
    for api in ("v1", "v2"):
        programs.update({
            f"dnn_classifier_{api}": _canned(api, "DNNClassifier", "binary", "dnn",
                                             hidden_units=[4]),
            f"dnn_classifier_3_classes_{api}": _canned(
                api, "DNNClassifier", "multi_class", "dnn", hidden_units=[4, 3], n_classes=3),
            f"dnn_regressor_{api}": _canned(api, "DNNRegressor", "regression", "dnn",
                                            hidden_units=[4]),
            f"linear_classifier_{api}": _canned(api, "LinearClassifier", "binary", "linear"),
            f"linear_classifier_3_classes_{api}": _canned(
                api, "LinearClassifier", "multi_class", "linear", n_classes=3),
            f"linear_regressor_{api}": _canned(api, "LinearRegressor", "regression",
                                               "linear"),
            f"dnn_linear_combined_classifier_{api}": _canned(
                api, "DNNLinearCombinedClassifier", "binary", "combined",
                dnn_hidden_units=[4]),
            f"dnn_linear_combined_regressor_{api}": _canned(
                api, "DNNLinearCombinedRegressor", "regression", "combined",
                dnn_hidden_units=[4]),
            f"baseline_classifier_{api}": _canned(api, "BaselineClassifier", "binary", "none"),
            f"baseline_regressor_{api}": _canned(api, "BaselineRegressor", "regression",
                                                 "none"),
        })
        for optimizer in ("Adam", "Ftrl", "RMSProp", "SGD"):
            programs[f"dnn_classifier_{optimizer.lower()}_{api}"] = _canned(
                api, "DNNClassifier", "binary", "dnn", hidden_units=[4], optimizer=optimizer)
        programs[f"dnn_classifier_decayed_adam_{api}"] = _canned(
            api, "DNNClassifier", "binary", "dnn", hidden_units=[4],
            optimizer=lambda api=api: (lambda: _decayed_adam(api)))
        programs[f"linear_classifier_adagrad_{api}"] = _canned(
            api, "LinearClassifier", "binary", "linear", optimizer="Adagrad")
    programs.update({
        "dnn_classifier_batch_norm_v2": _canned(
            "v2", "DNNClassifier", "binary", "dnn", hidden_units=[4], batch_norm=True,
            dropout=0.1),
        "dnn_classifier_partitioned_v1": _canned(
            "v1", "DNNClassifier", "binary", "dnn", hidden_units=[4],
            input_layer_partitioner=lambda: tf.compat.v1.fixed_size_partitioner(2)),
        "dnn_estimator_multi_label_v2": _canned(
            "v2", "DNNEstimator", "multi_label", "dnn", hidden_units=[4],
            head=_head("MultiLabelHead", 3)),
        "dnn_estimator_multi_head_v2": _canned(
            "v2", "DNNEstimator", "multi_head", "dnn", hidden_units=[4], head=_multi_head),
        "linear_estimator_v2": _canned("v2", "LinearEstimator", "regression", "linear",
                                       head=_head("RegressionHead")),
        "dnn_linear_combined_estimator_v2": _canned(
            "v2", "DNNLinearCombinedEstimator", "binary", "combined", dnn_hidden_units=[4],
            head=_head("BinaryClassHead")),
        "baseline_estimator_v2": _canned("v2", "BaselineEstimator", "multi_class", "none",
                                         head=_head("MultiClassHead", 3)),
    })
    return programs


# ------------------------------------------------------------ model_to_estimator

def _keras_program(checkpoint_format, optimizer, batch_norm=False):
    def program(model_dir):
        keras = tf.keras
        layers = [keras.layers.Dense(4, input_shape=(1,), activation="relu")]
        if batch_norm:
            layers.append(keras.layers.BatchNormalization())
        layers.append(keras.layers.Dense(2))
        model = keras.Sequential(layers)
        model.compile(optimizer() if callable(optimizer) else optimizer,
                      keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"])
        estimator = tf.keras.estimator.model_to_estimator(
            model, model_dir=model_dir, config=_config(),
            checkpoint_format=checkpoint_format)
        key = model.input_names[0]

        def input_fn():
            ds = tf.data.Dataset.from_tensor_slices(({key: _features()["x"]},
                                                     _labels("binary")))
            return ds.repeat().batch(4)

        estimator.train(input_fn, steps=STEPS)
    return program


# ---------------------------------------------------------------------- custom

def _model_fn(features, labels, mode):
    logits = tf.compat.v1.layers.dense(features["x"], 2)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = tf.compat.v1.train.AdagradOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    metrics = {"accuracy": tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, 1))}
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                      eval_metric_ops=metrics)


def _custom_program(hook=None, **config_kwargs):
    """Trains `_model_fn` STEPS + 2 steps with the hook `hook(estimator)` builds."""
    def program(model_dir):
        config = _config(**{key: value() for key, value in config_kwargs.items()})
        estimator = tf.estimator.Estimator(_model_fn, model_dir=model_dir, config=config)
        hooks = [hook(estimator)] if hook else []
        estimator.train(_input_fn("binary"), steps=STEPS + 2, hooks=hooks)
    return program


def _head_model_fn(head_name, optimizer):
    """A model_fn that leaves loss and train_op to a v2 head, with `optimizer()`."""
    def model_fn(features, labels, mode):
        logits = tf.compat.v1.layers.dense(features["x"], 1)
        head = getattr(tf.estimator, head_name)()
        keras_optimizer = optimizer()
        # As the canned estimators do: the head's train_op steps `iterations` only.
        keras_optimizer.iterations = tf.compat.v1.train.get_global_step()
        return head.create_estimator_spec(
            features, mode, logits, labels=labels, optimizer=keras_optimizer,
            trainable_variables=tf.compat.v1.trainable_variables())
    return model_fn


def _head_program(head_name, labels, optimizer):
    def program(model_dir):
        estimator = tf.estimator.Estimator(_head_model_fn(head_name, optimizer),
                                           model_dir=model_dir, config=_config())
        estimator.train(_input_fn(labels), steps=STEPS)
    return program


def _tpu_program(model_dir):
    """TPUEstimator on the CPU (use_tpu=False), its RunConfig and batch size."""
    def model_fn(features, labels, mode, params):
        del params
        spec = _model_fn(features, labels, mode)
        return tf.compat.v1.estimator.tpu.TPUEstimatorSpec(mode, loss=spec.loss,
                                                           train_op=spec.train_op)

    def input_fn(params):
        ds = tf.data.Dataset.from_tensor_slices((_features(), _labels("binary")))
        return ds.repeat().batch(params["batch_size"], drop_remainder=True)

    config = tf.compat.v1.estimator.tpu.RunConfig(
        model_dir=model_dir, tf_random_seed=1, save_summary_steps=1000,
        log_step_count_steps=1000,
        tpu_config=tf.compat.v1.estimator.tpu.TPUConfig(iterations_per_loop=2))
    estimator = tf.compat.v1.estimator.tpu.TPUEstimator(
        model_fn=model_fn, config=config, use_tpu=False, train_batch_size=4)
    estimator.train(input_fn, steps=STEPS)


def _stops_at_once(estimator):
    return tf.estimator.experimental.make_early_stopping_hook(
        estimator, lambda: True, run_every_secs=None, run_every_steps=1)


def _stops_never(estimator):
    return tf.estimator.experimental.stop_if_higher_hook(
        estimator, "accuracy", 2.0, run_every_secs=None, run_every_steps=1)


def _evaluates_in_memory(estimator):
    return tf.estimator.experimental.InMemoryEvaluatorHook(
        estimator, lambda: _input_fn("binary")().take(2), every_n_iter=2)


PROGRAMS = dict(
    custom=_custom_program(),
    custom_early_stopping=_custom_program(_stops_at_once),
    custom_early_stopping_not_stopped=_custom_program(_stops_never),
    custom_early_stopping_one_device_strategy=_custom_program(
        _stops_at_once,
        train_distribute=lambda: tf.distribute.MirroredStrategy(["/cpu:0"])),
    custom_in_memory_evaluator=_custom_program(_evaluates_in_memory),
    custom_binary_head_keras_optimizer=_head_program(
        "BinaryClassHead", "binary", lambda: tf.keras.optimizers.legacy.Adagrad(0.1)),
    custom_regression_head_keras_adam=_head_program(
        "RegressionHead", "regression", lambda: tf.keras.optimizers.legacy.Adam(0.1)),
    tpu_estimator_on_cpu=_tpu_program,
    model_to_estimator_checkpoint=_keras_program("checkpoint", "adam"),
    model_to_estimator_saver=_keras_program("saver", "adam"),
    model_to_estimator_batch_norm_sgd=_keras_program(
        "checkpoint", lambda: tf.keras.optimizers.SGD(0.1, momentum=0.9), batch_norm=True),
    **_canned_programs(),
)


def variable_list(checkpoint: str) -> dict:
    """{name: [shape, dtype name]} of a checkpoint prefix."""
    reader = tf.train.load_checkpoint(checkpoint)
    shapes = reader.get_variable_to_shape_map()
    dtypes = reader.get_variable_to_dtype_map()
    return {name: [list(shapes[name]), dtypes[name].name] for name in sorted(shapes)}


def record(name: str, work: str) -> dict:
    """Runs program `name` in a new model_dir under `work`; its variable lists."""
    model_dir = os.path.join(work, name)
    tf.keras.backend.clear_session()  # Keras state of one program stays out of the next.
    PROGRAMS[name](model_dir)
    lists = {"model_dir": variable_list(tf.train.latest_checkpoint(model_dir))}
    keras_checkpoint = os.path.join(model_dir, "keras", "keras_model.ckpt")
    if os.path.exists(keras_checkpoint + ".index"):
        lists["keras"] = variable_list(keras_checkpoint)
    return lists


def main(names):
    recorded = {}
    if names and os.path.exists(OUTPUT):
        with open(OUTPUT) as f:
            recorded = json.load(f)
    tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.ERROR)
    with tempfile.TemporaryDirectory() as work:
        for name in names or sorted(PROGRAMS):
            recorded[name] = record(name, work)
            print(name, len(recorded[name]["model_dir"]), "variables")
    with open(OUTPUT, "w") as f:
        json.dump(dict(sorted(recorded.items())), f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
