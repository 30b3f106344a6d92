"""Writing a model_fn's graph plus a checkpoint as a SavedModel."""

import contextlib
import logging as pylogging
import os
from typing import Callable, Dict, Optional

import tensorflow as tf
from tensorflow.python.saved_model.model_utils import export_utils

from estimator_lib.core.model_fn import ModeKeys

logging = tf.compat.v1.logging

# The order the original wrote MetaGraphs in: TRAIN first, as it saves variables.
_MODE_ORDER = (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT)


def export_all(export_dir_base, receiver_fn_map: Dict[str, Callable], *,
               add_meta_graph: Callable, assets_extra: Optional[dict], as_text: bool) -> bytes:
    """Builds a SavedModel in a temporary directory, then renames it into place.

    `add_meta_graph(builder, mode, receiver_fn, save_variables)` adds one MetaGraph.
    Returns the final (timestamped) directory as bytes, as the original did.

    Args:
        export_dir_base: The directory under which the timestamped export is created.
        receiver_fn_map: A dict of `ModeKeys` mode to receiver function.
        add_meta_graph: Adds one MetaGraph (see above).
        assets_extra: A dict of destination (under `assets.extra`) to source path, or None.
        as_text: Whether to write the SavedModel proto as text.

    Raises:
        ValueError: If the map holds no known mode.
    """
    modes = [m for m in _MODE_ORDER if m in receiver_fn_map]
    if not modes:
        raise ValueError(
            f"No valid modes for exporting found. Got {list(receiver_fn_map)}; valid modes: "
            f"{list(_MODE_ORDER)}.")
    export_dir = export_utils.get_timestamped_export_dir(export_dir_base)
    temp_dir = export_utils.get_temp_export_dir(export_dir)
    try:
        builder = tf.compat.v1.saved_model.Builder(temp_dir)
        for i, mode in enumerate(modes):
            add_meta_graph(builder, mode, receiver_fn_map[mode], save_variables=(i == 0))
        builder.save(as_text)
        for relative, source in (assets_extra or {}).items():
            destination = os.path.join(tf.compat.as_bytes(temp_dir),
                                       tf.compat.as_bytes("assets.extra"),
                                       tf.compat.as_bytes(relative))
            tf.io.gfile.makedirs(os.path.dirname(destination))
            tf.io.gfile.copy(source, destination, overwrite=True)
        tf.io.gfile.rename(temp_dir, export_dir)
    except BaseException:
        # Never leave a half-written export behind that looks like a finished one.
        if tf.io.gfile.exists(temp_dir):
            tf.io.gfile.rmtree(temp_dir)
        raise
    return export_dir


def signature_defs(mode, spec, receiver):
    """The SignatureDefs for one MetaGraph, from the spec's export outputs.

    Args:
        mode: The `ModeKeys` mode.
        spec: The mode's `EstimatorSpec`.
        receiver: The receiver the features came from.

    Returns:
        A dict of signature name to `SignatureDef`.
    """
    metrics = {name: pair for name, pair in spec.eval_metric_ops.items()}
    outputs = export_utils.export_outputs_for_mode(
        mode=mode, serving_export_outputs=spec.export_outputs, predictions=spec.predictions,
        loss=spec.loss, metrics=metrics)
    with _without_tensor_info_deprecations():
        return export_utils.build_all_signature_defs(
            receiver.receiver_tensors, outputs,
            getattr(receiver, "receiver_tensors_alternatives", None),
            serving_only=(mode == ModeKeys.PREDICT))


# TensorFlow's own signature helpers call these TF1 functions, each deprecated; the
# warning names no call of the user's (docs/estimator.md, deliberate difference 24).
_TENSOR_INFO_DEPRECATIONS = tuple(
    f"{name} (from tensorflow.python.saved_model.utils_impl) is deprecated"
    for name in ("build_tensor_info", "get_tensor_from_tensor_info"))


def _not_a_tensor_info_deprecation(record: pylogging.LogRecord) -> bool:
    message = record.getMessage()
    return not any(text in message for text in _TENSOR_INFO_DEPRECATIONS)


@contextlib.contextmanager
def _without_tensor_info_deprecations():
    """Drops those two deprecation warnings from TensorFlow's logger during the call."""
    logger = tf.get_logger()
    logger.addFilter(_not_a_tensor_info_deprecation)
    try:
        yield
    finally:
        logger.removeFilter(_not_a_tensor_info_deprecation)


def tags_for(mode):
    """The SavedModel tags of a mode's MetaGraph (`serve` for PREDICT, as the original)."""
    return export_utils.EXPORT_TAG_MAP[mode]
