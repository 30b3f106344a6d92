"""TPUEstimatorSpec: what a TPUEstimator model_fn returns, and its CPU/GPU form.

On CPUs and GPUs the original ran `eval_metrics` and `host_call` in the same graph
as the model (no outfeed): the functions are called on the tensors as given, the
metric ops become `eval_metric_ops`, and the host call's ops run with every step.
"""

import tensorflow as tf
from tensorflow.python.util import function_utils
from tensorflow.python.util import tf_inspect

from estimator_lib.core.model_fn import EstimatorSpec
from estimator_lib.core.tpu_spec import TPUEstimatorSpecBase

# Graph collection holding the initializers of tf.summary (v2) writers made in a graph.
_SUMMARY_WRITER_INIT_COLLECTION = "_SUMMARY_WRITER_V2"


def validate_host_calls(host_calls: dict) -> None:
    """Checks `{name: (fn, tensors)}` as the original did (same errors and messages)."""
    for name, host_call in host_calls.items():
        if not isinstance(host_call, (tuple, list)):
            raise ValueError(f"{name} should be tuple or list")
        if len(host_call) != 2:
            raise ValueError(f"{name} should have two elements.")
        fn, tensors = host_call
        if not callable(fn):
            raise TypeError(f"{name}[0] should be callable.")
        if not isinstance(tensors, (tuple, list, dict)):
            raise ValueError(f"{name}[1] should be tuple or list, or dict.")
        if isinstance(tensors, (tuple, list)):
            varargs = tf_inspect.getfullargspec(fn).varargs
            num_args = len(function_utils.fn_args(fn))
            if varargs is None and len(tensors) != num_args:
                raise RuntimeError(
                    f"In TPUEstimatorSpec.{name}, length of tensors {len(tensors)} does not "
                    f"match method args of the function, which takes {num_args}.")


def call_host_fns(host_calls: dict) -> dict:
    """Calls each `fn(*tensors)` / `fn(**tensors)` in the current graph; {name: result}."""
    validate_host_calls(host_calls)
    results = {}
    for name, (fn, tensors) in host_calls.items():
        if isinstance(tensors, dict):
            try:
                results[name] = fn(**tensors)
            except TypeError as e:
                tf.compat.v1.logging.warning(
                    "Exception while calling %s: %s. It is likely the tensors (%s[1]) do "
                    "not match the function's arguments", name, e, name)
                raise
        else:
            results[name] = fn(*tensors)
    return results


class HostCallHook(tf.compat.v1.train.SessionRunHook):
    """Runs a host call's ops with every step; opens and flushes tf.summary writers.

    The host call usually writes summaries through a `tf.summary.create_file_writer`
    made in the graph: the writers are initialised when the session starts and
    flushed when it ends, as the original's hook did.
    """

    def __init__(self, fetches):
        self._fetches = fetches
        self._init_ops = []
        self._flush_ops = []

    def begin(self):
        """Finds the graph's summary-writer initializers, and builds a flush op for each writer."""
        self._init_ops = tf.compat.v1.get_collection(_SUMMARY_WRITER_INIT_COLLECTION)
        # Each initializer's first input is the writer resource it creates.
        self._flush_ops = [tf.raw_ops.FlushSummaryWriter(writer=op.inputs[0])
                           for op in self._init_ops]

    def after_create_session(self, session, coord):
        """Initialises the summary writers in the new session.

        Args:
            session: The session just created.
            coord: The session's coordinator (unused).
        """
        del coord
        session.run(self._init_ops)

    def before_run(self, run_context):
        """Runs the host call's ops with the step.

        Args:
            run_context: The `SessionRunContext` of the run (unused).

        Returns:
            `SessionRunArgs` fetching the host call's ops.
        """
        del run_context
        return tf.compat.v1.train.SessionRunArgs(self._fetches)

    def end(self, session):
        """Flushes the summary writers.

        Args:
            session: The session about to close.
        """
        session.run(self._flush_ops)


class TPUEstimatorSpec(TPUEstimatorSpecBase):
    """Ops and objects a TPUEstimator `model_fn` returns (tf.compat.v1.estimator.tpu).

    `mode`, `predictions`, `loss`, `train_op` and `export_outputs` are as in
    EstimatorSpec. `eval_metrics` is `(metric_fn, tensors)`, `tensors` a list (passed
    positionally) or dict (passed by keyword); `metric_fn` returns
    `{name: (value_op, update_op)}`. `host_call` is `(fn, tensors)` likewise; its
    returned ops run with every step. `scaffold_fn` returns a Scaffold; it is called
    after the model_fn, so `init_from_checkpoint` inside it sees the model's variables.
    As the original's, a subclass of `model_fn._TPUEstimatorSpec` (core/tpu_spec.py).

    Examples:
        What a TPUEstimator's model_fn returns; `as_estimator_spec()` is the
        EstimatorSpec it stands for:

        >>> import tensorflow as tf
        >>> from estimator_lib import tpu
        >>> with tf.Graph().as_default():
        ...     loss = tf.constant(1.0)
        ...     spec = tpu.TPUEstimatorSpec(mode="train", loss=loss, train_op=tf.no_op())
        ...     estimator_spec = spec.as_estimator_spec()
        >>> type(estimator_spec).__name__, estimator_spec.loss is loss
        ('EstimatorSpec', True)
    """

    __slots__ = ()

    def __new__(cls, mode, predictions=None, loss=None, train_op=None, eval_metrics=None,
                export_outputs=None, scaffold_fn=None, host_call=None, training_hooks=None,
                evaluation_hooks=None, prediction_hooks=None):
        host_calls = {}
        if eval_metrics is not None:
            host_calls["eval_metrics"] = eval_metrics
        if host_call is not None:
            host_calls["host_call"] = host_call
        validate_host_calls(host_calls)
        training_hooks = tuple(training_hooks or [])
        evaluation_hooks = tuple(evaluation_hooks or [])
        prediction_hooks = tuple(prediction_hooks or [])
        for hook in training_hooks + evaluation_hooks + prediction_hooks:
            if not isinstance(hook, tf.compat.v1.train.SessionRunHook):
                raise TypeError(f"All hooks must be SessionRunHook instances, given: {hook}")
        return super().__new__(
            cls, mode=mode, predictions=predictions, loss=loss, train_op=train_op,
            eval_metrics=eval_metrics, export_outputs=export_outputs, scaffold_fn=scaffold_fn,
            host_call=host_call, training_hooks=training_hooks,
            evaluation_hooks=evaluation_hooks, prediction_hooks=prediction_hooks)

    def as_estimator_spec(self) -> EstimatorSpec:
        """Returns the equivalent EstimatorSpec, as TPUEstimator builds it on CPUs and GPUs.

        Calls `eval_metrics`' and `host_call`'s functions, then `scaffold_fn`, in the
        current graph; the host call's ops run in a hook in every mode.
        """
        host_calls = {}
        if self.eval_metrics is not None:
            host_calls["eval_metrics"] = self.eval_metrics
        if self.host_call is not None:
            host_calls["host_call"] = self.host_call
        results = call_host_fns(host_calls)
        hooks = ()
        if self.host_call is not None:
            hooks = (HostCallHook(results["host_call"]),)
        scaffold = self.scaffold_fn() if self.scaffold_fn else None
        return EstimatorSpec(
            mode=self.mode, predictions=self.predictions, loss=self.loss,
            train_op=self.train_op, eval_metric_ops=results.get("eval_metrics"),
            export_outputs=self.export_outputs, scaffold=scaffold,
            training_hooks=self.training_hooks + hooks,
            evaluation_hooks=self.evaluation_hooks + hooks,
            prediction_hooks=self.prediction_hooks + hooks)
