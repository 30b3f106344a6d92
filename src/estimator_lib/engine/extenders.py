"""add_metrics: extra evaluation metrics for an existing Estimator."""

from typing import Callable

from tensorflow.python.util import function_utils

from estimator_lib.engine.estimator import Estimator
from estimator_lib.core.model_fn import ModeKeys

_METRIC_FN_ARGS = ("features", "labels", "predictions", "config")


def add_metrics(estimator: Estimator, metric_fn: Callable) -> Estimator:
    """Returns an Estimator like `estimator` whose evaluation adds `metric_fn`'s metrics.

    Args:
        estimator: The Estimator to extend (same model_dir and config).
        metric_fn: Takes any of `features`, `labels`, `predictions`, `config` and
            returns a dict of metric name -> (value_op, update_op) or Keras Metric.
            Its metrics replace the model's own metrics of the same name.
    """
    args = set(function_utils.fn_args(metric_fn))
    unexpected = args - set(_METRIC_FN_ARGS)
    if unexpected:
        raise ValueError(
            f"metric_fn ({metric_fn}) has following not expected args: {sorted(unexpected)}. "
            f"It may take only {list(_METRIC_FN_ARGS)}.")
    model_fn = estimator.model_fn

    def model_fn_with_metrics(features, labels, mode, config):
        spec = model_fn(features, labels, mode, config)
        if mode != ModeKeys.EVAL:
            return spec
        given = {"features": features, "labels": labels, "predictions": spec.predictions,
                 "config": config}
        metrics = dict(spec.eval_metric_ops)
        metrics.update(metric_fn(**{name: given[name] for name in args}))
        return spec._replace(eval_metric_ops=metrics)

    return Estimator(model_fn=model_fn_with_metrics, config=estimator.config,
                     warm_start_from=estimator._warm_start_settings)  # pylint: disable=protected-access
