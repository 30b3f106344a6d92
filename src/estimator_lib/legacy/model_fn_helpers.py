"""The original `model_fn.py`'s private checks, by their names and signatures.

Libraries that build a spec of their own (a TPU-style spec, a multi-task spec)
validate its fields with these (`model_fn._validate_estimator_spec_loss`, ...);
compat.install() puts each at `tensorflow_estimator.python.estimator.model_fn`
(legacy/original_tree.py). They make the checks EstimatorSpec makes here
(core/model_fn.py), with the original's arguments and return values.
"""

import tensorflow as tf
from tensorflow.python.saved_model.model_utils import export_utils

from estimator_lib.core import model_fn as model_fn_lib
from estimator_lib.core.model_fn import ModeKeys
from estimator_lib.core.model_fn import check_hooks

_VALID_MODEL_FN_ARGS = {"features", "labels", "mode", "params", "self", "config"}

_default_graph_error_message_template = (
    '{0} with "{1}" must be from the default graph. '
    "Possible causes of this error include: \n\n"
    "1) {0} was created outside the context of the default graph.\n\n"
    "2) The object passed through to EstimatorSpec was not created "
    'in the most recent call to "model_fn".')


def _check_is_tensor_or_operation(x, name):
    """TypeError unless `x` is a Tensor or an Operation."""
    if not isinstance(x, (tf.Operation, tf.compat.v2.__internal__.types.Tensor)):
        raise TypeError(f"{name} must be Operation or Tensor, given: {x}")


def _check_is_tensor(x, tensor_name):
    """`x`, or TypeError unless it is a Tensor."""
    if not isinstance(x, tf.compat.v2.__internal__.types.Tensor):
        raise TypeError(f"{tensor_name} must be Tensor, given: {x}")
    return x


def _validate_estimator_spec_train_op(train_op, mode):
    """The train op (a Variable's op for a Variable); ValueError when TRAIN lacks one."""
    if train_op is None:
        if mode == ModeKeys.TRAIN:
            raise ValueError("Missing train_op.")
        return None
    _check_is_tensor_or_operation(train_op, "train_op")
    train_op = model_fn_lib.as_tensor_or_op(train_op, "train_op")
    model_fn_lib.check_graph(train_op, "train_op")
    return train_op


def _validate_estimator_spec_loss(loss, mode):
    """The loss as a scalar; ValueError when TRAIN or EVAL lacks one or it is not one."""
    if loss is None and mode in (ModeKeys.TRAIN, ModeKeys.EVAL):
        raise ValueError("Missing loss.")
    return model_fn_lib.check_loss(loss, mode)


def _validate_estimator_spec_predictions(predictions, mode):
    """The predictions ({} for None outside PREDICT); ValueError when PREDICT lacks them."""
    if predictions is None and mode == ModeKeys.PREDICT:
        raise ValueError("Missing predictions.")
    return model_fn_lib.check_predictions(predictions, mode)


def _validate_estimator_spec_export_outputs(export_outputs, predictions, mode):
    """In PREDICT, the export outputs checked (a default PredictOutput for None)."""
    if mode == ModeKeys.PREDICT:
        export_outputs = export_utils.get_export_outputs(export_outputs, predictions)
    return export_outputs


def _validate_estimator_spec_hooks(hooks):
    """The hooks as a tuple; TypeError for one that is not a SessionRunHook."""
    return check_hooks(hooks, "hooks")


def _update_variable_collection(collection_name, vars_to_add):
    """Adds to the collection each variable of `vars_to_add` it does not hold yet."""
    collection = set(tf.compat.v1.get_collection(collection_name))
    for variable in set(vars_to_add) - collection:
        tf.compat.v1.add_to_collection(collection_name, variable)


def _validate_eval_metric_ops(eval_metric_ops):
    """The metrics as (value, update_op) pairs; Keras metrics' variables made local.

    Raises:
        TypeError: If the metrics are not a dict, or a value is neither a pair nor a
            Keras metric.
        ValueError: If a tensor is from another graph, or a Keras metric was not updated.
    """
    if eval_metric_ops is None:
        return {}
    if not isinstance(eval_metric_ops, dict):
        raise TypeError(f"eval_metric_ops must be a dict, given: {eval_metric_ops}")
    for key, value in eval_metric_ops.items():
        if not isinstance(value, tf.keras.metrics.Metric) and not (
                isinstance(value, tuple) and len(value) == 2):
            raise TypeError("Values of eval_metric_ops must be (metric_value, update_op) "
                            f"tuples, given: {value} for key: {key}")
    for key in list(eval_metric_ops):
        eval_metric_ops[key] = model_fn_lib.metric_value_and_update(
            eval_metric_ops[key], key)
    return eval_metric_ops


def _validate_scaffold(scaffold):
    """The scaffold, a default one for None; TypeError for anything but a Scaffold."""
    scaffold = scaffold or tf.compat.v1.train.Scaffold()
    if not isinstance(scaffold, tf.compat.v1.train.Scaffold):
        raise TypeError(f"scaffold must be tf.train.Scaffold. Given: {scaffold}")
    return scaffold
