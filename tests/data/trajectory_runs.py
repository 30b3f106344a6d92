"""Builds and trains the trajectory cases, alike on the original and here.

Each case trains `STEPS` steps from fixed initial weights on fixed, unshuffled
data in a single-threaded session; `run` returns the `checksum` of every variable
when the session starts and at the end of training (a hook reads them; optimizer
slots included) and, for the cases marked `evaluate`, the `evaluate()` dict.

How the start is made identical: a canned estimator's model_fn is called once in
PREDICT mode in a throw-away graph to learn its trainable variables (the
generator records them as the case's `start`, so the test needs no probe), each
is given `initial_value` (a formula of its name and shape), and that checkpoint
is the `WarmStartSettings` source of the run. Slots and other non-trainable
variables start from the estimator's own initializers, so their defaults
(accumulators, batch normalization's statistics) are compared too.
model_to_estimator gets the values through `set_weights`, the custom model_fns
through constant initializers.
"""

import os

import numpy as np
import tensorflow as tf

from tests.data import trajectory_cases as cases

_V1_CLASSES = {"Adagrad": "AdagradOptimizer", "Adam": "AdamOptimizer",
               "Ftrl": "FtrlOptimizer", "RMSProp": "RMSPropOptimizer",
               "SGD": "GradientDescentOptimizer"}
_V2_CLASSES = {"Adagrad": "Adagrad", "Adam": "Adam", "Ftrl": "Ftrl",
               "RMSProp": "RMSprop", "SGD": "SGD"}


# ---------------------------------------------------------------------------- models


def _columns(case):
    fc = tf.feature_column
    if case["columns"] == "many":
        return [fc.numeric_column(f"m{k}") for k in range(cases.MANY)], []
    x = fc.numeric_column("x", shape=(3,))
    c = fc.categorical_column_with_vocabulary_list("c", ["a", "b", "c"])
    return [x, c], [x, fc.embedding_column(c, 2)]


def _optimizer(spec, api):
    """The optimizer argument a case spells as a string."""
    if spec in ("default", "none") or spec in cases.OPTIMIZERS:
        return None if spec == "none" else spec
    kind, name = spec.split(":")
    if kind == "instance" and api == "v1":
        return getattr(tf.compat.v1.train, _V1_CLASSES[name])(learning_rate=0.1)
    if kind == "instance":
        return getattr(tf.keras.optimizers.legacy, _V2_CLASSES[name])(learning_rate=0.1)
    if kind == "callable" and api == "v1":
        return lambda: getattr(tf.compat.v1.train, _V1_CLASSES[name])(learning_rate=0.02)
    if kind == "callable":
        return lambda: getattr(tf.keras.optimizers.legacy, _V2_CLASSES[name])(
            learning_rate=0.02)
    if kind == "keras_new":
        return getattr(tf.keras.optimizers, _V2_CLASSES[name])(learning_rate=0.02)
    raise ValueError(f"Unknown optimizer spec: {spec}")


def _head(case):
    weight = "w" if case["weight"] else None
    if case["api"] == "v1":
        # The v1 Estimator forms train with tf.compat.v1 optimizers, which the
        # tf.estimator heads refuse: they take the original's v1 heads, from
        # the module path users imported them from.
        from tensorflow_estimator.python.estimator.canned import head as v1_heads
        sum_ = tf.compat.v1.losses.Reduction.SUM
        return {
            "binary": lambda: v1_heads._binary_logistic_or_multi_class_head(
                2, weight, None, sum_),
            "multi_class": lambda: v1_heads._binary_logistic_or_multi_class_head(
                3, weight, None, sum_),
            "regression": lambda: v1_heads._regression_head(
                weight_column=weight, label_dimension=1, loss_reduction=sum_),
        }[case["head"]]()
    ns = tf.estimator
    return {
        "binary": lambda: ns.BinaryClassHead(weight_column=weight),
        "multi_class": lambda: ns.MultiClassHead(3, weight_column=weight),
        "multi_label": lambda: ns.MultiLabelHead(3, weight_column=weight),
        "regression": lambda: ns.RegressionHead(weight_column=weight),
        "poisson": lambda: ns.PoissonRegressionHead(weight_column=weight),
        "logistic": lambda: ns.LogisticRegressionHead(weight_column=weight),
        "multi_head": lambda: ns.MultiHead([ns.BinaryClassHead(name="a"),
                                            ns.RegressionHead(name="b")]),
    }[case["head"]]()


_CLASS_NAMES = {
    ("dnn", "classifier"): "DNNClassifier", ("dnn", "regressor"): "DNNRegressor",
    ("dnn", "estimator"): "DNNEstimator",
    ("linear", "classifier"): "LinearClassifier", ("linear", "regressor"): "LinearRegressor",
    ("linear", "estimator"): "LinearEstimator",
    ("dnn_linear_combined", "classifier"): "DNNLinearCombinedClassifier",
    ("dnn_linear_combined", "regressor"): "DNNLinearCombinedRegressor",
    ("dnn_linear_combined", "estimator"): "DNNLinearCombinedEstimator",
    ("baseline", "classifier"): "BaselineClassifier",
    ("baseline", "regressor"): "BaselineRegressor",
    ("baseline", "estimator"): "BaselineEstimator",
}


def _canned_kwargs(case):
    linear_columns, dnn_columns = _columns(case)
    family, form = case["family"], case["form"]
    kwargs = {}
    if family == "dnn":
        kwargs.update(hidden_units=[3], feature_columns=dnn_columns or linear_columns)
    elif family == "linear":
        kwargs.update(feature_columns=linear_columns)
    elif family == "dnn_linear_combined":
        kwargs.update(linear_feature_columns=linear_columns,
                      dnn_feature_columns=dnn_columns or linear_columns, dnn_hidden_units=[3])
    opt = _optimizer(case["optimizer"], case["api"])
    if case["optimizer"] != "default":
        kwargs["dnn_optimizer" if family == "dnn_linear_combined" else "optimizer"] = opt
    if form == "estimator":
        kwargs["head"] = _head(case)
    else:
        if case["weight"]:
            kwargs["weight_column"] = "w"
        if form == "classifier":
            kwargs["n_classes"] = case["n_classes"]
            if case["vocab"]:
                kwargs["label_vocabulary"] = cases.vocabulary(case["n_classes"])
        else:
            kwargs["label_dimension"] = case["label_dimension"]
    extra = dict(case["extra"])
    if "linear_optimizer" in extra:
        extra["linear_optimizer"] = _optimizer(extra["linear_optimizer"], case["api"])
    kwargs.update(extra)
    return kwargs


def _config(model_dir, case):
    """Single-threaded, seeded; checkpoints only where evaluate() needs one."""
    session_config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=1,
                                              inter_op_parallelism_threads=1)
    saves = 1000 if case["evaluate"] else None
    kwargs = dict(model_dir=model_dir, tf_random_seed=7, session_config=session_config,
                  save_checkpoints_steps=saves, save_checkpoints_secs=None,
                  save_summary_steps=None, log_step_count_steps=1000)
    if case["family"] == "tpu":
        return tf.compat.v1.estimator.tpu.RunConfig(**kwargs)
    return tf.estimator.RunConfig(**kwargs)


def probe_start(estimator, case, path):
    """The trainable variables' {name: shape}, from the model_fn in PREDICT mode.

    They are saved (with Saver, so partitioned variables appear under their full
    names) and read back from the checkpoint.
    """
    features, _ = cases.data(case)
    with tf.Graph().as_default():
        batch = {k: tf.constant(v[:cases.BATCH]) for k, v in features.items()}
        tf.compat.v1.train.get_or_create_global_step()
        estimator.model_fn(batch, None, tf.estimator.ModeKeys.PREDICT, estimator.config)
        saver = tf.compat.v1.train.Saver(tf.compat.v1.trainable_variables())
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            os.makedirs(os.path.dirname(path), exist_ok=True)
            saver.save(sess, path)
    return dict(tf.train.list_variables(path))


def write_start(start, path):
    """Saves `initial_value` of each {name: shape} of `start` as a name-based checkpoint."""
    names = sorted(start)
    tf.raw_ops.SaveV2(prefix=path, tensor_names=names, shape_and_slices=[""] * len(names),
                      tensors=[tf.constant(cases.initial_value(n, list(start[n]))) for n in names])
    return path


# (family, form) of the classes without a warm_start_from argument.
_NO_WARM_START_ARG = {("dnn_linear_combined", "estimator"), ("baseline", "classifier"),
                      ("baseline", "regressor"), ("baseline", "estimator")}


def _canned(case, model_dir, start):
    ns = tf.compat.v1.estimator if case["api"] == "v1" else tf.estimator
    cls = getattr(ns, _CLASS_NAMES[(case["family"], case["form"])])
    if start is None:
        probe = cls(config=_config(os.path.join(model_dir, "probe"), case),
                    **_canned_kwargs(case))
        start = probe_start(probe, case, os.path.join(model_dir, "probe", "start"))
    path = write_start(start, os.path.join(model_dir, "start"))
    # New arguments: the probe's optimizer instance must not serve the run too.
    config = _config(os.path.join(model_dir, "run"), case)
    warm_start = tf.estimator.WarmStartSettings(path)
    if (case["family"], case["form"]) in _NO_WARM_START_ARG:
        # No warm_start_from argument: its model_fn runs in a plain Estimator.
        inner = cls(config=config, **_canned_kwargs(case))
        return tf.estimator.Estimator(inner.model_fn, config=config,
                                      warm_start_from=warm_start), start
    return cls(config=config, warm_start_from=warm_start, **_canned_kwargs(case)), start


def _keras_optimizer(spec):
    kind, _, name = spec.partition(":")
    if not name:
        return spec  # a name Keras resolves, e.g. 'adam'
    if kind == "keras":
        return getattr(tf.keras.optimizers, name)(learning_rate=0.02)
    if kind == "keras_legacy":
        return getattr(tf.keras.optimizers.legacy, name)(learning_rate=0.02)
    return getattr(tf.compat.v1.train, _V1_CLASSES[name])(learning_rate=0.1)


def _keras(case, model_dir):
    inputs = tf.keras.Input(shape=(3,), name="x")
    hidden = tf.keras.layers.Dense(4, activation="relu", name="hidden")(inputs)
    logits = tf.keras.layers.Dense(2, name="logits")(hidden)
    model = tf.keras.Model(inputs, logits)
    model.set_weights([cases.initial_value(w.name, w.shape.as_list()) for w in model.weights])
    model.compile(optimizer=_keras_optimizer(case["optimizer"]),
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    if case["api"] == "v1":
        return tf.compat.v1.keras.estimator.model_to_estimator(
            keras_model=model, config=_config(model_dir, case))
    return tf.keras.estimator.model_to_estimator(keras_model=model,
                                                 config=_config(model_dir, case))


def _custom_model_fn(features, labels, mode, params):
    def variable(name, shape):
        return tf.compat.v1.get_variable(
            name, initializer=tf.constant(cases.initial_value(name, shape)))

    with tf.compat.v1.variable_scope("model"):
        hidden = tf.nn.relu(tf.matmul(features["x"], variable("w0", [3, 4]))
                            + variable("b0", [4]))
        logits = tf.matmul(hidden, variable("w1", [4, 2])) + variable("b1", [2])
    probabilities = tf.nn.softmax(logits)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"probabilities": probabilities})
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    optimizer = tf.compat.v1.train.AdamOptimizer(0.05)
    if params.get("use_tpu") is not None:
        optimizer = tf.compat.v1.train.MomentumOptimizer(0.05, momentum=0.9)
    train_op = optimizer.minimize(loss, tf.compat.v1.train.get_global_step())
    predictions = tf.argmax(logits, 1)
    if params.get("use_tpu") is not None:
        def metric_fn(labels, predictions):
            return {"accuracy": tf.compat.v1.metrics.accuracy(labels, predictions)}
        return tf.compat.v1.estimator.tpu.TPUEstimatorSpec(
            mode, loss=loss, train_op=train_op, eval_metrics=(metric_fn, [labels, predictions]))
    return tf.estimator.EstimatorSpec(
        mode, loss=loss, train_op=train_op,
        eval_metric_ops={"accuracy": tf.compat.v1.metrics.accuracy(labels, predictions),
                         "mean_p": tf.compat.v1.metrics.mean(probabilities)})


def build(case, model_dir, start=None):
    """(estimator, start) of `case`, starting from the fixed initial values.

    `start` ({name: shape} of the canned models' trainable variables) is probed
    when None (the generator), or taken as recorded (the test: no probe graph).
    """
    family = case["family"]
    if family == "keras":
        return _keras(case, model_dir), None
    if family == "custom":
        return tf.estimator.Estimator(_custom_model_fn, config=_config(model_dir, case),
                                      params={}), None
    if family == "tpu":
        return tf.compat.v1.estimator.tpu.TPUEstimator(
            model_fn=_custom_model_fn, config=_config(model_dir, case), use_tpu=False,
            train_batch_size=cases.BATCH, eval_batch_size=cases.BATCH,
            params={"use_tpu": False}), None
    return _canned(case, model_dir, start)


# ---------------------------------------------------------------------------- results


def checksum(value):
    """[sum, sum of |v|, sum of v², digest] of a variable's value, in float64.

    The digest, the dot product of the flattened value with a fixed random vector
    (standard normal, `numpy.random.RandomState(size)`), depends on where each
    element is: swapped elements change it, the other three not."""
    value = np.asarray(value, dtype=np.float64)
    weights = np.random.RandomState(value.size).standard_normal(value.size)
    return [float(value.sum()), float(np.abs(value).sum()), float((value ** 2).sum()),
            float(value.ravel() @ weights)]


class _Values(tf.compat.v1.train.SessionRunHook):
    """Reads every global variable when the session starts and when training ends (no
    checkpoint needed)."""

    def __init__(self):
        self.initial = {}
        self.values = {}

    def begin(self):
        self._variables = tf.compat.v1.global_variables()

    def _checksums(self, session):
        values = session.run(self._variables)
        return {v.op.name: checksum(value) for v, value in zip(self._variables, values)
                if np.asarray(value).dtype.kind in "fiub"}

    def after_create_session(self, session, coord):
        del coord
        self.initial = self._checksums(session)

    def end(self, session):
        self.values = self._checksums(session)


def run(case, work_dir, start=None):
    """Trains the case `STEPS` steps; returns its variable checksums (and evaluate())."""
    estimator, start = build(case, os.path.join(work_dir, case["name"]), start)
    values = _Values()
    estimator.train(cases.input_fn(case, train=True), steps=cases.STEPS, hooks=[values])
    result = {"variables": dict(sorted(values.values.items())),
              "initial": dict(sorted(values.initial.items()))}
    if start is not None:
        result["start"] = {name: list(shape) for name, shape in sorted(start.items())}
    if case["evaluate"]:
        evaluation = estimator.evaluate(cases.input_fn(case, train=False), steps=None)
        result["evaluate"] = {k: float(np.asarray(v).sum()) for k, v in evaluation.items()}
    return result
