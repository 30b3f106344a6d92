"""Programs and a recorder for the call-time reads table (tf215_call_time_reads.json).

Shared by `make_tf215_call_time_reads.py` (run on the original, TF 2.15.1 +
tensorflow-estimator 2.15.0) and `tests/estimator_lib/legacy/call_time_reads_test.py`
(run here after `estimator_lib.compat.install()`). Every program calls only the
`tf.estimator` API (and tf.feature_column, tf.compat.v1, tf.distribute).

- `Recorder` installs a recording `__getattribute__` on the Estimator's base class and
  on the heads' base classes while the programs' calls run, and records each read of
  an instance attribute on `self` (a name in the instance's `__dict__`; here also a
  data descriptor of the class, when `descriptors=True`) by the outermost public
  method of that same object on the stack: (role, class name, method, attribute).
- `READ_PROGRAMS` build an estimator (and a head) and run train, evaluate, predict and
  export_saved_model under the recorder; `head_calls` calls the v2 heads' public
  methods directly.
- `EFFECT_PROGRAMS` replace one attribute on a built instance and return what changed
  (losses, metric keys, which modes a wrapped model_fn saw), for the behavioural check.
"""

import os
import sys

import numpy as np

N = 8
STEPS = 2


# --------------------------------------------------------------------------- recorder


def _public_method_of(obj):
    """The outermost public method (or property getter) of `obj` on the stack, or None."""
    frame = sys._getframe(2)  # pylint: disable=protected-access
    found = None
    while frame is not None:
        code = frame.f_code
        if (code.co_argcount and code.co_varnames[0] == "self"
                and code.co_name.isidentifier() and not code.co_name.startswith("_")
                and frame.f_locals.get("self") is obj):
            found = code.co_name
        frame = frame.f_back
    return found


class Recorder:
    """Records the instance attributes public methods read on `self` while active.

    Args:
        bases: (role, class) pairs; the recording `__getattribute__` goes on each
            class (its subclasses inherit it) while the recorder is entered.
        descriptors: Also record names the class defines as data descriptors (here:
            state kept as a property over another attribute).
    """

    def __init__(self, bases, descriptors=False):
        self.bases = list(bases)
        self.descriptors = descriptors
        self.records = set()
        self.active = False
        self._previous = {}

    def _recording(self, role, cls):
        recorder = self
        previous = cls.__dict__.get("__getattribute__")

        def __getattribute__(obj, name):  # pylint: disable=invalid-name
            value = (previous(obj, name) if previous is not None
                     else super(cls, obj).__getattribute__(name))
            if (recorder.active and name.startswith("_") and not name.startswith("__")):
                recorder.active = False  # no recursion through what follows
                try:
                    owned = name in object.__getattribute__(obj, "__dict__")
                    if not owned and recorder.descriptors:
                        static = _static(type(obj), name)
                        owned = hasattr(static, "__set__") and not callable(static)
                    if owned:
                        method = _public_method_of(obj)
                        if method is not None:
                            recorder.records.add((role, type(obj).__name__, method, name))
                finally:
                    recorder.active = True
            return value

        return previous, __getattribute__

    def __enter__(self):
        for role, cls in self.bases:
            if cls in self._previous:
                continue
            previous, function = self._recording(role, cls)
            self._previous[cls] = previous
            cls.__getattribute__ = function
        self.active = True
        return self

    def __exit__(self, *exc):
        self.active = False
        for cls, previous in self._previous.items():
            if previous is None:
                del cls.__getattribute__
            else:
                cls.__getattribute__ = previous
        self._previous = {}
        return False

    def table(self):
        return sorted([list(record) for record in self.records])


def _static(cls, name):
    for klass in cls.__mro__:
        if name in vars(klass):
            return vars(klass)[name]
    return None


def original_bases():
    """(role, base class) pairs, reached at the original's module paths (the v2
    Estimator is a subclass of the v1 one there, not here)."""
    # pylint: disable=import-outside-toplevel
    from tensorflow_estimator.python.estimator import estimator
    from tensorflow_estimator.python.estimator.canned import head as v1_head
    from tensorflow_estimator.python.estimator.head import base_head
    return [("estimator", estimator.Estimator), ("estimator", estimator.EstimatorV2),
            ("head", base_head.Head),
            ("v1_head", v1_head._Head)]  # pylint: disable=protected-access


# ------------------------------------------------------------------------------- data


def _features():
    x = (np.arange(N, dtype=np.float32).reshape(N, 1) - 3.5) / 4.0
    return {"x": x, "w": np.where(np.arange(N) % 2, 2.0, 0.5).astype(np.float32).reshape(N, 1)}


def _labels(kind):
    i = np.arange(N)
    if kind == "binary":
        return (i % 2).reshape(N, 1).astype(np.int64)
    if kind == "multi":
        return (i % 3).reshape(N, 1).astype(np.int64)
    if kind == "multilabel":
        return np.stack([i % 2, (i // 2) % 2], axis=1).astype(np.int64)
    return (0.5 * i).reshape(N, 1).astype(np.float32)


def input_fn(tf, kind, keys=("x", "w")):
    def function():
        features = {key: value for key, value in _features().items() if key in keys}
        return tf.data.Dataset.from_tensor_slices((features, _labels(kind))).batch(4)
    return function


def serving_fn(tf):
    def function():
        x = tf.compat.v1.placeholder(tf.float32, [None, 1], name="x_input")
        w = tf.compat.v1.placeholder(tf.float32, [None, 1], name="w_input")
        return tf.estimator.export.ServingInputReceiver({"x": x, "w": w}, {"x": x, "w": w})
    return function


def _config(tf, tmp, **kwargs):
    return tf.estimator.RunConfig(model_dir=tmp, tf_random_seed=1, save_summary_steps=1000,
                                  log_step_count_steps=1000, **kwargs)


def model_fn(features, labels, mode, params):
    """A linear model from a constant start, trained by gradient descent."""
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    weight = tf.compat.v1.get_variable("w", [1, 1],
                                       initializer=tf.compat.v1.ones_initializer())
    predictions = tf.matmul(features["x"], weight) * params.get("scale", 1.0)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(
            mode, predictions={"y": predictions},
            export_outputs={"y": tf.estimator.export.PredictOutput({"y": predictions})})
    loss = tf.reduce_mean(tf.square(predictions - labels))
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                      predictions={"y": predictions})


def _tpu_model_fn(features, labels, mode, params):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    del params
    weight = tf.compat.v1.get_variable("w", [1, 1],
                                       initializer=tf.compat.v1.ones_initializer())
    predictions = tf.matmul(features["x"], weight)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.compat.v1.estimator.tpu.TPUEstimatorSpec(
            mode, predictions={"y": predictions})
    loss = tf.reduce_mean(tf.square(predictions - labels))
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.compat.v1.estimator.tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train_op)


# --------------------------------------------------------------------- read programs


READ_PROGRAMS = {}


def _x(tf):
    return [tf.feature_column.numeric_column("x")]


def _canned(name, api, cls_name, labels, **kwargs):
    def build(tf, tmp):
        module = tf.estimator if api == "v2" else tf.compat.v1.estimator
        arguments = {key: value(tf) if callable(value) else value
                     for key, value in kwargs.items()}
        # One feature for the baselines: the original's v2 ones fail to train on several
        # ("the iterator has not been initialized"; tests/data/README.md).
        keys = ("x",) if cls_name.startswith("Baseline") else ("x", "w")
        return getattr(module, cls_name)(config=_config(tf, tmp), **arguments), labels, keys
    READ_PROGRAMS[name] = build


for _api in ("v2", "v1"):
    _canned(f"dnn_classifier_{_api}", _api, "DNNClassifier", "binary",
            feature_columns=_x, hidden_units=[3])
    _canned(f"dnn_regressor_{_api}", _api, "DNNRegressor", "regression",
            feature_columns=_x, hidden_units=[3])
    _canned(f"linear_classifier_{_api}", _api, "LinearClassifier", "binary",
            feature_columns=_x)
    _canned(f"linear_regressor_{_api}", _api, "LinearRegressor", "regression",
            feature_columns=_x)
    _canned(f"combined_classifier_{_api}", _api, "DNNLinearCombinedClassifier", "binary",
            linear_feature_columns=_x, dnn_feature_columns=_x, dnn_hidden_units=[3])
    _canned(f"baseline_classifier_{_api}", _api, "BaselineClassifier", "binary")
    _canned(f"baseline_regressor_{_api}", _api, "BaselineRegressor", "regression")

_HEADS = {"binary": ("BinaryClassHead", {}), "multi": ("MultiClassHead", {"n_classes": 3}),
          "regression": ("RegressionHead", {}),
          "multilabel": ("MultiLabelHead", {"n_classes": 2})}

for _kind, (_head, _head_args) in _HEADS.items():
    _canned(f"dnn_estimator_{_head}", "v2", "DNNEstimator", _kind, feature_columns=_x,
            hidden_units=[3],
            head=lambda tf, _h=_head, _a=_head_args: getattr(tf.estimator, _h)(**_a))


def _plain_estimator(tf, tmp):
    return tf.estimator.Estimator(model_fn, config=_config(tf, tmp), params={"scale": 1.0}), \
        "regression", ("x", "w")


def _tpu_estimator(tf, tmp):
    tpu = tf.compat.v1.estimator.tpu
    config = tpu.RunConfig(model_dir=tmp, tf_random_seed=1, save_summary_steps=1000,
                           tpu_config=tpu.TPUConfig(iterations_per_loop=1))
    return tpu.TPUEstimator(model_fn=_tpu_model_fn, config=config, use_tpu=False,
                            train_batch_size=4, eval_batch_size=4,
                            predict_batch_size=4), "regression", ("x", "w")


READ_PROGRAMS["estimator"] = _plain_estimator
READ_PROGRAMS["tpu_estimator"] = _tpu_estimator


def run_read_program(name, tf, tmp, bases, descriptors=False):
    """The reads of program `name`'s train, evaluate, predict and export_saved_model."""
    estimator, kind, keys = READ_PROGRAMS[name](tf, tmp)
    fn = input_fn(tf, kind, keys)
    if name == "tpu_estimator":
        plain = fn
        fn = lambda params: plain()  # noqa: E731  TPUEstimator passes params
    with Recorder(bases, descriptors) as recorder:
        estimator.train(fn, steps=STEPS)
        estimator.evaluate(fn, steps=1)
        list(estimator.predict(fn))
        estimator.export_saved_model(os.path.join(tmp, "export"), serving_fn(tf))
    return recorder.table()


def head_calls(tf, bases, descriptors=False):
    """The reads of each v2 head's public methods, called directly in a graph."""
    tables = []
    for kind, (head_name, head_args) in sorted(_HEADS.items()):
        head = getattr(tf.estimator, head_name)(**head_args)
        with tf.Graph().as_default():
            features = {key: tf.constant(value) for key, value in _features().items()}
            labels = tf.constant(_labels(kind))
            logits = tf.zeros([N, head.logits_dimension])
            with Recorder(bases, descriptors) as recorder:
                head.loss(labels, logits, features=features,
                          mode=tf.estimator.ModeKeys.EVAL)
                head.predictions(logits)
                metrics = head.metrics()
                head.update_metrics(metrics, features, logits, labels)
                head.create_estimator_spec(features, tf.estimator.ModeKeys.EVAL, logits,
                                           labels=labels)
                head.create_estimator_spec(features, tf.estimator.ModeKeys.PREDICT, logits)
            tables += [[f"head_{head_name}"] + row for row in recorder.table()]
    return tables


# ------------------------------------------------------------------- effect programs


EFFECT_PROGRAMS = {}


def effect(function):
    EFFECT_PROGRAMS[function.__name__] = function
    return function


def _round(value):
    return float(np.round(float(value), 5))


def _regularized(tf, model, calls, weight=0.5):
    """`model` wrapped as regularization libraries do: the spec's loss plus an L2 term."""
    def wrapped(features, labels, mode, params, config):
        import inspect  # pylint: disable=import-outside-toplevel
        args = inspect.signature(model).parameters
        kwargs = {k: v for k, v in dict(params=params, config=config).items() if k in args}
        spec = model(features, labels, mode, **kwargs)
        calls.append(mode)
        if spec.loss is None:
            return spec
        term = weight * tf.add_n([tf.reduce_sum(tf.square(v))
                                  for v in tf.compat.v1.trainable_variables()])
        return spec._replace(loss=spec.loss + term)
    return wrapped


def _model_fn_effect(tf, estimator, kind, tmp):
    fn = input_fn(tf, kind)
    estimator.train(fn, steps=STEPS)
    plain = estimator.evaluate(fn, steps=1)["loss"]
    calls = []
    estimator._model_fn = _regularized(tf, estimator._model_fn, calls)  # pylint: disable=protected-access
    wrapped = estimator.evaluate(fn, steps=1)["loss"]
    estimator.train(fn, steps=1)
    list(estimator.predict(fn))
    estimator.export_saved_model(os.path.join(tmp, "export"), serving_fn(tf))
    return {"modes": [str(mode) for mode in calls], "eval_loss": _round(plain),
            "eval_loss_wrapped": _round(wrapped)}


@effect
def estimator_model_fn(tf, tmp):
    estimator, kind, _ = _plain_estimator(tf, tmp)
    return _model_fn_effect(tf, estimator, kind, tmp)


@effect
def linear_regressor_v2_model_fn(tf, tmp):
    estimator = tf.estimator.LinearRegressor(_x(tf), config=_config(tf, tmp))
    return _model_fn_effect(tf, estimator, "regression", tmp)


@effect
def linear_regressor_v1_model_fn(tf, tmp):
    estimator = tf.compat.v1.estimator.LinearRegressor(_x(tf), config=_config(tf, tmp))
    return _model_fn_effect(tf, estimator, "regression", tmp)


@effect
def dnn_classifier_v2_model_fn(tf, tmp):
    estimator = tf.estimator.DNNClassifier([3], _x(tf), config=_config(tf, tmp))
    result = _model_fn_effect(tf, estimator, "binary", tmp)
    return {"modes": result["modes"]}  # random start: the modes only


@effect
def estimator_params(tf, tmp):
    estimator, kind, _ = _plain_estimator(tf, tmp)
    fn = input_fn(tf, kind)
    estimator.train(fn, steps=STEPS)
    before = [_round(p["y"][0]) for p in estimator.predict(fn)]
    estimator._params = {"scale": 3.0}  # pylint: disable=protected-access
    after = [_round(p["y"][0]) for p in estimator.predict(fn)]
    return {"before": before, "after": after}


@effect
def estimator_config(tf, tmp):
    estimator, kind, _ = _plain_estimator(tf, tmp)
    seen = []

    def seeing(features, labels, mode, params, config):
        seen.append(config.tf_random_seed)
        return model_fn(features, labels, mode, params)

    estimator._model_fn = seeing  # pylint: disable=protected-access
    estimator._config = estimator._config.replace(tf_random_seed=77)  # pylint: disable=protected-access
    estimator.train(input_fn(tf, kind), steps=1)
    return {"seeds": seen}


@effect
def estimator_warm_start_settings(tf, tmp):
    source, kind, _ = _plain_estimator(tf, os.path.join(tmp, "source"))
    fn = input_fn(tf, kind)
    source.train(fn, steps=STEPS)
    fresh, _, _ = _plain_estimator(tf, os.path.join(tmp, "fresh"))
    fresh._warm_start_settings = tf.estimator.WarmStartSettings(  # pylint: disable=protected-access
        source.model_dir, vars_to_warm_start="w")
    return {"source": [_round(p["y"][0]) for p in source.predict(fn)],
            "fresh": [_round(p["y"][0]) for p in fresh.predict(fn)]}


def _outcome(run):
    try:
        return {"result": run()}
    except Exception as error:  # pylint: disable=broad-except  (what we record)
        return {"error": type(error).__name__}


@effect
def estimator_device_fn(tf, tmp):
    estimator, kind, _ = _plain_estimator(tf, tmp)
    placed = []

    def device_fn(op):
        placed.append(op.type)
        return "/cpu:0"

    estimator._device_fn = device_fn  # pylint: disable=protected-access

    def run():
        estimator.train(input_fn(tf, kind), steps=1)
        return {"placed_variable": "VarHandleOp" in placed or "VariableV2" in placed}
    return _outcome(run)


def _strategy_effect(tf, tmp, attribute, call):
    estimator, kind, _ = _plain_estimator(tf, tmp)
    seen = []

    def seeing(features, labels, mode, params):
        seen.append(tf.distribute.has_strategy())
        return model_fn(features, labels, mode, params)

    estimator._model_fn = seeing  # pylint: disable=protected-access
    estimator.train(input_fn(tf, kind), steps=1)
    setattr(estimator, attribute, tf.distribute.OneDeviceStrategy("/cpu:0"))
    del seen[:]

    def run():
        call(estimator, input_fn(tf, kind))
        return {"model_fn_under_strategy": seen[-1]}
    return _outcome(run)


@effect
def estimator_train_distribution(tf, tmp):
    return _strategy_effect(tf, tmp, "_train_distribution",
                            lambda est, fn: est.train(fn, steps=1))


@effect
def estimator_eval_distribution(tf, tmp):
    return _strategy_effect(tf, tmp, "_eval_distribution",
                            lambda est, fn: est.evaluate(fn, steps=1))


def _head_effect(tf, tmp, head_name, head_args, kind, attribute, value):
    head = getattr(tf.estimator, head_name)(**head_args)
    estimator = tf.estimator.LinearEstimator(head, _x(tf), config=_config(tf, tmp))
    fn = input_fn(tf, kind)
    estimator.train(fn, steps=STEPS)
    plain = estimator.evaluate(fn, steps=1)
    setattr(head, attribute, value)

    def run():
        replaced = estimator.evaluate(fn, steps=1)
        return {"plain": {k: _round(v) for k, v in sorted(plain.items())},
                "replaced": {k: _round(v) for k, v in sorted(replaced.items())}}
    return _outcome(run)


@effect
def binary_head_weight_column(tf, tmp):
    return _head_effect(tf, tmp, "BinaryClassHead", {}, "binary", "_weight_column", "w")


@effect
def binary_head_name(tf, tmp):
    return _head_effect(tf, tmp, "BinaryClassHead", {}, "binary", "_name", "renamed")


@effect
def binary_head_thresholds(tf, tmp):
    return _head_effect(tf, tmp, "BinaryClassHead", {}, "binary", "_thresholds", (0.25,))


@effect
def binary_head_loss_reduction(tf, tmp):
    return _head_effect(tf, tmp, "BinaryClassHead", {}, "binary", "_loss_reduction",
                        tf.losses.Reduction.SUM)


@effect
def regression_head_weight_column(tf, tmp):
    return _head_effect(tf, tmp, "RegressionHead", {}, "regression", "_weight_column", "w")


@effect
def multi_class_head_weight_column(tf, tmp):
    return _head_effect(tf, tmp, "MultiClassHead", {"n_classes": 3}, "multi",
                        "_weight_column", "w")


@effect
def multi_label_head_name(tf, tmp):
    return _head_effect(tf, tmp, "MultiLabelHead", {"n_classes": 2}, "multilabel", "_name",
                        "renamed")
