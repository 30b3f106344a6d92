"""Training-trajectory cases: the table, the data and the fixed start values.

Each case (a row of `CASES`, plain values) names one estimator: family, form,
API, optimizer, head options. `trajectory_runs.run` builds and trains it; it is
run alike by the original (TF 2.15, `make_tf215_trajectories.py`) and here
(`tests/estimator_lib/trajectory_test.py`, through `estimator_lib.compat.install()`),
with only the `tf.estimator` API (and tf.keras, tf.feature_column).
"""

import numpy as np
import tensorflow as tf

STEPS = 5  # training steps per case
BATCH = 4
N = 8  # examples: two batches, so 5 steps cross an epoch boundary
MANY = 26  # numeric columns of the cases where min(0.2, 1/sqrt(#columns)) < 0.2
OPTIMIZERS = ("Adagrad", "Adam", "Ftrl", "RMSProp", "SGD")


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
            labels = np.array(vocabulary(n_classes))[labels]
    return features, labels


def vocabulary(n_classes):
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
