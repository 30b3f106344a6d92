"""EstimatorSpec, ModeKeys and the rules a model_fn must follow."""

import collections
from typing import Callable, Set

import tensorflow as tf
from tensorflow.python.saved_model.model_utils import export_utils
from tensorflow.python.saved_model.model_utils import mode_keys as _tf_mode_keys
from tensorflow.python.util import function_utils

# The very objects TensorFlow's own model utilities use, so that identity
# checks such as `mode is ModeKeys.TRAIN` (tf_keras relies on them) hold.
ModeKeys = _tf_mode_keys.EstimatorModeKeys

_VALID_MODES = (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT)
_MODEL_FN_ARGS = frozenset(["features", "labels", "mode", "params", "self", "config"])


def canonical_mode(mode: str) -> str:
    """Returns the ModeKeys constant equal to `mode` (so `is` comparisons work).

    None is kept, as the original kept it (a model_fn without a `mode` argument may
    return `EstimatorSpec(mode=None, ...)`; the Estimator then uses its own mode).
    """
    if mode is None:
        return None
    for valid in _VALID_MODES:
        if mode == valid:
            return valid
    raise ValueError(f"`mode` must be one of {list(_VALID_MODES)}. Received: mode={mode!r}.")


def model_fn_args(model_fn: Callable) -> Set[str]:
    """The argument names of `model_fn` (functools.partial aware)."""
    return set(function_utils.fn_args(model_fn))


def verify_model_fn_args(model_fn: Callable, params) -> None:
    """Checks `model_fn`'s signature against the Estimator contract."""
    args = model_fn_args(model_fn)
    if "features" not in args:
        raise ValueError(f"model_fn ({model_fn}) must include `features` argument.")
    if params is not None and "params" not in args:
        raise ValueError(
            f"model_fn ({model_fn}) does not include params argument, but params "
            f"({params}) is passed to Estimator.")
    if params is None and "params" in args:
        tf.compat.v1.logging.warning(
            "Estimator's model_fn (%s) includes params argument, but params are not "
            "passed to Estimator.", model_fn)
    unexpected = args - _MODEL_FN_ARGS
    if unexpected:
        raise ValueError(
            f"model_fn ({model_fn}) has following not expected args: {sorted(unexpected)}. "
            f"Allowed arguments: {sorted(_MODEL_FN_ARGS - {'self'})}.")


def as_tensor_or_op(value, name):
    """Returns `value` as a Tensor or Operation (a Variable's op); TypeError otherwise."""
    if isinstance(value, tf.Variable):
        return value.op
    if isinstance(value, (tf.Tensor, tf.Operation)):
        return value
    raise TypeError(f"{name} must be Operation or Tensor, given: {value!r} "
                    f"({type(value).__name__}).")


def check_graph(value, name):
    """Raises ValueError when `value` belongs to another graph than the default one."""
    graph = tf.compat.v1.get_default_graph()
    if getattr(value, "graph", graph) is not graph:
        raise ValueError(
            f"`{name}` must be from the default graph. Such Tensors and Operations are "
            "created inside model_fn; this one belongs to another graph "
            f"(received {value!r}).")


def _check_tensor(value, name):
    # A dense Tensor, as the original (a SparseTensor cannot be a loss or a prediction).
    if not isinstance(value, tf.Tensor):
        raise TypeError(f"{name} must be Tensor, given: {value!r} ({type(value).__name__}).")
    check_graph(value, name)


def check_loss(loss, mode):
    """Returns the loss as a scalar tensor; ValueError when missing in TRAIN/EVAL or not one."""
    if loss is None:
        if mode in (ModeKeys.TRAIN, ModeKeys.EVAL):
            raise ValueError(f"Missing loss: an EstimatorSpec in mode={mode!r} needs `loss`.")
        return None
    if isinstance(loss, tf.Variable):
        loss = loss.value()
    _check_tensor(loss, "loss")
    shape = loss.shape
    # As the original: any one-element shape ([1], [1, 1]) or one not fully known
    # ([None, 1]) is reshaped to a scalar; a known other size is refused.
    if shape.num_elements() not in (None, 1):
        raise ValueError(f"Loss must be scalar, given: {loss}")
    if not shape.is_compatible_with(tf.TensorShape([])):
        loss = tf.reshape(loss, [])
    return loss


def check_predictions(predictions, mode):
    """Returns the predictions ({} for None outside PREDICT), each checked to be a tensor."""
    if predictions is None:
        if mode == ModeKeys.PREDICT:
            raise ValueError("Missing predictions: an EstimatorSpec in PREDICT mode needs them.")
        return {}
    if isinstance(predictions, dict):
        for key, value in predictions.items():
            _check_tensor(value, f"predictions[{key}]")
        return predictions
    _check_tensor(predictions, "predictions")
    return predictions


def metric_value_and_update(metric, name):
    """Normalises an eval metric to a (value_op, update_op) pair."""
    if isinstance(metric, tuple) and len(metric) == 2:
        value, update = metric
        check_graph(value, f"eval_metric_ops[{name!r}]")
        check_graph(update, f"eval_metric_ops[{name!r}]")
        return metric
    if hasattr(metric, "result") and hasattr(metric, "update_state"):
        # A Keras Metric that was called in this graph: its update ops were
        # collected in `metric.updates`.
        updates = getattr(metric, "updates", None) or []
        if not updates:
            raise ValueError(
                f'Please call update_state(...) on the "{name}" metric inside model_fn: it '
                "has no update ops in this graph.")
        for update in updates:
            check_graph(update, f"eval_metric_ops[{name!r}]")
        # Keras metric variables belong to no collection; as local variables they are
        # initialised by the local init op, also when a checkpoint is restored.
        graph = tf.compat.v1.get_default_graph()
        for key in (tf.compat.v1.GraphKeys.LOCAL_VARIABLES,
                    tf.compat.v1.GraphKeys.METRIC_VARIABLES):
            known = {id(v) for v in graph.get_collection(key)}
            for variable in metric.variables:
                if id(variable) not in known:
                    graph.add_to_collection(key, variable)
        return metric.result(), tf.group(*updates)
    raise TypeError(
        f"Values of eval_metric_ops must be (metric_value, update_op) tuples or Keras "
        f"Metric objects. Received for {name!r}: {type(metric).__name__}.")


def check_hooks(hooks, argument: str, kind=tf.compat.v1.train.SessionRunHook,
                lead: str = "All hooks must be SessionRunHook instances") -> tuple:
    """Returns `hooks` as a tuple; a TypeError names any item that is not a `kind`.

    `lead` starts the message (the original's wording where it is called).

    Args:
        hooks: The hooks given (None, or an iterable).
        argument: The argument's name, for the message.
        kind: The class every item must be an instance of.
        lead: The message's first words.
    """
    hooks = tuple(hooks or ())
    for hook in hooks:
        if not isinstance(hook, kind):
            raise TypeError(
                f"{lead}, given: {hook!r} ({type(hook).__name__}) in `{argument}`.")
    return hooks


_SPEC_FIELDS = [
    "mode", "predictions", "loss", "train_op", "eval_metric_ops", "export_outputs",
    "training_chief_hooks", "training_hooks", "scaffold", "evaluation_hooks",
    "prediction_hooks"]


class EstimatorSpec(collections.namedtuple("EstimatorSpec", _SPEC_FIELDS)):
    """What a `model_fn` returns: the ops and objects an `Estimator` runs in one mode.

    A namedtuple with these fields, checked at construction. Which fields a mode needs:
    TRAIN needs `loss` and `train_op`; EVAL needs `loss`; PREDICT needs `predictions`.
    Fields a mode does not use may be given and are ignored by it.

    Deliberate difference 25: a mode that is not a `ModeKeys` value is refused here.

    Args:
        mode: A `ModeKeys` value (TRAIN, EVAL or PREDICT).
        predictions: A tensor or dict of tensors: the model's outputs.
        loss: A scalar tensor (or one of shape [1]): the training or evaluation loss.
        train_op: The op that runs one training step.
        eval_metric_ops: A dict of metric name to a `(value_op, update_op)` pair, or to
            a `tf.keras.metrics.Metric` (its update op is taken from its updates).
        export_outputs: A dict of signature name to `ExportOutput`, for
            `export_saved_model`. In PREDICT mode, None gives one default
            `PredictOutput` of `predictions`.
        training_chief_hooks: `SessionRunHook`s run on the chief only, when training.
        training_hooks: `SessionRunHook`s run on every worker, when training.
        scaffold: A `tf.compat.v1.train.Scaffold` (savers, init ops, summary op); None
            makes a default one.
        evaluation_hooks: `SessionRunHook`s run when evaluating.
        prediction_hooks: `SessionRunHook`s run when predicting.

    Raises:
        ValueError: If a field the mode needs is missing, `loss` is not a scalar,
            a tensor belongs to another graph, or a value has the wrong structure.
        TypeError: If a field has the wrong type (a hook that is not a
            `SessionRunHook`, a scaffold that is not a `Scaffold`, non-dict metrics).

    Examples:
        >>> with tf.Graph().as_default():
        ...     spec = EstimatorSpec(ModeKeys.PREDICT, predictions={"y": tf.constant([1.0])})
        >>> spec.mode, sorted(spec.predictions), spec.loss, list(spec.export_outputs)
        ('infer', ['y'], None, ['serving_default'])
        >>> with tf.Graph().as_default():
        ...     EstimatorSpec(ModeKeys.TRAIN, predictions={"y": tf.constant([1.0])})
        Traceback (most recent call last):
        ...
        ValueError: Missing loss: an EstimatorSpec in mode='train' needs `loss`.
    """

    def __new__(cls, mode, predictions=None, loss=None, train_op=None,
                eval_metric_ops=None, export_outputs=None, training_chief_hooks=None,
                training_hooks=None, scaffold=None, evaluation_hooks=None,
                prediction_hooks=None):
        mode = canonical_mode(mode)
        predictions = check_predictions(predictions, mode)
        loss = check_loss(loss, mode)

        if train_op is None:
            if mode == ModeKeys.TRAIN:
                raise ValueError("Missing train_op: an EstimatorSpec in TRAIN mode needs it.")
        else:
            train_op = as_tensor_or_op(train_op, "train_op")
            check_graph(train_op, "train_op")

        if eval_metric_ops is None:
            eval_metric_ops = {}
        if not isinstance(eval_metric_ops, dict):
            raise TypeError(
                f"eval_metric_ops must be a dict, given: {eval_metric_ops!r} "
                f"({type(eval_metric_ops).__name__}).")
        eval_metric_ops = {
            name: metric_value_and_update(metric, name)
            for name, metric in eval_metric_ops.items()}

        if mode == ModeKeys.PREDICT:
            export_outputs = export_utils.get_export_outputs(export_outputs, predictions)

        scaffold = scaffold or tf.compat.v1.train.Scaffold()
        if not isinstance(scaffold, tf.compat.v1.train.Scaffold):
            raise TypeError(
                f"scaffold must be tf.train.Scaffold. Given: {scaffold!r} "
                f"({type(scaffold).__name__}).")

        return super().__new__(
            cls, mode=mode, predictions=predictions, loss=loss, train_op=train_op,
            eval_metric_ops=eval_metric_ops, export_outputs=export_outputs,
            training_chief_hooks=check_hooks(training_chief_hooks, "training_chief_hooks"),
            training_hooks=check_hooks(training_hooks, "training_hooks"),
            scaffold=scaffold,
            evaluation_hooks=check_hooks(evaluation_hooks, "evaluation_hooks"),
            prediction_hooks=check_hooks(prediction_hooks, "prediction_hooks"))

    def _replace(self, **kwds):
        if "mode" in kwds and kwds["mode"] != self.mode:
            raise ValueError("mode of EstimatorSpec cannot be changed.")
        new_fields = dict(self._asdict(), **kwds)
        return EstimatorSpec(**new_fields)


def call_logit_fn(logit_fn: Callable, features, mode, params, config):
    """Calls `logit_fn(features, [mode], [params], [config])`, passing the arguments it names.

    `tf.estimator.experimental.call_logit_fn`: a helper for model_fns built from a
    logit function.

    Args:
        logit_fn: The function building the logits; it takes `features` and any of `mode`,
            `params`, `config`.
        features: The features passed on to `logit_fn`.
        mode: The `ModeKeys` mode, passed if `logit_fn` takes it.
        params: The params dict, passed if `logit_fn` takes it.
        config: The `RunConfig`, passed if `logit_fn` takes it.

    Returns:
        The logits: a Tensor, or a dict of string -> Tensor.

    Raises:
        ValueError: If the logit_fn returns anything else.

    Examples:
        Only the arguments the logit function names are passed:

        >>> import tensorflow as tf
        >>> import estimator_lib
        >>> def logit_fn(features, mode):
        ...     return features["x"] * (2.0 if mode == estimator_lib.ModeKeys.TRAIN else 1.0)
        >>> logits = estimator_lib.experimental.call_logit_fn(
        ...     logit_fn, {"x": tf.constant([1.5])}, estimator_lib.ModeKeys.TRAIN, params={},
        ...     config=None)
        >>> logits.numpy().tolist()
        [3.0]
    """
    args = set(function_utils.fn_args(logit_fn))
    kwargs = {name: value for name, value in
              (("mode", mode), ("params", params), ("config", config)) if name in args}
    logits = logit_fn(features=features, **kwargs)
    valid_dict = isinstance(logits, dict) and all(
        isinstance(k, str) and isinstance(v, tf.Tensor) for k, v in logits.items())
    if not (valid_dict or isinstance(logits, tf.Tensor)):
        raise ValueError("logit_fn should return a Tensor or a dictionary mapping strings to "
                         f"Tensors. logit_fn returned: {logits!r}")
    return logits
