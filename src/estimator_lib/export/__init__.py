"""`tf.estimator.export`: serving input receivers and export outputs.

The exporters of train_and_evaluate are in `exporters`, the SavedModel writing
in `saved_model`. The export outputs are TensorFlow's own classes, re-exported as they
are (their pages show TensorFlow's docstrings); the example below shows them.

Examples:
    The export outputs a model_fn gives `EstimatorSpec(export_outputs=...)`, one
    SavedModel signature each (`ExportOutput` is their base):

    >>> import tensorflow as tf
    >>> from estimator_lib import export
    >>> with tf.Graph().as_default():
    ...     scores = tf.constant([[0.2, 0.8]])
    ...     outputs = {
    ...         "classify": export.ClassificationOutput(
    ...             scores=scores, classes=tf.constant([["no", "yes"]])),
    ...         "predict": export.PredictOutput({"scores": scores}),
    ...         "regress": export.RegressionOutput(value=tf.constant([1.5])),
    ...         "eval": export.EvalOutput(loss=tf.constant(0.5), predictions=scores)}
    ...     serialized = tf.compat.v1.placeholder(tf.string, [None])
    ...     signature = outputs["classify"].as_signature_def({"inputs": serialized})
    >>> all(isinstance(output, export.ExportOutput) for output in outputs.values())
    True
    >>> signature.method_name, sorted(signature.outputs)
    ('tensorflow/serving/classify', ['classes', 'scores'])
    >>> sorted(outputs["predict"].outputs), sorted(outputs["eval"].predictions)
    (['scores'], ['predictions'])
"""

from estimator_lib.export.receivers import ClassificationOutput  # noqa: F401
from estimator_lib.export.receivers import EvalOutput  # noqa: F401
from estimator_lib.export.receivers import ExportOutput  # noqa: F401
from estimator_lib.export.receivers import PredictOutput  # noqa: F401
from estimator_lib.export.receivers import RegressionOutput  # noqa: F401
from estimator_lib.export.receivers import ServingInputReceiver  # noqa: F401
from estimator_lib.export.receivers import TensorServingInputReceiver  # noqa: F401
from estimator_lib.export.receivers import build_parsing_serving_input_receiver_fn  # noqa: F401
from estimator_lib.export.receivers import build_raw_serving_input_receiver_fn  # noqa: F401

# What the reference's export page shows (and `import *` gives).
__all__ = [
    "ClassificationOutput",
    "EvalOutput",
    "ExportOutput",
    "PredictOutput",
    "RegressionOutput",
    "ServingInputReceiver",
    "TensorServingInputReceiver",
    "build_parsing_serving_input_receiver_fn",
    "build_raw_serving_input_receiver_fn",
]
