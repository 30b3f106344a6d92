"""SavedModelEstimator: an Estimator over a SavedModel that an Estimator exported.

The original's `canned/saved_model_estimator.py` (exported under no tf.estimator
name; its module path resolves here). Its model_fn imports the MetaGraph of the
mode asked for (tags as `experimental_export_all_saved_models` wrote them: TRAIN
['train'], EVAL ['eval'], PREDICT ['serve']) into the call's graph, the input_fn's
features and labels replacing the signature's inputs, and builds the EstimatorSpec
from the signature's outputs. So a model exported by `export_saved_model` (PREDICT
only) or by `experimental_export_all_saved_models` (also TRAIN and EVAL, and
writable by another release, e.g. the original on TF 2.15) can be evaluated,
predicted with, trained further and exported again:

    est = SavedModelEstimator(export_dir, model_dir="/tmp/fine_tuned")
    est.evaluate(input_fn, steps=10)
    est.train(input_fn, steps=100)    # needs the TRAIN MetaGraph

The variables start from the SavedModel's `variables/` until model_dir has a
checkpoint. The global step is the SavedModel's: the graph gets none before the
model_fn, and an input_fn that makes one is refused.
"""

import os
from typing import Dict, Optional

import tensorflow as tf
# pylint: disable=g-direct-tensorflow-import
# SavedModelLoader: no public API imports a SavedModel's MetaGraph into a graph
# that already holds the input (with an input_map) without a session, returning
# the output tensors under their possibly uniquified names; the original used it.
from tensorflow.python.saved_model import loader_impl
# pylint: enable=g-direct-tensorflow-import

from estimator_lib.distribute import job_shape
from estimator_lib.engine.estimator import Estimator
from estimator_lib.export import receivers
from estimator_lib.export import saved_model
from estimator_lib.core.model_fn import EstimatorSpec
from estimator_lib.core.model_fn import ModeKeys

logging = tf.compat.v1.logging

# How the supervised (TRAIN/EVAL) signatures name their outputs: `loss`,
# `predictions[/<key>]`, `metrics/<name>/value` and `metrics/<name>/update_op`
# (TensorFlow's export_output._SupervisedOutput writes them).
_SEPARATOR = "/"
_LOSS_NAME = "loss"
_PREDICTIONS_NAME = "predictions"
_METRICS_NAME = "metrics"
_METRIC_VALUE_SUFFIX = "value"
_METRIC_UPDATE_SUFFIX = "update_op"
# The v1 SavedModelBuilder's collection of a TRAIN MetaGraph's train op.
_TRAIN_OP_KEY = "saved_model_train_op"
# The supervised signatures' method names (signature_constants has no public export).
_SUPERVISED_TRAIN_METHOD_NAME = "tensorflow/supervised/training"
_SUPERVISED_EVAL_METHOD_NAME = "tensorflow/supervised/eval"


class SavedModelEstimator(Estimator):
    """An Estimator whose model is a SavedModel exported by an Estimator.

    Only SavedModels written by `Estimator.export_saved_model` or
    `Estimator.experimental_export_all_saved_models` work: each mode runs from its
    MetaGraph and signature (PREDICT: 'serving_default'; TRAIN, EVAL: 'train',
    'eval'); a mode the SavedModel lacks raises a RuntimeError when called.

    Args:
        saved_model_dir: The SavedModel's directory (holding saved_model.pb).
        model_dir: Where training writes new checkpoints (a temporary folder if None).

    Raises:
        NotImplementedError: If the config names a distribution strategy.
    """

    def __init__(self, saved_model_dir, model_dir: Optional[str] = None):
        super().__init__(model_fn=self._model_fn_from_saved_model, model_dir=model_dir)
        if job_shape.uses_a_strategy(self._config):
            raise NotImplementedError(
                "SavedModelEstimator currently does not support DistributionStrategy.")
        self.saved_model_dir = saved_model_dir
        self.saved_model_loader = loader_impl.SavedModelLoader(saved_model_dir)
        self._available_modes = self._extract_available_modes()

    def latest_checkpoint(self) -> str:
        """The newest checkpoint in model_dir, else the SavedModel's variables."""
        return super().latest_checkpoint() or _get_saved_model_ckpt(self.saved_model_dir)

    # ------------------------------------------------------------ modes

    def _extract_available_modes(self):
        """The modes whose MetaGraph and signature the SavedModel holds."""
        available_modes = []
        logging.info("Checking available modes for SavedModelEstimator.")
        for mode in (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT):
            try:
                self._get_meta_graph_def_for_mode(mode)
            except RuntimeError:
                logging.warning("%s mode not found in SavedModel.", mode)
                continue
            if self._get_signature_def_for_mode(mode) is not None:
                available_modes.append(mode)
        logging.info("Available modes for Estimator: %s", available_modes)
        return available_modes

    def _validate_mode(self, mode) -> None:
        if mode not in self._available_modes:
            raise RuntimeError(
                f"{mode} mode is not available in the SavedModel. Use saved_model_cli to "
                "check that the Metagraph for this mode has been exported.")

    def _get_meta_graph_def_for_mode(self, mode):
        return self.saved_model_loader.get_meta_graph_def_from_tags(saved_model.tags_for(mode))

    def _get_signature_def_for_mode(self, mode):
        meta_graph_def = self._get_meta_graph_def_for_mode(mode)
        key = (tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY
               if mode == ModeKeys.PREDICT else mode)
        if key not in meta_graph_def.signature_def:
            logging.warning('Metagraph for mode %s was found, but SignatureDef with key "%s" '
                            "is missing.", mode, key)
            return None
        return meta_graph_def.signature_def[key]

    def _create_and_assert_global_step(self, graph):
        """Creates none: the SavedModel the model_fn imports brings its own global step
        (a second one would break the restore), as the original's."""
        del graph
        return None

    # ------------------------------------------------------------ model_fn

    def _model_fn_from_saved_model(self, features, labels, mode):
        """Imports the mode's MetaGraph, fed by features and labels; returns its spec.

        Raises:
            RuntimeError: If the mode is not in the SavedModel, the graph already
                has a global step, or the signature does not fit the mode.
            ValueError: If an input is missing or differs in dtype or shape.
        """
        self._validate_mode(mode)
        graph = tf.compat.v1.get_default_graph()
        if tf.compat.v1.train.get_global_step(graph) is not None:
            raise RuntimeError(
                "Graph must not contain a global step tensor before the SavedModel is "
                "loaded. Please make sure that the input function does not create a "
                "global step.")
        signature_def = self._get_signature_def_for_mode(mode)
        input_map = _generate_input_map(signature_def, features, labels)
        # Imported names may be uniquified: the outputs are found by what the import
        # returns, in this order.
        output_tensor_names = [value.name for value in signature_def.outputs.values()]
        _, output_tensors = self.saved_model_loader.load_graph(
            graph, saved_model.tags_for(mode), input_map=input_map,
            return_elements=output_tensor_names)
        meta_graph_def = self._get_meta_graph_def_for_mode(mode)
        saver = tf.compat.v1.train.Saver(saver_def=meta_graph_def.saver_def)
        # Variables come from the SavedModel until model_dir has a checkpoint.
        init_fn = None if super().latest_checkpoint() else self._restore_from_saver
        scaffold = tf.compat.v1.train.Scaffold(
            local_init_op=_main_op(meta_graph_def),
            local_init_feed_dict=loader_impl.get_asset_tensors(
                self.saved_model_loader.export_dir, meta_graph_def, import_scope=None),
            saver=saver, init_fn=init_fn)
        tf.compat.v1.train.assert_global_step(tf.compat.v1.train.get_global_step(graph))
        output_map = dict(zip(output_tensor_names, output_tensors))
        outputs = {key: output_map[value.name]
                   for key, value in signature_def.outputs.items()}
        loss, predictions, metrics = _validate_and_extract_outputs(
            mode, outputs, signature_def.method_name)
        train_op = tf.compat.v1.get_collection(_TRAIN_OP_KEY)
        if len(train_op) > 1:
            raise RuntimeError("Multiple ops found in the train_op collection.")
        train_op = train_op[0] if train_op else None
        _clear_saved_model_collections()
        return EstimatorSpec(scaffold=scaffold, mode=mode, loss=loss, train_op=train_op,
                             predictions=predictions, eval_metric_ops=metrics)

    def _restore_from_saver(self, scaffold, session):
        return scaffold.saver.restore(session, _get_saved_model_ckpt(self.saved_model_dir))


def _get_saved_model_ckpt(saved_model_dir) -> str:
    """The checkpoint prefix of a SavedModel's variables (`<dir>/variables/variables`).

    Raises:
        ValueError: If the directory holds no SavedModel variables.
    """
    prefix = os.path.join(tf.compat.as_text(saved_model_dir),
                          tf.saved_model.VARIABLES_DIRECTORY, tf.saved_model.VARIABLES_FILENAME)
    if not tf.io.gfile.exists(prefix + ".index"):
        raise ValueError(
            f"Directory provided has an invalid SavedModel format: {saved_model_dir}")
    return prefix


def _main_op(meta_graph_def):
    """The imported MetaGraph's main op (what the export's local_init_op became), or None.

    Raises:
        RuntimeError: If the MetaGraph lists several.
    """
    key = tf.compat.v1.saved_model.MAIN_OP_KEY
    if key not in meta_graph_def.collection_def:
        return None
    listed = meta_graph_def.collection_def[key].node_list.value
    if len(listed) != 1:
        raise RuntimeError(f"Expected exactly one SavedModel init op. Found {len(listed)}: "
                           f"{listed}.")
    return tf.compat.v1.get_collection(key)[0]


def _clear_saved_model_collections() -> None:
    """Empties the collections the SavedModel builder fills, as exporting this graph
    again (export_saved_model of this estimator) requires them empty."""
    for key in (tf.saved_model.ASSETS_KEY, tf.compat.v1.saved_model.LEGACY_INIT_OP_KEY,
                tf.compat.v1.saved_model.MAIN_OP_KEY, _TRAIN_OP_KEY):
        del tf.compat.v1.get_collection_ref(key)[:]


def _generate_input_map(signature_def, features, labels) -> Dict[str, tf.Tensor]:
    """The signature's input tensor names (and their control-input forms, `^name`) ->
    the feature or label tensor of the same key.

    Raises:
        ValueError: If an input's key is in neither features nor labels, or its
            tensor's dtype or shape does not fit the signature's.
    """
    features = receivers.wrap_and_check_input_tensors(features, "feature")
    if labels is not None:  # None in PREDICT
        labels = receivers.wrap_and_check_input_tensors(labels, "label")
    input_map = {}
    for key, tensor_info in signature_def.inputs.items():
        input_name = tensor_info.name.split(":")[0]
        if key in features:
            tensor = features[key]
        elif labels is not None and key in labels:
            tensor = labels[key]
        else:
            raise ValueError(
                f'Key "{key}" not found in features or labels passed in to the model '
                f"function. All required keys: {signature_def.inputs.keys()}")
        _check_same_dtype_and_shape(tensor, tensor_info, key)
        # An input used as a control input appears as `^name` in the GraphDef.
        input_map[input_name] = input_map["^" + input_name] = tensor
    return input_map


def _check_same_dtype_and_shape(tensor, tensor_info, name) -> None:
    """Raises a ValueError if `tensor` does not fit the TensorInfo's dtype and shape."""
    expected_dtype = tf.dtypes.DType(tensor_info.dtype)
    dtype_error = tensor.dtype != expected_dtype
    shape_error = not tensor.shape.is_compatible_with(tensor_info.tensor_shape)
    if dtype_error or shape_error:
        msg = f"Tensor shape and/or dtype validation failed for input {name}:"
        if dtype_error:
            msg += f"\n\tExpected dtype: {expected_dtype}, Got: {tensor.dtype}"
        if shape_error:
            msg += (f"\n\tExpected shape: {tf.TensorShape(tensor_info.tensor_shape)}, "
                    f"Got: {tensor.shape}")
        raise ValueError(msg)


def _extract_eval_metrics(output_dict) -> Dict[str, tuple]:
    """{metric name: (value, update_op)} for every `metrics/<name>/value` output
    whose `metrics/<name>/update_op` is there too."""
    metric_ops = {}
    for key, tensor in output_dict.items():
        split_key = key.split(_SEPARATOR)
        # A metric's name may itself hold the separator.
        metric_name = _SEPARATOR.join(split_key[:-1])
        if split_key[0] == _METRICS_NAME and split_key[-1] == _METRIC_VALUE_SUFFIX:
            update_op = _SEPARATOR.join([metric_name, _METRIC_UPDATE_SUFFIX])
            if update_op in output_dict:
                metric_ops[metric_name] = (tensor, output_dict[update_op])
    return metric_ops


def _validate_and_extract_outputs(mode, output_dict, method_name):
    """(loss, predictions, metrics) of a signature's outputs.

    PREDICT: every output is a prediction. TRAIN, EVAL: the supervised signature's
    loss, `predictions...` outputs and metric pairs.

    Raises:
        RuntimeError: If the signature's method is not the mode's supervised one.
    """
    if mode == ModeKeys.PREDICT:
        return None, output_dict, None
    expected_method_name = (_SUPERVISED_EVAL_METHOD_NAME if mode == ModeKeys.EVAL
                            else _SUPERVISED_TRAIN_METHOD_NAME)
    if method_name != expected_method_name:
        raise RuntimeError(
            f"Invalid SignatureDef method name for mode {mode}.\n\tExpected: "
            f"{expected_method_name}\n\tGot: {method_name}\nPlease ensure that the "
            "SavedModel was exported with `tf.estimator.experimental_export_all_saved_models()`.")
    loss = output_dict[_LOSS_NAME]
    metrics = _extract_eval_metrics(output_dict)
    predictions = {key: value for key, value in output_dict.items()
                   if key.split(_SEPARATOR)[0] == _PREDICTIONS_NAME}
    return loss, predictions, metrics
