#!/usr/bin/env python3
"""Generate reference fixtures from the ORIGINAL tf.estimator (TF 2.15.1).

THIS SCRIPT IS NOT PART OF THE TEST SUITE AND MUST NOT BE RUN BY CI.
It needs TensorFlow 2.15 + tensorflow-estimator 2.15, which cannot be
installed next to estimator_lib's TF 2.21.  It only *runs* the original
library and records what it does; none of the original's code is copied.

How to run (outside the repo's own virtualenv):

    python3 -m venv /tmp/tf215
    /tmp/tf215/bin/pip install "tensorflow-cpu==2.15.1" \
        "tensorflow-estimator==2.15.0" "keras==2.15.0" "numpy<2"
    cd <repo root>
    TF_CPP_MIN_LOG_LEVEL=2 /tmp/tf215/bin/python tests/data/make_tf215_fixtures.py all

Sub-commands: ``custom`` (tests/data/tf215_custom_model_dir{,.json}),
``keras`` (tests/data/tf215_keras_model_dir{,.json}), ``logs``
(tests/data/reference_logs/), ``all`` (all three).  The ``logs`` step runs
every probe in its own fresh Python process (``--probe NAME WORKDIR``) so
that each log file carries the once-per-process deprecation warnings too.

Everything is deterministic: data comes from numpy RandomState(0) and the
graphs use ``RunConfig(tf_random_seed=0)``; only timings, wall-clock dates
and export timestamps differ between runs.
"""

import base64
import glob
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LOG_DIR = os.path.join(HERE, "reference_logs")

# ---------------------------------------------------------------------------
# Deterministic synthetic data (documented in the JSON fixtures as well).
# ---------------------------------------------------------------------------
TRUE_W = [1.0, -1.0, 0.5, 0.0]


def make_data(n, seed=0):
    """x: float32 [n, 4] ~ N(0,1) from RandomState(seed); y: int32 [n]."""
    import numpy as np

    rs = np.random.RandomState(seed)
    x = rs.randn(n, 4).astype(np.float32)
    y = (x @ np.asarray(TRUE_W, np.float32) > 0).astype(np.int32)
    return x, y


DATA_DOC = (
    "rs = numpy.random.RandomState(0); x = rs.randn(N, 4).astype(float32); "
    "y = (x @ float32([1.0, -1.0, 0.5, 0.0]) > 0).astype(int32)"
)


# ---------------------------------------------------------------------------
# Helpers that only need the standard library.
# ---------------------------------------------------------------------------
def _norm_name(rel):
    rel = re.sub(r"events\.out\.tfevents\.[^/]*", "events.out.tfevents.*", rel)
    rel = re.sub(r"(^|/)\d{10}(/|$)", r"\1<timestamp>\2", rel)
    rel = re.sub(r"temp-\d{10}", "temp-<timestamp>", rel)
    return rel


def list_dir(d):
    """Sorted relative file listing with volatile parts normalised."""
    out = []
    for root, _, files in os.walk(d):
        for f in files:
            rel = os.path.relpath(os.path.join(root, f), d)
            out.append(_norm_name(rel))
    return sorted(out)


def to_jsonable(v):
    import numpy as np

    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, np.ndarray):
        if v.dtype.kind in "SO":
            return [to_jsonable(e) for e in v.tolist()]
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, dict):
        return {str(k): to_jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [to_jsonable(e) for e in v]
    return v


def type_desc(v):
    import numpy as np

    return {
        "python_type": type(v).__module__ + "." + type(v).__name__,
        "dtype": np.asarray(v).dtype.name,
        "shape": list(np.asarray(v).shape),
    }


class quiet:
    """Silences logging while the generator inspects results, so that the
    captured logs only hold what the probed API itself logged."""

    def __enter__(self):
        logging.disable(logging.CRITICAL)

    def __exit__(self, *exc):
        logging.disable(logging.NOTSET)


def event_info(d):
    """Tags and event kinds in the events files directly inside d."""
    with quiet():
        return _event_info(d)


def _event_info(d):
    import tensorflow as tf

    tags, kinds, steps = set(), set(), {}
    for path in sorted(glob.glob(os.path.join(d, "events.out.tfevents.*"))):
        for e in tf.compat.v1.train.summary_iterator(path):
            kinds.add(e.WhichOneof("what"))
            for v in e.summary.value:
                tags.add(v.tag)
                steps.setdefault(v.tag, set()).add(int(e.step))
    return {
        "tags": sorted(tags),
        "event_kinds": sorted(k for k in kinds if k),
        "steps_per_tag": {k: sorted(s) for k, s in sorted(steps.items())},
    }


# ---------------------------------------------------------------------------
# Models / input functions (only called inside the TF 2.15 environment).
# ---------------------------------------------------------------------------
def custom_model_fn(features, labels, mode, config):
    import tensorflow as tf

    logits = tf.compat.v1.layers.dense(features["x"], 2, name="dense")
    classes = tf.argmax(logits, axis=1)
    predictions = {"classes": classes, "probabilities": tf.nn.softmax(logits)}
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions=predictions)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(
            mode,
            loss=loss,
            predictions=predictions,
            eval_metric_ops={
                "accuracy": tf.compat.v1.metrics.accuracy(labels, classes)
            },
        )
    opt = tf.compat.v1.train.AdagradOptimizer(0.1)
    train_op = opt.minimize(
        loss, global_step=tf.compat.v1.train.get_global_step()
    )
    return tf.estimator.EstimatorSpec(
        mode, loss=loss, train_op=train_op, predictions=predictions
    )


def make_input_fn(x, y, batch, repeat, key="x"):
    def input_fn():
        import tensorflow as tf

        feats = {key: x}
        ds = tf.data.Dataset.from_tensor_slices(
            (feats, y) if y is not None else feats
        )
        if repeat:
            ds = ds.repeat()
        return ds.batch(batch)

    return input_fn


def serving_input_receiver_fn():
    import tensorflow as tf

    x = tf.compat.v1.placeholder(tf.float32, [None, 4], name="x")
    return tf.estimator.export.ServingInputReceiver({"x": x}, {"x": x})


def build_keras_model():
    import tensorflow as tf

    tf.keras.utils.set_random_seed(0)
    model = tf.keras.Sequential(
        [
            tf.keras.layers.Dense(8, input_shape=(4,), activation="relu"),
            tf.keras.layers.Dense(2),
        ]
    )
    model.compile(
        optimizer="adam",
        loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    return model


# ---------------------------------------------------------------------------
# 2a / 2b: resumable model_dir fixtures.
# ---------------------------------------------------------------------------
FIXTURE_CONFIG = dict(
    save_checkpoints_steps=10,
    tf_random_seed=0,
    log_step_count_steps=5,
    save_summary_steps=5,
)


def _describe_estimator(est, x, y, input_key, n_pred=3):
    import numpy as np
    import tensorflow as tf

    names = est.get_variable_names()
    values = {}
    for n in names:
        v = est.get_variable_value(n)
        if np.asarray(v).dtype.kind == "S":
            # e.g. _CHECKPOINTABLE_OBJECT_GRAPH: a serialized
            # TrackableObjectGraph proto; kept losslessly as base64.
            raw = np.asarray(v).item()
            values[n] = {
                "dtype": "string",
                "shape": list(np.asarray(v).shape),
                "num_bytes": len(raw),
                "base64": base64.b64encode(raw).decode("ascii"),
            }
            continue
        values[n] = {
            "dtype": np.asarray(v).dtype.name,
            "shape": list(np.asarray(v).shape),
            "value": to_jsonable(v),
        }
    ev = est.evaluate(make_input_fn(x, y, 16, False, input_key))
    preds = list(
        est.predict(make_input_fn(x[:n_pred], None, 16, False, input_key))
    )
    ckpt = est.latest_checkpoint()
    return {
        "global_step": int(est.get_variable_value("global_step"))
        if "global_step" in names
        else None,
        "latest_checkpoint_basename": os.path.basename(ckpt) if ckpt else None,
        "variable_names": names,
        "variables": values,
        "evaluate": {
            "keys": sorted(ev),
            "values": to_jsonable(ev),
            "types": {k: type_desc(v) for k, v in ev.items()},
        },
        "predict_first_3": [
            {
                k: {"value": to_jsonable(v), **type_desc(v)}
                for k, v in p.items()
            }
            for p in preds
        ],
        "tf_version": tf.__version__,
    }


def _copy_resumable(src, dst, keep_extra=()):
    """Copy checkpoint + model.ckpt-<last>.* (+extra subdirs) to dst."""
    import tensorflow as tf

    if os.path.exists(dst):
        shutil.rmtree(dst)
    os.makedirs(dst)
    last = os.path.basename(tf.train.latest_checkpoint(src))
    for f in os.listdir(src):
        if f.startswith(last + "."):
            shutil.copy2(os.path.join(src, f), os.path.join(dst, f))
    # A 'checkpoint' state file listing only the kept checkpoint, written
    # with relative paths exactly as Estimator's saver does
    # (save_relative_paths=True).
    with open(os.path.join(dst, "checkpoint"), "w") as fh:
        fh.write('model_checkpoint_path: "%s"\n' % last)
        fh.write('all_model_checkpoint_paths: "%s"\n' % last)
    for extra in keep_extra:
        if os.path.isdir(os.path.join(src, extra)):
            shutil.copytree(os.path.join(src, extra), os.path.join(dst, extra))
    with open(os.path.join(src, "checkpoint")) as fh:
        original_state = fh.read().replace(src, "<model_dir>")
    return last, original_state


def seed_python_random():
    """Keras 2.15's tf.compat.v1.layers initializers are *stateless* random
    ops whose seed is drawn from Python's `random` module when no seed is
    given, so RunConfig(tf_random_seed=...) alone does NOT make the initial
    weights reproducible across processes.  Seed Python's RNG first."""
    import random

    random.seed(0)


def gen_custom():
    import tensorflow as tf

    seed_python_random()

    x, y = make_data(64)
    work = tempfile.mkdtemp(prefix="tf215_custom_")
    mdir = os.path.join(work, "model_dir")
    cfg = tf.estimator.RunConfig(**FIXTURE_CONFIG)
    est = tf.estimator.Estimator(custom_model_fn, model_dir=mdir, config=cfg)
    est.train(make_input_fn(x, y, 16, True), steps=20)
    listing_after_train = list_dir(mdir)
    info = _describe_estimator(est, x, y, "x")
    dst = os.path.join(HERE, "tf215_custom_model_dir")
    last, original_state = _copy_resumable(mdir, dst)
    info.update(
        {
            "description": "custom model_fn: tf.compat.v1.layers.dense(x, 2, "
            "name='dense'), AdagradOptimizer(0.1), "
            "sparse_softmax_cross_entropy, eval metric accuracy "
            "(tf.compat.v1.metrics.accuracy), predictions "
            "{classes, probabilities}; features {'x': float32 [B,4]}, "
            "labels int32 [B]",
            "run_config": FIXTURE_CONFIG,
            "train": "Estimator.train(input_fn, steps=20); input_fn = "
            "Dataset.from_tensor_slices(({'x': x}, y)).repeat().batch(16)",
            "eval_input_fn": "Dataset.from_tensor_slices(({'x': x}, y))"
            ".batch(16) (4 batches, evaluate(steps=None))",
            "predict_input_fn": "Dataset.from_tensor_slices({'x': x[:3]})"
            ".batch(16)",
            "data": {"doc": DATA_DOC, "n": 64, "x": x.tolist(),
                     "y": y.tolist()},
            "original_model_dir_listing_after_train": listing_after_train,
            "original_checkpoint_state_file": original_state,
            "fixture_files": list_dir(dst),
            "note": "fixture dir keeps only %s.* and a 'checkpoint' file "
            "naming it; graph.pbtxt, events and older checkpoints were "
            "dropped" % last,
        }
    )
    with open(os.path.join(HERE, "tf215_custom_model_dir.json"), "w") as fh:
        json.dump(info, fh, indent=1, sort_keys=True)
    shutil.rmtree(work)


def gen_keras():
    import tensorflow as tf

    x, y = make_data(64)
    work = tempfile.mkdtemp(prefix="tf215_keras_")
    mdir = os.path.join(work, "model_dir")
    model = build_keras_model()
    cfg = tf.estimator.RunConfig(**FIXTURE_CONFIG)
    est = tf.keras.estimator.model_to_estimator(
        keras_model=model, model_dir=mdir, config=cfg
    )
    key = model.input_names[0]
    est.train(make_input_fn(x, y, 16, True, key), steps=20)
    listing_after_train = list_dir(mdir)
    info = _describe_estimator(est, x, y, key)
    info["global_step_from_estimator_global_step_key"] = int(
        est.get_variable_value("estimator_global_step/.ATTRIBUTES/VARIABLE_VALUE")
    ) if "estimator_global_step/.ATTRIBUTES/VARIABLE_VALUE" in info[
        "variable_names"] else None
    dst = os.path.join(HERE, "tf215_keras_model_dir")
    last, original_state = _copy_resumable(mdir, dst, keep_extra=("keras",))
    info.update(
        {
            "description": "tf.keras.estimator.model_to_estimator(Sequential("
            "[Dense(8, input_shape=(4,), activation='relu'), Dense(2)]) "
            "compiled with optimizer='adam', SparseCategoricalCrossentropy("
            "from_logits=True), metrics=['accuracy']); default "
            "checkpoint_format='checkpoint'; tf.keras.utils.set_random_seed(0)"
            " before building the model",
            "estimator_class": type(est).__name__,
            "keras_input_names": list(model.input_names),
            "keras_output_names": list(model.output_names),
            "run_config": FIXTURE_CONFIG,
            "train": "est.train(input_fn, steps=20); input_fn = "
            "Dataset.from_tensor_slices(({'%s': x}, y)).repeat().batch(16)"
            % key,
            "eval_input_fn": "Dataset.from_tensor_slices(({'%s': x}, y))"
            ".batch(16)" % key,
            "predict_input_fn": "Dataset.from_tensor_slices({'%s': x[:3]})"
            ".batch(16)" % key,
            "data": {"doc": DATA_DOC, "n": 64, "note": "same x, y as "
                     "tf215_custom_model_dir.json"},
            "original_model_dir_listing_after_train": listing_after_train,
            "original_checkpoint_state_file": original_state,
            "fixture_files": list_dir(dst),
            "note": "fixture dir keeps %s.*, a 'checkpoint' file naming it "
            "and keras/ (the initial-weights warm-start checkpoint written "
            "by model_to_estimator)" % last,
        }
    )
    with open(os.path.join(HERE, "tf215_keras_model_dir.json"), "w") as fh:
        json.dump(info, fh, indent=1, sort_keys=True)
    shutil.rmtree(work)


# ---------------------------------------------------------------------------
# 3: section-7 probes, one process each, logs captured at INFO.
# ---------------------------------------------------------------------------
LOG_CONFIG = dict(
    tf_random_seed=0,
    log_step_count_steps=50,
    save_checkpoints_steps=100,
    save_summary_steps=50,
)
LOG_DATA_N = 256
LOG_BATCH = 32


def _custom_est(mdir, **cfg_over):
    import tensorflow as tf

    cfg = dict(LOG_CONFIG)
    cfg.update(cfg_over)
    return tf.estimator.Estimator(
        custom_model_fn, model_dir=mdir, config=tf.estimator.RunConfig(**cfg)
    )


def probe_custom_model_fn_train(w, res):
    x, y = make_data(LOG_DATA_N)
    est = _custom_est(os.path.join(w, "custom"))
    ret = est.train(make_input_fn(x, y, LOG_BATCH, True), steps=200)
    res["train_returns_self"] = ret is est
    res["config"] = LOG_CONFIG
    res["get_variable_names"] = est.get_variable_names()
    res["latest_checkpoint"] = est.latest_checkpoint()
    res["model_dir_files"] = list_dir(os.path.join(w, "custom"))
    res["train_events"] = event_info(os.path.join(w, "custom"))


def probe_skip_max_steps(w, res):
    x, y = make_data(LOG_DATA_N)
    est = _custom_est(os.path.join(w, "custom"))
    ret = est.train(make_input_fn(x, y, LOG_BATCH, True), max_steps=150)
    res["train_returns_self"] = ret is est
    res["global_step_after"] = int(est.get_variable_value("global_step"))
    res["model_dir_files"] = list_dir(os.path.join(w, "custom"))


def probe_evaluate(w, res):
    x, y = make_data(LOG_DATA_N)
    mdir = os.path.join(w, "custom")
    est = _custom_est(mdir)
    ev = est.evaluate(make_input_fn(x, y, LOG_BATCH, False))
    res["evaluate"] = {
        "keys": sorted(ev),
        "iteration_order": list(ev),
        "values": to_jsonable(ev),
        "types": {k: type_desc(v) for k, v in ev.items()},
    }
    ev2 = est.evaluate(
        make_input_fn(x, y, LOG_BATCH, False), steps=2, name="holdout"
    )
    res["evaluate_named_steps2"] = {
        "call": "evaluate(input_fn, steps=2, name='holdout')",
        "values": to_jsonable(ev2),
        "eval_dir": os.path.relpath(est.eval_dir("holdout"), mdir),
    }
    res["eval_events"] = event_info(os.path.join(mdir, "eval"))
    res["eval_holdout_events"] = event_info(os.path.join(mdir, "eval_holdout"))
    res["model_dir_files"] = list_dir(mdir)


def probe_predict(w, res):
    import numpy as np

    x, _ = make_data(LOG_DATA_N)
    est = _custom_est(os.path.join(w, "custom"))
    preds = list(est.predict(make_input_fn(x[:5], None, LOG_BATCH, False)))
    res["predict_single"] = {
        "call": "predict(Dataset({'x': x[:5]}).batch(32))",
        "count": len(preds),
        "keys": [sorted(p) for p in preds][:1],
        "first": {k: {"value": to_jsonable(v), **type_desc(v)}
                  for k, v in preds[0].items()},
    }
    batches = list(
        est.predict(
            make_input_fn(x[:5], None, 2, False),
            predict_keys=["classes"],
            yield_single_examples=False,
        )
    )
    res["predict_batches"] = {
        "call": "predict(Dataset({'x': x[:5]}).batch(2), "
        "predict_keys=['classes'], yield_single_examples=False)",
        "count": len(batches),
        "items": [{k: type_desc(v) for k, v in b.items()} for b in batches],
    }
    res["model_dir_files"] = list_dir(os.path.join(w, "custom"))
    del np


def probe_export(w, res):
    mdir = os.path.join(w, "custom")
    est = _custom_est(mdir)
    base = os.path.join(w, "export_base")
    path = est.export_saved_model(base, serving_input_receiver_fn)
    res["export_saved_model_return_type"] = type(path).__name__
    res["export_saved_model_return"] = path.decode()
    res["export_dir_files"] = list_dir(base)
    res["model_dir_files"] = list_dir(mdir)
    import tensorflow as tf

    with quiet():
        loaded = tf.saved_model.load(path.decode())
    sig = loaded.signatures["serving_default"]
    res["serving_default_inputs"] = {
        k: str(v) for k, v in sig.structured_input_signature[1].items()
    }
    res["serving_default_outputs"] = {
        k: str(v) for k, v in sig.structured_outputs.items()
    }
    res["signature_keys"] = sorted(loaded.signatures)


def _keras_probe(w, res, fmt):
    import tensorflow as tf

    x, y = make_data(LOG_DATA_N)
    mdir = os.path.join(w, "keras_" + fmt)
    model = build_keras_model()
    est = tf.keras.estimator.model_to_estimator(
        keras_model=model,
        model_dir=mdir,
        config=tf.estimator.RunConfig(**LOG_CONFIG),
        checkpoint_format=fmt,
    )
    key = model.input_names[0]
    res["estimator_class"] = type(est).__name__
    res["input_names"] = list(model.input_names)
    res["output_names"] = list(model.output_names)
    res["model_dir_files_after_construction"] = list_dir(mdir)
    est.train(make_input_fn(x, y, LOG_BATCH, True, key), steps=200)
    res["get_variable_names"] = est.get_variable_names()
    with quiet():
        res["keras_subdir_variable_names"] = [
            n for n, _ in tf.train.list_variables(os.path.join(mdir, "keras"))
        ]
    ev = est.evaluate(make_input_fn(x, y, LOG_BATCH, False, key))
    res["evaluate"] = {
        "keys": sorted(ev),
        "values": to_jsonable(ev),
        "types": {k: type_desc(v) for k, v in ev.items()},
    }
    preds = list(est.predict(make_input_fn(x[:3], None, LOG_BATCH, False, key)))
    res["predict_keys"] = sorted(preds[0])
    res["predict_first"] = {k: type_desc(v) for k, v in preds[0].items()}
    res["model_dir_files"] = list_dir(mdir)
    res["train_events"] = event_info(mdir)
    res["eval_events"] = event_info(os.path.join(mdir, "eval"))


def probe_model_to_estimator(w, res):
    _keras_probe(w, res, "checkpoint")


def probe_model_to_estimator_saver(w, res):
    _keras_probe(w, res, "saver")


def probe_train_and_evaluate(w, res):
    import tensorflow as tf

    x, y = make_data(LOG_DATA_N)
    mdir = os.path.join(w, "tae")
    est = _custom_est(mdir, save_checkpoints_steps=50)
    train_spec = tf.estimator.TrainSpec(
        make_input_fn(x, y, LOG_BATCH, True), max_steps=200
    )
    eval_spec = tf.estimator.EvalSpec(
        make_input_fn(x, y, LOG_BATCH, False),
        steps=None,
        exporters=[
            tf.estimator.LatestExporter(
                "latest", serving_input_receiver_fn, exports_to_keep=2
            )
        ],
        throttle_secs=0,
    )
    ret = tf.estimator.train_and_evaluate(est, train_spec, eval_spec)
    res["call"] = (
        "train_and_evaluate(est[save_checkpoints_steps=50], TrainSpec("
        "max_steps=200), EvalSpec(steps=None, exporters=[LatestExporter("
        "'latest', ..., exports_to_keep=2)], throttle_secs=0))"
    )
    res["return_type"] = type(ret).__name__
    res["return"] = to_jsonable(ret)
    res["return_metric_types"] = {k: type_desc(v) for k, v in ret[0].items()}
    res["model_dir_files"] = list_dir(mdir)
    res["train_events"] = event_info(mdir)
    res["eval_events"] = event_info(os.path.join(mdir, "eval"))


def probe_warm_start(w, res):
    import tensorflow as tf

    x, y = make_data(LOG_DATA_N)
    src = os.path.join(w, "custom")
    est = tf.estimator.Estimator(
        custom_model_fn,
        model_dir=os.path.join(w, "warm_dir"),
        config=tf.estimator.RunConfig(**LOG_CONFIG),
        warm_start_from=src,
    )
    est.train(make_input_fn(x, y, LOG_BATCH, True), steps=10)
    res["warm_start_from_string"] = {
        "variable_names": est.get_variable_names(),
        "global_step": int(est.get_variable_value("global_step")),
        "model_dir_files": list_dir(os.path.join(w, "warm_dir")),
    }
    ws = tf.estimator.WarmStartSettings(
        ckpt_to_initialize_from=src, vars_to_warm_start="dense/kernel"
    )
    est2 = tf.estimator.Estimator(
        custom_model_fn,
        model_dir=os.path.join(w, "warm_dir2"),
        config=tf.estimator.RunConfig(**LOG_CONFIG),
        warm_start_from=ws,
    )
    est2.train(make_input_fn(x, y, LOG_BATCH, True), steps=10)
    res["warm_start_settings_kernel_only"] = {
        "global_step": int(est2.get_variable_value("global_step")),
    }


def probe_misc(w, res):
    """Temp model dir, eval without checkpoint, empty training input,
    get_variable_names without checkpoint, predict with tensor input_fn."""
    import tensorflow as tf

    x, y = make_data(LOG_DATA_N)
    logger = logging.getLogger("tensorflow")
    logger.info("=== PROBE: Estimator(model_fn) with no model_dir/config")
    est = tf.estimator.Estimator(custom_model_fn)
    res["temp_model_dir_prefix"] = os.path.basename(est.model_dir)[:3]
    try:
        est.get_variable_names()
    except ValueError as e:
        res["get_variable_names_no_ckpt_error"] = str(e).replace(
            est.model_dir, "<model_dir>")
    res["latest_checkpoint_no_ckpt"] = est.latest_checkpoint()
    logger.info("=== PROBE: evaluate without a checkpoint")
    ev = est.evaluate(make_input_fn(x, y, LOG_BATCH, False))
    res["evaluate_no_ckpt"] = to_jsonable(ev)
    logger.info("=== PROBE: train on an empty dataset")
    empty_dir = os.path.join(w, "empty")
    est_e = _custom_est(empty_dir)
    est_e.train(make_input_fn(x[:0], y[:0], LOG_BATCH, False), steps=5)
    res["empty_train_model_dir_files"] = list_dir(empty_dir)
    res["empty_train_variable_names"] = est_e.get_variable_names()
    logger.info("=== PROBE: predict with a (features) tensor-dict input_fn")
    est_c = _custom_est(os.path.join(w, "custom"))

    def tensor_input_fn():
        return {"x": tf.constant(x[:2])}

    it = est_c.predict(tensor_input_fn)
    res["predict_from_tensors_first2"] = [
        sorted(next(it)) for _ in range(2)
    ]
    logger.info("=== PROBE: train(steps=0) / both steps and max_steps")
    for kwargs in ({"steps": 0}, {"steps": 1, "max_steps": 5},
                   {"max_steps": 0}):
        try:
            est_c.train(make_input_fn(x, y, LOG_BATCH, True), **kwargs)
            res["train_%s" % kwargs] = "no error"
        except ValueError as e:
            res["train_%s" % kwargs] = "ValueError: %s" % e


PROBES = [
    "custom_model_fn_train",
    "skip_max_steps",
    "evaluate",
    "predict",
    "export",
    "model_to_estimator",
    "model_to_estimator_saver",
    "train_and_evaluate",
    "warm_start",
    "misc",
]


def run_probe(name, work):
    """Runs in a fresh interpreter; writes <work>/<name>.{log,json}."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    handler = logging.FileHandler(os.path.join(work, name + ".log"), "w")
    handler.setFormatter(
        logging.Formatter("%(levelname)s:%(name)s:%(message)s")
    )
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    logging.captureWarnings(True)
    import tensorflow as tf

    tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)
    seed_python_random()
    res = {"probe": name, "tf_version": tf.__version__}
    globals()["probe_" + name](work, res)
    handler.flush()
    with open(os.path.join(work, name + ".json"), "w") as fh:
        json.dump(res, fh, indent=1, sort_keys=True, default=str)


NOTABLE = [
    r"Using config:",
    r"Using default config",
    r"Using temporary folder",
    r"Skipping training",
    r"Loss for final step",
    r"Training with estimator made no steps",
    r"Warm-start",
    r"[Ll]egacy|legacy\.Optimizer|optimizers\.legacy",
    r"Keras backend session",
    r"Saving dict for global step",
    r"Saving 'checkpoint_path' summary",
    r"Could not find trained model",
    r"Signatures (INCLUDED|EXCLUDED)",
    r"SavedModel written to",
    r"No assets",
    r"Restoring parameters from",
    r"Running training and evaluation locally",
    r"Start train and evaluate loop",
    r"Skip the current checkpoint eval",
    r"Performing the final export",
    r"Calling checkpoint listeners",
    r"Saving checkpoints for",
    r"Starting evaluation at",
    r"Evaluation \[",
    r"Inference Time",
    r"Finished evaluation at",
    r"^INFO:tensorflow:loss = ",
    r"global_step/sec",
    r"yields forever",
    r"Create CheckpointSaverHook",
    r"Calling model_fn|Done calling model_fn",
    r"Graph was finalized|Running local_init_op|Done running local_init_op",
    r"Exporting checkpoint|Export",
]


PRIMARY_DIRS = {
    "model_to_estimator": ["keras_checkpoint"],
    "model_to_estimator_saver": ["keras_saver"],
    "train_and_evaluate": ["tae"],
    "warm_start": ["warm_dir2", "warm_dir"],
    "misc": ["custom", "empty"],
}


def normalise_log(text, work, probe):
    import site

    text = text.replace(os.path.abspath(__file__), "<generator>")
    text = text.replace(os.path.realpath(work), "<work>")
    text = text.replace(work, "<work>")
    for sp in site.getsitepackages():
        text = text.replace(sp, "<site-packages>")
    text = text.replace("<work>/export_base", "<export_dir_base>")
    # The probe's own model dir(s) become <model_dir>; other work paths
    # (e.g. a warm-start source) stay as <work>/NAME.
    for d in PRIMARY_DIRS.get(probe, ["custom"]):
        text = re.sub(r"<work>/%s\b" % d, "<model_dir>", text)
    text = text.replace(tempfile.gettempdir() + "/", "<tmp>/")
    text = re.sub(r"<tmp>/tmp[A-Za-z0-9_]{8}", "<tmp>/<tempdir>", text)
    text = re.sub(r"(export/latest/|<export_dir_base>/)(temp-)?\d{10}",
                  r"\1\2<timestamp>", text)
    return text


def gen_logs():
    work = tempfile.mkdtemp(prefix="tf215_logs_")
    os.makedirs(LOG_DIR, exist_ok=True)
    summary = {"probes": {}}
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONHASHSEED="0")
    for name in PROBES:
        print("probe", name, flush=True)
        subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--probe", name, work],
            check=True,
            env=env,
        )
        with open(os.path.join(work, name + ".log")) as fh:
            log = normalise_log(fh.read(), work, name)
        with open(os.path.join(LOG_DIR, name + ".log"), "w") as fh:
            fh.write(log)
        with open(os.path.join(work, name + ".json")) as fh:
            res = json.loads(normalise_log(fh.read(), work, name))
        notable = {}
        lines = log.splitlines()
        for pat in NOTABLE:
            hits = [l for l in lines if re.search(pat, l)]
            if hits:
                # keep at most the first 8 distinct hits per pattern
                seen = []
                for h in hits:
                    if h not in seen:
                        seen.append(h)
                notable[pat] = seen[:8]
        warnings = []
        for i, l in enumerate(lines):
            if l.startswith("WARNING:") and l not in warnings:
                warnings.append(l)
        res["notable_log_lines"] = notable
        # Multi-line records (the session_config proto spans lines).
        res["using_config_records"] = sorted(set(re.findall(
            r"^INFO:tensorflow:Using config: .*?(?=\n[A-Z]+:[\w.]+:)",
            log, re.S | re.M)))
        res["warning_lines"] = warnings
        summary["probes"][name] = res
    import tensorflow as tf

    summary["versions"] = {"tensorflow": tf.__version__}
    try:
        import importlib.metadata as md

        for p in ("tensorflow-cpu", "tensorflow-estimator", "keras", "numpy",
                  "tensorboard"):
            summary["versions"][p] = md.version(p)
    except Exception:  # pragma: no cover
        pass
    summary["data"] = {"doc": DATA_DOC, "n": LOG_DATA_N,
                       "batch": LOG_BATCH}
    summary["run_config"] = LOG_CONFIG
    summary["placeholders"] = {
        "<model_dir>": "the probe's model_dir",
        "<work>/custom": "model_dir of the custom_model_fn_train probe when "
        "another probe refers to it (warm_start source)",
        "<work>": "the generator's temporary work dir",
        "<export_dir_base>": "export_dir_base passed to export_saved_model",
        "<generator>": "this generator script's path",
        "<timestamp>": "10-digit export timestamp",
        "<tmp>/<tempdir>": "tempfile.mkdtemp() dir (temporary model_dir)",
        "<site-packages>": "the TF 2.15 environment's site-packages",
    }
    with open(os.path.join(LOG_DIR, "summary.json"), "w") as fh:
        json.dump(summary, fh, indent=1, sort_keys=True)
    shutil.rmtree(work)


def main(argv):
    if len(argv) >= 3 and argv[0] == "--probe":
        run_probe(argv[1], argv[2])
        return
    what = argv[0] if argv else "all"
    if what not in ("all", "custom", "keras", "logs"):
        raise SystemExit(__doc__)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    if what in ("all", "custom"):
        gen_custom()
    if what in ("all", "keras"):
        gen_keras()
    if what in ("all", "logs"):
        gen_logs()


if __name__ == "__main__":
    main(sys.argv[1:])
