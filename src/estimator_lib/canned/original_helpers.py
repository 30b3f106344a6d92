"""The private helpers of the original `canned/dnn.py`, `dnn_linear_combined.py` and
`baseline.py`, by their names and signatures.

Those modules of ours import them, so after compat.install() they stand at the
original's paths (`canned.dnn._add_hidden_layer_summary`, ...), where libraries built
on the canned estimators import them. Each is ours under the original's name and
arguments; the models are built where they were (dnn.py, baseline.py, ...).
"""

import importlib
import math

import tensorflow as tf

# pylint: disable=protected-access  (the canned modules' own helpers, one package)

_DNN_LINEAR_LEARNING_RATE = 0.005  # dnn_linear_combined.py's _LINEAR_LEARNING_RATE


def _canned(name):
    """The canned module `name`, reached on call: those modules import this one."""
    return importlib.import_module(f"estimator_lib.canned.{name}")

# ---------------------------------------------------------------------------- dnn.py


def _add_hidden_layer_summary(value, tag):
    """Summaries of a layer's activations: zero fraction and histogram under `tag`."""
    _canned("dnn").add_layer_summary(value, tag)


def _name_from_scope_name(name):
    """The op name of a name scope: the scope name without its trailing slash."""
    return name[:-1] if (name and name[-1] == "/") else name


def _get_previous_name_scope():
    """The enclosing name scope of the current one, with a trailing slash."""
    return tf.compat.v1.get_default_graph().get_name_scope().rsplit("/", 1)[0] + "/"


def _validate_features(features):
    """ValueError unless `features` is a dict."""
    if not isinstance(features, dict):
        raise ValueError("features should be a dictionary of `Tensor`s. "
                         f"Given type: {type(features)}")


def _get_dnn_estimator_spec(use_tpu, head, features, labels, mode, logits, optimizer):
    """The head's spec: its TPU spec with `use_tpu`, else its EstimatorSpec."""
    create = head._create_tpu_estimator_spec if use_tpu else head.create_estimator_spec
    return create(features=features, mode=mode, labels=labels, optimizer=optimizer,
                  logits=logits)


def _dnn_model_fn_builder_v2(units, hidden_units, feature_columns, activation_fn, dropout,
                             batch_norm, features, mode):
    """(logits, trainable variables, update ops) of the v2 DNN on `features`.

    Raises:
        ValueError: If `units` is not an int.
    """
    return _canned("dnn").dnn_logits_v2(
        features, mode, units=units, hidden_units=hidden_units,
        feature_columns=feature_columns, activation_fn=activation_fn, dropout=dropout,
        batch_norm=batch_norm)


# ---------------------------------------------------------------- dnn_linear_combined.py


def _add_layer_summary(value, tag):
    """Summaries of a layer's activations: zero fraction and histogram under `tag`."""
    _canned("dnn").add_layer_summary(value, tag)


def _linear_learning_rate(num_linear_feature_columns):
    """The linear part's default learning rate: min(0.005, 1 / sqrt(columns))."""
    return min(_DNN_LINEAR_LEARNING_RATE, 1. / math.sqrt(num_linear_feature_columns))


def _validate_feature_columns(linear_feature_columns, dnn_feature_columns):
    """Both parts' columns in one list; ValueError when there are none."""
    feature_columns = list(linear_feature_columns or []) + list(dnn_feature_columns or [])
    if not feature_columns:
        raise ValueError("Either linear_feature_columns or dnn_feature_columns "
                         "must be defined.")
    return feature_columns


def _init_dnn_linear_combined_estimator(head, linear_feature_columns, linear_optimizer,
                                        dnn_feature_columns, dnn_optimizer,
                                        dnn_hidden_units, dnn_activation_fn, dnn_dropout,
                                        input_layer_partitioner, linear_sparse_combiner):
    """(all feature columns, the v1 combined model_fn of these arguments)."""
    linear_feature_columns = linear_feature_columns or []
    dnn_feature_columns = dnn_feature_columns or []
    feature_columns = _validate_feature_columns(linear_feature_columns,
                                                dnn_feature_columns)

    def _model_fn(features, labels, mode, config):
        return _canned("dnn_linear_combined")._dnn_linear_combined_model_fn(
            features=features, labels=labels, mode=mode, head=head,
            linear_feature_columns=linear_feature_columns,
            linear_optimizer=linear_optimizer, dnn_feature_columns=dnn_feature_columns,
            dnn_optimizer=dnn_optimizer, dnn_hidden_units=dnn_hidden_units,
            dnn_activation_fn=dnn_activation_fn, dnn_dropout=dnn_dropout,
            input_layer_partitioner=input_layer_partitioner, config=config,
            linear_sparse_combiner=linear_sparse_combiner)

    return feature_columns, _model_fn


# ---------------------------------------------------------------------------- baseline.py


def _get_weight_column_key(weight_column):
    """The weight feature's key of a string or numeric column; None for None (TypeError
    for anything else)."""
    return _canned("baseline")._weight_column_key(weight_column)


def _get_weight_column_key_v2(weight_column):
    """As `_get_weight_column_key`, for v2 feature columns."""
    return _canned("baseline")._weight_column_key(weight_column)


def _get_batch_size_and_size_checks(features, weight_column_key):
    """(the checks that every feature but the weight has one batch size, the batch size)."""
    batch_size, checks = _canned("baseline")._batch_size_and_checks(
        features, weight_column_key)
    return checks, batch_size


def _baseline_logit_fn_builder(num_outputs, weight_column=None):
    """`logit_fn(features)` of the v1 baseline: one learned bias per output."""

    def baseline_logit_fn(features):
        return _canned("baseline")._baseline_logits_v1(
            features, num_outputs, weight_column)

    return baseline_logit_fn


def _baseline_model_fn_builder_v2(features, num_outputs, weight_column=None):
    """([bias], logits) of the v2 baseline on `features`."""
    return _canned("baseline")._baseline_logits_v2(features, num_outputs, weight_column)
