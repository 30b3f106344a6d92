"""The original's `model_fn._TPUEstimatorSpec`: the spec the heads build first.

The heads (v1 and v2) build their spec as this simplified TPU spec, and their
`create_estimator_spec` converts it with `as_estimator_spec()`, as the original's
did: a subclass overriding only `_create_tpu_estimator_spec` is seen. Its metrics are
`eval_metrics = (metric_fn, tensors)`, called by keyword when converted.
`tpu.TPUEstimatorSpec` subclasses it (host calls, scaffold_fn).
"""

import collections

from tensorflow.python.saved_model.model_utils import export_utils

from estimator_lib.core import model_fn
from estimator_lib.core.model_fn import EstimatorSpec
from estimator_lib.core.model_fn import ModeKeys
from estimator_lib.core.model_fn import check_hooks

_FIELDS = [
    "mode", "predictions", "loss", "train_op", "eval_metrics", "export_outputs",
    "scaffold_fn", "host_call", "training_hooks", "evaluation_hooks", "prediction_hooks"]


class TPUEstimatorSpecBase(collections.namedtuple("TPUEstimatorSpec", _FIELDS)):
    """Ops and objects of one mode, with the metrics as `(metric_fn, tensors)`.

    The fields are EstimatorSpec's, but `eval_metrics` (a `(metric_fn, tensor dict)`
    pair: `metric_fn(**tensors)` returns the eval metric ops), `scaffold_fn` and
    `host_call` (kept; the TPU subclass runs them). The loss, predictions, train op,
    export outputs and hooks are checked as EstimatorSpec checks them; the mode is kept
    as given.

    Raises:
        ValueError: If a field the mode needs is missing, or a tensor is out of place.
        TypeError: If a field has the wrong type (a hook that is not a `SessionRunHook`).
    """

    __slots__ = ()

    def __new__(cls, mode, predictions=None, loss=None, train_op=None, eval_metrics=None,
                export_outputs=None, scaffold_fn=None, host_call=None, training_hooks=None,
                evaluation_hooks=None, prediction_hooks=None):
        if train_op is None:
            if mode == ModeKeys.TRAIN:
                raise ValueError("Missing train_op: a spec in TRAIN mode needs it.")
        else:
            train_op = model_fn.as_tensor_or_op(train_op, "train_op")
            model_fn.check_graph(train_op, "train_op")
        loss = model_fn.check_loss(loss, mode)
        predictions = model_fn.check_predictions(predictions, mode)
        if mode == ModeKeys.PREDICT:
            export_outputs = export_utils.get_export_outputs(export_outputs, predictions)
        return super().__new__(
            cls, mode=mode, predictions=predictions, loss=loss, train_op=train_op,
            eval_metrics=eval_metrics, export_outputs=export_outputs,
            scaffold_fn=scaffold_fn, host_call=host_call,
            training_hooks=check_hooks(training_hooks, "training_hooks"),
            evaluation_hooks=check_hooks(evaluation_hooks, "evaluation_hooks"),
            prediction_hooks=check_hooks(prediction_hooks, "prediction_hooks"))

    def as_estimator_spec(self) -> EstimatorSpec:
        """Returns the equivalent EstimatorSpec: `metric_fn(**tensors)` become its metric ops."""
        eval_metric_ops = None
        if self.eval_metrics:
            metric_fn, tensors = self.eval_metrics
            eval_metric_ops = metric_fn(**tensors)
        return EstimatorSpec(
            mode=self.mode, predictions=self.predictions, loss=self.loss,
            train_op=self.train_op, eval_metric_ops=eval_metric_ops,
            export_outputs=self.export_outputs, training_hooks=self.training_hooks,
            evaluation_hooks=self.evaluation_hooks, prediction_hooks=self.prediction_hooks)
