"""Heads over sequences: a static head applied to the unpadded steps of each sequence.

`SequentialHeadWrapper` (the original's `head/sequential_head.py`) serves the RNN
estimators with `return_sequences=True`: logits and labels come as
[batch_size, seq_length, ...]; the mask in `features[input_sequence_mask_key]`
says which steps are real, and only those reach the wrapped head's loss and
metrics (flattened to [n_real_steps, ...]). Predictions keep the sequence shape
and gain the mask under its key.

    head = SequentialHeadWrapper(BinaryClassHead(weight_column="w"),
                                 sequence_length_mask="mask", feature_columns="w")
    features["mask"] = tf.sequence_mask(sequence_length)
    spec = head.create_estimator_spec(features, mode, logits, labels=labels, ...)
"""

import abc
from collections.abc import Iterable
from typing import Dict, Optional, Sequence, Tuple, Union

import tensorflow as tf

from estimator_lib.head import base_head
from estimator_lib.head import multi_head
from estimator_lib.core.model_fn import ModeKeys


class SequentialHead(base_head.Head):
    """Interface of a head over sequences: it names the sequence mask's feature key.

    The RNN estimators with `return_sequences=True` require one, and put the mask
    they compute under `input_sequence_mask_key` unless the input gives it.
    """

    @property
    @abc.abstractmethod
    def input_sequence_mask_key(self) -> str:
        """Key of the sequence mask tensor ([batch_size, seq_length]) in the features."""


# The original's name: RNNEstimator's error names it, and custom sequential heads
# written for the original subclass it.
_SequentialHead = SequentialHead


class SequentialHeadWrapper(SequentialHead):
    """A sequential head wrapping a static `Head` (not a MultiHead).

    Loss and metrics: logits, labels and the features named by `feature_columns`
    (typically the weights) are flattened over the steps the sequence mask keeps,
    then given to the static head. Predictions: the static head's, on the
    unflattened logits, plus the mask under `sequence_length_mask`.

    Args:
        static_head: The `Head` to apply to every real step.
        sequence_length_mask: Features key of the [batch_size, seq_length] mask.
        feature_columns: A key or list of keys of features to flatten with the
            mask and pass to the static head (e.g. the weight column's key).

    Raises:
        TypeError: If `sequence_length_mask` or a feature column is not a string.
        ValueError: If `static_head` is a MultiHead.
    """

    def __init__(self, static_head: base_head.Head,
                 sequence_length_mask: str = "sequence_length_mask",
                 feature_columns: Optional[Union[str, Sequence[str]]] = None):
        if not isinstance(sequence_length_mask, str):
            raise TypeError("`sequence_mask` column must be a string. "
                            f"Given type: {type(sequence_length_mask)}.")
        feature_columns = feature_columns or []
        if not isinstance(feature_columns, Iterable):
            raise TypeError("`feature_columns` must be either a string or an iterable of "
                            f"strings got {type(feature_columns)} instead.")
        if isinstance(feature_columns, str):
            feature_columns = [feature_columns]
        for column in feature_columns:
            if not isinstance(column, str):
                raise TypeError(f"Column must a string. Given type: {type(column)}.")
        if isinstance(static_head, multi_head.MultiHead):
            raise ValueError("`MultiHead` is not supported with `SequentialHeadWrapper`.")
        self._sequence_length_mask = sequence_length_mask
        self._feature_columns = feature_columns
        self._static_head = static_head

    # ------------------------------------------------------------ properties

    @property
    def input_sequence_mask_key(self) -> str:
        """The features key of the [batch_size, seq_length] sequence mask."""
        return self._sequence_length_mask

    @property
    def logits_dimension(self) -> int:
        """The static head's logits dimension (the size of the logits' last axis)."""
        return self._static_head.logits_dimension

    @property
    def loss_reduction(self) -> str:
        """The static head's loss reduction (a `tf.losses.Reduction`)."""
        return self._static_head.loss_reduction

    @property
    def name(self) -> Optional[str]:
        """`<static head's name>_sequential`, or None when the static head has none."""
        if self._static_head.name:
            return f"{self._static_head.name}_sequential"
        return None

    @property
    def static_head(self) -> base_head.Head:
        """The wrapped `Head` that every real step is given to."""
        return self._static_head

    # ------------------------------------------------------------ flattening

    def _flatten(self, labels, logits, features) -> Tuple[tf.Tensor, tf.Tensor, Dict]:
        """(labels, logits, {column: feature}) flattened over the masked steps.

        Each has its first two dimensions merged into one of length
        sum(mask); dense tensors are read through the mask, sparse ones by their
        values (in index order).

        Raises:
            ValueError: If the mask is missing or not 2-D, a feature column is
                missing, or a tensor has fewer than 2 dimensions.
        """
        key = self.input_sequence_mask_key
        if key not in features:
            raise ValueError(
                f"The provided sequence_length_mask key `{key}` should be included in the "
                f"features dictionary, but was not found. Found keys: {list(features.keys())}.")
        sequence_mask = features[key]
        if sequence_mask.get_shape().ndims != 2:
            raise ValueError("Mask is expected to have two dimensions, got "
                             f"{sequence_mask.get_shape().ndims} instead.")
        with tf.compat.v1.name_scope("flatten"):
            expected_length = tf.math.reduce_sum(tf.cast(sequence_mask, tf.int32))
            flat_logits = _flatten_tensor(logits, sequence_mask, expected_length)
            flat_labels = _flatten_tensor(labels, sequence_mask, expected_length)
            flat_features = {}
            for column in self._feature_columns:
                if column not in features:
                    raise ValueError(f"`{column}` column expected in features dictionary.")
                flat_features[column] = _flatten_tensor(features[column], sequence_mask,
                                                        expected_length)
            return flat_labels, flat_logits, flat_features

    # ------------------------------------------------------------ the Head API

    def loss(self, logits, labels, features=None, mode=None, regularization_losses=None):
        """The static head's regularized loss over the masked steps.

        Args:
            logits: The logits tensor, shaped `[D0, ... DN, logits_dimension]` (for `MultiHead`,
                a dict of head name to logits, or their concatenation).
            labels: The labels tensor, its shape matching the logits' but the last dimension
                (for `MultiHead`, a dict of head name to labels).
            features: The dict of feature tensors; the example weights are read from it.
            mode: The `ModeKeys` mode; the loss does not depend on it.
            regularization_losses: Regularization loss tensors added to the loss (and reported
                as the `regularization_loss` metric), or None.

        Returns:
            The static head's loss over the unmasked steps.
        """
        flat_labels, flat_logits, flat_features = self._flatten(labels, logits, features)
        return self._static_head.loss(
            logits=flat_logits, labels=flat_labels, features=flat_features, mode=mode,
            regularization_losses=regularization_losses)

    def create_estimator_spec(self, features, mode, logits, labels=None, optimizer=None,
                              trainable_variables=None, train_op_fn=None, update_ops=None,
                              regularization_losses=None):
        """The static head's EstimatorSpec: flattened in TRAIN and EVAL; in PREDICT on
        the sequence logits, the mask added to the predictions.

        Args:
            features: The dict of feature tensors; the example weights are read from it.
            mode: The `ModeKeys` mode; the loss does not depend on it.
            logits: The logits tensor, shaped `[D0, ... DN, logits_dimension]` (for `MultiHead`,
                a dict of head name to logits, or their concatenation).
            labels: The labels tensor, its shape matching the logits' but the last dimension
                (for `MultiHead`, a dict of head name to labels).
            optimizer: A Keras optimizer that builds the train op from the loss; exclusive with
                `train_op_fn`.
            trainable_variables: The variables `optimizer` updates.
            train_op_fn: A function from the loss to the train op, used when `optimizer` is
                None.
            update_ops: Ops the train op must run with (e.g. batch-norm updates), or None.
            regularization_losses: Regularization loss tensors added to the loss (and reported
                as the `regularization_loss` metric), or None.

        Returns:
            An `EstimatorSpec` for `mode`.
        """
        if mode == ModeKeys.PREDICT:
            spec = self._static_head.create_estimator_spec(
                features=features, mode=mode, logits=logits)
            # In place, as the original: the export outputs built from the same
            # dict before this line keep the static head's keys only.
            spec.predictions[self.input_sequence_mask_key] = features[
                self.input_sequence_mask_key]
            return spec._replace(predictions=spec.predictions)
        flat_labels, flat_logits, flat_features = self._flatten(labels, logits, features)
        return self._static_head.create_estimator_spec(
            features=flat_features, mode=mode, logits=flat_logits,
            trainable_variables=trainable_variables, labels=flat_labels, optimizer=optimizer,
            train_op_fn=train_op_fn, regularization_losses=regularization_losses,
            update_ops=update_ops)

    def update_metrics(self, eval_metrics, features, logits, labels,
                       regularization_losses=None):
        """The static head's metrics updated with the masked steps.

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
        flat_labels, flat_logits, flat_features = self._flatten(labels, logits, features)
        return self._static_head.update_metrics(
            eval_metrics=eval_metrics, features=flat_features, logits=flat_logits,
            labels=flat_labels, regularization_losses=regularization_losses)

    def predictions(self, logits, keys=None):
        """The static head's predictions of `logits` (not flattened).

        Args:
            logits: The logits, [batch_size, seq_length, logits_dimension].
            keys: The prediction keys to return, or None for all.

        Returns:
            A dict of prediction key to tensor.
        """
        return self._static_head.predictions(logits, keys=keys)

    def metrics(self, regularization_losses=None):
        """The static head's metric objects.

        Args:
            regularization_losses: The regularization losses, or None.

        Returns:
            A dict of metric name to `tf.keras.metrics.Metric`.
        """
        return self._static_head.metrics(regularization_losses)

    def _create_tpu_estimator_spec(self, features, mode, logits, labels=None,
                                   optimizer=None, trainable_variables=None,
                                   train_op_fn=None, update_ops=None,
                                   regularization_losses=None):
        raise NotImplementedError


def _flatten_tensor(tensor, sequence_mask: tf.Tensor, expected_length: tf.Tensor) -> tf.Tensor:
    """[batch_size, seq_length, D...] -> [expected_length, D...] (D = 1 for a 2-D input).

    A dense tensor keeps the steps `sequence_mask` marks; a SparseTensor gives its
    values (reordered by index first, as the values' order is the steps').
    The result is checked at run time to have `expected_length` rows.

    Raises:
        ValueError: If `tensor` has fewer than 2 dimensions or is neither a Tensor
            nor a SparseTensor; at run time, InvalidArgumentError if its length
            differs from `expected_length`.
    """
    shape = tensor.get_shape()
    if shape.ndims < 2:
        raise ValueError("Input tensor expected to have at least 2 dimensions, "
                         f"got {shape.ndims} instead.")
    if isinstance(tensor, tf.sparse.SparseTensor):
        flat_tensor = tf.sparse.reorder(tensor).values
        if shape.ndims > 2:
            # As the original: the values in their given order (not reordered) here.
            flat_tensor = tf.reshape(tensor.values, tf.concat([[-1], shape[2:]], axis=0))
    elif isinstance(tensor, tf.Tensor):
        flat_tensor = tf.boolean_mask(tensor, sequence_mask)
    else:
        raise ValueError(
            f"`tensor` expected to be a `Tensor` or  `SparseTensor` got `{tensor}` instead.")
    if shape.ndims == 2:
        flat_tensor = tf.compat.v1.expand_dims(flat_tensor, -1)
        expected_shape = tf.concat([[expected_length], [1]], axis=0)
    else:
        expected_shape = tf.concat([[expected_length], shape[2:]], axis=0)
    err_message = "Tensor shape is incompatible with provided mask."
    if tf.executing_eagerly():
        if tuple(flat_tensor.shape) != tuple(expected_shape.numpy()):
            raise ValueError(err_message)
        return flat_tensor
    with tf.control_dependencies([tf.compat.v1.debugging.assert_equal(
            tf.compat.v1.shape(flat_tensor), expected_shape, message=err_message)]):
        return tf.identity(flat_tensor)
