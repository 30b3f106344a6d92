"""MultiClassHead: single-label classification over n_classes > 2 with a softmax loss."""

from typing import Callable, Optional, Sequence

import tensorflow as tf

from estimator_lib.head import arguments
from estimator_lib.head import base_head
from estimator_lib.head import checks
from estimator_lib.head import fixed_keys
from estimator_lib.head import outputs
from estimator_lib.head.metric_keys import MetricKeys
from estimator_lib.head.prediction_keys import PredictionKeys
from estimator_lib.head.vocabulary import check_label_vocabulary
from estimator_lib.head.vocabulary import LabelVocabularyOf

_VALID_KEYS = (PredictionKeys.LOGITS, PredictionKeys.PROBABILITIES, PredictionKeys.CLASS_IDS,
               PredictionKeys.CLASSES, PredictionKeys.ALL_CLASS_IDS,
               PredictionKeys.ALL_CLASSES)


class MultiClassHead(base_head.SingleHead):
    """A head for multi-class classification: logits [D0, ... DN, n_classes], softmax.

    Labels are [D0, ... DN, 1] (or [D0, ... DN]) class ids in [0, n_classes), or
    strings from `label_vocabulary` when it is given.

    Args:
        n_classes: Number of classes, > 2 (use BinaryClassHead for 2).
        weight_column: Feature name or `numeric_column` of the example weights.
        label_vocabulary: List or tuple of the n_classes label strings.
            Deliberate difference 17: wrong label types are a ValueError saying what works.
        loss_reduction: A `tf.losses.Reduction` other than NONE.
        loss_fn: Optional `loss_fn(labels, logits[, features, loss_reduction])`
            returning the unweighted loss [D0, ... DN, 1]; labels arrive as ids.
        name: Suffix of the metric and summary keys, and the head's name scope.

    Examples:
        The loss of two examples of three classes, and what a prediction holds:

        >>> import numpy as np
        >>> import estimator_lib
        >>> head = estimator_lib.MultiClassHead(n_classes=3)
        >>> logits = np.array([[0.0, 0.0, 3.0], [3.0, 0.0, 0.0]], np.float32)
        >>> round(float(head.loss(labels=np.array([[2], [0]]), logits=logits)), 4)
        0.0949
        >>> sorted(head.predictions(logits))
        ['all_class_ids', 'all_classes', 'class_ids', 'classes', 'logits', 'probabilities']
    """

    _vocabulary = LabelVocabularyOf()  # follows `_label_vocabulary` (vocabulary.py)

    def __init__(self, n_classes: int, weight_column=None,
                 label_vocabulary: Optional[Sequence[str]] = None,
                 loss_reduction: str = tf.losses.Reduction.SUM_OVER_BATCH_SIZE,
                 loss_fn: Optional[Callable] = None, name: Optional[str] = None):
        if n_classes is None:
            raise ValueError("n_classes cannot be None. Pass the number of classes (> 2).")
        check_label_vocabulary(label_vocabulary, n_classes)
        arguments.validate_loss_reduction(loss_reduction)
        if loss_fn:
            arguments.validate_loss_fn_args(loss_fn)
        self._n_classes = arguments.validate_n_classes(n_classes)
        self._weight_column = weight_column
        self._label_vocabulary = label_vocabulary
        self._loss_reduction = loss_reduction
        self._loss_fn = loss_fn
        self._name = name
        # The metric keys, fixed now from `name`, as the original's (head/fixed_keys.py).
        fixed_keys.keep(self, MetricKeys.LOSS_MEAN, MetricKeys.ACCURACY)

    @property
    def logits_dimension(self):
        """`n_classes`: one logit per class."""
        return self._n_classes

    def _processed_labels(self, logits, labels):
        """Integer label ids [D0, ... DN, 1], checked to lie in [0, n_classes)."""
        labels = checks.check_dense_labels_match_logits_and_reshape(
            labels=labels, logits=logits, expected_labels_dimension=1)
        if self._vocabulary is None:
            if not labels.dtype.is_integer:
                raise ValueError(
                    f"Labels dtype should be integer. Instead got {labels.dtype}. String "
                    "labels need label_vocabulary; float labels must be cast to int.")
            label_ids = labels
        else:
            if labels.dtype != tf.string:
                raise ValueError(
                    "Labels dtype should be string if there is a vocabulary. "
                    f"Instead got {labels.dtype}")
            label_ids = self._vocabulary.ids(labels)
        return checks.check_label_range(label_ids, self._n_classes)

    def _unweighted_loss_and_weights(self, logits, label_ids, features):
        if self._loss_fn:
            unweighted_loss = arguments.call_loss_fn(
                loss_fn=self._loss_fn, labels=label_ids, logits=logits, features=features,
                expected_loss_dim=1)
        else:
            unweighted_loss = tf.expand_dims(
                tf.compat.v1.losses.sparse_softmax_cross_entropy(
                    labels=label_ids, logits=logits,
                    reduction=tf.compat.v1.losses.Reduction.NONE),
                axis=-1)
        weights = checks.get_weights_and_check_match_logits(
            features=features, weight_column=self._weight_column, logits=logits)
        return unweighted_loss, weights

    def predictions(self, logits, keys=None):
        """Returns the predictions for `keys` (all of `_VALID_KEYS` when None)."""
        keys = arguments.requested_prediction_keys(keys, _VALID_KEYS)
        logits = checks.check_logits_final_dim(logits, self.logits_dimension)
        keys = set(keys)
        predictions = {}
        with tf.name_scope("predictions"):
            if PredictionKeys.LOGITS in keys:
                predictions[PredictionKeys.LOGITS] = logits
            if PredictionKeys.PROBABILITIES in keys:
                predictions[PredictionKeys.PROBABILITIES] = tf.nn.softmax(
                    logits, name=PredictionKeys.PROBABILITIES)
            if keys & {PredictionKeys.CLASS_IDS, PredictionKeys.CLASSES}:
                class_ids = tf.expand_dims(
                    tf.argmax(logits, axis=-1, name=PredictionKeys.CLASS_IDS), axis=-1)
                if PredictionKeys.CLASS_IDS in keys:
                    predictions[PredictionKeys.CLASS_IDS] = class_ids
                if PredictionKeys.CLASSES in keys:
                    predictions[PredictionKeys.CLASSES] = (
                        self._vocabulary.strings(class_ids) if self._vocabulary
                        else tf.strings.as_string(class_ids, name="str_classes"))
            if PredictionKeys.ALL_CLASS_IDS in keys:
                predictions[PredictionKeys.ALL_CLASS_IDS] = outputs.all_class_ids(
                    logits, self._n_classes)
            if PredictionKeys.ALL_CLASSES in keys:
                predictions[PredictionKeys.ALL_CLASSES] = outputs.all_classes(
                    logits, self._n_classes, self._label_vocabulary)
        return predictions

    def metrics(self, regularization_losses=None):
        """Returns fresh metric objects: average_loss, accuracy (, regularization_loss)."""
        key = self._metric_key
        with tf.name_scope("metrics"):
            eval_metrics = {
                key(MetricKeys.LOSS_MEAN): tf.keras.metrics.Mean(name=MetricKeys.LOSS_MEAN)}
            self._add_regularization_metric(eval_metrics, regularization_losses)
            eval_metrics[key(MetricKeys.ACCURACY)] = tf.keras.metrics.Accuracy(
                name=MetricKeys.ACCURACY)
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
        logits, label_ids, unweighted_loss, weights = self._labels_loss_and_weights(
            logits, labels, features)
        key = self._metric_key
        eval_metrics[key(MetricKeys.LOSS_MEAN)].update_state(
            values=unweighted_loss, sample_weight=weights)
        eval_metrics[key(MetricKeys.ACCURACY)].update_state(
            y_true=label_ids, y_pred=class_ids, sample_weight=weights)
        self._update_regularization_metric(eval_metrics, regularization_losses)
        return eval_metrics

    def _export_outputs(self, predictions):
        """'serving_default' and 'classification' (scores: the probabilities,
        classes: every class name) and 'predict'."""
        return outputs.classification_export_outputs(
            outputs.classification_output(
                scores=predictions[PredictionKeys.PROBABILITIES], n_classes=self._n_classes,
                label_vocabulary=self._label_vocabulary),
            predictions)
