"""The three v1 canned heads: binary logistic, multi-class softmax, and regression.

Build them with `make_v1_head(n_classes, ...)` (classifiers) or
`make_v1_regression_head(...)`; see `v1_head.py` for how they differ from the
`tf.estimator.*Head` classes.
"""

from typing import Callable, Iterable, Optional, Sequence

import tensorflow as tf

from estimator_lib.head import arguments
from estimator_lib.head import checks
from estimator_lib.head import outputs
from estimator_lib.head.binary_class_head import check_thresholds
from estimator_lib.head.metric_keys import MetricKeys
from estimator_lib.head.prediction_keys import PredictionKeys
from estimator_lib.head.v1_head import LossSpec
from estimator_lib.head.v1_head import summary_key
from estimator_lib.head.v1_head import CannedV1Head
from estimator_lib.head.v1_head import V1Head
from estimator_lib.head.v1_head import validate_v1_loss_fn_args
from estimator_lib.head.v1_head import validate_v1_loss_reduction
from estimator_lib.head.v1_head import weighted_auc
from estimator_lib.head.v1_head import weighted_mean
from estimator_lib.head.vocabulary import check_label_vocabulary
from estimator_lib.head.vocabulary import LabelVocabularyOf

_SUM = tf.compat.v1.losses.Reduction.SUM


class _ClassifierV1(CannedV1Head):
    """Class-id predictions and vocabulary handling shared by the two classifiers."""

    _vocabulary = LabelVocabularyOf()  # follows `_label_vocabulary` (vocabulary.py)

    def __init__(self, n_classes, weight_column, label_vocabulary, loss_reduction, loss_fn,
                 name):
        super().__init__(weight_column, loss_reduction, loss_fn, name)
        self._n_classes = n_classes
        self._label_vocabulary = label_vocabulary

    @property
    def logits_dimension(self):
        return 1 if self._n_classes == 2 else self._n_classes

    def _class_predictions(self, scores_logits, logits):
        class_ids = tf.expand_dims(
            tf.argmax(scores_logits, axis=-1, name=PredictionKeys.CLASS_IDS), axis=-1)
        classes = (self._vocabulary.strings(class_ids) if self._vocabulary
                   else tf.strings.as_string(class_ids, name="str_classes"))
        return {
            PredictionKeys.CLASS_IDS: class_ids,
            PredictionKeys.CLASSES: classes,
            PredictionKeys.ALL_CLASS_IDS: outputs.all_class_ids(logits, self._n_classes),
            PredictionKeys.ALL_CLASSES: outputs.all_classes(
                logits, self._n_classes, self._label_vocabulary),
        }

    def _classification_output(self, predictions):
        return outputs.classification_output(
            predictions[PredictionKeys.PROBABILITIES], self._n_classes,
            self._label_vocabulary)

    def _unweighted(self, labels, logits, features, default_loss):
        if self._loss_fn:
            return arguments.call_loss_fn(self._loss_fn, labels, logits, features, 1)
        return default_loss()


class BinaryLogisticHeadV1(_ClassifierV1):
    """v1 binary classifier head: sigmoid cross-entropy on logits [D0, ... DN, 1].

    Args:
        weight_column: A feature key, or a `NumericColumn`, of the example weights; or None.
        thresholds: Decision thresholds for the binary head's precision/recall metrics.
        label_vocabulary: The class names in class-id order, or None.
        loss_reduction: How the per-example losses are reduced over the batch.
        loss_fn: The custom loss function, `loss_fn(labels, logits[, features])`.
        name: The name (of the metric or head); None for none.

    The arguments are checked by `make_v1_head`, the canned estimators' way in.
    """

    def __init__(self, weight_column=None, thresholds: Optional[Iterable[float]] = None,
                 label_vocabulary: Optional[Sequence[str]] = None,
                 loss_reduction: str = _SUM, loss_fn: Optional[Callable] = None,
                 name: Optional[str] = None):
        super().__init__(2, weight_column, label_vocabulary, loss_reduction, loss_fn, name)
        self._thresholds = tuple(thresholds or ())

    def create_loss(self, features, mode, logits, labels) -> LossSpec:
        """The batch's loss: sigmoid cross-entropy (or `loss_fn`), weighted and reduced.

        Args:
            features: The dict of feature tensors.
            mode: The `ModeKeys` mode (the loss does not depend on it).
            logits: The logits tensor.
            labels: The labels tensor.

        Returns:
            A `LossSpec`.

        Raises:
            ValueError: If string labels come without a `label_vocabulary`, or labels have the
                wrong shape.
        """
        del mode  # The loss is the same in every mode.
        logits = tf.convert_to_tensor(logits)
        labels = checks.check_dense_labels_match_logits_and_reshape(labels, logits, 1)
        if self._vocabulary is not None:
            labels = self._vocabulary.ids(labels)
        elif labels.dtype == tf.string:
            raise ValueError("Labels are strings but no label_vocabulary was given.")
        labels = checks.check_label_range(tf.cast(labels, tf.float32), 2)
        unweighted = self._unweighted(
            labels, logits, features,
            lambda: tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits))
        weights = self._weights(features, logits)
        return LossSpec(self._reduce(unweighted, weights), unweighted, weights, labels)

    def _predictions(self, logits):
        two_class_logits = tf.concat((tf.zeros_like(logits), logits), axis=-1,
                                     name="two_class_logits")
        predictions = {
            PredictionKeys.LOGITS: logits,
            PredictionKeys.LOGISTIC: tf.sigmoid(logits, name=PredictionKeys.LOGISTIC),
            PredictionKeys.PROBABILITIES: tf.nn.softmax(
                two_class_logits, name=PredictionKeys.PROBABILITIES),
        }
        predictions.update(self._class_predictions(two_class_logits, logits))
        return predictions

    def _export_outputs(self, predictions):
        return outputs.classification_export_outputs(
            self._classification_output(predictions), predictions,
            regression_value=predictions[PredictionKeys.LOGISTIC])

    def _metric_inputs(self, predictions, labels, loss_spec, regularization_loss):
        del labels  # The processed ones, as the original.
        return {"labels": loss_spec.processed_labels,
                "logits": predictions[PredictionKeys.LOGITS],
                "logistic": predictions[PredictionKeys.LOGISTIC],
                "class_ids": predictions[PredictionKeys.CLASS_IDS],
                "weights": loss_spec.weights, "unreduced_loss": loss_spec.unreduced_loss,
                "regularization_loss": regularization_loss}

    def _eval_metric_ops(self, labels, logits, logistic, class_ids, weights,
                         unreduced_loss, regularization_loss):
        """The EVAL (value, update_op) metrics, keyed with the head's name."""
        del logits  # Taken, as the original's; the metrics read `logistic`.
        metrics = tf.compat.v1.metrics
        keys = MetricKeys
        with tf.compat.v1.name_scope(None, "metrics"):
            label_mean = weighted_mean(labels, weights, keys.LABEL_MEAN)
            ops = {
                keys.LOSS_MEAN: metrics.mean(unreduced_loss, weights=weights,
                                             name=keys.LOSS_MEAN),
                keys.ACCURACY: metrics.accuracy(labels, class_ids, weights=weights,
                                                name=keys.ACCURACY),
                keys.PRECISION: metrics.precision(labels, class_ids, weights=weights,
                                                  name=keys.PRECISION),
                keys.RECALL: metrics.recall(labels, class_ids, weights=weights,
                                            name=keys.RECALL),
                keys.PREDICTION_MEAN: weighted_mean(logistic, weights, keys.PREDICTION_MEAN),
                keys.LABEL_MEAN: label_mean,
                # Always predicting the majority class: max(mean, 1 - mean).
                keys.ACCURACY_BASELINE: (tf.maximum(label_mean[0], 1. - label_mean[0]),
                                         tf.maximum(label_mean[1], 1. - label_mean[1])),
                keys.AUC: weighted_auc(labels, logistic, weights, "ROC", keys.AUC),
                keys.AUC_PR: weighted_auc(labels, logistic, weights, "PR", keys.AUC_PR),
            }
            if regularization_loss is not None:
                ops[keys.LOSS_REGULARIZATION] = metrics.mean(
                    regularization_loss, name=keys.LOSS_REGULARIZATION)
            for threshold in self._thresholds:
                above = tf.cast(logistic >= threshold, tf.float32)
                ops[keys.ACCURACY_AT_THRESHOLD % threshold] = metrics.accuracy(
                    labels, above, weights=weights, name=keys.ACCURACY_AT_THRESHOLD % threshold)
                for key, fn in ((keys.PRECISION_AT_THRESHOLD, metrics.precision_at_thresholds),
                                (keys.RECALL_AT_THRESHOLD, metrics.recall_at_thresholds)):
                    value, update = fn(labels, logistic, thresholds=(threshold,),
                                       weights=weights, name=key % threshold)
                    ops[key % threshold] = (tf.squeeze(value), tf.squeeze(update))
        return {summary_key(self._name, k): v for k, v in ops.items()}


class MultiClassHeadV1(_ClassifierV1):
    """v1 multi-class head: softmax cross-entropy on logits [D0, ... DN, n_classes].

    Args:
        n_classes: The number of classes.
        weight_column: A feature key, or a `NumericColumn`, of the example weights; or None.
        label_vocabulary: The class names in class-id order, or None.
        loss_reduction: How the per-example losses are reduced over the batch.
        loss_fn: The custom loss function, `loss_fn(labels, logits[, features])`.
        name: The name (of the metric or head); None for none.

    Raises:
        ValueError: If `n_classes` is None or not above 2.
    """

    def __init__(self, n_classes: int, weight_column=None,
                 label_vocabulary: Optional[Sequence[str]] = None,
                 loss_reduction: str = _SUM, loss_fn: Optional[Callable] = None,
                 name: Optional[str] = None):
        if n_classes is None:
            raise ValueError("n_classes cannot be None. Pass the number of classes (> 2).")
        super().__init__(arguments.validate_n_classes(n_classes), weight_column,
                         label_vocabulary, loss_reduction, loss_fn, name)

    def _label_ids(self, labels):
        """The labels as class ids in [0, n_classes), checked (the vocabulary looked up).

        Raises:
            ValueError: If the labels' dtype does not fit the vocabulary (or its absence).
        """
        if self._vocabulary is None:
            if not labels.dtype.is_integer:
                raise ValueError(f"Labels dtype should be integer. Instead got {labels.dtype}.")
            label_ids = labels
        else:
            if labels.dtype != tf.string:
                raise ValueError("Labels dtype should be string if there is a vocabulary. "
                                 f"Instead got {labels.dtype}")
            label_ids = self._vocabulary.ids(labels)
        return checks.check_label_range(label_ids, self._n_classes)

    def create_loss(self, features, mode, logits, labels) -> LossSpec:
        """The batch's loss: sparse softmax cross-entropy (or `loss_fn`), weighted and reduced.

        Args:
            features: The dict of feature tensors.
            mode: The `ModeKeys` mode (the loss does not depend on it).
            logits: The logits tensor.
            labels: The labels tensor.

        Returns:
            A `LossSpec`.

        Raises:
            ValueError: If the labels' dtype does not fit the vocabulary (or its absence), or
                they have the wrong shape.
        """
        del mode  # The loss is the same in every mode.
        logits = tf.convert_to_tensor(logits)
        labels = checks.check_dense_labels_match_logits_and_reshape(labels, logits, 1)
        label_ids = self._label_ids(labels)
        unweighted = self._unweighted(
            label_ids, logits, features,
            lambda: tf.expand_dims(tf.compat.v1.losses.sparse_softmax_cross_entropy(
                labels=label_ids, logits=logits,
                reduction=tf.compat.v1.losses.Reduction.NONE), axis=-1))
        weights = self._weights(features, logits)
        return LossSpec(self._reduce(unweighted, weights), unweighted, weights, label_ids)

    def _predictions(self, logits):
        predictions = {
            PredictionKeys.LOGITS: logits,
            PredictionKeys.PROBABILITIES: tf.nn.softmax(
                logits, name=PredictionKeys.PROBABILITIES),
        }
        predictions.update(self._class_predictions(logits, logits))
        return predictions

    def _export_outputs(self, predictions):
        return outputs.classification_export_outputs(
            self._classification_output(predictions), predictions)

    def _metric_inputs(self, predictions, labels, loss_spec, regularization_loss):
        del labels  # The label ids, as the original.
        return {"labels": loss_spec.processed_labels,
                "class_ids": predictions[PredictionKeys.CLASS_IDS],
                "weights": loss_spec.weights, "unreduced_loss": loss_spec.unreduced_loss,
                "regularization_loss": regularization_loss}

    def _eval_metric_ops(self, labels, class_ids, weights, unreduced_loss,
                         regularization_loss):
        """The EVAL (value, update_op) metrics, keyed with the head's name."""
        metrics = tf.compat.v1.metrics
        with tf.compat.v1.name_scope(None, "metrics"):
            ops = {
                MetricKeys.LOSS_MEAN: metrics.mean(
                    unreduced_loss, weights=weights, name=MetricKeys.LOSS_MEAN),
                MetricKeys.ACCURACY: metrics.accuracy(
                    labels, class_ids, weights=weights, name=MetricKeys.ACCURACY),
            }
            if regularization_loss is not None:
                ops[MetricKeys.LOSS_REGULARIZATION] = metrics.mean(
                    regularization_loss, name=MetricKeys.LOSS_REGULARIZATION)
        return {summary_key(self._name, k): v for k, v in ops.items()}


class RegressionHeadV1(CannedV1Head):
    """v1 regression head: squared error on logits [D0, ... DN, label_dimension].

    Args:
        label_dimension: How many regression targets each example has.
        weight_column: A feature key, or a `NumericColumn`, of the example weights; or None.
        loss_reduction: How the per-example losses are reduced over the batch.
        loss_fn: The custom loss function, `loss_fn(labels, logits[, features])`.
        inverse_link_fn: Maps logits to predictions (e.g. `tf.math.exp`); None for the identity.
        name: The name (of the metric or head); None for none.

    Raises:
        ValueError: If `label_dimension` is below 1.
    """

    def __init__(self, label_dimension: int, weight_column=None,
                 loss_reduction: str = _SUM, loss_fn: Optional[Callable] = None,
                 inverse_link_fn: Optional[Callable] = None, name: Optional[str] = None):
        if label_dimension < 1:
            raise ValueError(f"Invalid label_dimension {label_dimension}. It must be >= 1.")
        super().__init__(weight_column, loss_reduction, loss_fn, name)
        self._logits_dimension = label_dimension
        self._inverse_link_fn = inverse_link_fn

    @property
    def logits_dimension(self):
        """The label dimension: a regression head has one logit per label value."""
        return self._logits_dimension

    def create_loss(self, features, mode, logits, labels) -> LossSpec:
        """The batch's loss: squared error (or `loss_fn`), weighted and reduced.

        Args:
            features: The dict of feature tensors.
            mode: The `ModeKeys` mode (the loss does not depend on it).
            logits: The logits tensor.
            labels: The labels tensor.

        Returns:
            A `LossSpec`.

        Raises:
            ValueError: If the labels have the wrong shape.
        """
        del mode  # The loss is the same in every mode.
        logits = tf.convert_to_tensor(logits)
        labels = checks.check_dense_labels_match_logits_and_reshape(
            labels, logits, self._logits_dimension)
        labels = tf.cast(labels, tf.float32)
        if self._loss_fn:
            unweighted = arguments.call_loss_fn(self._loss_fn, labels, logits, features,
                                                self._logits_dimension)
        else:
            unweighted = tf.compat.v1.losses.mean_squared_error(
                labels=labels, predictions=logits,
                reduction=tf.compat.v1.losses.Reduction.NONE)
        weights = self._weights(features, logits, allow_per_logit_weights=True)
        return LossSpec(self._reduce(unweighted, weights), unweighted, weights, labels)

    def _predictions(self, logits):
        if self._inverse_link_fn:
            return {PredictionKeys.PREDICTIONS: self._inverse_link_fn(logits),
                    PredictionKeys.LOGITS: logits}
        return {PredictionKeys.PREDICTIONS: logits}

    def _export_outputs(self, predictions):
        return outputs.regression_export_outputs(
            predictions[PredictionKeys.PREDICTIONS], predictions)

    def _metric_inputs(self, predictions, labels, loss_spec, regularization_loss):
        # The labels as given, not the processed ones, as the original.
        return {"predicted_value": predictions[PredictionKeys.PREDICTIONS],
                "labels": labels, "weights": loss_spec.weights,
                "unreduced_loss": loss_spec.unreduced_loss,
                "regularization_loss": regularization_loss}

    def _eval_metric_ops(self, predicted_value, labels, weights, unreduced_loss,
                         regularization_loss):
        """The EVAL (value, update_op) metrics, keyed with the head's name."""
        metrics = tf.compat.v1.metrics
        ops = {
            MetricKeys.LOSS_MEAN: metrics.mean(unreduced_loss, weights=weights),
            MetricKeys.PREDICTION_MEAN: weighted_mean(
                predicted_value, weights, MetricKeys.PREDICTION_MEAN),
            MetricKeys.LABEL_MEAN: metrics.mean(labels, weights=weights),
        }
        if regularization_loss is not None:
            ops[MetricKeys.LOSS_REGULARIZATION] = metrics.mean(
                regularization_loss, name=MetricKeys.LOSS_REGULARIZATION)
        return {summary_key(self._name, k): v for k, v in ops.items()}


def make_v1_head(n_classes: int, weight_column=None,
                 label_vocabulary: Optional[Sequence[str]] = None,
                 loss_reduction: str = _SUM, loss_fn: Optional[Callable] = None,
                 thresholds: Optional[Iterable[float]] = None,
                 name: Optional[str] = None) -> V1Head:
    """The v1 classifier head: BinaryLogisticHeadV1 for 2 classes, else MultiClassHeadV1.

    Args:
        n_classes: The number of classes.
        weight_column: A feature key, or a `NumericColumn`, of the example weights; or None.
        label_vocabulary: The class names in class-id order, or None.
        loss_reduction: How the per-example losses are reduced over the batch.
        loss_fn: The custom loss function, `loss_fn(labels, logits[, features])`.
        thresholds: Decision thresholds for the binary head's precision/recall metrics.
        name: The name (of the metric or head); None for none.

    Returns:
        A `BinaryLogisticHeadV1` or `MultiClassHeadV1`.

    Raises:
        ValueError: For a bad n_classes (<= 2 for multi-class), thresholds,
            loss_reduction, loss_fn, or label_vocabulary (TypeError for its type,
            binary case, as the original).
    """
    validate_v1_loss_reduction(loss_reduction)
    if loss_fn:
        validate_v1_loss_fn_args(loss_fn)
    if n_classes == 2:
        if label_vocabulary is not None and not isinstance(label_vocabulary, (list, tuple)):
            raise TypeError("label_vocabulary should be a list or tuple. "
                            f"Given type: {type(label_vocabulary)}")
        return BinaryLogisticHeadV1(weight_column, check_thresholds(thresholds),
                                    label_vocabulary, loss_reduction, loss_fn, name)
    check_label_vocabulary(label_vocabulary)
    return MultiClassHeadV1(n_classes, weight_column, label_vocabulary, loss_reduction,
                            loss_fn, name)


def make_v1_regression_head(weight_column=None, label_dimension: int = 1,
                            loss_reduction: str = _SUM, loss_fn: Optional[Callable] = None,
                            inverse_link_fn: Optional[Callable] = None,
                            name: Optional[str] = None) -> RegressionHeadV1:
    """The v1 regression head (`tf.compat.v1.estimator.DNNRegressor` and friends).

    Args:
        weight_column: A feature key, or a `NumericColumn`, of the example weights; or None.
        label_dimension: How many regression targets each example has.
        loss_reduction: How the per-example losses are reduced over the batch.
        loss_fn: The custom loss function, `loss_fn(labels, logits[, features])`.
        inverse_link_fn: Maps logits to predictions (e.g. `tf.math.exp`); None for the identity.
        name: The name (of the metric or head); None for none.

    Returns:
        A `RegressionHeadV1`.

    Raises:
        ValueError: For a bad label_dimension, loss_reduction or loss_fn.
    """
    validate_v1_loss_reduction(loss_reduction)
    if loss_fn:
        validate_v1_loss_fn_args(loss_fn)
    return RegressionHeadV1(label_dimension, weight_column, loss_reduction, loss_fn,
                            inverse_link_fn, name)
