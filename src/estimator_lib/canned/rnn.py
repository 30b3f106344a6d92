"""RNNClassifier and RNNEstimator (tf.estimator.experimental): recurrent networks over
sequence feature columns.

The model is the original's Keras `RNNModel` named `rnn_model`: a SequenceFeatures
layer (plus DenseFeatures for context columns, repeated at every step), an RNN
layer, and a Dense layer `logits`. Its variables are the original's:

    rnn_model/sequence_features/<column>_embedding/embedding_weights
    rnn_model/rnn/{kernel,recurrent_kernel,bias}[_<i>]   (units=[...] or rnn_cell_fn)
    rnn_model/{lstm,gru,simple_rnn}/...                  (units=int with cell_type)
    rnn_model/logits/{kernel,bias}

An optimizer given by name gets learning rate 0.05 and gradient clip norm 5.0;
an instance is used as given. The layers are tf_keras'. The model's layer classes
are looked up through `tf.keras` when a graph is built, as the original did (code
that patches `tf.keras.layers` sees its classes used; `tf.keras` is tf_keras then,
see _keras_switch); importing this module does not touch `tf.keras`, which would
fix the Keras version before the program chooses it.
"""

from typing import Callable, Iterable, Optional, Union

import tensorflow as tf
import tf_keras
# pylint: disable=g-direct-tensorflow-import
# No public export: the function the original called, so the context columns are
# tiled (and their rank and dtype checked) the same way.
from tensorflow.python.feature_column.sequence_feature_column import concatenate_context_input
# pylint: enable=g-direct-tensorflow-import

from estimator_lib.tf_internals import keras_layers
from estimator_lib.canned import args as canned_args
from estimator_lib.canned import optimizers
from estimator_lib.engine.estimator_v1 import EstimatorV1
from estimator_lib.head import binary_class_head
from estimator_lib.head import multi_class_head
from estimator_lib.head import sequential_head
from estimator_lib.core.model_fn import ModeKeys
from estimator_lib.core.run_config import RunConfig

logging = tf.compat.v1.logging

# The original's defaults for an optimizer given by name.
_DEFAULT_LEARNING_RATE = 0.05
_DEFAULT_CLIP_NORM = 5.0

_SIMPLE_RNN_KEY = "simple_rnn"
_LSTM_KEY = "lstm"
_GRU_KEY = "gru"

# cell_type with an int `units`: the fused Keras layer.
_CELL_TYPE_TO_LAYER_MAPPING = {
    _LSTM_KEY: tf_keras.layers.LSTM,
    _GRU_KEY: tf_keras.layers.GRU,
    _SIMPLE_RNN_KEY: tf_keras.layers.SimpleRNN,
}
# cell_type with a list of `units`: one cell per entry, in a tf.keras.layers.RNN.
_CELL_TYPES = {
    _LSTM_KEY: tf_keras.layers.LSTMCell,
    _GRU_KEY: tf_keras.layers.GRUCell,
    _SIMPLE_RNN_KEY: tf_keras.layers.SimpleRNNCell,
}


# The original's marker for "no cell_type given" ('simple_rnn' unless rnn_cell_fn is),
# compared by identity; a plain object(), as the original's (signatures show its repr).
USE_DEFAULT = object()


def _single_rnn_cell(units: int, cell_type):
    """One RNN cell of `units` units; `cell_type` is a key of _CELL_TYPES or a class."""
    cell_type = _CELL_TYPES.get(cell_type, cell_type)
    if not callable(cell_type):
        raise ValueError(
            "`cell_type` should be a class producing a RNN cell, or a string specifying "
            f"the cell type. Supported strings are: {[_SIMPLE_RNN_KEY, _LSTM_KEY, _GRU_KEY]}.")
    cell = cell_type(units=units)
    # Variables read once per session run, not at every loop step (as the original).
    keras_layers.enable_caching_device(cell)
    if not hasattr(cell, "call") or not hasattr(cell, "state_size"):
        raise ValueError("RNN cell should have a `call` and `state_size` method.")
    return cell


def _make_rnn_cell_fn(units: Iterable[int], cell_type=_SIMPLE_RNN_KEY) -> Callable:
    """An `rnn_cell_fn` returning one cell per entry of `units` (a list if several)."""

    def rnn_cell_fn():
        cells = [_single_rnn_cell(n, cell_type) for n in units]
        return cells[0] if len(cells) == 1 else cells

    return rnn_cell_fn


def _verify_rnn_cell_input(rnn_cell_fn, units, cell_type) -> None:
    if rnn_cell_fn and (units or cell_type is not USE_DEFAULT):
        raise ValueError("units and cell_type must not be specified when using rnn_cell_fn")


def _make_rnn_layer(rnn_cell_fn, units, cell_type, return_sequences):
    """The RNN layer: LSTM/GRU/SimpleRNN for a known cell_type and an int `units`,
    else a tf.keras.layers.RNN over the cell(s) of `rnn_cell_fn` or of `units`."""
    _verify_rnn_cell_input(rnn_cell_fn, units, cell_type)
    if cell_type in _CELL_TYPE_TO_LAYER_MAPPING and isinstance(units, int):
        return _CELL_TYPE_TO_LAYER_MAPPING[cell_type](
            units=units, return_sequences=return_sequences)
    if not rnn_cell_fn:
        if cell_type is USE_DEFAULT:
            cell_type = _SIMPLE_RNN_KEY
        rnn_cell_fn = _make_rnn_cell_fn(units, cell_type)
    return tf.keras.layers.RNN(cell=rnn_cell_fn(), return_sequences=return_sequences)


class RNNModel(tf_keras.Model):
    """The original's Keras RNN model: sequence (and context) columns -> RNN -> logits.

    Args:
        rnn_layer: A Keras RNN layer.
        units: Size of the logits (the model's output).
        sequence_feature_columns: Sequence columns (`sequence_numeric_column`, or
            `embedding_column` over a `sequence_categorical_column_*`).
        context_feature_columns: Dense columns whose values are repeated at every step.
        activation: Activation of the logits layer (None: linear).
        return_sequences: Logits for every step ([batch, time, units]) rather than
            the last ([batch, units]); the sequence mask is then the logits' Keras
            mask, so Keras losses and metrics skip the padding.
        **kwargs: Keras Model arguments (`name`).

    Raises:
        ValueError: If `units` is not an int.
    """

    def __init__(self, rnn_layer, units: int, sequence_feature_columns,
                 context_feature_columns=None, activation=None,
                 return_sequences: bool = False, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(units, int):
            raise ValueError(f"units must be an int.  Given type: {type(units)}")
        self._return_sequences = return_sequences
        self._sequence_feature_columns = sequence_feature_columns
        self._context_feature_columns = context_feature_columns
        self._sequence_features_layer = tf.keras.experimental.SequenceFeatures(
            sequence_feature_columns)
        self._dense_features_layer = None
        if context_feature_columns:
            self._dense_features_layer = tf.compat.v1.keras.layers.DenseFeatures(
                context_feature_columns)
        self._rnn_layer = rnn_layer
        self._logits_layer = tf.keras.layers.Dense(
            units=units, activation=activation, name="logits")

    def call(self, inputs, training=None):
        """Logits [batch, time, units] with `return_sequences`, else [batch, units].

        Raises:
            ValueError: If `inputs` is not a dict.
        """
        if not isinstance(inputs, dict):
            raise ValueError("inputs should be a dictionary of `Tensor`s. "
                             f"Given type: {type(inputs)}")
        with tf.compat.v1.name_scope("sequence_input_layer"):
            try:
                sequence_input, sequence_length = self._sequence_features_layer(
                    inputs, training=training)
            except TypeError:
                sequence_input, sequence_length = self._sequence_features_layer(inputs)
            tf.compat.v1.summary.histogram("sequence_length", sequence_length)
            if self._context_feature_columns:
                try:
                    context_input = self._dense_features_layer(inputs, training=training)
                except TypeError:
                    context_input = self._dense_features_layer(inputs)
                sequence_input = concatenate_context_input(
                    context_input, sequence_input=sequence_input)
        sequence_length_mask = tf.sequence_mask(sequence_length)
        rnn_outputs = self._rnn_layer(sequence_input, mask=sequence_length_mask,
                                      training=training)
        logits = self._logits_layer(rnn_outputs)
        if self._return_sequences:
            # Keras losses and metrics skip the padding; the sequential head reads it.
            keras_layers.set_keras_mask(logits, sequence_length_mask)
        return logits

    def get_config(self) -> dict:
        """The model's Keras config: the RNN layer's, the logits layer's, the columns serialised.

        Returns:
            A dict that `RNNModel.from_config` rebuilds the model from.
        """
        serialize = tf.__internal__.feature_column.serialize_feature_column
        config = {"name": self.name}
        config["rnn_layer"] = {"class_name": self._rnn_layer.__class__.__name__,
                               "config": self._rnn_layer.get_config()}
        config["units"] = self._logits_layer.units
        config["return_sequences"] = self._return_sequences
        config["activation"] = tf.keras.activations.serialize(self._logits_layer.activation)
        config["sequence_feature_columns"] = [
            serialize(column) for column in self._sequence_feature_columns]
        config["context_feature_columns"] = (
            [serialize(column) for column in self._context_feature_columns]
            if self._context_feature_columns else None)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """Rebuilds a model from `get_config()`'s dict.

        Args:
            config: The dict `get_config` returned.
            custom_objects: A dict of name to class or function for user-defined layers,
                columns or activations, or None.

        Returns:
            A new `RNNModel` (new variables, not the original's values).
        """
        rnn_layer = tf.keras.layers.deserialize(config.pop("rnn_layer"),
                                                custom_objects=custom_objects)
        sequence_feature_columns = _deserialize_columns(
            config.pop("sequence_feature_columns"), custom_objects)
        context_feature_columns = config.pop("context_feature_columns", None)
        if context_feature_columns:
            context_feature_columns = _deserialize_columns(context_feature_columns,
                                                           custom_objects)
        activation = tf.keras.activations.deserialize(config.pop("activation", None),
                                                      custom_objects=custom_objects)
        return cls(rnn_layer=rnn_layer, sequence_feature_columns=sequence_feature_columns,
                   context_feature_columns=context_feature_columns, activation=activation,
                   **config)


def _deserialize_columns(configs, custom_objects):
    """Columns from their configs; a column several configs share is built once."""
    columns_by_name = {}
    return [tf.__internal__.feature_column.deserialize_feature_column(
        config, custom_objects, columns_by_name) for config in configs]


def _optimizer_for_graph(optimizer: optimizers.KerasOptimizerArg, by_name: bool):
    """The training graph's optimizer, its `iterations` the global step; a name gets
    the default gradient clipping."""
    opt = optimizer.for_graph(bind_global_step=False)
    if by_name:
        opt.clipnorm = _DEFAULT_CLIP_NORM
    # As the original: after clipnorm, so the step variable is bound last.
    opt.iterations = tf.compat.v1.train.get_or_create_global_step()
    return opt


def _get_rnn_estimator_spec(features, labels, mode, head, rnn_model, optimizer,
                            return_sequences, *, by_name=False):
    """The EstimatorSpec of `head` over the logits of `rnn_model`.

    With `return_sequences`, the sequence mask goes into `features` under the
    head's `input_sequence_mask_key`, unless the input gave one.
    """
    training = mode == ModeKeys.TRAIN
    # Made before the logits, as the original (no optimizer outside TRAIN).
    optimizer = _optimizer_for_graph(optimizer, by_name) if training else None
    logits = rnn_model(features, training)
    if return_sequences and head.input_sequence_mask_key not in features:
        features[head.input_sequence_mask_key] = keras_layers.keras_mask(logits)
    return head.create_estimator_spec(
        features=features, mode=mode, labels=labels, optimizer=optimizer, logits=logits,
        update_ops=rnn_model.updates, trainable_variables=rnn_model.trainable_variables)


class RNNEstimator(EstimatorV1):
    """An RNN over sequence feature columns with the head you give
    (tf.estimator.experimental.RNNEstimator).

    As the original (a subclass of the v1 Estimator), it also has the deprecated
    `export_savedmodel`.

    Examples:
        An LSTM regressor over hashed token sequences (built, not trained here):

        >>> import tensorflow as tf
        >>> import estimator_lib
        >>> token_emb = tf.feature_column.embedding_column(
        ...     tf.feature_column.sequence_categorical_column_with_hash_bucket("tokens", 100),
        ...     dimension=8)
        >>> est = estimator_lib.experimental.RNNEstimator(
        ...     head=estimator_lib.RegressionHead(), sequence_feature_columns=[token_emb],
        ...     units=[32, 16], cell_type="lstm")
        >>> isinstance(est, estimator_lib.Estimator)
        True

    Args:
        head: A `Head`; a sequential one (SequentialHeadWrapper) with `return_sequences`.
        sequence_feature_columns: Sequence columns: `sequence_numeric_column`, or
            columns built on a `sequence_categorical_column_*`.
        context_feature_columns: Dense columns repeated at every step.
        units: Units per RNN layer (a list), or an int for one fused LSTM/GRU/
            SimpleRNN layer of `cell_type`.
        cell_type: 'simple_rnn' (the default), 'lstm', 'gru', or a cell class.
        rnn_cell_fn: A function returning the RNN cell (e.g. a
            `tf.keras.layers.StackedRNNCells`); excludes `units` and `cell_type`.
        return_sequences: Logits for every step instead of the last.
        model_dir: Where checkpoints and summaries go.
        optimizer: A name ('Adagrad', the default; learning rate 0.05, gradient
            clip norm 5.0), a tf.keras optimizer, or a callable returning one.
        config: A `RunConfig`.

    Raises:
        ValueError: If `rnn_cell_fn` comes with `units` or `cell_type`, or
            `return_sequences` with a head that is not sequential.
    """

    def __init__(self, head, sequence_feature_columns, context_feature_columns=None,
                 units: Optional[Union[int, Iterable[int]]] = None, cell_type=USE_DEFAULT,
                 rnn_cell_fn: Optional[Callable] = None, return_sequences: bool = False,
                 model_dir: Optional[str] = None, optimizer="Adagrad",
                 config: Optional[RunConfig] = None):
        if return_sequences and not isinstance(head, sequential_head.SequentialHead):
            raise ValueError("Provided head must be a `_SequentialHead` object when "
                             "`return_sequences` is set to True.")
        _verify_rnn_cell_input(rnn_cell_fn, units, cell_type)
        by_name = isinstance(optimizer, str)
        optimizer = canned_args.optimizer(
            optimizer, v2=True, learning_rate=_DEFAULT_LEARNING_RATE if by_name else None)

        def _model_fn(features, labels, mode, config):
            del config  # The model needs none of it.
            rnn_layer = _make_rnn_layer(rnn_cell_fn=rnn_cell_fn, units=units,
                                        cell_type=cell_type, return_sequences=return_sequences)
            rnn_model = RNNModel(
                rnn_layer=rnn_layer, units=head.logits_dimension,
                sequence_feature_columns=sequence_feature_columns,
                context_feature_columns=context_feature_columns,
                return_sequences=return_sequences, name="rnn_model")
            return _get_rnn_estimator_spec(
                features, labels, mode, head=head, rnn_model=rnn_model, optimizer=optimizer,
                return_sequences=return_sequences, by_name=by_name)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config)


class RNNClassifier(RNNEstimator):
    """An RNN classifier (tf.estimator.experimental.RNNClassifier).

    Takes RNNEstimator's arguments but the head, and the classification head's:

    Args:
        n_classes: Number of classes (> 1); 2 gives a BinaryClassHead, more a
            MultiClassHead.
        weight_column: A key or `numeric_column` of the example weights; with
            `return_sequences`, a key (of a per-step weight) or None.
        label_vocabulary: The label strings, in class-id order.
        loss_reduction: How the training loss is reduced (SUM_OVER_BATCH_SIZE).
        sequence_mask: With `return_sequences`: the features key of the sequence
            mask; computed from the sequence lengths when the input lacks it, and
            added to the predictions.

    Examples:
        Sequences of two numbers each (a sparse sequence feature), two steps of
        training on four of them, then one evaluation:

        >>> import tempfile
        >>> import numpy as np
        >>> import tensorflow as tf
        >>> import estimator_lib
        >>> def input_fn():
        ...     x = tf.sparse.from_dense(np.array([[1.0, 2.0], [2.0, 1.0], [3.0, 4.0],
        ...                                        [4.0, 3.0]], np.float32))
        ...     labels = tf.constant([[1], [0], [1], [0]])
        ...     return tf.data.Dataset.from_tensors(({"x": x}, labels)).repeat()
        >>> est = estimator_lib.experimental.RNNClassifier(
        ...     sequence_feature_columns=[tf.feature_column.sequence_numeric_column("x")],
        ...     units=[4], model_dir=tempfile.mkdtemp())
        >>> metrics = est.train(input_fn, steps=2).evaluate(input_fn, steps=1)
        >>> int(metrics["global_step"]), bool(0.0 <= metrics["accuracy"] <= 1.0)
        (2, True)
    """

    def __init__(self, sequence_feature_columns, context_feature_columns=None,
                 units: Optional[Union[int, Iterable[int]]] = None, cell_type=USE_DEFAULT,
                 rnn_cell_fn: Optional[Callable] = None, return_sequences: bool = False,
                 model_dir: Optional[str] = None, n_classes: int = 2, weight_column=None,
                 label_vocabulary=None, optimizer="Adagrad",
                 loss_reduction: str = tf.losses.Reduction.SUM_OVER_BATCH_SIZE,
                 sequence_mask: str = "sequence_mask", config: Optional[RunConfig] = None):
        if n_classes == 2:
            head = binary_class_head.BinaryClassHead(
                weight_column=weight_column, label_vocabulary=label_vocabulary,
                loss_reduction=loss_reduction)
        else:
            head = multi_class_head.MultiClassHead(
                n_classes=n_classes, weight_column=weight_column,
                label_vocabulary=label_vocabulary, loss_reduction=loss_reduction)
        if return_sequences:
            logging.info("Converting head to sequential head with `SequentialHeadWrapper` "
                         "to allow sequential predictions.")
            head = sequential_head.SequentialHeadWrapper(
                head, sequence_length_mask=sequence_mask, feature_columns=weight_column)
        super().__init__(
            head=head, sequence_feature_columns=sequence_feature_columns,
            context_feature_columns=context_feature_columns, units=units,
            cell_type=cell_type, rnn_cell_fn=rnn_cell_fn,
            return_sequences=return_sequences, model_dir=model_dir, optimizer=optimizer,
            config=config)
