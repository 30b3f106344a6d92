"""Named programs that make the tf.estimator API raise: the exception-type table's cases.

Each case is a small function `case(tf, tmp)` that calls only the `tf.estimator` API
(and tf.keras, tf.feature_column, tf.compat.v1) and is expected to raise. It runs
alike on the original (TF 2.15.1 + tensorflow-estimator 2.15.0, by
`make_tf215_exceptions.py`, which records the exception's type and MRO in
`tf215_exceptions.json`) and here (`tests/estimator_lib/legacy/exceptions_test.py`,
after `estimator_lib.compat.install()`), which checks that ours is an instance of
the original's type. `tmp` is a fresh empty directory for the case.
"""

import json
import os

import numpy as np

CASES = {}


def case(function):
    CASES[function.__name__] = function
    return function


# ------------------------------------------------------------------------- helpers


def _model_fn(features, labels, mode):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    logits = tf.compat.v1.layers.dense(features["x"], 1, name="dense")
    loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                      predictions={"y": logits})


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


@case
def estimator_model_fn_none(tf, tmp):
    tf.estimator.Estimator(None, model_dir=tmp)


@case
def estimator_config_not_a_run_config(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=tmp, config="config")


@case
def estimator_two_model_dirs(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=os.path.join(tmp, "a"),
                           config=tf.estimator.RunConfig(model_dir=os.path.join(tmp, "b")))


@case
def estimator_model_fn_unknown_argument(tf, tmp):
    tf.estimator.Estimator(lambda features, labels, other: None, model_dir=tmp)


@case
def estimator_model_fn_without_features(tf, tmp):
    tf.estimator.Estimator(lambda labels, mode: None, model_dir=tmp)


@case
def estimator_params_to_model_fn_without_params(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=tmp, params={"a": 1})


@case
def estimator_subclass_overrides_train(tf, tmp):
    class Sub(tf.estimator.Estimator):
        def train(self, *args, **kwargs):  # pylint: disable=arguments-differ
            pass
    Sub(_model_fn, model_dir=tmp)


@case
def estimator_v1_subclass_overrides_evaluate(tf, tmp):
    class Sub(tf.compat.v1.estimator.Estimator):
        def evaluate(self, *args, **kwargs):  # pylint: disable=arguments-differ
            pass
    Sub(_model_fn, model_dir=tmp)


@case
def estimator_warm_start_from_a_number(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=tmp, warm_start_from=3)


# ------------------------------------------------------------------------- train


@case
def train_steps_and_max_steps(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=tmp).train(_input_fn, steps=1, max_steps=2)


@case
def train_steps_zero(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=tmp).train(_input_fn, steps=0)


@case
def train_max_steps_negative(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=tmp).train(_input_fn, max_steps=-1)


@case
def train_hook_not_a_hook(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=tmp).train(_input_fn, steps=1, hooks=[1])


@case
def train_saving_listener_not_a_listener(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=tmp).train(
        _input_fn, steps=1, saving_listeners=[1])


@case
def train_model_fn_returns_none(tf, tmp):
    tf.estimator.Estimator(lambda features, labels, mode: None, model_dir=tmp).train(
        _input_fn, steps=1)


@case
def train_model_fn_without_loss(tf, tmp):
    def model_fn(features, labels, mode):
        return tf.estimator.EstimatorSpec(mode, train_op=tf.no_op(),
                                          predictions={"x": features["x"]})
    tf.estimator.Estimator(model_fn, model_dir=tmp).train(_input_fn, steps=1)


@case
def train_model_fn_without_labels_given_labels(tf, tmp):
    def model_fn(features, mode):
        return _model_fn(features, features["x"], mode)
    tf.estimator.Estimator(model_fn, model_dir=tmp).train(_input_fn, steps=1)


@case
def train_input_fn_unknown_argument(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=tmp).train(lambda other: None, steps=1)


@case
def train_input_fn_raises(tf, tmp):
    def input_fn():
        raise KeyError("input")
    tf.estimator.Estimator(_model_fn, model_dir=tmp).train(input_fn, steps=1)


@case
def train_model_fn_raises(tf, tmp):
    def model_fn(features, labels, mode):
        raise KeyError("model_fn")
    tf.estimator.Estimator(model_fn, model_dir=tmp).train(_input_fn, steps=1)


@case
def train_resumes_a_checkpoint_without_a_variable(tf, tmp):
    _trained(tf, tmp)
    tf.estimator.Estimator(_wide_model_fn, model_dir=os.path.join(tmp, "m")).train(
        _input_fn, steps=1)


@case
def train_resumes_a_checkpoint_of_another_shape(tf, tmp):
    _trained(tf, tmp)
    tf.estimator.Estimator(_reshaped_model_fn, model_dir=os.path.join(tmp, "m")).train(
        _input_fn, steps=1)


@case
def train_warm_starts_a_variable_the_checkpoint_lacks(tf, tmp):
    _trained(tf, tmp)
    settings = tf.estimator.WarmStartSettings(
        os.path.join(tmp, "m"), vars_to_warm_start=["extra/kernel"],
        var_name_to_prev_var_name={"extra/kernel": "no_such/kernel"})
    tf.estimator.Estimator(_wide_model_fn, model_dir=os.path.join(tmp, "w"),
                           warm_start_from=settings).train(_input_fn, steps=1)


@case
def train_warm_starts_variables_the_checkpoint_lacks(tf, tmp):
    _trained(tf, tmp)
    settings = tf.estimator.WarmStartSettings(os.path.join(tmp, "m"),
                                              vars_to_warm_start="extra.*")
    tf.estimator.Estimator(_wide_model_fn, model_dir=os.path.join(tmp, "w"),
                           warm_start_from=settings).train(_input_fn, steps=1)


@case
def train_warm_starts_a_variable_of_another_shape(tf, tmp):
    _trained(tf, tmp)
    tf.estimator.Estimator(_reshaped_model_fn, model_dir=os.path.join(tmp, "w"),
                           warm_start_from=os.path.join(tmp, "m")).train(_input_fn, steps=1)


@case
def train_warm_starts_from_a_missing_checkpoint(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=os.path.join(tmp, "w"),
                           warm_start_from=os.path.join(tmp, "none")).train(
                               _input_fn, steps=1)


# --------------------------------------------------------------- evaluate, predict


@case
def evaluate_without_a_checkpoint(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=tmp).evaluate(_input_fn)


@case
def evaluate_steps_zero(tf, tmp):
    _trained(tf, tmp).evaluate(_input_fn, steps=0)


@case
def evaluate_hook_not_a_hook(tf, tmp):
    _trained(tf, tmp).evaluate(_input_fn, hooks=[1])


@case
def evaluate_a_checkpoint_path_that_does_not_exist(tf, tmp):
    _trained(tf, tmp).evaluate(_input_fn, checkpoint_path=os.path.join(tmp, "none"))


@case
def evaluate_checkpoint_without_a_variable(tf, tmp):
    _trained(tf, tmp)
    tf.estimator.Estimator(_wide_model_fn, model_dir=os.path.join(tmp, "m")).evaluate(
        _input_fn)


@case
def predict_unknown_key(tf, tmp):
    next(_trained(tf, tmp).predict(_input_fn, predict_keys=["nope"]))


@case
def predict_hook_not_a_hook(tf, tmp):
    next(_trained(tf, tmp).predict(_input_fn, hooks=[1]))


@case
def export_saved_model_without_a_checkpoint(tf, tmp):
    def receiver_fn():
        x = tf.compat.v1.placeholder(tf.float32, [None, 1])
        return tf.estimator.export.ServingInputReceiver({"x": x}, {"x": x})
    tf.estimator.Estimator(_model_fn, model_dir=tmp).export_saved_model(
        os.path.join(tmp, "e"), receiver_fn)


@case
def export_saved_model_unknown_mode(tf, tmp):
    def receiver_fn():
        x = tf.compat.v1.placeholder(tf.float32, [None, 1])
        return tf.estimator.export.ServingInputReceiver({"x": x}, {"x": x})
    _trained(tf, tmp).export_saved_model(os.path.join(tmp, "e"), receiver_fn,
                                         experimental_mode="bogus")


# ------------------------------------------------------------------------ RunConfig


@case
def run_config_checkpoint_steps_and_secs(tf, tmp):
    tf.estimator.RunConfig(save_checkpoints_steps=1, save_checkpoints_secs=1)


@case
def run_config_negative_summary_steps(tf, tmp):
    tf.estimator.RunConfig(save_summary_steps=-1)


@case
def run_config_negative_keep_checkpoint_max(tf, tmp):
    tf.estimator.RunConfig(keep_checkpoint_max=-1)


@case
def run_config_negative_log_step_count_steps(tf, tmp):
    tf.estimator.RunConfig(log_step_count_steps=-1)


@case
def run_config_negative_keep_every_n_hours(tf, tmp):
    tf.estimator.RunConfig(keep_checkpoint_every_n_hours=-1)


@case
def run_config_random_seed_a_string(tf, tmp):
    tf.estimator.RunConfig(tf_random_seed="seed")


@case
def run_config_session_config_a_number(tf, tmp):
    tf.estimator.RunConfig(session_config=1)


@case
def run_config_device_fn_not_callable(tf, tmp):
    tf.estimator.RunConfig(device_fn=1)


@case
def run_config_unknown_protocol(tf, tmp):
    tf.estimator.RunConfig(protocol="carrier-pigeon")


@case
def run_config_unknown_argument(tf, tmp):
    tf.estimator.RunConfig(no_such_argument=1)


@case
def run_config_replace_unknown_property(tf, tmp):
    tf.estimator.RunConfig().replace(no_such_property=1)


@case
def run_config_replace_cluster_spec(tf, tmp):
    tf.estimator.RunConfig().replace(cluster_spec=None)


@case
def run_config_max_worker_delay_a_string(tf, tmp):
    tf.estimator.RunConfig(experimental_max_worker_delay_secs="1")


@case
def run_config_session_creation_timeout_negative(tf, tmp):
    tf.estimator.RunConfig(session_creation_timeout_secs=-1)


@case
def run_config_set_attribute(tf, tmp):
    tf.estimator.RunConfig().model_dir = "x"


# ------------------------------------------------------------------------ TF_CONFIG


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


@case
def tf_config_not_json(tf, tmp):
    _with_tf_config(tf, "{not json")


@case
def tf_config_cluster_without_task_type(tf, tmp):
    _with_tf_config(tf, {"cluster": {"worker": ["a:1"]}, "task": {"index": 0}})


@case
def tf_config_task_type_not_in_cluster(tf, tmp):
    _with_tf_config(tf, {"cluster": {"worker": ["a:1"]}, "task": {"type": "ps", "index": 0}})


@case
def tf_config_task_index_out_of_range(tf, tmp):
    _with_tf_config(tf, {"cluster": {"worker": ["a:1"]},
                         "task": {"type": "worker", "index": 3}})


@case
def tf_config_two_chiefs(tf, tmp):
    _with_tf_config(tf, {"cluster": {"chief": ["a:1", "b:1"]},
                         "task": {"type": "chief", "index": 0}})


@case
def tf_config_master_and_chief(tf, tmp):
    _with_tf_config(tf, {"cluster": {"chief": ["a:1"], "master": ["b:1"]},
                         "task": {"type": "chief", "index": 0}})


@case
def tf_config_evaluator_in_cluster(tf, tmp):
    _with_tf_config(tf, {"cluster": {"chief": ["a:1"], "evaluator": ["b:1"]},
                         "task": {"type": "chief", "index": 0}})


@case
def tf_config_workers_without_chief(tf, tmp):
    _with_tf_config(tf, {"cluster": {"worker": ["a:1", "b:1"]},
                         "task": {"type": "worker", "index": 0}})


@case
def tf_config_negative_task_index(tf, tmp):
    _with_tf_config(tf, {"cluster": {"chief": ["a:1"]},
                         "task": {"type": "chief", "index": -1}})


# --------------------------------------------------------------------- EstimatorSpec


@case
def spec_unknown_mode(tf, tmp):
    with _graph(tf):
        tf.estimator.EstimatorSpec("bogus", loss=tf.constant(1.0))


@case
def spec_train_without_train_op(tf, tmp):
    with _graph(tf):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.TRAIN, loss=tf.constant(1.0))


@case
def spec_eval_without_loss(tf, tmp):
    with _graph(tf):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.EVAL)


@case
def spec_predict_without_predictions(tf, tmp):
    with _graph(tf):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.PREDICT)


@case
def spec_loss_not_scalar(tf, tmp):
    with _graph(tf):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.EVAL, loss=tf.constant([1.0, 2.0]))


@case
def spec_loss_a_number(tf, tmp):
    with _graph(tf):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.EVAL, loss=1.0)


@case
def spec_loss_from_another_graph(tf, tmp):
    with _graph(tf):
        loss = tf.constant(1.0)
    with _graph(tf):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.EVAL, loss=loss)


@case
def spec_train_op_a_number(tf, tmp):
    with _graph(tf):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.TRAIN, loss=tf.constant(1.0),
                                   train_op=1)


@case
def spec_predictions_a_number(tf, tmp):
    with _graph(tf):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.PREDICT, predictions=1)


@case
def spec_metric_not_a_pair(tf, tmp):
    with _graph(tf):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.EVAL, loss=tf.constant(1.0),
                                   eval_metric_ops={"m": 1})


@case
def spec_metric_tuple_of_three(tf, tmp):
    with _graph(tf):
        value = tf.constant(1.0)
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.EVAL, loss=value,
                                   eval_metric_ops={"m": (value, value, value)})


@case
def spec_export_output_not_an_export_output(tf, tmp):
    with _graph(tf):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.PREDICT,
                                   predictions={"y": tf.constant([1.0])},
                                   export_outputs={"a": 1})


@case
def spec_training_hook_not_a_hook(tf, tmp):
    with _graph(tf):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.TRAIN, loss=tf.constant(1.0),
                                   train_op=tf.no_op(), training_hooks=[1])


@case
def spec_evaluation_hook_not_a_hook(tf, tmp):
    with _graph(tf):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.EVAL, loss=tf.constant(1.0),
                                   evaluation_hooks=[1])


@case
def spec_scaffold_a_number(tf, tmp):
    with _graph(tf):
        tf.estimator.EstimatorSpec(tf.estimator.ModeKeys.EVAL, loss=tf.constant(1.0),
                                   scaffold=1)


# ----------------------------------------------------------------------------- heads


@case
def head_binary_threshold_above_one(tf, tmp):
    tf.estimator.BinaryClassHead(thresholds=[1.5])


@case
def head_binary_loss_reduction_none(tf, tmp):
    tf.estimator.BinaryClassHead(loss_reduction=tf.losses.Reduction.NONE)


@case
def head_binary_loss_fn_without_labels(tf, tmp):
    tf.estimator.BinaryClassHead(loss_fn=lambda logits: logits)


@case
def head_binary_vocabulary_not_a_list(tf, tmp):
    tf.estimator.BinaryClassHead(label_vocabulary="ab")


@case
def head_multi_class_one_class(tf, tmp):
    tf.estimator.MultiClassHead(n_classes=1)


@case
def head_multi_class_vocabulary_length(tf, tmp):
    tf.estimator.MultiClassHead(n_classes=3, label_vocabulary=["a", "b"])


@case
def head_multi_label_one_class(tf, tmp):
    tf.estimator.MultiLabelHead(n_classes=1)


@case
def head_multi_label_threshold_zero(tf, tmp):
    tf.estimator.MultiLabelHead(n_classes=2, thresholds=[0.0])


@case
def head_regression_label_dimension_zero(tf, tmp):
    tf.estimator.RegressionHead(label_dimension=0)


@case
def head_regression_unknown_reduction(tf, tmp):
    tf.estimator.RegressionHead(loss_reduction="bogus")


@case
def head_multi_head_empty(tf, tmp):
    tf.estimator.MultiHead([])


@case
def head_multi_head_unnamed(tf, tmp):
    tf.estimator.MultiHead([tf.estimator.RegressionHead(), tf.estimator.BinaryClassHead()])


@case
def head_multi_head_weights_length(tf, tmp):
    tf.estimator.MultiHead([tf.estimator.RegressionHead(name="a")], head_weights=[1.0, 2.0])


@case
def head_binary_labels_of_another_shape(tf, tmp):
    with _graph(tf):
        tf.estimator.BinaryClassHead().loss(
            labels=tf.constant([[1], [0], [1]]), logits=tf.constant([[0.5], [0.5]]),
            features={}, mode=tf.estimator.ModeKeys.EVAL)


@case
def head_multi_class_labels_out_of_range(tf, tmp):
    with _graph(tf):
        loss = tf.estimator.MultiClassHead(n_classes=3).loss(
            labels=tf.constant([[5]]), logits=tf.constant([[0.1, 0.2, 0.3]]),
            features={}, mode=tf.estimator.ModeKeys.EVAL)
        with tf.compat.v1.Session() as session:
            session.run(loss)


@case
def head_regression_logits_of_another_dimension(tf, tmp):
    with _graph(tf):
        tf.estimator.RegressionHead(label_dimension=2).loss(
            labels=tf.constant([[1.0, 2.0]]), logits=tf.constant([[0.5]]),
            features={}, mode=tf.estimator.ModeKeys.EVAL)


@case
def head_binary_train_without_optimizer(tf, tmp):
    with _graph(tf):
        tf.estimator.BinaryClassHead().create_estimator_spec(
            features={}, mode=tf.estimator.ModeKeys.TRAIN, logits=tf.constant([[0.5]]),
            labels=tf.constant([[1]]))


@case
def head_binary_label_not_in_vocabulary(tf, tmp):
    with _graph(tf):
        loss = tf.estimator.BinaryClassHead(label_vocabulary=["a", "b"]).loss(
            labels=tf.constant([["c"]]), logits=tf.constant([[0.5]]),
            features={}, mode=tf.estimator.ModeKeys.EVAL)
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.tables_initializer())
            session.run(loss)


# ------------------------------------------------------------------ export receivers


@case
def receiver_features_none(tf, tmp):
    with _graph(tf):
        tf.estimator.export.ServingInputReceiver(None, {"x": tf.constant([1.0])})


@case
def receiver_receiver_tensors_empty(tf, tmp):
    with _graph(tf):
        tf.estimator.export.ServingInputReceiver({"x": tf.constant([1.0])}, {})


@case
def receiver_feature_a_number(tf, tmp):
    with _graph(tf):
        tf.estimator.export.ServingInputReceiver({"x": 1}, {"x": tf.constant([1.0])})


@case
def receiver_feature_key_a_number(tf, tmp):
    with _graph(tf):
        tf.estimator.export.ServingInputReceiver({1: tf.constant([1.0])},
                                                 {"x": tf.constant([1.0])})


@case
def tensor_receiver_features_none(tf, tmp):
    with _graph(tf):
        tf.estimator.export.TensorServingInputReceiver(None, {"x": tf.constant([1.0])})


@case
def supervised_receiver_labels_none(tf, tmp):
    with _graph(tf):
        tf.estimator.export.SupervisedInputReceiver(
            {"x": tf.constant([1.0])}, None, {"x": tf.constant([1.0])})


@case
def classification_output_empty(tf, tmp):
    tf.estimator.export.ClassificationOutput()


@case
def classification_output_scores_a_string(tf, tmp):
    with _graph(tf):
        tf.estimator.export.ClassificationOutput(scores=tf.constant(["a"]))


@case
def regression_output_a_string(tf, tmp):
    with _graph(tf):
        tf.estimator.export.RegressionOutput(tf.constant(["a"]))


@case
def predict_output_a_number(tf, tmp):
    tf.estimator.export.PredictOutput(1)


@case
def predict_output_key_a_number(tf, tmp):
    with _graph(tf):
        tf.estimator.export.PredictOutput({1: tf.constant([1.0])})


@case
def raw_receiver_fn_feature_a_number(tf, tmp):
    with _graph(tf):
        tf.estimator.export.build_raw_serving_input_receiver_fn({"x": 1})()


@case
def parsing_receiver_fn_spec_a_number(tf, tmp):
    with _graph(tf):
        tf.estimator.export.build_parsing_serving_input_receiver_fn({"x": 1})()


# ------------------------------------------------------------------------ exporters


@case
def latest_exporter_keep_zero(tf, tmp):
    tf.estimator.LatestExporter("e", lambda: None, exports_to_keep=0)


@case
def best_exporter_compare_fn_none(tf, tmp):
    tf.estimator.BestExporter(serving_input_receiver_fn=lambda: None, compare_fn=None)


@case
def best_exporter_compare_fn_one_argument(tf, tmp):
    tf.estimator.BestExporter(serving_input_receiver_fn=lambda: None,
                              compare_fn=lambda best: True)


@case
def best_exporter_keep_zero(tf, tmp):
    tf.estimator.BestExporter(serving_input_receiver_fn=lambda: None, exports_to_keep=0)


# ------------------------------------------------------------------ train_and_evaluate


@case
def train_spec_input_fn_not_callable(tf, tmp):
    tf.estimator.TrainSpec(input_fn=1)


@case
def train_spec_max_steps_zero(tf, tmp):
    tf.estimator.TrainSpec(_input_fn, max_steps=0)


@case
def train_spec_hook_not_a_hook(tf, tmp):
    tf.estimator.TrainSpec(_input_fn, hooks=[1])


@case
def eval_spec_input_fn_not_callable(tf, tmp):
    tf.estimator.EvalSpec(input_fn=1)


@case
def eval_spec_steps_zero(tf, tmp):
    tf.estimator.EvalSpec(_input_fn, steps=0)


@case
def eval_spec_name_a_number(tf, tmp):
    tf.estimator.EvalSpec(_input_fn, name=1)


@case
def eval_spec_exporter_not_an_exporter(tf, tmp):
    tf.estimator.EvalSpec(_input_fn, exporters=[1])


@case
def eval_spec_exporters_same_name(tf, tmp):
    exporter = tf.estimator.LatestExporter("e", lambda: None)
    tf.estimator.EvalSpec(_input_fn, exporters=[exporter, exporter])


@case
def eval_spec_negative_start_delay(tf, tmp):
    tf.estimator.EvalSpec(_input_fn, start_delay_secs=-1)


@case
def eval_spec_negative_throttle(tf, tmp):
    tf.estimator.EvalSpec(_input_fn, throttle_secs=-1)


@case
def train_and_evaluate_not_an_estimator(tf, tmp):
    tf.estimator.train_and_evaluate("est", tf.estimator.TrainSpec(_input_fn),
                                    tf.estimator.EvalSpec(_input_fn))


@case
def train_and_evaluate_train_spec_wrong(tf, tmp):
    tf.estimator.train_and_evaluate(
        tf.estimator.Estimator(_model_fn, model_dir=tmp), "spec",
        tf.estimator.EvalSpec(_input_fn))


@case
def train_and_evaluate_eval_spec_wrong(tf, tmp):
    tf.estimator.train_and_evaluate(
        tf.estimator.Estimator(_model_fn, model_dir=tmp), tf.estimator.TrainSpec(_input_fn),
        "spec")


# ------------------------------------------------------------------- canned estimators


@case
def dnn_classifier_one_class(tf, tmp):
    tf.estimator.DNNClassifier([2], [_column(tf)], model_dir=tmp, n_classes=1)


@case
def dnn_classifier_v1_one_class(tf, tmp):
    tf.compat.v1.estimator.DNNClassifier([2], [_column(tf)], model_dir=tmp, n_classes=1)


@case
def dnn_regressor_unknown_loss_reduction(tf, tmp):
    tf.estimator.DNNRegressor([2], [_column(tf)], model_dir=tmp, loss_reduction="bogus")


@case
def linear_classifier_unknown_optimizer(tf, tmp):
    tf.estimator.LinearClassifier([_column(tf)], model_dir=tmp, optimizer="Bogus").train(
        lambda: ({"x": tf.constant([[1.0]])}, tf.constant([[1]])), steps=1)


@case
def linear_classifier_vocabulary_not_a_list(tf, tmp):
    tf.estimator.LinearClassifier([_column(tf)], model_dir=tmp, label_vocabulary="ab")


@case
def linear_regressor_no_columns_trained(tf, tmp):
    tf.estimator.LinearRegressor([], model_dir=tmp).train(
        lambda: ({"x": tf.constant([[1.0]])}, tf.constant([[1.0]])), steps=1)


@case
def dnn_linear_combined_no_columns(tf, tmp):
    tf.estimator.DNNLinearCombinedClassifier(model_dir=tmp)


@case
def dnn_linear_combined_dnn_without_hidden_units(tf, tmp):
    tf.estimator.DNNLinearCombinedRegressor(model_dir=tmp,
                                            dnn_feature_columns=[_column(tf)])


@case
def dnn_linear_combined_v1_no_columns(tf, tmp):
    tf.compat.v1.estimator.DNNLinearCombinedRegressor(model_dir=tmp)


@case
def baseline_classifier_one_class(tf, tmp):
    tf.estimator.BaselineClassifier(model_dir=tmp, n_classes=1)


@case
def baseline_regressor_v1_unknown_loss_reduction(tf, tmp):
    tf.compat.v1.estimator.BaselineRegressor(model_dir=tmp, loss_reduction="bogus")


@case
def dnn_estimator_head_not_a_head_trained(tf, tmp):
    tf.estimator.DNNEstimator(head="head", hidden_units=[2], feature_columns=[_column(tf)],
                              model_dir=tmp).train(
        lambda: ({"x": tf.constant([[1.0]])}, tf.constant([[1.0]])), steps=1)


@case
def dnn_classifier_features_not_a_dict_trained(tf, tmp):
    tf.estimator.DNNClassifier([2], [_column(tf)], model_dir=tmp).train(
        lambda: (tf.constant([[1.0]]), tf.constant([[1]])), steps=1)


# ------------------------------------------------------------------ model_to_estimator


def _keras_model(tf, compiled=True):
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(1,))])
    if compiled:
        model.compile("sgd", "mse")
    return model


@case
def model_to_estimator_without_a_model(tf, tmp):
    tf.keras.estimator.model_to_estimator(model_dir=tmp)


@case
def model_to_estimator_model_and_path(tf, tmp):
    tf.keras.estimator.model_to_estimator(keras_model=_keras_model(tf),
                                          keras_model_path=os.path.join(tmp, "k.h5"),
                                          model_dir=tmp)


@case
def model_to_estimator_not_compiled(tf, tmp):
    tf.keras.estimator.model_to_estimator(keras_model=_keras_model(tf, compiled=False),
                                          model_dir=tmp)


@case
def model_to_estimator_unknown_checkpoint_format(tf, tmp):
    tf.keras.estimator.model_to_estimator(keras_model=_keras_model(tf), model_dir=tmp,
                                          checkpoint_format="bogus")


@case
def model_to_estimator_config_not_a_run_config(tf, tmp):
    tf.keras.estimator.model_to_estimator(keras_model=_keras_model(tf), model_dir=tmp,
                                          config="config")


@case
def model_to_estimator_v1_not_compiled(tf, tmp):
    tf.compat.v1.keras.estimator.model_to_estimator(
        keras_model=_keras_model(tf, compiled=False), model_dir=tmp)


# ----------------------------------------------------------------------------- hooks


@case
def checkpoint_saver_hook_no_schedule(tf, tmp):
    tf.estimator.CheckpointSaverHook(tmp)


@case
def checkpoint_saver_hook_saver_and_scaffold(tf, tmp):
    tf.estimator.CheckpointSaverHook(tmp, save_steps=1, saver=object(),
                                     scaffold=object())


@case
def step_counter_hook_steps_and_secs(tf, tmp):
    tf.estimator.StepCounterHook(every_n_steps=1, every_n_secs=1)


@case
def logging_tensor_hook_no_schedule(tf, tmp):
    tf.estimator.LoggingTensorHook({"a": "a"})


@case
def logging_tensor_hook_every_zero(tf, tmp):
    tf.estimator.LoggingTensorHook({"a": "a"}, every_n_iter=0)


@case
def stop_at_step_hook_no_step(tf, tmp):
    tf.estimator.StopAtStepHook()


@case
def stop_at_step_hook_both(tf, tmp):
    tf.estimator.StopAtStepHook(num_steps=1, last_step=1)


@case
def summary_saver_hook_steps_and_secs(tf, tmp):
    tf.estimator.SummarySaverHook(save_steps=1, save_secs=1, output_dir=tmp,
                                  summary_op=[])


@case
def summary_saver_hook_no_summaries(tf, tmp):
    tf.estimator.SummarySaverHook(save_steps=1, output_dir=tmp)


@case
def profiler_hook_steps_and_secs(tf, tmp):
    tf.estimator.ProfilerHook(save_steps=1, save_secs=1, output_dir=tmp)


@case
def in_memory_evaluator_hook_not_an_estimator(tf, tmp):
    tf.estimator.experimental.InMemoryEvaluatorHook("est", _input_fn)


@case
def in_memory_evaluator_hook_every_zero(tf, tmp):
    tf.estimator.experimental.InMemoryEvaluatorHook(
        tf.estimator.Estimator(_model_fn, model_dir=tmp), _input_fn, every_n_iter=0)


@case
def stop_if_no_decrease_hook_unknown_metric_without_eval_dir(tf, tmp):
    est = tf.estimator.Estimator(_model_fn, model_dir=tmp)
    hook = tf.estimator.experimental.stop_if_no_decrease_hook(est, "loss", 1,
                                                              run_every_secs=None,
                                                              run_every_steps=1)
    hook.begin()


@case
def early_stopping_hook_steps_and_secs(tf, tmp):
    est = tf.estimator.Estimator(_model_fn, model_dir=tmp)
    tf.estimator.experimental.make_early_stopping_hook(est, lambda: False,
                                                       run_every_secs=1,
                                                       run_every_steps=1)


@case
def add_metrics_metric_fn_unknown_argument(tf, tmp):
    tf.estimator.add_metrics(tf.estimator.Estimator(_model_fn, model_dir=tmp),
                             lambda other: {})


# ------------------------------------------------------------------------- inputs


@case
def numpy_input_fn_x_a_string(tf, tmp):
    tf.compat.v1.estimator.inputs.numpy_input_fn("x", shuffle=False)


@case
def numpy_input_fn_without_shuffle(tf, tmp):
    tf.compat.v1.estimator.inputs.numpy_input_fn({"x": np.zeros([2, 1])})


@case
def numpy_input_fn_empty_dict(tf, tmp):
    tf.compat.v1.estimator.inputs.numpy_input_fn({}, shuffle=False)()


@case
def numpy_input_fn_lengths_differ(tf, tmp):
    tf.compat.v1.estimator.inputs.numpy_input_fn(
        {"x": np.zeros([2, 1]), "z": np.zeros([3, 1])}, shuffle=False)()


@case
def numpy_input_fn_y_key_in_x(tf, tmp):
    tf.compat.v1.estimator.inputs.numpy_input_fn(
        {"x": np.zeros([2, 1])}, {"x": np.zeros([2])}, shuffle=False)()


# ----------------------------------------------------------------------------- TPU


@case
def tpu_config_iterations_zero(tf, tmp):
    tf.compat.v1.estimator.tpu.TPUConfig(iterations_per_loop=0)


@case
def tpu_config_num_shards_zero(tf, tmp):
    tf.compat.v1.estimator.tpu.TPUConfig(num_shards=0)


@case
def tpu_config_unknown_input_pipeline(tf, tmp):
    tf.compat.v1.estimator.tpu.TPUConfig(per_host_input_for_training="bogus")


@case
def tpu_run_config_tpu_config_a_string(tf, tmp):
    tf.compat.v1.estimator.tpu.RunConfig(tpu_config="config")


@case
def tpu_estimator_batch_size_in_params(tf, tmp):
    tf.compat.v1.estimator.tpu.TPUEstimator(
        _model_fn, model_dir=tmp, use_tpu=False, params={"batch_size": 2})


@case
def tpu_estimator_negative_train_batch_size(tf, tmp):
    tf.compat.v1.estimator.tpu.TPUEstimator(
        _model_fn, model_dir=tmp, use_tpu=False, train_batch_size=-1)


@case
def tpu_estimator_config_not_a_tpu_run_config(tf, tmp):
    tf.compat.v1.estimator.tpu.TPUEstimator(
        _model_fn, model_dir=tmp, use_tpu=False, config=tf.estimator.RunConfig())


@case
def tpu_estimator_spec_eval_metrics_not_a_pair(tf, tmp):
    with _graph(tf):
        tf.compat.v1.estimator.tpu.TPUEstimatorSpec(
            tf.estimator.ModeKeys.EVAL, loss=tf.constant(1.0), eval_metrics=1)


@case
def tpu_estimator_spec_host_call_not_a_pair(tf, tmp):
    with _graph(tf):
        tf.compat.v1.estimator.tpu.TPUEstimatorSpec(
            tf.estimator.ModeKeys.TRAIN, loss=tf.constant(1.0), train_op=tf.no_op(),
            host_call=1)


@case
def warm_start_settings_no_checkpoint(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=tmp,
                           warm_start_from=tf.estimator.WarmStartSettings(None))


# ------------------------------------------------------------------------ more calls


@case
def get_variable_value_unknown_name(tf, tmp):
    _trained(tf, tmp).get_variable_value("no_such_variable")


@case
def get_variable_names_without_a_checkpoint(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=tmp).get_variable_names()


@case
def get_variable_value_without_a_checkpoint(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=tmp).get_variable_value("dense/kernel")


@case
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


@case
def export_all_saved_models_unknown_mode(tf, tmp):
    def receiver_fn():
        x = tf.compat.v1.placeholder(tf.float32, [None, 1])
        return tf.estimator.export.ServingInputReceiver({"x": x}, {"x": x})
    _trained(tf, tmp).experimental_export_all_saved_models(
        os.path.join(tmp, "e"), {"bogus": receiver_fn})


@case
def export_saved_model_receiver_fn_none(tf, tmp):
    _trained(tf, tmp).export_saved_model(os.path.join(tmp, "e"), None)


@case
def export_saved_model_v1_export_savedmodel_receiver_none(tf, tmp):
    est = tf.compat.v1.estimator.Estimator(_model_fn, model_dir=os.path.join(tmp, "m"))
    est.train(_input_fn, steps=1)
    est.export_savedmodel(os.path.join(tmp, "e"), None)


@case
def v2_estimator_export_savedmodel_hidden(tf, tmp):
    tf.estimator.Estimator(_model_fn, model_dir=tmp).export_savedmodel


@case
def predict_model_fn_without_predictions_dict_keys(tf, tmp):
    def model_fn(features, labels, mode):
        spec = _model_fn(features, labels, mode)
        return spec._replace(predictions=features["x"])
    est = tf.estimator.Estimator(model_fn, model_dir=os.path.join(tmp, "m"))
    est.train(_input_fn, steps=1)
    next(est.predict(lambda: _input_fn().map(lambda f, l: f), predict_keys=["y"]))


@case
def evaluate_metric_named_loss(tf, tmp):
    def model_fn(features, labels, mode):
        spec = _model_fn(features, labels, mode)
        return spec._replace(eval_metric_ops={"loss": tf.compat.v1.metrics.mean(spec.loss)})
    est = tf.estimator.Estimator(model_fn, model_dir=os.path.join(tmp, "m"))
    est.train(_input_fn, steps=1)
    est.evaluate(_input_fn)


@case
def warm_start_settings_empty_path(tf, tmp):
    tf.estimator.WarmStartSettings("")


@case
def vocab_info_used_with_a_missing_vocab(tf, tmp):
    _trained(tf, tmp)
    settings = tf.estimator.WarmStartSettings(
        os.path.join(tmp, "m"), vars_to_warm_start=None,
        var_name_to_vocab_info={"dense/kernel": tf.estimator.VocabInfo(
            new_vocab=os.path.join(tmp, "none.txt"), new_vocab_size=2, num_oov_buckets=0,
            old_vocab=os.path.join(tmp, "none_old.txt"))})
    tf.estimator.Estimator(_model_fn, model_dir=os.path.join(tmp, "w"),
                           warm_start_from=settings).train(_input_fn, steps=1)


@case
def saved_model_estimator_missing_dir(tf, tmp):
    tf.compat.v1.estimator.experimental.SavedModelEstimator if hasattr(
        tf.compat.v1.estimator.experimental, "SavedModelEstimator") else None
    from tensorflow_estimator.python.estimator.canned import saved_model_estimator  # pylint: disable=import-outside-toplevel
    saved_model_estimator.SavedModelEstimator(os.path.join(tmp, "none"), tmp)


@case
def kmeans_unknown_distance(tf, tmp):
    tf.compat.v1.estimator.experimental.KMeans(2, model_dir=tmp, distance_metric="bogus")


@case
def kmeans_feature_columns_and_relative_tolerance(tf, tmp):
    tf.compat.v1.estimator.experimental.KMeans(
        2, model_dir=tmp, relative_tolerance=0.1, use_mini_batch=True)


@case
def linear_sdca_unknown_loss(tf, tmp):
    tf.estimator.experimental.LinearSDCA("example_id", symmetric_l2_regularization=-1.0,
                                         num_loss_partitions=0)


@case
def rnn_classifier_no_cell(tf, tmp):
    tf.estimator.experimental.RNNClassifier(
        sequence_feature_columns=[tf.feature_column.sequence_numeric_column("x")],
        model_dir=tmp)


@case
def rnn_classifier_units_and_cell(tf, tmp):
    tf.estimator.experimental.RNNClassifier(
        sequence_feature_columns=[tf.feature_column.sequence_numeric_column("x")],
        units=[2], cell_type="lstm", rnn_cell_fn=lambda: None, model_dir=tmp)


@case
def rnn_estimator_unknown_cell_type(tf, tmp):
    tf.estimator.experimental.RNNEstimator(
        tf.estimator.RegressionHead(),
        sequence_feature_columns=[tf.feature_column.sequence_numeric_column("x")],
        units=[2], cell_type="bogus", model_dir=tmp)


@case
def linear_classifier_partitioner_in_v2(tf, tmp):
    tf.estimator.LinearClassifier([_column(tf)], model_dir=tmp, partitioner=object())


@case
def dnn_classifier_v1_bad_batch_norm_type(tf, tmp):
    tf.compat.v1.estimator.DNNClassifier([2], [_column(tf)], model_dir=tmp,
                                         n_classes=3, label_vocabulary=["a", "b"])


@case
def binary_class_head_weight_column_missing_feature(tf, tmp):
    with _graph(tf):
        tf.estimator.BinaryClassHead(weight_column="w").loss(
            labels=tf.constant([[1]]), logits=tf.constant([[0.5]]),
            features={"x": tf.constant([[1.0]])}, mode=tf.estimator.ModeKeys.EVAL)


@case
def regression_head_label_dtype_string(tf, tmp):
    with _graph(tf):
        tf.estimator.RegressionHead().loss(
            labels=tf.constant([["a"]]), logits=tf.constant([[0.5]]),
            features={}, mode=tf.estimator.ModeKeys.EVAL)


@case
def multi_head_labels_not_a_dict(tf, tmp):
    with _graph(tf):
        head = tf.estimator.MultiHead([tf.estimator.RegressionHead(name="a"),
                                       tf.estimator.RegressionHead(name="b")])
        head.loss(labels=tf.constant([[1.0]]),
                  logits={"a": tf.constant([[0.5]]), "b": tf.constant([[0.5]])},
                  features={}, mode=tf.estimator.ModeKeys.EVAL)


@case
def classifier_parse_example_spec_bad_label_dtype(tf, tmp):
    tf.estimator.classifier_parse_example_spec([_column(tf)], "label",
                                               label_dtype=tf.float32)


@case
def regressor_parse_example_spec_label_key_in_columns(tf, tmp):
    tf.estimator.regressor_parse_example_spec([_column(tf)], "x")


@case
def mode_keys_canonical_unknown(tf, tmp):
    tf.estimator.EstimatorSpec(mode=None, predictions={"x": 1})


@case
def final_exporter_receiver_fn_none_exported(tf, tmp):
    est = _trained(tf, tmp)
    tf.estimator.FinalExporter("f", None).export(est, os.path.join(tmp, "e"),
                                                  est.latest_checkpoint(), {}, True)


@case
def serving_input_receiver_fn_placeholder_batch(tf, tmp):
    with _graph(tf):
        tf.estimator.export.build_raw_serving_input_receiver_fn(
            {"x": tf.constant([1.0])}, default_batch_size="two")()
