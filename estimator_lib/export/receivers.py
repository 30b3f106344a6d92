"""Serving input receivers and export outputs (the `tf.estimator.export` names)."""

import collections
from typing import Dict, Mapping, Optional, Union

import tensorflow as tf
from tensorflow.python.saved_model.model_utils import export_output as _export_output

# TensorFlow still ships these classes; the Estimator's names were aliases of them.
ExportOutput = _export_output.ExportOutput
ClassificationOutput = _export_output.ClassificationOutput
RegressionOutput = _export_output.RegressionOutput
PredictOutput = _export_output.PredictOutput
EvalOutput = _export_output.EvalOutput

SINGLE_FEATURE_DEFAULT_NAME = "feature"
SINGLE_RECEIVER_DEFAULT_NAME = "input"

_TENSOR_TYPES = (tf.Tensor, tf.SparseTensor, tf.RaggedTensor)


def _as_dict(value, default_name: str, argument: str) -> Dict[str, object]:
    if value is None:
        raise ValueError(f"`{argument}` must be defined.")
    if not isinstance(value, Mapping):
        value = {default_name: value}
    for name, tensor in value.items():
        if not isinstance(name, str):
            raise ValueError(f"{argument} keys must be strings: {name!r}.")
        if not isinstance(tensor, _TENSOR_TYPES):
            raise ValueError(
                f"{argument} must be a Tensor, SparseTensor, or RaggedTensor (or a dict of "
                f"them). Received for {name!r}: {type(tensor).__name__}.")
    return dict(value)


def _alternatives(alternatives):
    if alternatives is None:
        return None
    if not isinstance(alternatives, Mapping):
        raise ValueError(
            "receiver_tensors_alternatives must be a dict of name -> Tensor or dict of Tensors. "
            f"Received: {type(alternatives).__name__}.")
    return {name: _as_dict(tensors, SINGLE_RECEIVER_DEFAULT_NAME,
                           f"receiver_tensors_alternatives[{name!r}]")
            for name, tensors in alternatives.items()}


class ServingInputReceiver(collections.namedtuple(
        "ServingInputReceiver", ["features", "receiver_tensors",
                                 "receiver_tensors_alternatives"])):
    """What a serving_input_receiver_fn returns: the model's features and the fed tensors.

    A bare tensor for `features` reaches model_fn as `{'feature': tensor}`, as in the
    original; use `TensorServingInputReceiver` to hand model_fn the tensor itself.
    """

    def __new__(cls, features, receiver_tensors, receiver_tensors_alternatives=None):
        return super().__new__(
            cls, features=_as_dict(features, SINGLE_FEATURE_DEFAULT_NAME, "features"),
            receiver_tensors=_as_dict(receiver_tensors, SINGLE_RECEIVER_DEFAULT_NAME,
                                      "receiver_tensors"),
            receiver_tensors_alternatives=_alternatives(receiver_tensors_alternatives))


class TensorServingInputReceiver(collections.namedtuple(
        "TensorServingInputReceiver", ["features", "receiver_tensors",
                                       "receiver_tensors_alternatives"])):
    """Like ServingInputReceiver, but model_fn receives the single feature tensor as is."""

    def __new__(cls, features, receiver_tensors, receiver_tensors_alternatives=None):
        if features is None:
            raise ValueError("features must be defined.")
        if not isinstance(features, _TENSOR_TYPES):
            raise ValueError(
                "TensorServingInputReceiver features must be a single Tensor, SparseTensor or "
                f"RaggedTensor. Received: {type(features).__name__}.")
        receiver = ServingInputReceiver({SINGLE_FEATURE_DEFAULT_NAME: features},
                                        receiver_tensors, receiver_tensors_alternatives)
        return super().__new__(cls, features=features,
                               receiver_tensors=receiver.receiver_tensors,
                               receiver_tensors_alternatives=receiver.receiver_tensors_alternatives)


def build_parsing_serving_input_receiver_fn(feature_spec: Mapping,
                                            default_batch_size: Optional[int] = None):
    """A receiver fn that parses serialized tf.Example protos with `feature_spec`."""

    def serving_input_receiver_fn():
        serialized = tf.compat.v1.placeholder(
            dtype=tf.string, shape=[default_batch_size], name="input_example_tensor")
        features = tf.compat.v1.io.parse_example(serialized, feature_spec)
        return ServingInputReceiver(features, {"examples": serialized})

    return serving_input_receiver_fn


def _placeholder_like(tensor, default_batch_size, name):
    shape = tensor.shape
    if shape.rank:
        shape = [default_batch_size] + shape.as_list()[1:]
    if isinstance(tensor, tf.SparseTensor):
        return tf.compat.v1.sparse_placeholder(dtype=tensor.dtype, shape=shape, name=name)
    return tf.compat.v1.placeholder(dtype=tensor.dtype, shape=shape, name=name)


def build_raw_serving_input_receiver_fn(features: Union[Mapping, tf.Tensor],
                                        default_batch_size: Optional[int] = None):
    """A receiver fn that feeds placeholders shaped like `features` (batch dim replaced)."""

    def serving_input_receiver_fn():
        if isinstance(features, Mapping):
            receivers = {name: _placeholder_like(t, default_batch_size, name)
                         for name, t in features.items()}
            return ServingInputReceiver(receivers, dict(receivers))
        receiver = _placeholder_like(features, default_batch_size, SINGLE_RECEIVER_DEFAULT_NAME)
        return TensorServingInputReceiver(receiver, {SINGLE_RECEIVER_DEFAULT_NAME: receiver})

    return serving_input_receiver_fn
