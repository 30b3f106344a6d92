"""Serving input receivers and export outputs (the `tf.estimator.export` names)."""

import collections
from typing import Dict, Mapping, Optional, Union

import tensorflow as tf
from tensorflow.python.saved_model.model_utils import export_output as _export_output

from estimator_lib.graph import inputs

# TensorFlow still ships these classes; the Estimator's names were aliases of them.
ExportOutput = _export_output.ExportOutput
ClassificationOutput = _export_output.ClassificationOutput
RegressionOutput = _export_output.RegressionOutput
PredictOutput = _export_output.PredictOutput
EvalOutput = _export_output.EvalOutput

SINGLE_FEATURE_DEFAULT_NAME = "feature"
SINGLE_RECEIVER_DEFAULT_NAME = "input"
SINGLE_LABEL_DEFAULT_NAME = "label"

_TENSOR_TYPES = (tf.Tensor, tf.SparseTensor, tf.RaggedTensor)


def _is_tensor_like(value) -> bool:
    """A Tensor, SparseTensor or RaggedTensor; or, as the original's carve-out for
    LabeledTensor, an object with a `.tensor` that converts to a Tensor."""
    if isinstance(value, _TENSOR_TYPES):
        return True
    if hasattr(value, "tensor"):
        try:
            tf.convert_to_tensor(value)
            return True
        except (TypeError, ValueError):
            return False
    return False


def _as_dict(value, default_name: str, label: str, *,
             allow_int_keys: bool = False) -> Dict[object, object]:
    """`value` as a dict of name -> tensor; `label` names one entry in messages
    (`feature`, `receiver_tensor`, as the original). Feature keys may be ints."""
    if value is None:
        raise ValueError(f"{label}s must be defined.")
    if not isinstance(value, Mapping):
        value = {default_name: value}
    for name, tensor in value.items():
        if not isinstance(name, str):
            if not allow_int_keys:
                raise ValueError(f"{label} keys must be strings: {name!r}.")
            if isinstance(name, bool) or not isinstance(name, int):
                raise ValueError(f"{label} keys must be strings or ints: {name!r}.")
        if not _is_tensor_like(tensor):
            raise ValueError(
                f"{label} {name} must be a Tensor, SparseTensor, or RaggedTensor. "
                f"Received: {type(tensor).__name__}.")
    return dict(value)


def _alternatives(alternatives):
    if alternatives is None:
        return None
    if not isinstance(alternatives, Mapping):
        raise ValueError(
            "receiver_tensors_alternatives must be a dict of name -> Tensor or dict of Tensors. "
            f"Received: {type(alternatives).__name__}.")
    return {name: _as_dict(tensors, SINGLE_RECEIVER_DEFAULT_NAME,
                           "receiver_tensors_alternative")
            for name, tensors in alternatives.items()}


class ServingInputReceiver(collections.namedtuple(
        "ServingInputReceiver", ["features", "receiver_tensors",
                                 "receiver_tensors_alternatives"])):
    """What a serving_input_receiver_fn returns: the model's features and the fed tensors.

    A bare tensor for `features` reaches model_fn as `{'feature': tensor}`, as in the
    original; use `TensorServingInputReceiver` to hand model_fn the tensor itself.

    Examples:
        A serving_input_receiver_fn fed serialized `tf.train.Example`s, parsing one
        float feature:

        >>> import tensorflow as tf
        >>> import estimator_lib
        >>> def serving_input_receiver_fn():
        ...     serialized = tf.compat.v1.placeholder(tf.string, [None], name="examples")
        ...     features = tf.io.parse_example(
        ...         serialized, {"x": tf.io.FixedLenFeature([1], tf.float32)})
        ...     return estimator_lib.export.ServingInputReceiver(features,
        ...                                                      {"examples": serialized})
        >>> with tf.Graph().as_default():
        ...     receiver = serving_input_receiver_fn()
        >>> sorted(receiver.features), sorted(receiver.receiver_tensors)
        (['x'], ['examples'])

        A bare tensor is named for model_fn (and for the signature):

        >>> with tf.Graph().as_default():
        ...     x = tf.compat.v1.placeholder(tf.float32, [None, 3])
        ...     receiver = estimator_lib.export.ServingInputReceiver(x, x)
        >>> sorted(receiver.features), sorted(receiver.receiver_tensors)
        (['feature'], ['input'])
    """

    def __new__(cls, features, receiver_tensors, receiver_tensors_alternatives=None):
        return super().__new__(
            cls, features=_as_dict(features, SINGLE_FEATURE_DEFAULT_NAME, "feature",
                                   allow_int_keys=True),
            receiver_tensors=_as_dict(receiver_tensors, SINGLE_RECEIVER_DEFAULT_NAME,
                                      "receiver_tensor"),
            receiver_tensors_alternatives=_alternatives(receiver_tensors_alternatives))


class TensorServingInputReceiver(collections.namedtuple(
        "TensorServingInputReceiver", ["features", "receiver_tensors",
                                       "receiver_tensors_alternatives"])):
    """Like ServingInputReceiver, but model_fn receives the single feature tensor as is.

    Examples:
        >>> import tensorflow as tf
        >>> import estimator_lib
        >>> with tf.Graph().as_default():
        ...     x = tf.compat.v1.placeholder(tf.float32, [None, 3])
        ...     receiver = estimator_lib.export.TensorServingInputReceiver(x, {"x": x})
        >>> receiver.features is x, sorted(receiver.receiver_tensors)
        (True, ['x'])
    """

    def __new__(cls, features, receiver_tensors, receiver_tensors_alternatives=None):
        if features is None:
            raise ValueError("features must be defined.")
        if not _is_tensor_like(features):
            raise ValueError(
                "feature must be a Tensor, SparseTensor, or RaggedTensor (a single one for "
                f"TensorServingInputReceiver). Received: {type(features).__name__}.")
        receiver = ServingInputReceiver({SINGLE_FEATURE_DEFAULT_NAME: features},
                                        receiver_tensors, receiver_tensors_alternatives)
        return super().__new__(cls, features=features,
                               receiver_tensors=receiver.receiver_tensors,
                               receiver_tensors_alternatives=receiver.receiver_tensors_alternatives)


class UnsupervisedInputReceiver(ServingInputReceiver):
    """What a TRAIN or EVAL input receiver fn returns when there are no labels.

    A ServingInputReceiver without `receiver_tensors_alternatives`; the exported
    model_fn is called with `labels=None`.
    """

    def __new__(cls, features, receiver_tensors):
        return super().__new__(cls, features=features, receiver_tensors=receiver_tensors,
                               receiver_tensors_alternatives=None)


def build_parsing_serving_input_receiver_fn(feature_spec: Mapping,
                                            default_batch_size: Optional[int] = None):
    """Makes a receiver fn that parses serialized tf.Example protos with `feature_spec`.

    Examples:
        >>> import tensorflow as tf
        >>> import estimator_lib
        >>> receiver_fn = estimator_lib.export.build_parsing_serving_input_receiver_fn(
        ...     {"x": tf.io.FixedLenFeature([1], tf.float32)})
        >>> with tf.Graph().as_default():
        ...     receiver = receiver_fn()
        >>> sorted(receiver.features), sorted(receiver.receiver_tensors)
        (['x'], ['examples'])
    """

    def serving_input_receiver_fn():
        serialized = tf.compat.v1.placeholder(
            dtype=tf.string, shape=[default_batch_size], name="input_example_tensor")
        features = tf.compat.v1.io.parse_example(serialized, feature_spec)
        return ServingInputReceiver(features, {"examples": serialized})

    return serving_input_receiver_fn


def _placeholder_like(tensor, default_batch_size):
    """A placeholder of `tensor`'s dtype, as the original's: the shape is
    `[default_batch_size] + tensor.shape[1:]` (a scalar gets a batch dimension:
    `[None]`); the name is the op name of a graph tensor, TensorFlow's default for an
    eager one. A SparseTensor gets a sparse placeholder of that shape (the original made
    a dense one, which no SparseTensor could be fed to)."""
    shape = tf.TensorShape([default_batch_size]).concatenate(tensor.shape[1:])
    try:
        name = tensor.op.name
    except AttributeError:  # An eager tensor has no op.
        name = None
    if isinstance(tensor, tf.SparseTensor):
        return tf.compat.v1.sparse_placeholder(dtype=tensor.dtype, shape=shape, name=name)
    return tf.compat.v1.placeholder(dtype=tensor.dtype, shape=shape, name=name)


def build_raw_serving_input_receiver_fn(features: Union[Mapping, tf.Tensor],
                                        default_batch_size: Optional[int] = None):
    """Makes a receiver fn feeding placeholders shaped like `features` (any batch size).

    Examples:
        >>> import tensorflow as tf
        >>> import estimator_lib
        >>> receiver_fn = estimator_lib.export.build_raw_serving_input_receiver_fn(
        ...     {"x": tf.zeros([8, 3])})
        >>> with tf.Graph().as_default():
        ...     receiver = receiver_fn()
        >>> receiver.features["x"].shape.as_list()
        [None, 3]
    """

    def serving_input_receiver_fn():
        if isinstance(features, Mapping):
            receivers = {name: _placeholder_like(t, default_batch_size)
                         for name, t in features.items()}
            return ServingInputReceiver(receivers, dict(receivers))
        receiver = _placeholder_like(features, default_batch_size)
        return TensorServingInputReceiver(receiver, {SINGLE_RECEIVER_DEFAULT_NAME: receiver})

    return serving_input_receiver_fn


class SupervisedInputReceiver(collections.namedtuple(
        "SupervisedInputReceiver", ["features", "labels", "receiver_tensors"])):
    """Features, labels and the fed tensors of a TRAIN or EVAL MetaGraph's inputs."""

    def __new__(cls, features, labels, receiver_tensors):
        for value, label in ((features, "feature"), (labels, "label")):
            _as_dict(value, label, label, allow_int_keys=True)
        return super().__new__(
            cls, features=features, labels=labels,
            receiver_tensors=_as_dict(receiver_tensors, SINGLE_RECEIVER_DEFAULT_NAME,
                                      "receiver_tensor"))


def build_raw_supervised_input_receiver_fn(features, labels,
                                           default_batch_size: Optional[int] = None):
    """Makes a receiver fn for TRAIN/EVAL exports, feeding placeholders like the batch.

    Args:
        features: A Tensor or a dict of name -> Tensor.
        labels: A Tensor or a dict of name -> Tensor.
        default_batch_size: The batch dimension of the placeholders; None: any.

    Returns:
        A receiver fn returning a SupervisedInputReceiver.

    Raises:
        ValueError: If `features` and `labels` share a key.

    Examples:
        Placeholders shaped like a batch of features and labels, for the TRAIN and EVAL
        graphs of `Estimator.experimental_export_all_saved_models`:

        >>> import tensorflow as tf
        >>> import estimator_lib
        >>> receiver_fn = estimator_lib.experimental.build_raw_supervised_input_receiver_fn(
        ...     {"x": tf.zeros([8, 3])}, tf.zeros([8, 1]))
        >>> with tf.Graph().as_default():
        ...     receiver = receiver_fn()
        >>> receiver.features["x"].shape.as_list(), receiver.labels.shape.as_list()
        ([None, 3], [None, 1])
        >>> sorted(receiver.receiver_tensors)
        ['label', 'x']
    """
    feature_keys = (list(features) if isinstance(features, Mapping)
                    else [SINGLE_RECEIVER_DEFAULT_NAME])
    label_keys = list(labels) if isinstance(labels, Mapping) else [SINGLE_LABEL_DEFAULT_NAME]
    overlap = set(feature_keys) & set(label_keys)
    if overlap:
        raise ValueError("Features and labels must have distinct keys. Found overlapping "
                         f"keys: {sorted(overlap)}")

    def placeholders(value, single_name):
        if isinstance(value, Mapping):
            made = {name: _placeholder_like(t, default_batch_size) for name, t in value.items()}
            return made, made
        made = _placeholder_like(value, default_batch_size)
        return made, {single_name: made}

    def supervised_input_receiver_fn():
        feature_part, feature_receivers = placeholders(features, SINGLE_RECEIVER_DEFAULT_NAME)
        label_part, label_receivers = placeholders(labels, SINGLE_LABEL_DEFAULT_NAME)
        return SupervisedInputReceiver(feature_part, label_part,
                                       dict(feature_receivers, **label_receivers))

    return supervised_input_receiver_fn


# The key a lone tensor gets, by the field it was given for (the original's names).
_SINGLE_TENSOR_DEFAULT_NAMES = {
    "feature": SINGLE_FEATURE_DEFAULT_NAME,
    "label": SINGLE_LABEL_DEFAULT_NAME,
    "receiver_tensor": SINGLE_RECEIVER_DEFAULT_NAME,
    "receiver_tensors_alternative": SINGLE_RECEIVER_DEFAULT_NAME,
}


def wrap_and_check_input_tensors(tensors, field_name: str,
                                 allow_int_keys: bool = False) -> Dict[object, object]:
    """`tensors` as a dict of name -> tensor (a lone tensor under its field's default name).

    Args:
        tensors: A Tensor, SparseTensor or RaggedTensor, or a dict of them.
        field_name: 'feature', 'label', 'receiver_tensor' or
            'receiver_tensors_alternative': the default key and the messages' word.
        allow_int_keys: Whether int keys are accepted besides strings.

    Raises:
        ValueError: If `tensors` is None, a key is not a string (or int), or a
            value is not a tensor.
    """
    return _as_dict(tensors, _SINGLE_TENSOR_DEFAULT_NAMES[field_name], field_name,
                    allow_int_keys=allow_int_keys)


def build_supervised_input_receiver_fn_from_input_fn(input_fn, **input_fn_args):
    """A TRAIN/EVAL receiver fn feeding placeholders shaped like an input_fn's batch.

    The input_fn is called (with `input_fn_args`) in a graph of its own, only to
    read its features' and labels' dtypes and shapes.

    Args:
        input_fn: Returns a Dataset of (features, labels) or a (features, labels) tuple.
        **input_fn_args: Keyword arguments for `input_fn`.

    Returns:
        A receiver fn returning a SupervisedInputReceiver.
    """
    with tf.Graph().as_default():
        features, labels, _ = inputs.parse_input_fn_result(input_fn(**input_fn_args))
    return build_raw_supervised_input_receiver_fn(features, labels)
