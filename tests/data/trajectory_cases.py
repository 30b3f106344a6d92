"""Training-trajectory cases, run alike by the original (TF 2.15) and by estimator_lib.

Each case trains one estimator a few steps from fixed initial weights on fixed,
unshuffled data, in a single-threaded session, then records its `evaluate()`
results and a checksum of every variable in its last checkpoint. The code uses
only the `tf.estimator` API (and tf.keras, tf.feature_column), so
`make_tf215_trajectories.py` runs it on TF 2.15 + tensorflow-estimator and
`tests/estimator_lib/trajectory_test.py` runs it here through
`estimator_lib.compat.install()`.

How the start is made identical: the estimator's model_fn is called once in
PREDICT mode in a throw-away graph, every trainable variable it makes is set
from a fixed formula of its name and shape (`initial_value`), and the
checkpoint of those values is the `WarmStartSettings` source of the real run.
Slots and other non-trainable variables start from the estimator's own
initializers, so their defaults (Adagrad's 0.1 accumulator, Ftrl's, batch
normalization's statistics) are part of what is compared. model_to_estimator
gets the values through `set_weights`, the custom model_fns through constant
initializers.
"""

import math
import os

import numpy as np
import tensorflow as tf

STEPS = 5  # training steps per case
BATCH = 4
N = 8  # examples: two batches, so 5 steps cross an epoch boundary
MANY = 26  # numeric columns of the cases where min(0.2, 1/sqrt(#columns)) < 0.2
OPTIMIZERS = ("Adagrad", "Adam", "Ftrl", "RMSProp", "SGD")
_V1_CLASSES = {"Adagrad": "AdagradOptimizer", "Adam": "AdamOptimizer",
               "Ftrl": "FtrlOptimizer", "RMSProp": "RMSPropOptimizer",
               "SGD": "GradientDescentOptimizer"}
_V2_CLASSES = {"Adagrad": "Adagrad", "Adam": "Adam", "Ftrl": "Ftrl",
               "RMSProp": "RMSprop", "SGD": "SGD"}


# ---------------------------------------------------------------------------- the table


def _case(name, family, form, api, **kwargs):
    case = dict(name=name, family=family, form=form, api=api, optimizer="default",
                n_classes=2, label_dimension=1, weight=False, vocab=False, head=None,
                columns="basic", extra={}, evaluate=False)
    case.update(kwargs)
    return case


_FAMILIES = ("dnn", "linear", "dnn_linear_combined", "baseline")
# The head each family's Estimator form gets, per API (v1: the original's v1 heads).
_ESTIMATOR_HEADS = {
    "v1": {"dnn": "multi_class", "linear": "binary", "dnn_linear_combined": "regression",
           "baseline": "multi_class"},
    "v2": {"dnn": "multi_label", "linear": "binary", "dnn_linear_combined": "regression",
           "baseline": "multi_class"},
}
# Which family takes which optimizer name, per API (every name on both APIs, on
# the cheaper models): a name's class defaults do not depend on the family, and
# each family's learning rate for a name is pinned by its default case (the
# default optimizers are names: 'Adagrad' for the DNN, 'Ftrl' for the others).
_NAME_ROTATION = {
    "v1": {"Adagrad": "baseline", "Adam": "linear", "Ftrl": "dnn", "RMSProp": "baseline",
           "SGD": "linear"},
    "v2": {"Adagrad": "baseline", "Adam": "linear", "Ftrl": "dnn", "RMSProp": "linear",
           "SGD": "baseline"},
}
# Default cases that also run evaluate(); so do the weighted ones below, the other
# heads, model_to_estimator's first and the custom model_fns: every head's metrics
# on both APIs. The rest compare variables only (no eval graph, no checkpoint).
_EVALUATED = {"dnn_estimator_v1"}


def _make_cases():
    cases = []
    # Every family, form and API with the defaults it is constructed with.
    for family in _FAMILIES:
        for api in ("v1", "v2"):
            for form in ("classifier", "regressor", "estimator"):
                name = f"{family}_{form}_{api}"
                head = _ESTIMATOR_HEADS[api][family] if form == "estimator" else None
                cases.append(_case(name, family, form, api, head=head,
                                   evaluate=name in _EVALUATED))
    # Every optimizer name on both APIs; instances and callables.
    for api, rotation in _NAME_ROTATION.items():
        for opt, family in rotation.items():
            cases.append(_case(f"{family}_classifier_{api}_{opt}", family, "classifier", api,
                               optimizer=opt))
    cases += [
        _case("dnn_classifier_v1_instance", "dnn", "classifier", "v1",
              optimizer="instance:Adagrad"),
        _case("linear_classifier_v2_instance", "linear", "classifier", "v2",
              optimizer="instance:Ftrl"),
        _case("baseline_regressor_v1_callable", "baseline", "regressor", "v1",
              optimizer="callable:Adam"),
        _case("dnn_linear_combined_classifier_v2_callable", "dnn_linear_combined",
              "classifier", "v2", optimizer="callable:Adam",
              extra={"linear_optimizer": "Adagrad"}),
    ]
    # weight_column, label_vocabulary, n_classes > 2, label_dimension > 1.
    for api, (multi, binary, regression) in {
            "v1": ("baseline", "linear", "dnn"),
            "v2": ("linear", "baseline", "dnn")}.items():
        cases += [
            _case(f"{multi}_classifier_{api}_weighted_vocab_3", multi, "classifier", api,
                  n_classes=3, weight=True, vocab=True, evaluate=True),
            _case(f"{binary}_classifier_{api}_weighted_vocab", binary, "classifier", api,
                  weight=True, vocab=True, evaluate=True),
            _case(f"{regression}_regressor_{api}_weighted_2d", regression, "regressor", api,
                  weight=True, label_dimension=2, evaluate=True),
        ]
    # The linear default optimizer=None: Ftrl at min(0.2, 1/sqrt(#columns)).
    cases += [
        _case("linear_regressor_v1_none_many", "linear", "regressor", "v1",
              optimizer="none", columns="many"),
        _case("linear_regressor_v2_none_many", "linear", "regressor", "v2",
              optimizer="none", columns="many"),
    ]
    # Batch normalization and dropout of the DNN.
    cases += [
        _case("dnn_classifier_v1_batch_norm", "dnn", "classifier", "v1",
              extra={"batch_norm": True}),
        _case("dnn_classifier_v2_batch_norm", "dnn", "classifier", "v2",
              extra={"batch_norm": True}),
        _case("dnn_regressor_v1_dropout", "dnn", "regressor", "v1", extra={"dropout": 0.4}),
        _case("dnn_classifier_v2_dropout", "dnn", "classifier", "v2", extra={"dropout": 0.4}),
        _case("dnn_estimator_v2_multi_head", "dnn", "estimator", "v2", head="multi_head"),
    ]
    # The other heads.
    for head in ("poisson", "logistic"):
        cases.append(_case(f"dnn_estimator_v2_{head}", "dnn", "estimator", "v2", head=head,
                           evaluate=True))
    # model_to_estimator: Keras and tf.compat.v1.train optimizers, sample weights.
    for opt in ("adam", "keras:Adam", "keras_legacy:RMSprop", "v1:Adagrad"):
        cases.append(_case("keras_" + opt.replace(":", "_"), "keras", "estimator", "v2",
                           optimizer=opt, weight=True, evaluate=opt == "adam"))
    cases += [
        _case("keras_v1_saver", "keras", "estimator", "v1", optimizer="v1:SGD"),
        _case("custom_model_fn", "custom", "estimator", "v2", evaluate=True),
        _case("tpu_estimator_cpu", "tpu", "estimator", "v1", evaluate=True),
    ]
    return cases


CASES = _make_cases()


# ---------------------------------------------------------------------------- data


def initial_value(name, shape):
    """The fixed start of variable `name`: a formula of its name and shape."""
    size = int(np.prod(shape)) if shape else 1
    phase = sum(ord(ch) for ch in name) % 11
    values = 0.4 * np.sin(0.37 * np.arange(size) + 0.5 * phase + 1.0)
    return values.reshape(shape).astype(np.float32)


def data(case):
    """(features, labels) of the case: N examples, numpy arrays."""
    i = np.arange(N, dtype=np.float32)
    # The third column is tiny: its weights' gradients are ~1e-7, where the
    # optimizers' epsilons (Adam's, Keras RMSprop's, 1e-7 or 1e-8) change the
    # update by tens of percent, so a wrong epsilon cannot hide within RTOL.
    scale = np.array([1.0, 1.0, 1e-6])
    x = (np.stack([np.sin(1.3 * i + j) for j in range(3)], axis=1) * scale).astype(np.float32)
    words = np.array([["a", "b"], ["c", ""], ["b", ""], ["a", "c"],
                      ["b", "b"], ["c", ""], ["a", ""], ["b", "c"]])
    features = {"x": x, "c": words}
    if case["columns"] == "many":
        features = {f"m{k}": np.cos(0.7 * i + k).astype(np.float32).reshape(N, 1)
                    for k in range(MANY)}
    if case["weight"]:
        features["w"] = (0.5 + 0.5 * (np.arange(N) % 3)).astype(np.float32).reshape(N, 1)
    n_classes = case["n_classes"]
    if case["form"] == "regressor" or case["head"] in ("regression", "poisson"):
        dims = case["label_dimension"]
        labels = np.stack([x[:, 0] - 0.5 * x[:, 1] + 0.3 * d for d in range(dims)], axis=1)
        if case["head"] == "poisson":
            labels = np.round(np.exp(labels))
        labels = labels.astype(np.float32)
    elif case["head"] == "multi_label":
        labels = np.stack([(x[:, j] > 0) for j in range(3)], axis=1).astype(np.int64)
    elif case["head"] == "logistic":
        labels = (x[:, :1] > 0).astype(np.float32)
    elif case["head"] == "multi_head":
        labels = {"a": (x[:, :1] > 0).astype(np.int64),
                  "b": (x[:, 1:2] - 0.5 * x[:, 2:]).astype(np.float32)}
    else:
        if case["head"] == "multi_class":
            n_classes = 3
        labels = ((np.arange(N) * 2 + (x[:, 0] > 0)) % n_classes).astype(np.int64)
        labels = labels.reshape(N, 1)
        if case["vocab"]:
            labels = np.array(_vocabulary(n_classes))[labels]
    return features, labels


def _vocabulary(n_classes):
    return ["no", "yes", "maybe", "other"][:n_classes]


def input_fn(case, *, train):
    """The input_fn: unshuffled; repeated when training, one pass when evaluating."""
    features, labels = data(case)

    def fn(params=None):
        batch = (params or {}).get("batch_size", BATCH)
        ds = tf.data.Dataset.from_tensor_slices((features, labels))
        if case["family"] == "keras" and case["weight"]:
            ds = ds.map(lambda f, y: ({"features": {"x": f["x"]},
                                       "sample_weights": tf.reshape(f["w"], [])}, y))
        elif case["family"] in ("keras", "custom", "tpu"):
            ds = ds.map(lambda f, y: ({"x": f["x"]}, y))
        ds = ds.repeat() if train else ds
        return ds.batch(batch, drop_remainder=(case["family"] == "tpu"))

    return fn


# ---------------------------------------------------------------------------- models


def _columns(case):
    fc = tf.feature_column
    if case["columns"] == "many":
        return [fc.numeric_column(f"m{k}") for k in range(MANY)], []
    x = fc.numeric_column("x", shape=(3,))
    c = fc.categorical_column_with_vocabulary_list("c", ["a", "b", "c"])
    return [x, c], [x, fc.embedding_column(c, 2)]


def _optimizer(spec, api):
    """The optimizer argument a case spells as a string."""
    if spec in ("default", "none") or spec in OPTIMIZERS:
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
                kwargs["label_vocabulary"] = _vocabulary(case["n_classes"])
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
    features, _ = data(case)
    with tf.Graph().as_default():
        batch = {k: tf.constant(v[:BATCH]) for k, v in features.items()}
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
                      tensors=[tf.constant(initial_value(n, list(start[n]))) for n in names])
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
    model.set_weights([initial_value(w.name, w.shape.as_list()) for w in model.weights])
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
            name, initializer=tf.constant(initial_value(name, shape)))

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
            train_batch_size=BATCH, eval_batch_size=BATCH, params={"use_tpu": False}), None
    return _canned(case, model_dir, start)


# ---------------------------------------------------------------------------- results


def checksum(value):
    """[sum, sum of |v|, sum of v²] of a variable's value, in float64."""
    value = np.asarray(value, dtype=np.float64)
    return [float(value.sum()), float(np.abs(value).sum()), float((value ** 2).sum())]


class _FinalValues(tf.compat.v1.train.SessionRunHook):
    """Reads every global variable when training ends (no checkpoint needed)."""

    def __init__(self):
        self.values = {}

    def begin(self):
        self._variables = tf.compat.v1.global_variables()

    def end(self, session):
        values = session.run(self._variables)
        self.values = {v.op.name: checksum(value) for v, value in zip(self._variables, values)
                       if np.asarray(value).dtype.kind in "fiub"}


def run(case, work_dir, start=None):
    """Trains the case STEPS steps; returns its variable checksums (and evaluate())."""
    estimator, start = build(case, os.path.join(work_dir, case["name"]), start)
    final = _FinalValues()
    estimator.train(input_fn(case, train=True), steps=STEPS, hooks=[final])
    result = {"variables": dict(sorted(final.values.items()))}
    if start is not None:
        result["start"] = {name: list(shape) for name, shape in sorted(start.items())}
    if case["evaluate"]:
        evaluation = estimator.evaluate(input_fn(case, train=False), steps=None)
        result["evaluate"] = {k: float(np.asarray(v).sum()) for k, v in evaluation.items()}
    return result


def is_close(ours, reference, *, rtol):
    """Relative closeness, with an absolute floor for values that cancel to ~0."""
    return abs(ours - reference) <= rtol * max(abs(reference), 1e-3) or (
        math.isnan(ours) and math.isnan(reference))
