"""Named programs that make the tf.estimator API raise: the exception-type table's cases.

Each case is a small function `case(tf, tmp)` that calls only the `tf.estimator` API
(and tf.keras, tf.feature_column, tf.compat.v1) and is expected to raise. It runs
alike on the original (TF 2.15.1 + tensorflow-estimator 2.15.0, by
`make_tf215_exceptions.py`, which records the exception's type and MRO in
`tf215_exceptions.json`) and here (`tests/estimator_lib/legacy/exceptions_test.py`,
after `estimator_lib.compat.install()`), which checks that ours is an instance of
the original's type. `tmp` is a fresh empty directory for the case.

Each case declares its key phrase (`@case("...")`): the part of the original's message
that names the check the case is about. The generator refuses to record a case whose
message lacks it (a case that stopped at another check first), and the test finds it
in our message too. `ours=` gives our message's phrase where our wording differs on
purpose (a message that names what arrived and what works, or docs/estimator.md's
deliberate differences). `@case(None)`: the original raised nothing; `ours=` then
names what we raise instead (a deliberate difference, listed in exceptions_test.py).
"""

import json
import os

import numpy as np

CASES = {}
KEYS = {}  # case -> the original message's key phrase, or None: it raised nothing
OURS = {}  # case -> our message's phrase where it differs from the key on purpose


def case(key, ours=None):
    """Registers the decorated program under its name, with its key phrase(s)."""
    def register(function):
        CASES[function.__name__] = function
        KEYS[function.__name__] = key
        if ours is not None:
            OURS[function.__name__] = ours
        return function
    return register


# ------------------------------------------------------------------------- helpers


def _model_fn(features, labels, mode):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    logits = tf.compat.v1.layers.dense(features["x"], 1, name="dense")
    loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                      predictions={"y": logits})


def _predict_safe_model_fn(features, labels, mode):
    """_model_fn without a loss in PREDICT (labels are None there)."""
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    if mode == tf.estimator.ModeKeys.PREDICT:
        logits = tf.compat.v1.layers.dense(features["x"], 1, name="dense")
        return tf.estimator.EstimatorSpec(mode, predictions={"y": logits})
    return _model_fn(features, labels, mode)


def _wide_model_fn(features, labels, mode):
    """_model_fn with a second variable and a kernel of another shape."""
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    hidden = tf.compat.v1.layers.dense(features["x"], 3, name="extra")
    logits = tf.compat.v1.layers.dense(hidden, 1, name="dense")
    loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                      predictions={"y": logits})


def _reshaped_model_fn(features, labels, mode):
    """_model_fn's variables, the kernel of another shape (x has 2 columns)."""
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    x = tf.concat([features["x"], features["x"]], axis=1)
    logits = tf.compat.v1.layers.dense(x, 1, name="dense")
    loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                      predictions={"y": logits})


def _input_fn():
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    x = np.arange(8, dtype=np.float32).reshape(8, 1)
    return tf.data.Dataset.from_tensor_slices(({"x": x}, 2 * x)).batch(4)


def _trained(tf, tmp, model_fn=_model_fn):
    est = tf.estimator.Estimator(model_fn, model_dir=os.path.join(tmp, "m"))
    est.train(_input_fn, steps=1)
    return est


def _column(tf):
    return tf.feature_column.numeric_column("x")


def _graph(tf):
    return tf.Graph().as_default()


# ------------------------------------------------------------- Estimator constructor


@case("model_fn must be provided to Estimator")
def estimator_model_fn_none(tf, tmp):
    tf.estimator.Estimator(None, model_dir=tmp)


@case("config must be an instance of `RunConfig`")
def estimator_config_not_a_run_config(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=tmp, config="config")


@case("`model_dir` are set both in constructor and `RunConfig`, but with different values")
def estimator_two_model_dirs(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=os.path.join(tmp, "a"),
                           config=tf.estimator.RunConfig(model_dir=os.path.join(tmp, "b")))


@case("has following not expected args: ['other']")
def estimator_model_fn_unknown_argument(tf, tmp):
    tf.estimator.Estimator(lambda features, labels, other: None, model_dir=tmp)


@case("must include features argument", ours="must include `features` argument")
def estimator_model_fn_without_features(tf, tmp):
    tf.estimator.Estimator(lambda labels, mode: None, model_dir=tmp)


@case("does not include params argument, but params ({'a': 1}) is passed to Estimator")
def estimator_params_to_model_fn_without_params(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=tmp, params={"a": 1})


@case("Subclasses of Estimator cannot override members of Estimator")
def estimator_subclass_overrides_train(tf, tmp):
    class Sub(tf.estimator.Estimator):
        def train(self, *args, **kwargs):  # pylint: disable=arguments-differ
            pass
    Sub(_model_fn, model_dir=tmp)


@case("Subclasses of Estimator cannot override members of Estimator")
def estimator_v1_subclass_overrides_evaluate(tf, tmp):
    class Sub(tf.compat.v1.estimator.Estimator):
        def evaluate(self, *args, **kwargs):  # pylint: disable=arguments-differ
            pass
    Sub(_model_fn, model_dir=tmp)


@case(
    "warm_start_from must be a string or a WarmStartSettings",
    ours="`warm_start_from` must be a string path or a WarmStartSettings")
def estimator_warm_start_from_a_number(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=tmp, warm_start_from=3)


# ------------------------------------------------------------------------- train


@case("Can not provide both steps and max_steps")
def train_steps_and_max_steps(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=tmp).train(_input_fn, steps=1, max_steps=2)


@case("Must specify steps > 0, given: 0")
def train_steps_zero(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=tmp).train(_input_fn, steps=0)


@case("Must specify max_steps > 0, given: -1")
def train_max_steps_negative(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=tmp).train(_input_fn, max_steps=-1)


@case("Hooks must be a SessionRunHook, given: 1")
def train_hook_not_a_hook(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=tmp).train(_input_fn, steps=1, hooks=[1])


@case("saving_listeners must be a list of CheckpointSaverListener")
def train_saving_listener_not_a_listener(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=tmp).train(
        _input_fn, steps=1, saving_listeners=[1])


@case("model_fn should return an EstimatorSpec")
def train_model_fn_returns_none(tf, tmp):
    tf.estimator.Estimator(lambda features, labels, mode: None, model_dir=tmp).train(
        _input_fn, steps=1)


@case("Missing loss")
def train_model_fn_without_loss(tf, tmp):
    def model_fn(features, labels, mode):
        return tf.estimator.EstimatorSpec(mode, train_op=tf.no_op(),
                                          predictions={"x": features["x"]})
    tf.estimator.Estimator(model_fn, model_dir=tmp).train(_input_fn, steps=1)


@case("model_fn does not take labels, but input_fn returns labels")
def train_model_fn_without_labels_given_labels(tf, tmp):
    def model_fn(features, mode):
        return _model_fn(features, features["x"], mode)
    tf.estimator.Estimator(model_fn, model_dir=tmp).train(_input_fn, steps=1)


@case("missing 1 required positional argument: 'other'")
def train_input_fn_unknown_argument(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=tmp).train(lambda other: None, steps=1)


@case("'input'")
def train_input_fn_raises(tf, tmp):
    def input_fn():
        raise KeyError("input")
    tf.estimator.Estimator(_model_fn, model_dir=tmp).train(input_fn, steps=1)


@case("'model_fn'")
def train_model_fn_raises(tf, tmp):
    def model_fn(features, labels, mode):
        raise KeyError("model_fn")
    tf.estimator.Estimator(model_fn, model_dir=tmp).train(_input_fn, steps=1)


@case("missing from the checkpoint", ours="variables not in the checkpoint")
def train_resumes_a_checkpoint_without_a_variable(tf, tmp):
    _trained(tf, tmp)
    tf.estimator.Estimator(_wide_model_fn, model_dir=os.path.join(tmp, "m")).train(
        _input_fn, steps=1)


@case("Matrix size-incompatible", ours="shapes that differ")
def train_resumes_a_checkpoint_of_another_shape(tf, tmp):
    _trained(tf, tmp)
    tf.estimator.Estimator(_reshaped_model_fn, model_dir=os.path.join(tmp, "m")).train(
        _input_fn, steps=1)


@case("Tensor no_such/kernel is not found in")
def train_warm_starts_a_variable_the_checkpoint_lacks(tf, tmp):
    _trained(tf, tmp)
    settings = tf.estimator.WarmStartSettings(
        os.path.join(tmp, "m"), vars_to_warm_start=["extra/kernel"],
        var_name_to_prev_var_name={"extra/kernel": "no_such/kernel"})
    tf.estimator.Estimator(_wide_model_fn, model_dir=os.path.join(tmp, "w"),
                           warm_start_from=settings).train(_input_fn, steps=1)


@case("Tensor extra/bias is not found in")
def train_warm_starts_variables_the_checkpoint_lacks(tf, tmp):
    _trained(tf, tmp)
    settings = tf.estimator.WarmStartSettings(os.path.join(tmp, "m"),
                                              vars_to_warm_start="extra.*")
    tf.estimator.Estimator(_wide_model_fn, model_dir=os.path.join(tmp, "w"),
                           warm_start_from=settings).train(_input_fn, steps=1)


@case("doesn't match with shape of tensor dense/kernel")
def train_warm_starts_a_variable_of_another_shape(tf, tmp):
    _trained(tf, tmp)
    tf.estimator.Estimator(_reshaped_model_fn, model_dir=os.path.join(tmp, "w"),
                           warm_start_from=os.path.join(tmp, "m")).train(_input_fn, steps=1)


@case("Failed to find any matching files for")
def train_warm_starts_from_a_missing_checkpoint(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=os.path.join(tmp, "w"),
                           warm_start_from=os.path.join(tmp, "none")).train(
                               _input_fn, steps=1)


# --------------------------------------------------------------- evaluate, predict


@case(None)
def evaluate_without_a_checkpoint(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=tmp).evaluate(_input_fn)


@case("Must specify steps > 0, given: 0")
def evaluate_steps_zero(tf, tmp):
    _trained(tf, tmp).evaluate(_input_fn, steps=0)


@case("Hooks must be a SessionRunHook, given: 1")
def evaluate_hook_not_a_hook(tf, tmp):
    _trained(tf, tmp).evaluate(_input_fn, hooks=[1])


@case("is not a valid checkpoint", ours="is unreadable")
def evaluate_a_checkpoint_path_that_does_not_exist(tf, tmp):
    _trained(tf, tmp).evaluate(_input_fn, checkpoint_path=os.path.join(tmp, "none"))


@case("missing from the checkpoint", ours="variables not in the checkpoint")
def evaluate_checkpoint_without_a_variable(tf, tmp):
    _trained(tf, tmp)
    tf.estimator.Estimator(_wide_model_fn, model_dir=os.path.join(tmp, "m")).evaluate(
        _input_fn)


@case("Expected to run at least one output from")
def predict_unknown_key(tf, tmp):
    next(_trained(tf, tmp, _predict_safe_model_fn).predict(_input_fn, predict_keys=["nope"]))


@case("Hooks must be a SessionRunHook, given: 1")
def predict_hook_not_a_hook(tf, tmp):
    next(_trained(tf, tmp).predict(_input_fn, hooks=[1]))


@case("Couldn't find trained model at")
def export_saved_model_without_a_checkpoint(tf, tmp):
    def receiver_fn():
        x = tf.compat.v1.placeholder(tf.float32, [None, 1])
        return tf.estimator.export.ServingInputReceiver({"x": x}, {"x": x})
    tf.estimator.Estimator(_model_fn, model_dir=tmp).export_saved_model(
        os.path.join(tmp, "e"), receiver_fn)


@case("No valid modes for exporting found", ours="`mode` must be one of")
def export_saved_model_unknown_mode(tf, tmp):
    def receiver_fn():
        x = tf.compat.v1.placeholder(tf.float32, [None, 1])
        return tf.estimator.export.ServingInputReceiver({"x": x}, {"x": x})
    _trained(tf, tmp).export_saved_model(os.path.join(tmp, "e"), receiver_fn,
                                         experimental_mode="bogus")


# ------------------------------------------------------------------------ RunConfig


@case("`save_checkpoints_steps` and `save_checkpoints_secs` cannot be both set")
def run_config_checkpoint_steps_and_secs(tf, tmp):
    tf.estimator.RunConfig(save_checkpoints_steps=1, save_checkpoints_secs=1)


@case("save_summary_steps should be >= 0")
def run_config_negative_summary_steps(tf, tmp):
    tf.estimator.RunConfig(save_summary_steps=-1)


@case("keep_checkpoint_max should be >= 0")
def run_config_negative_keep_checkpoint_max(tf, tmp):
    tf.estimator.RunConfig(keep_checkpoint_max=-1)


@case("log_step_count_steps should be > 0")
def run_config_negative_log_step_count_steps(tf, tmp):
    tf.estimator.RunConfig(log_step_count_steps=-1)


@case("keep_checkpoint_every_n_hours should be > 0")
def run_config_negative_keep_every_n_hours(tf, tmp):
    tf.estimator.RunConfig(keep_checkpoint_every_n_hours=-1)


@case("tf_random_seed must be integer")
def run_config_random_seed_a_string(tf, tmp):
    tf.estimator.RunConfig(tf_random_seed="seed")


@case("session_config must be instance of ConfigProto")
def run_config_session_config_a_number(tf, tmp):
    tf.estimator.RunConfig(session_config=1)


@case("device_fn must be callable with exactly one argument \"op\"")
def run_config_device_fn_not_callable(tf, tmp):
    tf.estimator.RunConfig(device_fn=1)


@case("protocol should be grpc or grpc+verbs")
def run_config_unknown_protocol(tf, tmp):
    tf.estimator.RunConfig(protocol="carrier-pigeon")


@case("unexpected keyword argument 'no_such_argument'")
def run_config_unknown_argument(tf, tmp):
    tf.estimator.RunConfig(no_such_argument=1)


@case("Replacing no_such_property is not supported")
def run_config_replace_unknown_property(tf, tmp):
    tf.estimator.RunConfig().replace(no_such_property=1)


@case("Replacing cluster_spec is not supported")
def run_config_replace_cluster_spec(tf, tmp):
    tf.estimator.RunConfig().replace(cluster_spec=None)


@case("experimental_max_worker_delay_secs must be an integer if set")
def run_config_max_worker_delay_a_string(tf, tmp):
    tf.estimator.RunConfig(experimental_max_worker_delay_secs="1")


@case("session_creation_timeout_secs should be > 0")
def run_config_session_creation_timeout_negative(tf, tmp):
    tf.estimator.RunConfig(session_creation_timeout_secs=-1)


@case(
    "'model_dir' of 'RunConfig' object has no setter",
    ours="RunConfig.model_dir cannot be set")
def run_config_set_attribute(tf, tmp):
    tf.estimator.RunConfig().model_dir = "x"


# ------------------------------------------------------------------------ TF_CONFIG


# A cluster that passes the one-chief check, so the cases below reach the task checks.
_CHIEF_AND_WORKER = {"chief": ["a:1"], "worker": ["b:1"]}


def _with_tf_config(tf, value):
    old = os.environ.get("TF_CONFIG")
    os.environ["TF_CONFIG"] = value if isinstance(value, str) else json.dumps(value)
    try:
        tf.estimator.RunConfig()
    finally:
        if old is None:
            del os.environ["TF_CONFIG"]
        else:
            os.environ["TF_CONFIG"] = old


@case("Expecting property name enclosed in double quotes")
def tf_config_not_json(tf, tmp):
    _with_tf_config(tf, "{not json")


@case("If \"cluster\" is set in TF_CONFIG, task type must be set")
def tf_config_cluster_without_task_type(tf, tmp):
    _with_tf_config(tf, {"cluster": _CHIEF_AND_WORKER, "task": {"index": 0}})


@case("ps is not a valid task_type in the cluster_spec")
def tf_config_task_type_not_in_cluster(tf, tmp):
    _with_tf_config(tf, {"cluster": _CHIEF_AND_WORKER, "task": {"type": "ps", "index": 0}})


@case("3 is not a valid task_id for task_type worker")
def tf_config_task_index_out_of_range(tf, tmp):
    _with_tf_config(tf, {"cluster": _CHIEF_AND_WORKER, "task": {"type": "worker", "index": 3}})


@case("The \"cluster\" in TF_CONFIG must have only one \"chief\" node")
def tf_config_two_chiefs(tf, tmp):
    _with_tf_config(tf, {"cluster": {"chief": ["a:1", "b:1"]},
                         "task": {"type": "chief", "index": 0}})


@case("If `master` node exists in `cluster`, job `chief` is not supported")
def tf_config_master_and_chief(tf, tmp):
    _with_tf_config(tf, {"cluster": {"chief": ["a:1"], "master": ["b:1"]},
                         "task": {"type": "chief", "index": 0}})


@case(None)
def tf_config_evaluator_in_cluster(tf, tmp):
    _with_tf_config(tf, {"cluster": {"chief": ["a:1"], "evaluator": ["b:1"]},
                         "task": {"type": "chief", "index": 0}})


@case("If \"cluster\" is set in TF_CONFIG, it must have one \"chief\" node")
def tf_config_workers_without_chief(tf, tmp):
    _with_tf_config(tf, {"cluster": {"worker": ["a:1", "b:1"]},
                         "task": {"type": "worker", "index": 0}})


@case("Task index must be non-negative number")
def tf_config_negative_task_index(tf, tmp):
    _with_tf_config(tf, {"cluster": {"chief": ["a:1"]},
                         "task": {"type": "chief", "index": -1}})


# --------------------------------------------------------------------- EstimatorSpec


@case(None, ours="`mode` must be one of")
def spec_unknown_mode(tf, tmp):
    with _graph(tf):
        tf.estimator.EstimatorSpec("bogus", loss=tf.constant(1.0))


@case("Missing train_op")
def spec_train_without_train_op(tf, tmp):
    with _graph(tf):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.TRAIN, loss=tf.constant(1.0))


@case("Missing loss")
def spec_eval_without_loss(tf, tmp):
    with _graph(tf):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.EVAL)


@case("Missing predictions")
def spec_predict_without_predictions(tf, tmp):
    with _graph(tf):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.PREDICT)


@case("Loss must be scalar")
def spec_loss_not_scalar(tf, tmp):
    with _graph(tf):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.EVAL, loss=tf.constant([1.0, 2.0]))


@case("loss must be Tensor, given: 1.0")
def spec_loss_a_number(tf, tmp):
    with _graph(tf):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.EVAL, loss=1.0)


@case("must be from the default graph")
def spec_loss_from_another_graph(tf, tmp):
    with _graph(tf):
        loss = tf.constant(1.0)
    with _graph(tf):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.EVAL, loss=loss)


@case("train_op must be Operation or Tensor, given: 1")
def spec_train_op_a_number(tf, tmp):
    with _graph(tf):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.TRAIN, loss=tf.constant(1.0),
                                   train_op=1)


@case("predictions must be Tensor, given: 1")
def spec_predictions_a_number(tf, tmp):
    with _graph(tf):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.PREDICT, predictions=1)


@case("Values of eval_metric_ops must be (metric_value, update_op) tuples")
def spec_metric_not_a_pair(tf, tmp):
    with _graph(tf):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.EVAL, loss=tf.constant(1.0),
                                   eval_metric_ops={"m": 1})


@case("Values of eval_metric_ops must be (metric_value, update_op) tuples")
def spec_metric_tuple_of_three(tf, tmp):
    with _graph(tf):
        value = tf.constant(1.0)
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.EVAL, loss=value,
                                   eval_metric_ops={"m": (value, value, value)})


@case("Values in `export_outputs` must be ExportOutput objects, received: {'a': 1}")
def spec_export_output_not_an_export_output(tf, tmp):
    with _graph(tf):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.PREDICT,
                                   predictions={"y": tf.constant([1.0])},
                                   export_outputs={"a": 1})


@case("All hooks must be SessionRunHook instances, given: 1")
def spec_training_hook_not_a_hook(tf, tmp):
    with _graph(tf):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.TRAIN, loss=tf.constant(1.0),
                                   train_op=tf.no_op(), training_hooks=[1])


@case("All hooks must be SessionRunHook instances, given: 1")
def spec_evaluation_hook_not_a_hook(tf, tmp):
    with _graph(tf):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.EVAL, loss=tf.constant(1.0),
                                   evaluation_hooks=[1])


@case("scaffold must be tf.train.Scaffold. Given: 1")
def spec_scaffold_a_number(tf, tmp):
    with _graph(tf):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.EVAL, loss=tf.constant(1.0),
                                   scaffold=1)


# ----------------------------------------------------------------------------- heads


@case("thresholds not in (0, 1)")
def head_binary_threshold_above_one(tf, tmp):
    tf.estimator.BinaryClassHead(thresholds=[1.5])


@case("Invalid loss_reduction: none")
def head_binary_loss_reduction_none(tf, tmp):
    tf.estimator.BinaryClassHead(loss_reduction=tf.losses.Reduction.NONE)


@case("loss_fn must contain argument: labels")
def head_binary_loss_fn_without_labels(tf, tmp):
    tf.estimator.BinaryClassHead(loss_fn=lambda logits: logits)


@case("label_vocabulary should be a list or a tuple")
def head_binary_vocabulary_not_a_list(tf, tmp):
    tf.estimator.BinaryClassHead(label_vocabulary="ab")


@case("n_classes must be")
def head_multi_class_one_class(tf, tmp):
    tf.estimator.MultiClassHead(n_classes=1)


@case("\"label_vocabulary\" does not have \"n_classes\" items")
def head_multi_class_vocabulary_length(tf, tmp):
    tf.estimator.MultiClassHead(n_classes=3, label_vocabulary=["a", "b"])


@case("n_classes must be > 1 for multi-label classification")
def head_multi_label_one_class(tf, tmp):
    tf.estimator.MultiLabelHead(n_classes=1)


@case("thresholds must be in (0, 1) range")
def head_multi_label_threshold_zero(tf, tmp):
    tf.estimator.MultiLabelHead(n_classes=2, thresholds=[0.0])


@case("Invalid label_dimension 0")
def head_regression_label_dimension_zero(tf, tmp):
    tf.estimator.RegressionHead(label_dimension=0)


@case("Invalid loss_reduction: bogus")
def head_regression_unknown_reduction(tf, tmp):
    tf.estimator.RegressionHead(loss_reduction="bogus")


@case("Must specify heads. Given: []")
def head_multi_head_empty(tf, tmp):
    tf.estimator.MultiHead([])


@case("All given heads must have name specified")
def head_multi_head_unnamed(tf, tmp):
    tf.estimator.MultiHead([tf.estimator.RegressionHead(), tf.estimator.BinaryClassHead()])


@case("heads and head_weights must have the same size")
def head_multi_head_weights_length(tf, tmp):
    tf.estimator.MultiHead([tf.estimator.RegressionHead(name="a")], head_weights=[1.0, 2.0])


@case("`logits` and `labels` must have the same shape")
def head_binary_labels_of_another_shape(tf, tmp):
    with _graph(tf):
        tf.estimator.BinaryClassHead().loss(
            labels=tf.constant([[1], [0], [1]]), logits=tf.constant([[0.5], [0.5]]),
            features={}, mode=tf.estimator.ModeKeys.EVAL)


@case("Labels must be <= n_classes - 1")
def head_multi_class_labels_out_of_range(tf, tmp):
    with _graph(tf):
        loss = tf.estimator.MultiClassHead(n_classes=3).loss(
            labels=tf.constant([[5]]), logits=tf.constant([[0.1, 0.2, 0.3]]),
            features={}, mode=tf.estimator.ModeKeys.EVAL)
        with tf.compat.v1.Session() as session:
            session.run(loss)


@case("logits shape must be [D0, D1, ... DN, logits_dimension]")
def head_regression_logits_of_another_dimension(tf, tmp):
    with _graph(tf):
        tf.estimator.RegressionHead(label_dimension=2).loss(
            labels=tf.constant([[1.0, 2.0]]), logits=tf.constant([[0.5]]),
            features={}, mode=tf.estimator.ModeKeys.EVAL)


@case("train_op_fn and optimizer cannot both be None")
def head_binary_train_without_optimizer(tf, tmp):
    with _graph(tf):
        tf.estimator.BinaryClassHead().create_estimator_spec(
            features={}, mode=tf.estimator.ModeKeys.TRAIN, logits=tf.constant([[0.5]]),
            labels=tf.constant([[1]]))


@case("Labels must be >= 0")
def head_binary_label_not_in_vocabulary(tf, tmp):
    with _graph(tf):
        loss = tf.estimator.BinaryClassHead(label_vocabulary=["a", "b"]).loss(
            labels=tf.constant([["c"]]), logits=tf.constant([[0.5]]),
            features={}, mode=tf.estimator.ModeKeys.EVAL)
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.tables_initializer())
            session.run(loss)


# ------------------------------------------------------------------ export receivers


@case("features must be defined")
def receiver_features_none(tf, tmp):
    with _graph(tf):
        tf.estimator.export.ServingInputReceiver(None, {"x": tf.constant([1.0])})


@case(None)
def receiver_receiver_tensors_empty(tf, tmp):
    with _graph(tf):
        tf.estimator.export.ServingInputReceiver({"x": tf.constant([1.0])}, {})


@case("feature x must be a Tensor, SparseTensor, or RaggedTensor")
def receiver_feature_a_number(tf, tmp):
    with _graph(tf):
        tf.estimator.export.ServingInputReceiver({"x": 1}, {"x": tf.constant([1.0])})


@case(None)
def receiver_feature_key_a_number(tf, tmp):
    with _graph(tf):
        tf.estimator.export.ServingInputReceiver({1: tf.constant([1.0])},
                                                 {"x": tf.constant([1.0])})


@case("features must be defined")
def tensor_receiver_features_none(tf, tmp):
    with _graph(tf):
        tf.estimator.export.TensorServingInputReceiver(None, {"x": tf.constant([1.0])})


@case("labels must be defined")
def supervised_receiver_labels_none(tf, tmp):
    with _graph(tf):
        # SupervisedInputReceiver has no public name: the class of what the public
        # builder returns.
        receiver = tf.estimator.experimental.build_raw_supervised_input_receiver_fn(
            {"x": tf.constant([1.0])}, tf.constant([1.0]))()
        type(receiver)({"x": tf.constant([1.0])}, None, {"x": tf.constant([1.0])})


@case("Cannot create a ClassificationOutput with empty arguments")
def classification_output_empty(tf, tmp):
    tf.estimator.export.ClassificationOutput()


@case("Classification scores must be a float32 Tensor")
def classification_output_scores_a_string(tf, tmp):
    with _graph(tf):
        tf.estimator.export.ClassificationOutput(scores=tf.constant(["a"]))


@case("Regression output value must be a float32 Tensor")
def regression_output_a_string(tf, tmp):
    with _graph(tf):
        tf.estimator.export.RegressionOutput(tf.constant(["a"]))


@case("Prediction output value must be a Tensor; got 1")
def predict_output_a_number(tf, tmp):
    tf.estimator.export.PredictOutput(1)


@case("Prediction output key must be a string; got 1")
def predict_output_key_a_number(tf, tmp):
    with _graph(tf):
        tf.estimator.export.PredictOutput({1: tf.constant([1.0])})


@case("'int' object has no attribute")
def raw_receiver_fn_feature_a_number(tf, tmp):
    with _graph(tf):
        tf.estimator.export.build_raw_serving_input_receiver_fn({"x": 1})()


@case("Unsupported int 1 for key 'x'")
def parsing_receiver_fn_spec_a_number(tf, tmp):
    with _graph(tf):
        tf.estimator.export.build_parsing_serving_input_receiver_fn({"x": 1})()


# ------------------------------------------------------------------------ exporters


@case("`exports_to_keep`, if provided, must be")
def latest_exporter_keep_zero(tf, tmp):
    tf.estimator.LatestExporter("e", lambda: None, exports_to_keep=0)


@case("`compare_fn` must not be None", ours="`compare_fn` must be a callable")
def best_exporter_compare_fn_none(tf, tmp):
    tf.estimator.BestExporter(serving_input_receiver_fn=lambda: None, compare_fn=None)


@case("must include best_eval_result argument")
def best_exporter_compare_fn_one_argument(tf, tmp):
    tf.estimator.BestExporter(serving_input_receiver_fn=lambda: None,
                              compare_fn=lambda best: True)


@case("`exports_to_keep`, if provided, must be a positive number")
def best_exporter_keep_zero(tf, tmp):
    tf.estimator.BestExporter(serving_input_receiver_fn=lambda: None, exports_to_keep=0)


# ------------------------------------------------------------------ train_and_evaluate


@case("`input_fn` must be callable, given: 1")
def train_spec_input_fn_not_callable(tf, tmp):
    tf.estimator.TrainSpec(input_fn=1)


@case("Must specify max_steps > 0, given: 0")
def train_spec_max_steps_zero(tf, tmp):
    tf.estimator.TrainSpec(_input_fn, max_steps=0)


@case("All hooks must be `SessionRunHook` instances, given: 1")
def train_spec_hook_not_a_hook(tf, tmp):
    tf.estimator.TrainSpec(_input_fn, hooks=[1])


@case("`input_fn` must be callable, given: 1")
def eval_spec_input_fn_not_callable(tf, tmp):
    tf.estimator.EvalSpec(input_fn=1)


@case("Must specify steps > 0, given: 0")
def eval_spec_steps_zero(tf, tmp):
    tf.estimator.EvalSpec(_input_fn, steps=0)


@case("`name` must be string, given: 1")
def eval_spec_name_a_number(tf, tmp):
    tf.estimator.EvalSpec(_input_fn, name=1)


@case("`exporters` must be an Exporter, an iterable of Exporter, or `None`")
def eval_spec_exporter_not_an_exporter(tf, tmp):
    tf.estimator.EvalSpec(_input_fn, exporters=[1])


@case("`exporters` must have unique names")
def eval_spec_exporters_same_name(tf, tmp):
    exporter = tf.estimator.LatestExporter("e", lambda: None)
    tf.estimator.EvalSpec(_input_fn, exporters=[exporter, exporter])


@case("Must specify start_delay_secs >= 0, given: -1")
def eval_spec_negative_start_delay(tf, tmp):
    tf.estimator.EvalSpec(_input_fn, start_delay_secs=-1)


@case("Must specify throttle_secs >= 0, given: -1")
def eval_spec_negative_throttle(tf, tmp):
    tf.estimator.EvalSpec(_input_fn, throttle_secs=-1)


@case("`estimator` must have type")
def train_and_evaluate_not_an_estimator(tf, tmp):
    tf.estimator.train_and_evaluate("est", tf.estimator.TrainSpec(_input_fn),
                                    tf.estimator.EvalSpec(_input_fn))


@case("`train_spec` must have type")
def train_and_evaluate_train_spec_wrong(tf, tmp):
    tf.estimator.train_and_evaluate(
        tf.estimator.Estimator(_model_fn, model_dir=tmp), "spec",
        tf.estimator.EvalSpec(_input_fn))


@case("`eval_spec` must have type")
def train_and_evaluate_eval_spec_wrong(tf, tmp):
    tf.estimator.train_and_evaluate(
        tf.estimator.Estimator(_model_fn, model_dir=tmp), tf.estimator.TrainSpec(_input_fn),
        "spec")


# ------------------------------------------------------------------- canned estimators


@case("n_classes must be")
def dnn_classifier_one_class(tf, tmp):
    tf.estimator.DNNClassifier([2], [_column(tf)], model_dir=tmp, n_classes=1)


@case("n_classes must be")
def dnn_classifier_v1_one_class(tf, tmp):
    tf.compat.v1.estimator.DNNClassifier([2], [_column(tf)], model_dir=tmp, n_classes=1)


@case("Invalid loss_reduction: bogus")
def dnn_regressor_unknown_loss_reduction(tf, tmp):
    tf.estimator.DNNRegressor([2], [_column(tf)], model_dir=tmp, loss_reduction="bogus")


@case("Unsupported optimizer name: Bogus")
def linear_classifier_unknown_optimizer(tf, tmp):
    tf.estimator.LinearClassifier([_column(tf)], model_dir=tmp, optimizer="Bogus").train(
        lambda: ({"x": tf.constant([[1.0]])}, tf.constant([[1]])), steps=1)


@case("label_vocabulary should be a list or a tuple")
def linear_classifier_vocabulary_not_a_list(tf, tmp):
    tf.estimator.LinearClassifier([_column(tf)], model_dir=tmp, label_vocabulary="ab")


@case("feature_columns must not be empty", ours="`feature_columns` must not be empty")
def linear_regressor_no_columns_trained(tf, tmp):
    tf.estimator.LinearRegressor([], model_dir=tmp).train(
        lambda: ({"x": tf.constant([[1.0]])}, tf.constant([[1.0]])), steps=1)


@case("Either linear_feature_columns or dnn_feature_columns must be defined")
def dnn_linear_combined_no_columns(tf, tmp):
    tf.estimator.DNNLinearCombinedClassifier(model_dir=tmp)


@case(None, ours="dnn_hidden_units must be defined")
def dnn_linear_combined_dnn_without_hidden_units(tf, tmp):
    tf.estimator.DNNLinearCombinedRegressor(model_dir=tmp,
                                            dnn_feature_columns=[_column(tf)])


@case("Either linear_feature_columns or dnn_feature_columns must be defined")
def dnn_linear_combined_v1_no_columns(tf, tmp):
    tf.compat.v1.estimator.DNNLinearCombinedRegressor(model_dir=tmp)


@case("n_classes must be")
def baseline_classifier_one_class(tf, tmp):
    tf.estimator.BaselineClassifier(model_dir=tmp, n_classes=1)


@case("Invalid loss_reduction: bogus")
def baseline_regressor_v1_unknown_loss_reduction(tf, tmp):
    tf.compat.v1.estimator.BaselineRegressor(model_dir=tmp, loss_reduction="bogus")


@case("'str' object has no attribute 'logits_dimension'")
def dnn_estimator_head_not_a_head_trained(tf, tmp):
    tf.estimator.DNNEstimator(head="head", hidden_units=[2], feature_columns=[_column(tf)],
                              model_dir=tmp).train(
        lambda: ({"x": tf.constant([[1.0]])}, tf.constant([[1.0]])), steps=1)


@case("features should be a dictionary of `Tensor`s")
def dnn_classifier_features_not_a_dict_trained(tf, tmp):
    tf.estimator.DNNClassifier([2], [_column(tf)], model_dir=tmp).train(
        lambda: (tf.constant([[1.0]]), tf.constant([[1]])), steps=1)


# ------------------------------------------------------------------ model_to_estimator


def _keras_model(tf, compiled=True):
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(1,))])
    if compiled:
        model.compile("sgd", "mse")
    return model


@case("Either `keras_model` or `keras_model_path` needs to be provided")
def model_to_estimator_without_a_model(tf, tmp):
    tf.keras.estimator.model_to_estimator(model_dir=tmp)


@case(
    "`keras_model` or `keras_model_path`, but not both",
    ours="`keras_model_path` needs to be provided, not both")
def model_to_estimator_model_and_path(tf, tmp):
    tf.keras.estimator.model_to_estimator(keras_model=_keras_model(tf),
                                          keras_model_path=os.path.join(tmp, "k.h5"),
                                          model_dir=tmp)


@case("The given keras model has not been compiled yet")
def model_to_estimator_not_compiled(tf, tmp):
    tf.keras.estimator.model_to_estimator(keras_model=_keras_model(tf, compiled=False),
                                          model_dir=tmp)


@case("Checkpoint format must be one of", ours="Unknown checkpoint format")
def model_to_estimator_unknown_checkpoint_format(tf, tmp):
    tf.keras.estimator.model_to_estimator(keras_model=_keras_model(tf), model_dir=tmp,
                                          checkpoint_format="bogus")


@case("config must be an instance of `RunConfig`")
def model_to_estimator_config_not_a_run_config(tf, tmp):
    tf.keras.estimator.model_to_estimator(keras_model=_keras_model(tf), model_dir=tmp,
                                          config="config")


@case("The given keras model has not been compiled yet")
def model_to_estimator_v1_not_compiled(tf, tmp):
    tf.compat.v1.keras.estimator.model_to_estimator(
        keras_model=_keras_model(tf, compiled=False), model_dir=tmp)


# ----------------------------------------------------------------------------- hooks


@case("Either every_secs or every_steps should be provided")
def checkpoint_saver_hook_no_schedule(tf, tmp):
    tf.estimator.CheckpointSaverHook(tmp)


@case("You cannot provide both saver and scaffold")
def checkpoint_saver_hook_saver_and_scaffold(tf, tmp):
    tf.estimator.CheckpointSaverHook(tmp, save_steps=1, saver=object(),
                                     scaffold=object())


@case("exactly one of every_n_steps and every_n_secs should be provided")
def step_counter_hook_steps_and_secs(tf, tmp):
    tf.estimator.StepCounterHook(every_n_steps=1, every_n_secs=1)


@case("either at_end and/or exactly one of every_n_iter and every_n_secs must be provided")
def logging_tensor_hook_no_schedule(tf, tmp):
    tf.estimator.LoggingTensorHook({"a": "a"})


@case("invalid every_n_iter=0")
def logging_tensor_hook_every_zero(tf, tmp):
    tf.estimator.LoggingTensorHook({"a": "a"}, every_n_iter=0)


@case("One of num_steps or last_step must be specified")
def stop_at_step_hook_no_step(tf, tmp):
    tf.estimator.StopAtStepHook()


@case("Only one of num_steps or last_step can be specified")
def stop_at_step_hook_both(tf, tmp):
    tf.estimator.StopAtStepHook(num_steps=1, last_step=1)


@case("Can not provide both every_secs and every_steps")
def summary_saver_hook_steps_and_secs(tf, tmp):
    tf.estimator.SummarySaverHook(save_steps=1, save_secs=1, output_dir=tmp,
                                  summary_op=[])


@case("Exactly one of scaffold or summary_op must be provided")
def summary_saver_hook_no_summaries(tf, tmp):
    tf.estimator.SummarySaverHook(save_steps=1, output_dir=tmp)


@case("Can not provide both every_secs and every_steps")
def profiler_hook_steps_and_secs(tf, tmp):
    with _graph(tf):  # its FileWriter refuses eager execution first
        tf.estimator.ProfilerHook(save_steps=1, save_secs=1, output_dir=tmp)


@case("'str' object has no attribute 'config'")
def in_memory_evaluator_hook_not_an_estimator(tf, tmp):
    tf.estimator.experimental.InMemoryEvaluatorHook("est", _input_fn)


@case("invalid every_n_iter=0")
def in_memory_evaluator_hook_every_zero(tf, tmp):
    tf.estimator.experimental.InMemoryEvaluatorHook(
        tf.estimator.Estimator(_model_fn, model_dir=tmp), _input_fn, every_n_iter=0)


@case(None)
def stop_if_no_decrease_hook_unknown_metric_without_eval_dir(tf, tmp):
    est = tf.estimator.Estimator(_model_fn, model_dir=tmp)
    hook = tf.estimator.experimental.stop_if_no_decrease_hook(est, "loss", 1,
                                                              run_every_secs=None,
                                                              run_every_steps=1)
    hook.begin()


@case("Only one of `run_every_secs` and `run_every_steps`")
def early_stopping_hook_steps_and_secs(tf, tmp):
    est = tf.estimator.Estimator(_model_fn, model_dir=tmp)
    tf.estimator.experimental.make_early_stopping_hook(est, lambda: False,
                                                       run_every_secs=1,
                                                       run_every_steps=1)


@case("has following not expected args: ['other']")
def add_metrics_metric_fn_unknown_argument(tf, tmp):
    tf.estimator.add_metrics(tf.estimator.Estimator(_model_fn, model_dir=tmp),
                             lambda other: {})


# ------------------------------------------------------------------------- inputs


@case(None, ours="x must be a dict or array")
def numpy_input_fn_x_a_string(tf, tmp):
    tf.compat.v1.estimator.inputs.numpy_input_fn("x", shuffle=False)


@case("shuffle must be provided and explicitly set as boolean")
def numpy_input_fn_without_shuffle(tf, tmp):
    tf.compat.v1.estimator.inputs.numpy_input_fn({"x": np.zeros([2, 1])})


@case("x cannot be an empty dict")
def numpy_input_fn_empty_dict(tf, tmp):
    tf.compat.v1.estimator.inputs.numpy_input_fn({}, shuffle=False)()


@case("Length of tensors in x and y is mismatched")
def numpy_input_fn_lengths_differ(tf, tmp):
    tf.compat.v1.estimator.inputs.numpy_input_fn(
        {"x": np.zeros([2, 1]), "z": np.zeros([3, 1])}, shuffle=False)()


@case("duplicate keys are found in both x and y")
def numpy_input_fn_y_key_in_x(tf, tmp):
    tf.compat.v1.estimator.inputs.numpy_input_fn(
        {"x": np.zeros([2, 1])}, {"x": np.zeros([2])}, shuffle=False)()


# ----------------------------------------------------------------------------- TPU


@case("Invalid TPUConfig `iterations_per_loop` value")
def tpu_config_iterations_zero(tf, tmp):
    tf.compat.v1.estimator.tpu.TPUConfig(iterations_per_loop=0)


@case("TPUConfig num_shards must be positive, got 0")
def tpu_config_num_shards_zero(tf, tmp):
    tf.compat.v1.estimator.tpu.TPUConfig(num_shards=0)


@case(None)
def tpu_config_unknown_input_pipeline(tf, tmp):
    tf.compat.v1.estimator.tpu.TPUConfig(per_host_input_for_training="bogus")


@case(None)
def tpu_run_config_tpu_config_a_string(tf, tmp):
    tf.compat.v1.estimator.tpu.RunConfig(tpu_config="config")


@case("are reserved keys but existed in params")
def tpu_estimator_batch_size_in_params(tf, tmp):
    tf.compat.v1.estimator.tpu.TPUEstimator(
        _model_fn, config=tf.compat.v1.estimator.tpu.RunConfig(model_dir=tmp),
        use_tpu=False, params={"batch_size": 2})


@case("train_batch_size must be positive, got -1")
def tpu_estimator_negative_train_batch_size(tf, tmp):
    # use_tpu=True: the batch sizes are checked only for a TPU (before any TPU is looked for).
    tf.compat.v1.estimator.tpu.TPUEstimator(
        _model_fn, config=tf.compat.v1.estimator.tpu.RunConfig(model_dir=tmp),
        use_tpu=True, train_batch_size=-1)


@case("`config` must be provided with type `tpu_config.RunConfig`")
def tpu_estimator_config_not_a_tpu_run_config(tf, tmp):
    tf.compat.v1.estimator.tpu.TPUEstimator(
        _model_fn, model_dir=tmp, use_tpu=False, config=tf.estimator.RunConfig())


@case("eval_metrics should be tuple or list")
def tpu_estimator_spec_eval_metrics_not_a_pair(tf, tmp):
    with _graph(tf):
        tf.compat.v1.estimator.tpu.TPUEstimatorSpec(
            tf.estimator.ModeKeys.EVAL, loss=tf.constant(1.0), eval_metrics=1)


@case("host_call should be tuple or list")
def tpu_estimator_spec_host_call_not_a_pair(tf, tmp):
    with _graph(tf):
        tf.compat.v1.estimator.tpu.TPUEstimatorSpec(
            tf.estimator.ModeKeys.TRAIN, loss=tf.constant(1.0), train_op=tf.no_op(),
            host_call=1)


@case(
    "`ckpt_to_initialize_from` MUST be set",
    ours="`ckpt_to_initialize_from` must be a checkpoint path or directory")
def warm_start_settings_no_checkpoint(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=tmp,
                           warm_start_from=tf.estimator.WarmStartSettings(None))


# ------------------------------------------------------------------------ more calls


@case("Key no_such_variable not found in checkpoint")
def get_variable_value_unknown_name(tf, tmp):
    _trained(tf, tmp).get_variable_value("no_such_variable")


@case("Could not find trained model in model_dir")
def get_variable_names_without_a_checkpoint(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=tmp).get_variable_names()


@case("Could not find trained model in model_dir")
def get_variable_value_without_a_checkpoint(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=tmp).get_variable_value("dense/kernel")


@case("Train has been called wrong configuration")
def train_on_an_evaluator_task(tf, tmp):
    old = os.environ.get("TF_CONFIG")
    os.environ["TF_CONFIG"] = json.dumps({"cluster": {"chief": ["a:1"]},
                                          "task": {"type": "evaluator", "index": 0}})
    try:
        est = tf.estimator.Estimator(_model_fn, model_dir=tmp)
    finally:
        if old is None:
            del os.environ["TF_CONFIG"]
        else:
            os.environ["TF_CONFIG"] = old
    est.train(_input_fn, steps=1)


@case("No valid modes for exporting found", ours="`mode` must be one of")
def export_all_saved_models_unknown_mode(tf, tmp):
    def receiver_fn():
        x = tf.compat.v1.placeholder(tf.float32, [None, 1])
        return tf.estimator.export.ServingInputReceiver({"x": x}, {"x": x})
    _trained(tf, tmp).experimental_export_all_saved_models(
        os.path.join(tmp, "e"), {"bogus": receiver_fn})


@case("An input_receiver_fn must be defined")
def export_saved_model_receiver_fn_none(tf, tmp):
    _trained(tf, tmp).export_saved_model(os.path.join(tmp, "e"), None)


@case("An input_receiver_fn must be defined")
def export_saved_model_v1_export_savedmodel_receiver_none(tf, tmp):
    est = tf.compat.v1.estimator.Estimator(_model_fn, model_dir=os.path.join(tmp, "m"))
    est.train(_input_fn, steps=1)
    est.export_savedmodel(os.path.join(tmp, "e"), None)


@case("`Estimator.export_savedmodel` has been deprecated")
def v2_estimator_export_savedmodel_hidden(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=tmp).export_savedmodel


@case("predict_keys argument is not valid in case of non-dict predictions")
def predict_model_fn_without_predictions_dict_keys(tf, tmp):
    def model_fn(features, labels, mode):
        spec = _predict_safe_model_fn(features, labels, mode)
        return spec._replace(predictions=features["x"])
    est = tf.estimator.Estimator(model_fn, model_dir=os.path.join(tmp, "m"))
    est.train(_input_fn, steps=1)
    next(est.predict(lambda: _input_fn().map(lambda f, l: f), predict_keys=["y"]))


@case("Metric with name \"loss\" is not allowed")
def evaluate_metric_named_loss(tf, tmp):
    def model_fn(features, labels, mode):
        spec = _model_fn(features, labels, mode)
        return spec._replace(eval_metric_ops={"loss": tf.compat.v1.metrics.mean(spec.loss)})
    est = tf.estimator.Estimator(model_fn, model_dir=os.path.join(tmp, "m"))
    est.train(_input_fn, steps=1)
    est.evaluate(_input_fn)


@case(
    "`ckpt_to_initialize_from` MUST be set",
    ours="`ckpt_to_initialize_from` must be a checkpoint path or directory")
def warm_start_settings_empty_path(tf, tmp):
    tf.estimator.WarmStartSettings("")


@case("No such file or directory")
def vocab_info_used_with_a_missing_vocab(tf, tmp):
    _trained(tf, tmp)
    settings = tf.estimator.WarmStartSettings(
        os.path.join(tmp, "m"), vars_to_warm_start=None,
        var_name_to_vocab_info={"dense/kernel": tf.estimator.VocabInfo(
            new_vocab=os.path.join(tmp, "none.txt"), new_vocab_size=2, num_oov_buckets=0,
            old_vocab=os.path.join(tmp, "none_old.txt"))})
    tf.estimator.Estimator(_model_fn, model_dir=os.path.join(tmp, "w"),
                           warm_start_from=settings).train(_input_fn, steps=1)


@case("SavedModel file does not exist at")
def saved_model_estimator_missing_dir(tf, tmp):
    tf.compat.v1.estimator.experimental.SavedModelEstimator if hasattr(
        tf.compat.v1.estimator.experimental, "SavedModelEstimator") else None
    from tensorflow_estimator.python.estimator.canned import saved_model_estimator  # pylint: disable=import-outside-toplevel
    saved_model_estimator.SavedModelEstimator(os.path.join(tmp, "none"), tmp)


@case("Unsupported distance metric 'bogus'")
def kmeans_unknown_distance(tf, tmp):
    tf.compat.v1.estimator.experimental.KMeans(2, model_dir=tmp, distance_metric="bogus")


@case(None)
def kmeans_feature_columns_and_relative_tolerance(tf, tmp):
    tf.compat.v1.estimator.experimental.KMeans(
        2, model_dir=tmp, relative_tolerance=0.1, use_mini_batch=True)


@case(None)
def linear_sdca_unknown_loss(tf, tmp):
    tf.estimator.experimental.LinearSDCA("example_id", symmetric_l2_regularization=-1.0,
                                         num_loss_partitions=0)


@case(None)
def rnn_classifier_no_cell(tf, tmp):
    tf.estimator.experimental.RNNClassifier(
        sequence_feature_columns=[tf.feature_column.sequence_numeric_column("x")],
        model_dir=tmp)


@case("units and cell_type must not be specified when using rnn_cell_fn")
def rnn_classifier_units_and_cell(tf, tmp):
    tf.estimator.experimental.RNNClassifier(
        sequence_feature_columns=[tf.feature_column.sequence_numeric_column("x")],
        units=[2], cell_type="lstm", rnn_cell_fn=lambda: None, model_dir=tmp)


@case(None)
def rnn_estimator_unknown_cell_type(tf, tmp):
    tf.estimator.experimental.RNNEstimator(
        tf.estimator.RegressionHead(),
        sequence_feature_columns=[tf.feature_column.sequence_numeric_column("x")],
        units=[2], cell_type="bogus", model_dir=tmp)


@case("unexpected keyword argument 'partitioner'")
def linear_classifier_partitioner_in_v2(tf, tmp):
    tf.estimator.LinearClassifier([_column(tf)], model_dir=tmp, partitioner=object())


@case(None)
def dnn_classifier_v1_bad_batch_norm_type(tf, tmp):
    tf.compat.v1.estimator.DNNClassifier([2], [_column(tf)], model_dir=tmp,
                                         n_classes=3, label_vocabulary=["a", "b"])


@case("Feature w is not in features dictionary")
def binary_class_head_weight_column_missing_feature(tf, tmp):
    with _graph(tf):
        tf.estimator.BinaryClassHead(weight_column="w").loss(
            labels=tf.constant([[1]]), logits=tf.constant([[0.5]]),
            features={"x": tf.constant([[1.0]])}, mode=tf.estimator.ModeKeys.EVAL)


@case(None, ours="Regression labels must be numeric")
def regression_head_label_dtype_string(tf, tmp):
    with _graph(tf):
        tf.estimator.RegressionHead().loss(
            labels=tf.constant([["a"]]), logits=tf.constant([[0.5]]),
            features={}, mode=tf.estimator.ModeKeys.EVAL)


@case("labels must be a dict")
def multi_head_labels_not_a_dict(tf, tmp):
    with _graph(tf):
        head = tf.estimator.MultiHead([tf.estimator.RegressionHead(name="a"),
                                       tf.estimator.RegressionHead(name="b")])
        head.loss(labels=tf.constant([[1.0]]),
                  logits={"a": tf.constant([[0.5]]), "b": tf.constant([[0.5]])},
                  features={}, mode=tf.estimator.ModeKeys.EVAL)


@case(None)
def classifier_parse_example_spec_bad_label_dtype(tf, tmp):
    tf.estimator.classifier_parse_example_spec([_column(tf)], "label",
                                               label_dtype=tf.float32)


@case("label should not be used as feature")
def regressor_parse_example_spec_label_key_in_columns(tf, tmp):
    tf.estimator.regressor_parse_example_spec([_column(tf)], "x")


@case("No valid modes for exporting found", ours="`mode` must be one of")
def mode_keys_canonical_unknown(tf, tmp):
    # "predict" is not a ModeKeys value (PREDICT is "infer").
    def receiver_fn():
        x = tf.compat.v1.placeholder(tf.float32, [None, 1])
        return tf.estimator.export.ServingInputReceiver({"x": x}, {"x": x})
    _trained(tf, tmp).export_saved_model(os.path.join(tmp, "e"), receiver_fn,
                                         experimental_mode="predict")


@case("An input_receiver_fn must be defined")
def final_exporter_receiver_fn_none_exported(tf, tmp):
    est = _trained(tf, tmp)
    tf.estimator.FinalExporter("f", None).export(est, os.path.join(tmp, "e"),
                                                  est.latest_checkpoint(), {}, True)


@case("Dimension value must be integer or None")
def serving_input_receiver_fn_placeholder_batch(tf, tmp):
    with _graph(tf):
        tf.estimator.export.build_raw_serving_input_receiver_fn(
            {"x": tf.constant([1.0])}, default_batch_size="two")()
