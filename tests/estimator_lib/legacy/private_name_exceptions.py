"""The original's private names that do not resolve here, or differ, each with its reason.

Read by private_names_test.py; docs/estimator.md ("Private names") states the same
reasons. Keys are original paths after `tensorflow_estimator.python.estimator.`:
`module:name`, `module:` for every name of a module, or `module.` for every module
under it; for methods, `Class.method` (at every path of the class), or a prefix
ending in `.` (`tpu.`, `module.Class.`). A key
that no longer matches anything fails the test (stale).
"""

from typing import Dict, Optional, Tuple

ABSENT = "absent"  # Does not resolve here.
DIFFERS = "differs"  # Resolves, with another kind or signature.

_T = "tensorflow_estimator.python.estimator."

_TPU = ("TPU-hardware machinery (infeed/outfeed queues, per-core contexts, TPU "
        "embeddings, the TPU rewrite of the model_fn): estimator_lib runs TPUEstimator "
        "with use_tpu=False on CPUs and GPUs (docs/MIGRATION.md)")
_TEST_HELPERS = ("the original's own test code: the conformance harness registers the "
                 "original files at these paths, so nothing of ours may stand there")
_QUEUES = ("the queue-runner feeding of the original's numpy_input_fn/pandas_input_fn; "
           "ours feed tf.data (legacy/numpy_io.py), so there are no feed functions to "
           "reach (the queue runner itself, _FeedingQueueRunner, is here)")

_EXPORT_FUNCTION = ("legacy/export_function.py builds ModelFunction on tf.function; the "
                    "original subclassed TensorFlow's internal Function and WrappedGraph "
                    "classes and pruned receiver tensors with them")
_TIMESERIES = ("the time-series internals are built in one piece in canned/timeseries/ "
               "(not re-provided in this pass; a library overriding them is not seen)")
_KERAS_INTERNALS = ("model_to_estimator's internals (keras/conversion.py) take the "
                    "optimizer's config and return the first checkpoint's weight names "
                    "besides; the GCS download is not re-provided (a gs:// path is read "
                    "by tf.io.gfile)")

MODULE_EXCEPTIONS: Dict[str, Tuple[str, str]] = {
    "tpu.": (ABSENT, _TPU),
    "export.function:": (ABSENT, _EXPORT_FUNCTION),
    "canned.timeseries.head:": (ABSENT, _TIMESERIES),
    "canned.timeseries.saved_model_utils:_colate_features_to_feeds_and_fetches": (
        ABSENT, _TIMESERIES),
    "canned.timeseries.state_management:_OverridableStateManager": (ABSENT, _TIMESERIES),
    "keras_lib:_any_weight_initialized": (ABSENT, _KERAS_INTERNALS),
    "keras_lib:_assert_valid_model": (ABSENT, _KERAS_INTERNALS),
    "keras_lib:_create_keras_model_fn": (ABSENT, _KERAS_INTERNALS),
    "keras_lib:_get_file_from_google_storage": (ABSENT, _KERAS_INTERNALS),
    "keras_lib:_save_first_checkpoint": (ABSENT, _KERAS_INTERNALS),
    "canned.dnn:_DNNModel": (ABSENT, "the v1 DNN's private Keras-less model: canned/dnn.py "
                                     "builds its layers under the original's variable names"),
    "canned.kmeans:_ModelFn": (ABSENT, "KMeansClustering's model_fn is a function "
                                       "(canned/kmeans.py), not the original's callable class"),
    "canned.linear_optimizer.python.utils.sharded_mutable_dense_hashtable:"
    "_MutableDenseHashTable": (
        ABSENT, "the SDCA example-state table's shards are TensorFlow's own "
                "tf.lookup.experimental.DenseHashTable (canned/linear_optimizer/)"),
    "canned.dnn_testing_utils:": (ABSENT, _TEST_HELPERS),
    "canned.v1.": (ABSENT, _TEST_HELPERS),
    "inputs.queues.feeding_functions:": (ABSENT, _QUEUES),
}

_TRAIN = ("train() runs one path (training/train_model.py) that decides the job's shape "
          "once; the original's default/distributed/MonitoredTrainingSession steps have no "
          "counterpart. Its hook points inside (_call_model_fn, _call_input_fn, "
          "_get_features_and_labels_from_input_fn, _create_global_step, "
          "_create_and_assert_global_step) are called where the original called them "
          "(engine/estimator.py, which this pass leaves to the Estimator/ModelGraph relay)")
_EVAL = ("evaluate() is split as _evaluate_build_graph / _evaluate_run so that "
         "InMemoryEvaluatorHook builds the graph once (engine/estimator.py)")
_RUN_CONFIG = ("RunConfig reads TF_CONFIG through core/tf_config.py and takes its session "
               "config from distribute/job_shape.py; the original's per-step private "
               "methods have no counterpart")
_NOT_REACHED_CLASS = "the class is not reached here (class_contract_test._NOT_REACHED)"

METHOD_EXCEPTIONS: Dict[str, Tuple[str, str]] = {
    # Classes not reached at all (their methods go with them).
    "tpu.": (ABSENT, _TPU),
    "canned.dnn_testing_utils.": (ABSENT, _TEST_HELPERS),
    "canned.linear_testing_utils.": (ABSENT, _TEST_HELPERS),
    "canned.v1.": (ABSENT, _TEST_HELPERS),
    "inputs.queues.feeding_functions.": (ABSENT, _QUEUES),
    "export.function._EstimatorSpecFunction.": (ABSENT, _EXPORT_FUNCTION),
    "export.function._EstimatorWrappedGraph.": (ABSENT, _EXPORT_FUNCTION),
    "EstimatorSpecFunction._defun": (ABSENT, _EXPORT_FUNCTION),
    "canned.dnn._DNNModel.": (ABSENT, _NOT_REACHED_CLASS),
    "canned.kmeans._ModelFn.": (ABSENT, _NOT_REACHED_CLASS),
    "canned.linear_optimizer.python.utils.sharded_mutable_dense_hashtable."
    "_MutableDenseHashTable.": (ABSENT, _NOT_REACHED_CLASS),
    "canned.linear_optimizer.python.utils.sdca_ops._SDCAModel.": (
        ABSENT, "the SDCA solver (canned/linear_optimizer/sdca_ops.py) keeps its own "
                "private helpers; its public methods are the original's"),
    "canned.timeseries.state_management._OverridableStateManager.": (ABSENT, _TIMESERIES),
    "FilteringOnlyStateManager._define_loss_with_saved_state": (ABSENT, _TIMESERIES),
    "InputStatisticsFromMiniBatch._create_variable_statistics_object": (ABSENT, _TIMESERIES),
    "InputStatisticsFromMiniBatch._update_statistics_from_mini_batch": (ABSENT, _TIMESERIES),
    # The Estimator's private steps (engine/estimator.py).
    **{f"Estimator.{name}": (ABSENT, _TRAIN) for name in (
        "_train_model", "_train_model_default", "_train_model_distributed",
        "_actual_train_model_distributed", "_train_with_estimator_spec",
        "_train_with_estimator_spec_distributed", "_convert_train_steps_to_hooks")},
    **{f"Estimator.{name}": (ABSENT, _EVAL) for name in (
        "_actual_eval", "_call_model_fn_eval", "_call_model_fn_eval_distributed",
        "_convert_eval_steps_to_hooks")},
    "Estimator._evaluate_build_graph": (DIFFERS, _EVAL + ": (input_fn, checkpoint_path)"),
    "Estimator._evaluate_run": (DIFFERS, _EVAL + ": (graph, *, steps, hooks, "
                                                 "checkpoint_path, name, scaffold)"),
    "Estimator._add_meta_graph_for_mode": (
        DIFFERS, "export_saved_model's per-mode step (builder, *args, **kwargs): the "
                 "arguments are ours (no strip_default_attrs/save_variables split)"),
    "TPUEstimator._add_meta_graph_for_mode": (
        DIFFERS, "as Estimator._add_meta_graph_for_mode, with the TPU inference export's "
                 "arguments (tpu/tpu_inference.py)"),
    "TPUEstimator._augment_model_fn": (ABSENT, _TPU),
    "TPUEstimator._call_model_fn_for_inference": (ABSENT, _TPU),
    "TPUEstimator._convert_train_steps_to_hooks": (ABSENT, _TRAIN),
    "TPUEstimator._convert_eval_steps_to_hooks": (ABSENT, _EVAL),
    # RunConfig (core/run_config.py).
    **{f"RunConfig.{name}": (ABSENT, _RUN_CONFIG) for name in (
        "_get_default_session_config_distributed",
        "_init_distributed_setting_from_environment_var",
        "_init_distributed_setting_from_environment_var_with_master",
        "_maybe_overwrite_session_config_for_distributed_training", "_replace",
        "_verify_strategy_compatibility")},
    # The heads and the rest.
    "BinaryClassHead._update_accuracy_baseline": (
        ABSENT, "the v2 heads' metrics are built in head/ module functions"),
    "BinaryClassHead._update_auc": (
        ABSENT, "the v2 heads' metrics are built in head/ module functions"),
    "LinearSDCA._prune_and_unique_sparse_ids": (
        ABSENT, "LinearSDCA's ids are made in canned/linear_optimizer"),
    "SavedModelEstimator._get_saver_def_from_mode": (
        ABSENT, "SavedModelEstimator restores through its ModelGraph"),
}

# Floors, so that what resolves can only grow (the count on 2026-12-02).
RESOLVED_AT_LEAST = 236
METHODS_CHECKED_AT_LEAST = 379


def _match(table, path: str) -> Optional[Tuple[str, str]]:
    short = path[len(_T):] if path.startswith(_T) else path
    best = None
    for key in table:
        if short == key or (key.endswith((".", ":")) and short.startswith(key)):
            if best is None or len(key) > len(best):
                best = key
    return None if best is None else (best, table[best][0])


def reason(path: str) -> Optional[Tuple[str, str]]:
    """(key, ABSENT or DIFFERS) of the exception covering `module:name`, or None."""
    return _match(MODULE_EXCEPTIONS, path)


def method_reason(path: str, cls) -> Optional[Tuple[str, str]]:
    """(key, ABSENT or DIFFERS) of the exception covering `module.Class.method`, or None.

    A key `Class.method` covers the method at every path the class stands at
    (`estimator.Estimator`, `api._v1.estimator.Estimator`, ...); a key ending in `.`
    covers every method under it.
    """
    del cls  # The exception is by path; the test checks it still applies.
    short = path[len(_T):] if path.startswith(_T) else path
    best = None
    for key in METHOD_EXCEPTIONS:
        hit = (short.startswith(key) if key.endswith(".")
               else short == key or short.endswith("." + key))
        if hit and (best is None or len(key) > len(best)):
            best = key
    return None if best is None else (best, METHOD_EXCEPTIONS[best][0])


def module_keys() -> set:
    """Every key of MODULE_EXCEPTIONS."""
    return set(MODULE_EXCEPTIONS)


def method_keys() -> set:
    """Every key of METHOD_EXCEPTIONS."""
    return set(METHOD_EXCEPTIONS)
