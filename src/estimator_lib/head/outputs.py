"""Serving signature keys and the class-list tensors of classification heads."""

from typing import Mapping, Optional, Sequence

import tensorflow as tf

from estimator_lib import export as export_lib

DEFAULT_SERVING_KEY = tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY
CLASSIFY_SERVING_KEY = "classification"
REGRESS_SERVING_KEY = "regression"
PREDICT_SERVING_KEY = "predict"


def all_class_ids(logits: tf.Tensor, n_classes: int) -> tf.Tensor:
    """[batch_size, n_classes] int32: 0..n_classes-1 on every row."""
    batch_size = tf.compat.v1.shape(logits)[0]
    return tf.tile(tf.expand_dims(tf.range(n_classes), axis=0), [batch_size, 1])


def all_classes(logits: tf.Tensor, n_classes: int,
                label_vocabulary: Optional[Sequence[str]] = None) -> tf.Tensor:
    """[batch_size, n_classes] strings: the vocabulary, or the class ids as strings.

    Args:
        logits: The logits tensor, `[batch_size, n_classes]` (its batch size is used).
        n_classes: The number of classes.
        label_vocabulary: The class names in class-id order, or None.

    Returns:
        A string tensor `[batch_size, n_classes]`.
    """
    batch_size = tf.compat.v1.shape(logits)[0]
    if label_vocabulary:
        classes = tf.convert_to_tensor([list(label_vocabulary)])
    else:
        classes = tf.strings.as_string(tf.expand_dims(tf.range(n_classes), axis=0))
    return tf.tile(classes, [batch_size, 1])


def classification_output(scores: tf.Tensor, n_classes: int,
                          label_vocabulary: Optional[Sequence[str]] = None):
    """A ClassificationOutput with every class name beside its score.

    Args:
        scores: The `[batch, n_classes]` class scores.
        n_classes: The number of classes.
        label_vocabulary: The class names in class-id order, or None.

    Returns:
        A `ClassificationOutput`.
    """
    return export_lib.ClassificationOutput(
        scores=scores, classes=all_classes(scores, n_classes, label_vocabulary))


def classification_export_outputs(classifier_output, predictions: Mapping,
                                  regression_value: Optional[tf.Tensor] = None) -> dict:
    """A classification head's export outputs.

    'serving_default' and 'classification' serve `classifier_output`; 'regression'
    (only when `regression_value` is given) serves that value; 'predict' serves
    every prediction.

    Args:
        classifier_output: The `ClassificationOutput` to serve by default.
        predictions: The head's predictions dict.
        regression_value: The value the 'regression' signature serves, or None for no such
            signature.

    Returns:
        A dict of signature name to `ExportOutput`.
    """
    export_outputs = {
        DEFAULT_SERVING_KEY: classifier_output,
        CLASSIFY_SERVING_KEY: classifier_output,
    }
    if regression_value is not None:
        export_outputs[REGRESS_SERVING_KEY] = export_lib.RegressionOutput(
            value=regression_value)
    export_outputs[PREDICT_SERVING_KEY] = export_lib.PredictOutput(predictions)
    return export_outputs


def regression_export_outputs(value: tf.Tensor, predictions: Mapping) -> dict:
    """A regression head's export outputs: 'serving_default' and 'regression' serve
    `value` (a RegressionOutput, one value per example), 'predict' every prediction."""
    regression_output = export_lib.RegressionOutput(value=value)
    return {
        DEFAULT_SERVING_KEY: regression_output,
        REGRESS_SERVING_KEY: regression_output,
        PREDICT_SERVING_KEY: export_lib.PredictOutput(predictions),
    }
