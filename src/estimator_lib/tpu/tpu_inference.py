"""The MetaGraph for TPU serving (tags `serve`, `tpu`), built as the original built it.

With `export_to_tpu=True` (the default) the original's TPUEstimator wrote a second
MetaGraph beside the CPU one, also when it ran on CPUs, and tools look for it by its
tags. With `export_saved_model_api_version` V1 (the default) its model is the
model_fn called inside `tf.compat.v1.tpu.rewrite`, in a function that a
`TPUPartitionedCall` runs on the core a `TPUOrdinalSelector` picks; the signatures'
outputs are that call's outputs. Only a TPU can run it: on a CPU, a session over
that graph fails (no kernel for `TPUOrdinalSelector`), as the original's did. With
V2 the model_fn is called plainly (it may call `tpu.rewrite` itself) with
`params['use_tpu']` True (with V1 it was False, as the original passed it).
"""

import collections
import contextlib
from typing import Callable

import tensorflow as tf
# Defun, not tf.function: its graph creates the model_fn's variables in the outer
# graph and captures their handles, as the original's TPU serving graph did; a
# tf.function may not create variables in a v1 graph.
from tensorflow.python.framework import function as defun_lib
# The control-flow context the original built the TPU serving graph in, and its
# clean-up of ops left outside the XLA cluster; TF keeps both private.
from tensorflow.python.tpu import tpu as tpu_lib

from estimator_lib.export import receivers
from estimator_lib.core.model_fn import EstimatorSpec

# The original's key for predictions that are one tensor, not a dict.
_SINGLE_PREDICTION_KEY = "_key_when_predictions_is_a_tensor"


@contextlib.contextmanager
def inference_context():
    """The TPU inference context the original called the model_fn in for `tpu` exports."""
    # check_ops=False, as the original: ops a TPU cannot run are not refused here.
    context = tpu_lib._TPUInferenceContext(  # pylint: disable=protected-access
        "tpu_inference", check_ops=False)
    context.Enter()
    try:
        yield
    finally:
        context.Exit()


def _output_tensors(export_output) -> list:
    if isinstance(export_output, receivers.ClassificationOutput):
        return [export_output.scores, export_output.classes]
    if isinstance(export_output, receivers.RegressionOutput):
        return [export_output.value]
    if isinstance(export_output, receivers.PredictOutput):
        return list(export_output.outputs.values())
    raise ValueError(
        "`export_output` must be have type `ClassificationOutput`, `RegressionOutput`, or "
        f"`PredictOutput`; got {export_output}.")


def _with_tensors(export_output, tensors: list):
    if isinstance(export_output, receivers.ClassificationOutput):
        return receivers.ClassificationOutput(*tensors)
    if isinstance(export_output, receivers.RegressionOutput):
        return receivers.RegressionOutput(*tensors)
    return receivers.PredictOutput(dict(zip(export_output.outputs.keys(), tensors)))


def model_fn_on_tpu(call_model_fn: Callable[[], EstimatorSpec]) -> EstimatorSpec:
    """The PREDICT spec of `call_model_fn()` built to run on a TPU core.

    Args:
        call_model_fn: Calls the model_fn in PREDICT mode on the serving features.

    Returns:
        Its spec with predictions and export outputs replaced by the outputs of a
        `TPUPartitionedCall` of the rewritten computation.
    """
    captured = {}

    def tpu_computation():
        spec = call_model_fn()
        export_outputs = collections.OrderedDict(
            (key, _output_tensors(output)) for key, output in spec.export_outputs.items())
        export_list = tf.nest.flatten(export_outputs)
        if isinstance(spec.predictions, dict):
            predictions = collections.OrderedDict(spec.predictions.items())
        else:
            predictions = {_SINGLE_PREDICTION_KEY: spec.predictions}
        prediction_list = tf.nest.flatten(predictions)
        captured.update(spec=spec, export_outputs=export_outputs, export_list=export_list,
                        predictions=predictions)
        # Outputs may not be None: those of ClassificationOutput are put back below.
        return prediction_list + [t for t in export_list if t is not None]

    @defun_lib.Defun(capture_resource_var_by_value=False)
    def tpu_subgraph():
        outputs = tf.compat.v1.tpu.rewrite(tpu_computation)
        tpu_lib.prune_unconnected_ops_from_xla(tf.compat.v1.get_default_graph())
        return outputs

    # Defining the function calls the model_fn (in the function's graph).
    types = [arg.type for arg in tpu_subgraph.definition.signature.output_arg]
    outputs = tf.raw_ops.TPUPartitionedCall(
        args=tpu_subgraph.captured_inputs, device_ordinal=tf.raw_ops.TPUOrdinalSelector(),
        Tout=types, f=tpu_subgraph)
    spec = captured["spec"]
    num_predictions = len(tf.nest.flatten(captured["predictions"]))
    prediction_list = list(outputs[:num_predictions])
    export_outputs_left = list(outputs[num_predictions:])
    export_list = [None if t is None else export_outputs_left.pop(0)
                   for t in captured["export_list"]]
    export_tensors = tf.nest.pack_sequence_as(captured["export_outputs"], export_list)
    export_outputs = collections.OrderedDict(
        (key, _with_tensors(spec.export_outputs[key], tensors))
        for key, tensors in export_tensors.items())
    predictions = tf.nest.pack_sequence_as(captured["predictions"], prediction_list)
    if len(predictions) == 1 and _SINGLE_PREDICTION_KEY in predictions:
        predictions = predictions[_SINGLE_PREDICTION_KEY]
    return spec._replace(export_outputs=export_outputs, predictions=predictions)
