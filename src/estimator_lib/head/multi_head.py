"""MultiHead: several named heads trained together on one set of logits."""

from typing import Dict, Optional, Sequence

import tensorflow as tf

from estimator_lib.core.model_fn import EstimatorSpec
from estimator_lib.core.model_fn import ModeKeys
from estimator_lib import export as export_lib
from estimator_lib.head import base_head
from estimator_lib.head import outputs
from estimator_lib.head.metric_keys import MetricKeys
from estimator_lib.head.train_op import create_estimator_spec_summary
from estimator_lib.head.train_op import create_estimator_spec_train_op



def _no_op_train_fn(loss):
    del loss  # The heads' own train ops are not run: MultiHead builds the real one.
    return tf.no_op()


def _default_export_output(export_outputs: Dict, head_name: str):
    """A head's only export output, or its 'serving_default' one."""
    if len(export_outputs) == 1:
        return next(iter(export_outputs.values()))
    if outputs.DEFAULT_SERVING_KEY not in export_outputs:
        raise ValueError(
            f"{head_name} did not specify default export_outputs. Given: {export_outputs} "
            "Suggested fix: Use one of the heads in tf.estimator, or include key "
            f"{outputs.DEFAULT_SERVING_KEY} in export_outputs.")
    return export_outputs[outputs.DEFAULT_SERVING_KEY]


class MultiHead(base_head.Head):
    """Combines named heads: the loss is their (weighted) sum, metrics keyed per head.

    Logits are either a dict {head name: logits} or one Tensor whose last dimension
    is split among the heads in order. Labels are a dict {head name: labels}.
    Predictions are keyed (head name, prediction key). Export outputs: the first
    head's default as 'serving_default', each head's outputs as '<name>' (its
    default) and '<name>/<key>', and 'predict' with every head's predictions
    as '<name>/<prediction key>'.

    Args:
        heads: Heads, each with a distinct `name`.
        head_weights: Optional floats, one per head, multiplying its loss.

    Examples:
        Two named heads; labels and logits are dicts by head name, and the loss is the
        sum of theirs (0.1269 + 0.25):

        >>> import numpy as np
        >>> import estimator_lib
        >>> head = estimator_lib.MultiHead([estimator_lib.BinaryClassHead(name="clicked"),
        ...                                 estimator_lib.RegressionHead(name="dwell")])
        >>> head.logits_dimension
        2
        >>> loss = head.loss(
        ...     labels={"clicked": np.array([[1]]), "dwell": np.array([[1.0]], np.float32)},
        ...     logits={"clicked": np.array([[2.0]], np.float32),
        ...             "dwell": np.array([[1.5]], np.float32)})
        >>> round(float(loss), 4)
        0.3769
    """

    def __init__(self, heads: Sequence[base_head.Head],
                 head_weights: Optional[Sequence[float]] = None):
        if not heads:
            raise ValueError(f"Must specify heads. Given: {heads}")
        if head_weights and len(head_weights) != len(heads):
            raise ValueError(
                "heads and head_weights must have the same size. "
                f"Given len(heads): {len(heads)}. Given len(head_weights): "
                f"{len(head_weights)}.")
        for head in heads:
            if head.name is None:
                raise ValueError(
                    f"All given heads must have name specified. Given: {head}")
        self._heads = tuple(heads)
        self._head_weights = tuple(head_weights) if head_weights else ()
        self._logits_dimension = sum(head.logits_dimension for head in self._heads)
        self._loss_keys = tuple(f"{MetricKeys.LOSS}/{head.name}" for head in self._heads)

    @property
    def name(self):
        """The heads' names joined by `_`."""
        return "_".join(head.name for head in self._heads)

    @property
    def logits_dimension(self):
        """The sum of the heads' logits dimensions (their logits concatenated)."""
        return self._logits_dimension

    @property
    def loss_reduction(self):
        """The heads' common loss reduction.

        Raises:
            ValueError: If the heads reduce their losses differently.
        """
        reductions = [head.loss_reduction for head in self._heads]
        if len(set(reductions)) > 1:
            raise ValueError(
                f"The loss_reduction must be the same for different heads. Given: {reductions}")
        return reductions[0]

    def _split_logits(self, logits) -> Dict[str, tf.Tensor]:
        dims = [head.logits_dimension for head in self._heads]
        with tf.name_scope("split_logits"):
            logits = tf.convert_to_tensor(logits)
            shape = logits.shape.as_list() if logits.shape.rank is not None else None
            if shape and shape[-1] is not None and shape[-1] != sum(dims):
                raise ValueError(
                    f"Could not split logits of shape {shape!r} among the heads with "
                    f"individual logits dimensions: {dims!r}. The last dimension of the "
                    f"logits tensor should equal {sum(dims)} but is {shape[-1]}.")
            pieces = tf.split(logits, dims, axis=-1)
        return {head.name: piece for head, piece in zip(self._heads, pieces)}

    def _check_logits_and_labels(self, logits, labels=None) -> Dict[str, tf.Tensor]:
        names = [head.name for head in self._heads]
        if isinstance(logits, dict):
            missing = [name for name in names if name not in logits]
            if missing:
                raise ValueError(f"logits has missing values for head(s): {missing}")
            logits_dict = logits
        else:
            logits_dict = self._split_logits(logits)
        if labels is not None:
            if not isinstance(labels, dict):
                raise ValueError(
                    f"labels must be a dict keyed by head name {names}. Given: {labels}")
            missing = [name for name in names if name not in labels]
            if missing:
                raise ValueError(f"labels has missing values for head(s): {missing}")
        return logits_dict

    def loss(self, labels, logits, features=None, mode=None, regularization_losses=None):
        """Returns the sum of the heads' losses (times head_weights), regularized.

        Args:
            labels: The labels tensor, its shape matching the logits' but the last dimension
                (for `MultiHead`, a dict of head name to labels).
            logits: The logits tensor, shaped `[D0, ... DN, logits_dimension]` (for `MultiHead`,
                a dict of head name to logits, or their concatenation).
            features: The dict of feature tensors; the example weights are read from it.
            mode: The `ModeKeys` mode; the loss does not depend on it.
            regularization_losses: Regularization loss tensors added to the loss (and reported
                as the `regularization_loss` metric), or None.

        Returns:
            A scalar tensor: the heads' losses, weighted by `head_weights` and summed, plus the
            regularization losses.
        """
        logits_dict = self._check_logits_and_labels(logits, labels)
        losses = [head.loss(logits=logits_dict[head.name], labels=labels[head.name],
                            features=features, mode=mode) for head in self._heads]
        with tf.name_scope("merge_losses"):
            if self._head_weights:
                losses = [tf.multiply(loss, weight)
                          for loss, weight in zip(losses, self._head_weights)]
            return base_head.add_regularization(tf.math.add_n(losses), regularization_losses)

    def predictions(self, logits, keys=None):
        """Returns every head's predictions keyed (head name, prediction key)."""
        del keys  # As in the original, each head returns all its predictions.
        logits_dict = self._check_logits_and_labels(logits)
        predictions = {}
        with tf.name_scope("merge_pred"):
            for head in self._heads:
                for key, value in head.predictions(logits=logits_dict[head.name]).items():
                    predictions[(head.name, key)] = value
        return predictions

    def metrics(self, regularization_losses=None):
        """Returns the per-head loss means (and regularization_loss) metric objects."""
        eval_metrics = {}
        if regularization_losses is not None:
            eval_metrics[self._summary_key(MetricKeys.LOSS_REGULARIZATION)] = (
                tf.keras.metrics.Mean(name=MetricKeys.LOSS_REGULARIZATION))
        with tf.name_scope("merge_eval"):
            for loss_key in self._loss_keys:
                eval_metrics[loss_key] = tf.keras.metrics.Mean(name=loss_key)
        return eval_metrics

    def update_metrics(self, eval_metrics, features, logits, labels,
                       regularization_losses=None):
        """Updates the loss means and adds each head's own updated metrics.

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
        logits_dict = self._check_logits_and_labels(logits, labels)
        if regularization_losses is not None:
            eval_metrics[self._summary_key(MetricKeys.LOSS_REGULARIZATION)].update_state(
                values=tf.math.add_n(regularization_losses))
        for head, loss_key in zip(self._heads, self._loss_keys):
            head_logits, head_labels = logits_dict[head.name], labels[head.name]
            eval_metrics[loss_key].update_state(
                values=head.loss(logits=head_logits, labels=head_labels, features=features))
            updated = head.update_metrics(head.metrics(), features, head_logits, head_labels)
            eval_metrics.update(updated or {})
        return eval_metrics

    def create_estimator_spec(self, features, mode, logits, labels=None, optimizer=None,
                              trainable_variables=None, train_op_fn=None, update_ops=None,
                              regularization_losses=None):
        """Returns the EstimatorSpec for `mode`; see the class docstring.

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
            An `EstimatorSpec` for `mode`: the loss and train op in TRAIN, the loss and metrics
            in EVAL, the predictions and export outputs in PREDICT.

        Raises:
            ValueError: If `labels` is missing in TRAIN or EVAL, the logits or labels have the
                wrong shape, or neither (or both) of `optimizer` and `train_op_fn` is given in
                TRAIN.
        """
        with tf.compat.v1.name_scope(self.name, "multi_head"):
            logits_dict = self._check_logits_and_labels(logits, labels)
            head_specs = [
                head.create_estimator_spec(
                    features=features, mode=mode, logits=logits_dict[head.name],
                    labels=labels[head.name] if labels else None,
                    train_op_fn=_no_op_train_fn)
                for head in self._heads]
            predictions = self.predictions(logits)
            if mode == ModeKeys.PREDICT:
                return EstimatorSpec(
                    mode=ModeKeys.PREDICT, predictions=predictions,
                    export_outputs=self._merge_predict_export_outputs(head_specs))
            loss = self.loss(labels, logits, features, mode, regularization_losses)
            if mode == ModeKeys.EVAL:
                updated = self.update_metrics(
                    self.metrics(regularization_losses=regularization_losses), features,
                    logits, labels, regularization_losses=regularization_losses)
                return EstimatorSpec(
                    mode=ModeKeys.EVAL, predictions=predictions, loss=loss,
                    eval_metric_ops=updated)
            if mode == ModeKeys.TRAIN:
                train_op = create_estimator_spec_train_op(
                    head_name=self.name, optimizer=optimizer, train_op_fn=train_op_fn,
                    update_ops=update_ops, trainable_variables=trainable_variables,
                    regularized_training_loss=loss, loss_reduction=self.loss_reduction)
                create_estimator_spec_summary(loss, regularization_losses)
                return EstimatorSpec(
                    mode=ModeKeys.TRAIN, loss=loss, train_op=train_op,
                    predictions=predictions)
            raise ValueError(
                f"mode={mode} unrecognized. Use one of {ModeKeys.TRAIN}, {ModeKeys.EVAL}, "
                f"{ModeKeys.PREDICT}.")

    def _merge_predict_export_outputs(self, all_estimator_spec):
        head_specs = all_estimator_spec  # The original's parameter name (a hook point).
        export_outputs = {outputs.DEFAULT_SERVING_KEY: _default_export_output(
            head_specs[0].export_outputs, self._heads[0].name)}
        merged_predict_outputs = {}
        for head, spec in zip(self._heads, head_specs):
            for key, output in spec.export_outputs.items():
                name = (head.name if key == outputs.DEFAULT_SERVING_KEY
                        else f"{head.name}/{key}")
                export_outputs[name] = output
                if (key == outputs.PREDICT_SERVING_KEY
                        and isinstance(output, export_lib.PredictOutput)):
                    for pred_key, tensor in output.outputs.items():
                        merged_predict_outputs[f"{head.name}/{pred_key}"] = tensor
        export_outputs[outputs.PREDICT_SERVING_KEY] = export_lib.PredictOutput(
            merged_predict_outputs)
        return export_outputs
