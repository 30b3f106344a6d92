"""Regression heads: mean squared error, Poisson, and logistic regression."""

from typing import Callable, Optional

import tensorflow as tf

from estimator_lib.head import arguments
from estimator_lib.head import base_head
from estimator_lib.head import checks
from estimator_lib.head import fixed_keys
from estimator_lib.head import outputs
from estimator_lib.head.metric_keys import MetricKeys
from estimator_lib.head.prediction_keys import PredictionKeys


class RegressionHead(base_head.SingleHead):
    """A head for regression: logits [D0, ... DN, label_dimension], squared error loss.

    Labels are float [D0, ... DN, label_dimension] (or [D0, ... DN] when
    label_dimension is 1). Weights may also be per label dimension.

    Deliberate difference 17: string labels are a ValueError asking for numbers.

    Args:
        label_dimension: Number of regression targets per example, >= 1.
        weight_column: Feature name or `numeric_column` of the example weights.
        loss_reduction: A `tf.losses.Reduction` other than NONE.
        loss_fn: Optional `loss_fn(labels, logits[, features, loss_reduction])`
            returning the unweighted loss [D0, ... DN, label_dimension].
        inverse_link_fn: Optional function logits -> predictions (e.g. tf.exp); the
            predictions then also carry the logits.
        name: Suffix of the metric and summary keys, and the head's name scope.

    Examples:
        The loss of two examples (the mean squared error) and the prediction:

        >>> import numpy as np
        >>> import estimator_lib
        >>> head = estimator_lib.RegressionHead()
        >>> logits = np.array([[1.5], [2.5]], np.float32)
        >>> float(head.loss(labels=np.array([[1.0], [2.0]], np.float32), logits=logits))
        0.25
        >>> sorted(head.predictions(logits))
        ['predictions']
    """

    def __init__(self, label_dimension: int = 1, weight_column=None,
                 loss_reduction: str = tf.losses.Reduction.SUM_OVER_BATCH_SIZE,
                 loss_fn: Optional[Callable] = None,
                 inverse_link_fn: Optional[Callable] = None, name: Optional[str] = None):
        if label_dimension < 1:
            raise ValueError(
                f"Invalid label_dimension {label_dimension}. It must be >= 1.")
        arguments.validate_loss_reduction(loss_reduction)
        if loss_fn:
            arguments.validate_loss_fn_args(loss_fn)
        self._logits_dimension = label_dimension
        self._weight_column = weight_column
        self._loss_reduction = loss_reduction
        self._loss_fn = loss_fn
        self._inverse_link_fn = inverse_link_fn
        self._name = name
        # The metric keys, fixed now from `name`, as the original's (head/fixed_keys.py).
        fixed_keys.keep(self, MetricKeys.LOSS_MEAN, MetricKeys.PREDICTION_MEAN,
                        MetricKeys.LABEL_MEAN)

    @property
    def logits_dimension(self):
        """The `label_dimension` given at construction: one logit per label value."""
        return self._logits_dimension

    def _processed_labels(self, logits, labels):
        labels = checks.check_dense_labels_match_logits_and_reshape(
            labels=labels, logits=logits, expected_labels_dimension=self._logits_dimension)
        if labels.dtype == tf.string:
            raise ValueError(
                "Regression labels must be numeric. Received string labels; parse them "
                "to floats in the input_fn.")
        return tf.cast(labels, tf.float32)

    def _unweighted_loss_and_weights(self, logits, labels, features):
        if self._loss_fn:
            unweighted_loss = arguments.call_loss_fn(
                loss_fn=self._loss_fn, labels=labels, logits=logits, features=features,
                expected_loss_dim=self._logits_dimension)
        else:
            unweighted_loss = tf.compat.v1.losses.mean_squared_error(
                labels=labels, predictions=logits,
                reduction=tf.compat.v1.losses.Reduction.NONE)
        weights = checks.get_weights_and_check_match_logits(
            features=features, weight_column=self._weight_column, logits=logits,
            allow_per_logit_weights=True)
        return unweighted_loss, weights

    def predictions(self, logits):
        """Returns {'predictions'} (and 'logits' when there is an inverse link)."""
        logits = checks.check_logits_final_dim(logits, self._logits_dimension)
        with tf.name_scope("predictions"):
            if self._inverse_link_fn:
                return {PredictionKeys.PREDICTIONS: self._inverse_link_fn(logits),
                        PredictionKeys.LOGITS: logits}
            return {PredictionKeys.PREDICTIONS: logits}

    def metrics(self, regularization_losses=None):
        """Returns fresh metric objects: average_loss, prediction/mean, label/mean."""
        key = self._metric_key
        mean = tf.keras.metrics.Mean
        with tf.name_scope("metrics"):
            eval_metrics = {
                key(MetricKeys.LOSS_MEAN): mean(name=MetricKeys.LOSS_MEAN),
                key(MetricKeys.PREDICTION_MEAN): mean(name=MetricKeys.PREDICTION_MEAN),
                key(MetricKeys.LABEL_MEAN): mean(name=MetricKeys.LABEL_MEAN),
            }
            self._add_regularization_metric(eval_metrics, regularization_losses)
        return eval_metrics

    def update_metrics(self, eval_metrics, features, logits, labels,
                       regularization_losses=None):
        """Updates `eval_metrics` (from `metrics()`) with one batch; returns them.

        Args:
            eval_metrics: The dict of metric objects that `metrics()` returned.
            features: The dict of feature tensors; the example weights are read from it.
            logits: The logits tensor, shaped `[D0, ... DN, logits_dimension]` (for `MultiHead`,
                a dict of head name to logits, or their concatenation).
            labels: The labels tensor, its shape matching the logits' but the last dimension
                (for `MultiHead`, a dict of head name to labels).
            regularization_losses: Regularization loss tensors added to the loss (and reported
                as the `regularization_loss` metric), or None.

        Returns:
            `eval_metrics`, each metric updated with this batch.
        """
        predicted_value = self.predictions(logits)[PredictionKeys.PREDICTIONS]
        logits, processed_labels, unweighted_loss, weights = self._labels_loss_and_weights(
            logits, labels, features)
        key = self._metric_key
        eval_metrics[key(MetricKeys.LOSS_MEAN)].update_state(
            values=unweighted_loss, sample_weight=weights)
        eval_metrics[key(MetricKeys.LABEL_MEAN)].update_state(
            values=processed_labels, sample_weight=weights)
        base_head.update_metric_with_broadcast_weights(
            eval_metrics[key(MetricKeys.PREDICTION_MEAN)], predicted_value, weights)
        self._update_regularization_metric(eval_metrics, regularization_losses)
        return eval_metrics

    def _export_outputs(self, predictions):
        """'serving_default' and 'regression' (the predictions; a RegressionOutput,
        which serves one value per example) and 'predict'."""
        return outputs.regression_export_outputs(
            predictions[PredictionKeys.PREDICTIONS], predictions)


class PoissonRegressionHead(RegressionHead):
    """Regression of counts: loss `tf.nn.log_poisson_loss`, predictions exp(logits).

    Args:
        compute_full_loss: Whether the loss adds the Stirling term (constant in the
            logits); see `tf.nn.log_poisson_loss`.
        The others as in RegressionHead.

    Examples:
        >>> import numpy as np
        >>> import estimator_lib
        >>> head = estimator_lib.PoissonRegressionHead()
        >>> logits = np.array([[0.0], [0.7]], np.float32)
        >>> round(float(head.loss(labels=np.array([[1.0], [2.0]], np.float32), logits=logits)), 4)
        1.1328
        >>> [round(float(p), 4) for p in head.predictions(logits)["predictions"][:, 0]]  # exp(logits)
        [1.0, 2.0138]
    """

    def __init__(self, label_dimension: int = 1, weight_column=None,
                 loss_reduction: str = tf.losses.Reduction.SUM_OVER_BATCH_SIZE,
                 compute_full_loss: bool = True, name: Optional[str] = None):
        self._compute_full_loss = compute_full_loss
        super().__init__(label_dimension=label_dimension, weight_column=weight_column,
                         loss_reduction=loss_reduction, loss_fn=self._poisson_loss,
                         inverse_link_fn=tf.math.exp, name=name)

    def _poisson_loss(self, labels, logits):
        return tf.nn.log_poisson_loss(targets=labels, log_input=logits,
                                      compute_full_loss=self._compute_full_loss)


class LogisticRegressionHead(RegressionHead):
    """Regression of values in [0, 1]: sigmoid cross-entropy, predictions sigmoid(logits).

    Args:
        weight_column: A feature key, or a numeric column, giving per-example weights;
            None weighs all examples 1.
        loss_reduction: How the per-example losses are reduced over the batch (a
            `tf.losses.Reduction`, not NONE).
        name: The head's name, suffixed to its metric and summary keys; None for none.

    Raises:
        ValueError: If `loss_reduction` is invalid; when the loss is computed, if a
            label is outside [0, 1].

    Examples:
        >>> import numpy as np
        >>> import estimator_lib
        >>> head = estimator_lib.LogisticRegressionHead()
        >>> logits = np.array([[-1.0], [2.0]], np.float32)
        >>> round(float(head.loss(labels=np.array([[0.2], [0.9]], np.float32), logits=logits)), 4)
        0.4201
        >>> [round(float(p), 4) for p in head.predictions(logits)["predictions"][:, 0]]  # sigmoid
        [0.2689, 0.8808]
    """

    def __init__(self, weight_column=None,
                 loss_reduction: str = tf.losses.Reduction.SUM_OVER_BATCH_SIZE,
                 name: Optional[str] = None):
        super().__init__(label_dimension=1, weight_column=weight_column,
                         loss_reduction=loss_reduction, loss_fn=self._logistic_loss,
                         inverse_link_fn=tf.math.sigmoid, name=name)

    def _logistic_loss(self, labels, logits):
        labels = checks.check_label_range(labels, n_classes=2,
                                          message="Labels must be in range [0, 1]")
        return tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
