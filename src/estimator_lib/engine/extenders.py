"""add_metrics: extra evaluation metrics for an existing Estimator."""

from typing import Callable

from tensorflow.python.util import function_utils

from estimator_lib.engine.estimator import Estimator
from estimator_lib.core.model_fn import ModeKeys

_METRIC_FN_ARGS = ("features", "labels", "predictions", "config")
_VALID_METRIC_FN_ARGS = set(_METRIC_FN_ARGS)  # The original's name.


def _verify_metric_fn_args(metric_fn):
    """ValueError naming `metric_fn`'s arguments other than features, labels,
    predictions and config."""
    unexpected = set(function_utils.fn_args(metric_fn)) - _VALID_METRIC_FN_ARGS
    if unexpected:
        raise ValueError(
            f"metric_fn ({metric_fn}) has following not expected args: {sorted(unexpected)}. "
            f"It may take only {list(_METRIC_FN_ARGS)}.")


def _call_metric_fn(metric_fn, features, labels, predictions, config):
    """Calls `metric_fn` with those of the four arguments it takes."""
    given = {"features": features, "labels": labels, "predictions": predictions,
             "config": config}
    return metric_fn(**{name: given[name] for name in function_utils.fn_args(metric_fn)
                        if name in given})


def add_metrics(estimator: Estimator, metric_fn: Callable) -> Estimator:
    """Returns an Estimator like `estimator` whose evaluation adds `metric_fn`'s metrics.

    Args:
        estimator: The Estimator to extend (same model_dir and config).
        metric_fn: Takes any of `features`, `labels`, `predictions`, `config` and
            returns a dict of metric name -> (value_op, update_op) or Keras Metric.
            Its metrics replace the model's own metrics of the same name.

    Returns:
        A new Estimator over the same model_dir and config.

    Examples:
        A mean absolute error added to a LinearRegressor's evaluation:

        >>> import tempfile
        >>> import numpy as np
        >>> import tensorflow as tf
        >>> import estimator_lib
        >>> def input_fn():
        ...     x = np.array([[0.0], [1.0], [2.0], [3.0]], np.float32)
        ...     dataset = tf.data.Dataset.from_tensor_slices(({"x": x}, 2.0 * x))
        ...     return dataset.repeat().batch(4)
        >>> est = estimator_lib.LinearRegressor([tf.feature_column.numeric_column("x")],
        ...                                     model_dir=tempfile.mkdtemp())
        >>> est = est.train(input_fn, steps=2)
        >>> def metric_fn(labels, predictions):
        ...     return {"mae": tf.compat.v1.metrics.mean_absolute_error(
        ...         labels, predictions["predictions"])}
        >>> metrics = estimator_lib.add_metrics(est, metric_fn).evaluate(input_fn, steps=1)
        >>> "mae" in metrics, "average_loss" in metrics
        (True, True)
    """
    _verify_metric_fn_args(metric_fn)
    model_fn = estimator.model_fn

    def model_fn_with_metrics(features, labels, mode, config):
        """The wrapped model_fn, with `metric_fn`'s metrics added in EVAL.

        Args:
            features: The features.
            labels: The labels, or None.
            mode: The `ModeKeys` mode.
            config: The RunConfig.
        """
        spec = model_fn(features, labels, mode, config)
        if mode != ModeKeys.EVAL:
            return spec
        metrics = dict(spec.eval_metric_ops)
        metrics.update(_call_metric_fn(metric_fn, features, labels, spec.predictions, config))
        return spec._replace(eval_metric_ops=metrics)

    return Estimator(model_fn=model_fn_with_metrics, config=estimator.config,
                     warm_start_from=estimator._warm_start_settings)  # pylint: disable=protected-access
