"""MultiLabelHead: each example may belong to several of n_classes (sigmoid per class)."""

from typing import Callable, Iterable, Optional, Sequence

import tensorflow as tf

from estimator_lib.head import arguments
from estimator_lib.head import base_head
from estimator_lib.head import checks
from estimator_lib.head import fixed_keys
from estimator_lib.head import outputs
from estimator_lib.head.metric_keys import MetricKeys
from estimator_lib.head.prediction_keys import PredictionKeys
from estimator_lib.head.vocabulary import LabelVocabularyOf

_VALID_KEYS = (PredictionKeys.LOGITS, PredictionKeys.PROBABILITIES, PredictionKeys.CLASSES)


def _class_ids_for_metrics(classes, n_classes, label_vocabulary) -> tuple:
    """Class ids of `classes_for_class_based_metrics` (ids, or names in the vocabulary)."""
    if not classes:
        return ()
    classes = tuple(classes)
    if isinstance(classes[0], str):
        if not label_vocabulary:
            raise ValueError("label_vocabulary must be provided when "
                             "classes_for_class_based_metrics are strings.")
        return tuple(list(label_vocabulary).index(name) for name in classes)
    for class_id in classes:
        if class_id < 0 or class_id >= n_classes:
            raise ValueError(
                f"All classes_for_class_based_metrics must be in range [0, {n_classes - 1}]. "
                f"Given: {class_id}")
    return classes


class MultiLabelHead(base_head.SingleHead):
    """A head for multi-label classification: logits [D0, ... DN, n_classes].

    The loss is the sigmoid cross-entropy of each class, averaged over the classes.
    Labels are either a multi-hot int Tensor [D0, ... DN, n_classes] of 0/1, or a
    SparseTensor of the class ids (or class strings, with `label_vocabulary`)
    present in each example.

    Args:
        n_classes: Number of classes, > 1.
        weight_column: Feature name or `numeric_column` of the example weights.
        thresholds: Floats in (0, 1); each adds accuracy, precision and recall
            metrics at that threshold on the probabilities.
        label_vocabulary: List or tuple of the n_classes class strings.
        loss_reduction: A `tf.losses.Reduction` other than NONE.
        loss_fn: Optional `loss_fn(labels, logits[, features, loss_reduction])`
            returning the unweighted loss [D0, ... DN, 1]; labels arrive multi-hot.
        classes_for_class_based_metrics: Class ids or names whose probability mean,
            AUC and PR AUC are reported separately.
        name: Suffix of the metric and summary keys, and the head's name scope.

    Examples:
        Two examples, each with any of three labels:

        >>> import numpy as np
        >>> import estimator_lib
        >>> head = estimator_lib.MultiLabelHead(n_classes=3)
        >>> logits = np.array([[2.0, -2.0, 2.0], [-2.0, 2.0, -2.0]], np.float32)
        >>> labels = np.array([[1, 0, 1], [0, 1, 0]])
        >>> round(float(head.loss(labels=labels, logits=logits)), 4)
        0.1269
        >>> sorted(head.predictions(logits))
        ['classes', 'logits', 'probabilities']
    """

    _vocabulary = LabelVocabularyOf()  # follows `_label_vocabulary` (vocabulary.py)

    def __init__(self, n_classes: int, weight_column=None,
                 thresholds: Optional[Iterable[float]] = None,
                 label_vocabulary: Optional[Sequence[str]] = None,
                 loss_reduction: str = tf.losses.Reduction.SUM_OVER_BATCH_SIZE,
                 loss_fn: Optional[Callable] = None,
                 classes_for_class_based_metrics: Optional[Sequence] = None,
                 name: Optional[str] = None):
        if n_classes is None or n_classes < 2:
            raise ValueError("n_classes must be > 1 for multi-label classification. "
                             f"Given: {n_classes}")
        thresholds = tuple(thresholds) if thresholds else ()
        for threshold in thresholds:
            if threshold <= 0.0 or threshold >= 1.0:
                raise ValueError(f"thresholds must be in (0, 1) range. Given: {threshold}")
        if label_vocabulary is not None:
            if not isinstance(label_vocabulary, (list, tuple)):
                raise ValueError("label_vocabulary must be a list or tuple. "
                                 f"Given type: {type(label_vocabulary)}")
            if len(label_vocabulary) != n_classes:
                raise ValueError(f"Length of label_vocabulary must be n_classes ({n_classes}). "
                                 f"Given: {len(label_vocabulary)}")
        if loss_fn:
            arguments.validate_loss_fn_args(loss_fn)
        arguments.validate_loss_reduction(loss_reduction)
        self._n_classes = n_classes
        self._weight_column = weight_column
        self._thresholds = thresholds
        self._label_vocabulary = label_vocabulary
        self._loss_reduction = loss_reduction
        self._loss_fn = loss_fn
        self._classes_for_class_based_metrics = _class_ids_for_metrics(
            classes_for_class_based_metrics, n_classes, label_vocabulary)
        self._name = name
        # The metric keys, fixed now from `name`, as the original's (head/fixed_keys.py).
        fixed_keys.keep(self, MetricKeys.LOSS_MEAN, MetricKeys.AUC, MetricKeys.AUC_PR)

    @property
    def logits_dimension(self):
        """`n_classes`: one logit per label."""
        return self._n_classes

    def _class_names(self, class_id):
        if self._label_vocabulary is None:
            return (MetricKeys.PROBABILITY_MEAN_AT_CLASS % class_id,
                    MetricKeys.AUC_AT_CLASS % class_id, MetricKeys.AUC_PR_AT_CLASS % class_id)
        label = self._label_vocabulary[class_id]
        return (MetricKeys.PROBABILITY_MEAN_AT_NAME % label,
                MetricKeys.AUC_AT_NAME % label, MetricKeys.AUC_PR_AT_NAME % label)

    def _class_keys(self, class_id):
        """(probability mean, AUC, PR AUC) keys of one class."""
        return tuple(self._metric_key(n) for n in self._class_names(class_id))

    @staticmethod
    def _threshold_names(threshold):
        return tuple(template % threshold for template in (
            MetricKeys.ACCURACY_AT_THRESHOLD, MetricKeys.PRECISION_AT_THRESHOLD,
            MetricKeys.RECALL_AT_THRESHOLD))

    def _threshold_keys(self, threshold):
        return tuple(self._metric_key(n) for n in self._threshold_names(threshold))

    def _sparse_to_multi_hot(self, labels: tf.SparseTensor) -> tf.Tensor:
        if labels.dtype == tf.string:
            if self._vocabulary is None:
                raise ValueError("String labels need label_vocabulary; none was given.")
            ids = tf.SparseTensor(indices=labels.indices,
                                  values=self._vocabulary.ids(labels.values),
                                  dense_shape=labels.dense_shape)
            return tf.sparse.to_indicator(ids, self._n_classes)
        if not labels.values.dtype.is_integer:
            raise ValueError(
                f"Labels dtype should be integer. Instead got {labels.values.dtype}.")
        message = f"labels must be an integer SparseTensor with values in [0, {self._n_classes})"
        checked = checks.check_label_range(labels.values, self._n_classes, message=message)
        if tf.executing_eagerly():
            return tf.sparse.to_indicator(labels, self._n_classes)
        with tf.control_dependencies([checked]):
            return tf.sparse.to_indicator(labels, self._n_classes)

    def _processed_labels(self, logits, labels):
        """Multi-hot int64 labels [D0, ... DN, n_classes]."""
        if labels is None:
            raise ValueError(checks.LABEL_NONE_ERR_MSG)
        if isinstance(labels, tf.compat.v1.SparseTensorValue):
            labels = tf.SparseTensor.from_value(labels)
        if isinstance(labels, tf.SparseTensor):
            processed = tf.cast(self._sparse_to_multi_hot(labels), tf.int64)
        else:
            labels = tf.convert_to_tensor(labels)
            processed = checks.check_label_range(
                labels, 2,
                message="labels must be an integer indicator Tensor with values in [0, 1]")
        return checks.check_dense_labels_match_logits_and_reshape(
            labels=processed, logits=logits, expected_labels_dimension=self.logits_dimension)

    def _unweighted_loss_and_weights(self, logits, processed_labels, features):
        if self._loss_fn:
            unweighted_loss = arguments.call_loss_fn(
                loss_fn=self._loss_fn, labels=processed_labels, logits=logits,
                features=features, expected_loss_dim=1)
        else:
            per_class = tf.compat.v1.losses.sigmoid_cross_entropy(
                multi_class_labels=processed_labels, logits=logits,
                reduction=tf.compat.v1.losses.Reduction.NONE)
            unweighted_loss = tf.reduce_mean(per_class, axis=-1, keepdims=True)
        weights = checks.get_weights_and_check_match_logits(
            features=features, weight_column=self._weight_column, logits=logits)
        return unweighted_loss, weights

    def predictions(self, logits, keys=None):
        """Returns logits, probabilities (sigmoid) and classes (every class name)."""
        keys = arguments.requested_prediction_keys(keys, _VALID_KEYS)
        logits = checks.check_logits_final_dim(logits, self.logits_dimension)
        predictions = {}
        with tf.name_scope("predictions"):
            if PredictionKeys.LOGITS in keys:
                predictions[PredictionKeys.LOGITS] = logits
            if PredictionKeys.PROBABILITIES in keys:
                predictions[PredictionKeys.PROBABILITIES] = tf.sigmoid(
                    logits, name=PredictionKeys.PROBABILITIES)
            if PredictionKeys.CLASSES in keys:
                predictions[PredictionKeys.CLASSES] = outputs.all_classes(
                    logits, self._n_classes, self._label_vocabulary)
        return predictions

    def metrics(self, regularization_losses=None):
        """Returns fresh metric objects keyed as `evaluate` reports them."""
        metric = tf.keras.metrics
        key = self._metric_key
        with tf.name_scope("metrics"):
            eval_metrics = {
                key(MetricKeys.LOSS_MEAN): metric.Mean(name=MetricKeys.LOSS_MEAN),
                key(MetricKeys.AUC): metric.AUC(name=MetricKeys.AUC),
                key(MetricKeys.AUC_PR): metric.AUC(curve="PR", name=MetricKeys.AUC_PR),
            }
            self._add_regularization_metric(eval_metrics, regularization_losses)
            for threshold in self._thresholds:
                acc, prec, rec = self._threshold_keys(threshold)
                eval_metrics[acc] = metric.BinaryAccuracy(name=acc, threshold=threshold)
                eval_metrics[prec] = metric.Precision(name=prec, thresholds=threshold)
                eval_metrics[rec] = metric.Recall(name=rec, thresholds=threshold)
            for class_id in self._classes_for_class_based_metrics:
                prob, auc, auc_pr = self._class_keys(class_id)
                eval_metrics[prob] = metric.Mean(name=prob)
                eval_metrics[auc] = metric.AUC(name=auc)
                eval_metrics[auc_pr] = metric.AUC(curve="PR", name=auc_pr)
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
        logits, processed_labels, unweighted_loss, weights = self._labels_loss_and_weights(
            logits, labels, features)
        probabilities = self.predictions(
            logits, [PredictionKeys.PROBABILITIES])[PredictionKeys.PROBABILITIES]
        key = self._metric_key
        eval_metrics[key(MetricKeys.LOSS_MEAN)].update_state(
            values=unweighted_loss, sample_weight=weights)
        for name in (MetricKeys.AUC, MetricKeys.AUC_PR):
            eval_metrics[key(name)].update_state(
                y_true=processed_labels, y_pred=probabilities, sample_weight=weights)
        self._update_regularization_metric(eval_metrics, regularization_losses)
        for threshold in self._thresholds:
            for metric_key in self._threshold_keys(threshold):
                eval_metrics[metric_key].update_state(
                    y_true=processed_labels, y_pred=probabilities, sample_weight=weights)
        for class_id in self._classes_for_class_based_metrics:
            prob, auc, auc_pr = self._class_keys(class_id)
            class_probabilities = probabilities[..., class_id:class_id + 1]
            class_labels = processed_labels[..., class_id:class_id + 1]
            base_head.update_metric_with_broadcast_weights(
                eval_metrics[prob], class_probabilities, weights)
            for metric_key in (auc, auc_pr):
                eval_metrics[metric_key].update_state(
                    y_true=class_labels, y_pred=class_probabilities, sample_weight=weights)
        return eval_metrics

    def _export_outputs(self, predictions):
        """'serving_default' and 'classification' (scores: the per-class
        probabilities, classes: every class name) and 'predict'."""
        return outputs.classification_export_outputs(
            outputs.classification_output(
                scores=predictions[PredictionKeys.PROBABILITIES], n_classes=self._n_classes,
                label_vocabulary=self._label_vocabulary),
            predictions)
