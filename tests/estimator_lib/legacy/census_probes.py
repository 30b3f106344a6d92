"""Probes for the census's private assignments: the attribute is read when it is used.

tests/data/estimator_census.json records assignments that libraries make to private
attributes of estimators and configs (`estimator._model_fn = wrapped`,
`config._is_chief = True`, `self._warm_start_settings = ...`). Each probe here builds
the object through the public `tf.estimator` API, assigns the attribute after
construction as the library does, and returns what the assignment changed. It uses only
the `tf` module it is given, so the generator runs the same probe on the original (TF
2.15) and records its result, and census_test.py runs it here and compares.
"""

import tempfile

import numpy as np


def _input_fn(tf):
    def input_fn():
        features = {"x": tf.constant(np.ones((4, 1), np.float32))}
        return features, tf.constant(np.ones((4, 1), np.float32))
    return input_fn


def _model_fn(tf, initial_value):
    v1 = tf.compat.v1

    def model_fn(features, labels, mode):
        weight = v1.get_variable("w", initializer=tf.constant([[initial_value]]))
        predictions = tf.matmul(features["x"], weight)
        loss = tf.reduce_mean(tf.square(predictions - labels))
        train_op = v1.assign_add(v1.train.get_global_step(), 1)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                          predictions=predictions)
    return model_fn


def estimator_model_fn(tf, base=None) -> dict:
    """`est._model_fn = wrapped(est._model_fn)` (NSL's regularizers, SparseML): who ran."""
    calls = []
    estimator = tf.estimator.Estimator(_model_fn(tf, 1.0),
                                       model_dir=tempfile.mkdtemp(dir=base))
    inner = estimator._model_fn  # pylint: disable=protected-access

    def wrapped(features, labels, mode, params=None, config=None):
        calls.append(mode)
        del params, config
        return inner(features, labels, mode)

    estimator._model_fn = wrapped  # pylint: disable=protected-access
    estimator.train(_input_fn(tf), steps=1)
    return {"wrapper_called_in_train": bool(calls)}


def estimator_warm_start_settings(tf, base=None) -> dict:
    """`self._warm_start_settings = ...` set after the base's __init__ (adanet)."""
    source = tempfile.mkdtemp(dir=base)
    tf.estimator.Estimator(_model_fn(tf, 7.0), model_dir=source).train(
        _input_fn(tf), steps=1)
    estimator = tf.estimator.Estimator(_model_fn(tf, 0.0),
                                       model_dir=tempfile.mkdtemp(dir=base))
    estimator._warm_start_settings = tf.estimator.WarmStartSettings(  # pylint: disable=protected-access
        source, vars_to_warm_start="w")
    estimator.train(_input_fn(tf), steps=1)
    return {"w_after_train": float(estimator.get_variable_value("w")[0][0])}


def run_config_attribute(tf, attribute: str) -> dict:
    """`config._num_ps_replicas = 2`, `config._is_chief = False`: the public property."""
    values = {"_num_ps_replicas": 2, "_is_chief": False, "_num_worker_replicas": 3,
              "_task_type": "worker", "_task_id": 4, "_master": "grpc://x:1"}
    config = tf.estimator.RunConfig()
    setattr(config, attribute, values[attribute])
    return {attribute[1:]: getattr(config, attribute[1:])}


def probe(tf, use: dict, base=None):
    """The probe's result for one recorded private assignment, or None if there is none.

    Args:
        tf: The `tensorflow` module (the original's, or TF 2.21's after compat.install()).
        use: One `private-assignment` record of tests/data/estimator_census.json.
        base: The folder the probe's model_dirs are made in (None: the system's).
    """
    attribute = use["attribute"]
    read_by = " ".join(use["original"]["read_by"])
    if attribute == "_model_fn" and "Estimator" in read_by:
        return estimator_model_fn(tf, base)
    if attribute == "_warm_start_settings" and "Estimator" in read_by:
        return estimator_warm_start_settings(tf, base)
    if "RunConfig" in read_by:
        return run_config_attribute(tf, attribute)
    return None
