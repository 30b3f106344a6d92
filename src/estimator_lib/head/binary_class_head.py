"""BinaryClassHead: single-label binary classification with a sigmoid cross-entropy loss."""

from typing import Callable, Iterable, Optional, Sequence

import tensorflow as tf

from estimator_lib.head import arguments
from estimator_lib.head import base_head
from estimator_lib.head import checks
from estimator_lib.head import fixed_keys
from estimator_lib.head import outputs
from estimator_lib.head.accuracy_baseline import AccuracyBaseline
from estimator_lib.head.metric_keys import MetricKeys
from estimator_lib.head.prediction_keys import PredictionKeys
from estimator_lib.head.vocabulary import check_label_vocabulary
from estimator_lib.head.vocabulary import LabelVocabularyOf

_VALID_KEYS = (PredictionKeys.LOGITS, PredictionKeys.LOGISTIC, PredictionKeys.PROBABILITIES,
               PredictionKeys.CLASS_IDS, PredictionKeys.CLASSES,
               PredictionKeys.ALL_CLASS_IDS, PredictionKeys.ALL_CLASSES)


def check_thresholds(thresholds: Optional[Iterable[float]]) -> tuple:
    """Returns `thresholds` as a tuple, each checked to lie in (0, 1).

    Raises:
        ValueError: If a threshold is <= 0 or >= 1.
    """
    thresholds = tuple(thresholds) if thresholds else ()
    for threshold in thresholds:
        if threshold <= 0.0 or threshold >= 1.0:
            raise ValueError(f"thresholds not in (0, 1): {(thresholds,)}.")
    return thresholds


class BinaryClassHead(base_head.SingleHead):
    """A head for binary classification: logits [D0, ... DN, 1], sigmoid cross-entropy.

    Labels are [D0, ... DN, 1] (or [D0, ... DN]): floats in [0, 1], or strings from
    `label_vocabulary` when it is given. The training loss is the weighted
    per-example loss reduced by `loss_reduction` (by default, summed and divided by
    the number of examples).

    Args:
        weight_column: Feature name or `numeric_column` of the example weights.
        thresholds: Floats in (0, 1); each adds accuracy, precision and recall
            metrics at that threshold on the logistic.
        label_vocabulary: List or tuple of the 2 label strings (id 0, id 1).
            Deliberate difference 17: wrong label types are a ValueError saying what works.
        loss_reduction: A `tf.losses.Reduction` other than NONE.
        loss_fn: Optional `loss_fn(labels, logits[, features, loss_reduction])`
            returning the unweighted loss [D0, ... DN, 1]; labels arrive as float ids.
        name: Suffix of the metric and summary keys, and the head's name scope.

    Examples:
        The loss of two examples, and what a prediction holds:

        >>> import numpy as np
        >>> import estimator_lib
        >>> head = estimator_lib.BinaryClassHead()
        >>> logits = np.array([[2.0], [-2.0]], np.float32)
        >>> round(float(head.loss(labels=np.array([[1], [0]]), logits=logits)), 4)
        0.1269
        >>> print(*sorted(head.predictions(logits)))
        all_class_ids all_classes class_ids classes logistic logits probabilities
    """

    _vocabulary = LabelVocabularyOf()  # follows `_label_vocabulary` (vocabulary.py)

    def __init__(self, weight_column=None, thresholds: Optional[Iterable[float]] = None,
                 label_vocabulary: Optional[Sequence[str]] = None,
                 loss_reduction: str = tf.losses.Reduction.SUM_OVER_BATCH_SIZE,
                 loss_fn: Optional[Callable] = None, name: Optional[str] = None):
        check_label_vocabulary(label_vocabulary)
        thresholds = check_thresholds(thresholds)
        arguments.validate_loss_reduction(loss_reduction)
        if loss_fn:
            arguments.validate_loss_fn_args(loss_fn)
        self._weight_column = weight_column
        self._thresholds = thresholds
        self._label_vocabulary = label_vocabulary
        self._loss_reduction = loss_reduction
        self._loss_fn = loss_fn
        self._name = name
        # The metric keys, fixed now from `name`, as the original's (head/fixed_keys.py).
        fixed_keys.keep(self, MetricKeys.LOSS_MEAN, MetricKeys.ACCURACY, MetricKeys.PRECISION,
                        MetricKeys.RECALL, MetricKeys.PREDICTION_MEAN, MetricKeys.LABEL_MEAN,
                        MetricKeys.ACCURACY_BASELINE, MetricKeys.AUC, MetricKeys.AUC_PR)
        fixed_keys.keep_thresholds(self, self._thresholds)

    @property
    def logits_dimension(self):
        """1: one logit per example, for the positive class."""
        return 1

    def _processed_labels(self, logits, labels):
        """Float label ids [D0, ... DN, 1], checked to lie in [0, 1]."""
        labels = checks.check_dense_labels_match_logits_and_reshape(
            labels=labels, logits=logits, expected_labels_dimension=1)
        if self._vocabulary is not None:
            if labels.dtype != tf.string:
                raise ValueError(
                    "Labels dtype should be string if there is a vocabulary. "
                    f"Instead got {labels.dtype}.")
            labels = self._vocabulary.ids(labels)
        elif labels.dtype == tf.string:
            raise ValueError(
                "Labels are strings but no label_vocabulary was given: pass "
                "label_vocabulary=[negative, positive], or feed labels in [0, 1].")
        labels = tf.cast(labels, tf.float32)
        return checks.check_label_range(labels, n_classes=2)

    def _unweighted_loss_and_weights(self, logits, labels, features):
        if self._loss_fn:
            unweighted_loss = arguments.call_loss_fn(
                loss_fn=self._loss_fn, labels=labels, logits=logits, features=features,
                expected_loss_dim=1)
        else:
            unweighted_loss = tf.nn.sigmoid_cross_entropy_with_logits(
                labels=labels, logits=logits)
        weights = checks.get_weights_and_check_match_logits(
            features=features, weight_column=self._weight_column, logits=logits)
        return unweighted_loss, weights

    def predictions(self, logits, keys=None):
        """Returns the predictions for `keys` (all of `_VALID_KEYS` when None).

        logistic is sigmoid(logits); probabilities the softmax of [0, logits];
        class_ids [D0, ... DN, 1] int64; classes their strings.
        """
        keys = arguments.requested_prediction_keys(keys, _VALID_KEYS)
        logits = checks.check_logits_final_dim(logits, self.logits_dimension)
        keys = set(keys)
        predictions = {}
        with tf.name_scope("predictions"):
            if PredictionKeys.LOGITS in keys:
                predictions[PredictionKeys.LOGITS] = logits
            if PredictionKeys.LOGISTIC in keys:
                predictions[PredictionKeys.LOGISTIC] = tf.sigmoid(
                    logits, name=PredictionKeys.LOGISTIC)
            two_class_logits = tf.concat((tf.zeros_like(logits), logits), axis=-1,
                                         name="two_class_logits")
            if PredictionKeys.PROBABILITIES in keys:
                predictions[PredictionKeys.PROBABILITIES] = tf.nn.softmax(
                    two_class_logits, name=PredictionKeys.PROBABILITIES)
            if keys & {PredictionKeys.CLASS_IDS, PredictionKeys.CLASSES}:
                class_ids = tf.expand_dims(
                    tf.argmax(two_class_logits, axis=-1, name=PredictionKeys.CLASS_IDS),
                    axis=-1)
                if PredictionKeys.CLASS_IDS in keys:
                    predictions[PredictionKeys.CLASS_IDS] = class_ids
                if PredictionKeys.CLASSES in keys:
                    predictions[PredictionKeys.CLASSES] = (
                        self._vocabulary.strings(class_ids) if self._vocabulary
                        else tf.strings.as_string(class_ids, name="str_classes"))
            if PredictionKeys.ALL_CLASS_IDS in keys:
                predictions[PredictionKeys.ALL_CLASS_IDS] = outputs.all_class_ids(logits, 2)
            if PredictionKeys.ALL_CLASSES in keys:
                predictions[PredictionKeys.ALL_CLASSES] = outputs.all_classes(
                    logits, 2, self._label_vocabulary)
        return predictions

    def _threshold_keys(self, template):
        # One key per threshold, fixed at construction (an IndexError where `_thresholds`
        # was replaced by a longer one, as the original's).
        keys = getattr(self, fixed_keys.THRESHOLD_ATTRIBUTES[template])
        return [keys[i] for i in range(len(self._thresholds))]

    def metrics(self, regularization_losses=None):
        """Returns fresh metric objects keyed as `evaluate` reports them."""
        metric = tf.keras.metrics
        key = self._metric_key
        with tf.name_scope("metrics"):
            label_mean = metric.Mean(name=MetricKeys.LABEL_MEAN)
            eval_metrics = {
                key(MetricKeys.LOSS_MEAN): metric.Mean(name=MetricKeys.LOSS_MEAN),
                key(MetricKeys.ACCURACY): metric.Accuracy(name=MetricKeys.ACCURACY),
                key(MetricKeys.PRECISION): metric.Precision(name=MetricKeys.PRECISION),
                key(MetricKeys.RECALL): metric.Recall(name=MetricKeys.RECALL),
                key(MetricKeys.PREDICTION_MEAN): metric.Mean(name=MetricKeys.PREDICTION_MEAN),
                key(MetricKeys.LABEL_MEAN): label_mean,
                key(MetricKeys.ACCURACY_BASELINE): AccuracyBaseline(label_mean),
                # AUC's default summation is "interpolation", as in the original.
                key(MetricKeys.AUC): metric.AUC(name=MetricKeys.AUC),
                key(MetricKeys.AUC_PR): metric.AUC(curve="PR", name=MetricKeys.AUC_PR),
            }
            self._add_regularization_metric(eval_metrics, regularization_losses)
            for threshold, acc_key, prec_key, rec_key in zip(
                    self._thresholds, self._threshold_keys(MetricKeys.ACCURACY_AT_THRESHOLD),
                    self._threshold_keys(MetricKeys.PRECISION_AT_THRESHOLD),
                    self._threshold_keys(MetricKeys.RECALL_AT_THRESHOLD)):
                eval_metrics[acc_key] = metric.BinaryAccuracy(name=acc_key, threshold=threshold)
                eval_metrics[prec_key] = metric.Precision(name=prec_key, thresholds=threshold)
                eval_metrics[rec_key] = metric.Recall(name=rec_key, thresholds=threshold)
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
        class_ids = self.predictions(logits)[PredictionKeys.CLASS_IDS]
        logits, labels, unweighted_loss, weights = self._labels_loss_and_weights(
            logits, labels, features)
        key = self._metric_key
        eval_metrics[key(MetricKeys.LOSS_MEAN)].update_state(
            values=unweighted_loss, sample_weight=weights)
        for name in (MetricKeys.ACCURACY, MetricKeys.PRECISION, MetricKeys.RECALL):
            eval_metrics[key(name)].update_state(
                y_true=labels, y_pred=class_ids, sample_weight=weights)
        logistic = self.predictions(logits, [PredictionKeys.LOGISTIC])[PredictionKeys.LOGISTIC]
        base_head.update_metric_with_broadcast_weights(
            eval_metrics[key(MetricKeys.PREDICTION_MEAN)], logistic, weights)
        base_head.update_metric_with_broadcast_weights(
            eval_metrics[key(MetricKeys.LABEL_MEAN)], labels, weights)
        eval_metrics[key(MetricKeys.ACCURACY_BASELINE)].update_state()
        auc_weights = None
        if weights is not None:
            auc_weights = tf.compat.v2.__internal__.ops.broadcast_weights(weights, logistic)
        for name in (MetricKeys.AUC, MetricKeys.AUC_PR):
            eval_metrics[key(name)].update_state(
                y_true=labels, y_pred=logistic, sample_weight=auc_weights)
        self._update_regularization_metric(eval_metrics, regularization_losses)
        for metric_key in (self._threshold_keys(MetricKeys.ACCURACY_AT_THRESHOLD)
                           + self._threshold_keys(MetricKeys.PRECISION_AT_THRESHOLD)
                           + self._threshold_keys(MetricKeys.RECALL_AT_THRESHOLD)):
            eval_metrics[metric_key].update_state(
                y_true=labels, y_pred=logistic, sample_weight=weights)
        return eval_metrics

    def _export_outputs(self, predictions):
        """'serving_default' and 'classification' (scores: the two probabilities,
        classes: the two class names), 'regression' (the logistic) and 'predict'
        (every prediction)."""
        return outputs.classification_export_outputs(
            outputs.classification_output(
                scores=predictions[PredictionKeys.PROBABILITIES], n_classes=2,
                label_vocabulary=self._label_vocabulary),
            predictions, regression_value=predictions[PredictionKeys.LOGISTIC])
