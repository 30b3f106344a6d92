"""The original's module tree, as data: every original module path -> what stands there.

`compat.install()` (legacy/aliases.py) makes each path of `TREE` importable and sets each
as an attribute of its parent. A path holds one of:

* a module of ours, named by a string (`"estimator_lib.canned.dnn"`): that module object
  itself stands at the original path (never a copy; its submodules are ours too);
* a module made for the path, given as a tuple of `(source, names)` rows: `source` is a
  module of ours, and `names` lists, space-separated, `name` (the source's own name) or
  `name=source_name`. With the source `"@"`, each `name=path` is the module at that path
  of this table. `()` is an empty module (or package, when other paths lie under it).

`ALIASES` puts a table path (and every path under it) at a second name as the same
module objects: the pre-split `tensorflow.python.estimator.*`, `tensorflow_estimator._api.
v1.estimator`, `tf.estimator`'s module names. `IMPORT_ONLY` paths are importable but not
attributes of their parent (as in a fresh TF 2.15 process). `API_V1` and `API_V2` are what
`tf.compat.v1.estimator` and `tf.estimator` (with every nested `compat.v1`/`compat.v2` of
TensorFlow) become.

tests/data/tf215_names.json (original_names_test.py) and tf215_routes.json
(routes_test.py) record the original's paths and names; those tests check this table.
Not here: the TPU-hardware internals (infeed/outfeed, TPUContext, TPU embedding: TF 2.21
removed `tpu_embedding`) and the original's test-only helpers (`canned/*testing_utils*`:
the conformance harness registers the original files at those paths).
"""

# The version of the original API these paths reproduce (some libraries read it).
API_VERSION = "2.15.0"

P = "tensorflow_estimator.python.estimator."
API_V1 = P + "api._v1.estimator"
API_V2 = P + "api._v2.estimator"

_L = "estimator_lib."
_SESSION_RUN_HOOK = "SessionRunHook SessionRunArgs SessionRunContext SessionRunValues"
_BASIC_HOOKS = ("LoggingTensorHook StopAtStepHook CheckpointSaverHook CheckpointSaverListener "
                "StepCounterHook NanTensorHook NanLossDuringTrainingError SummarySaverHook "
                "GlobalStepWaiterHook FinalOpsHook FeedFnHook ProfilerHook SecondOrStepTimer")
_RECEIVERS = ("ServingInputReceiver TensorServingInputReceiver "
              "build_parsing_serving_input_receiver_fn build_raw_serving_input_receiver_fn")
_EXPORT_OUTPUTS = "ExportOutput ClassificationOutput RegressionOutput PredictOutput EvalOutput"
_EARLY_STOPPING = ("make_early_stopping_hook make_stop_at_checkpoint_step_hook "
                   "read_eval_metrics stop_if_higher_hook stop_if_lower_hook "
                   "stop_if_no_decrease_hook stop_if_no_increase_hook")
_HEADS = ("Head BinaryClassHead MultiClassHead MultiLabelHead MultiHead RegressionHead "
          "LogisticRegressionHead PoissonRegressionHead")
_PARSE_SPECS = "classifier_parse_example_spec regressor_parse_example_spec"
_UNSUPPORTED = (_L + "legacy.unsupported",
                "BoostedTreesClassifier BoostedTreesRegressor BoostedTreesEstimator")
_CANNED = " ".join(f"{kind}{role}" for kind in ("DNN", "Linear", "DNNLinearCombined", "Baseline")
                   for role in ("Classifier", "Regressor", "Estimator"))
_CANNED_V2 = " ".join(f"{name}={name}V2" for name in _CANNED.split())
_INPUTS = (_L + "legacy.numpy_io", "numpy_input_fn pandas_input_fn")
_SUPERVISED = (_L + "export.receivers",
               "build_raw_supervised_input_receiver_fn "
               "build_supervised_input_receiver_fn_from_input_fn wrap_and_check_input_tensors "
               "SupervisedInputReceiver UnsupervisedInputReceiver SINGLE_FEATURE_DEFAULT_NAME "
               "SINGLE_LABEL_DEFAULT_NAME SINGLE_RECEIVER_DEFAULT_NAME")
_SIGNATURES = (_L + "legacy.original_helpers",
               "build_all_signature_defs get_temp_export_dir get_timestamped_export_dir")
_KERAS_LIB = ((_L + "legacy.keras_lib",
               "model_to_estimator _DEFAULT_SERVING_KEY _cast_tensor_to_floatx _convert_tensor "
               "_extract_sample_weight_tensors _convert_estimator_io_to_keras "
               "_clone_and_build_model _convert_keras_metrics_to_estimator"),
              (_L + "keras.cloning", "FormattedKeyError"),
              (_L + "legacy.original_helpers", "standardize_sample_weights"))
_ESTIMATOR = ((_L + "engine.estimator_v1", "Estimator=EstimatorV1"),
              (_L + "engine.estimator", "EstimatorV2=Estimator"),
              (_L + "graph.warm_starting", "VocabInfo WarmStartSettings"))
_ESTIMATOR_PRIVATE = (
    "_VALID_MODEL_FN_ARGS _estimator_api_gauge _canned_estimator_api_gauge "
    "_assert_members_are_not_overridden _check_checkpoint_available _check_hooks_type "
    "_check_listeners_type _dict_to_str _get_default_warm_start_settings "
    "_get_loss_reduce_op_for_reporting _has_dataset_or_queue_runner "
    "_load_global_step_from_checkpoint_dir _verify_and_create_loss_metric "
    "_verify_model_fn_args _extract_metric_update_ops _get_replica_device_setter "
    "_write_dict_to_summary _write_checkpoint_path_to_summary _combine_distributed_scaffold")
_EXPERIMENTAL = ((_L + "hooks.early_stopping", "InMemoryEvaluatorHook " + _EARLY_STOPPING),
                 (_L + "export.receivers", "build_raw_supervised_input_receiver_fn"),
                 (_L + "core.model_fn", "call_logit_fn"),
                 (_L + "canned.linear_sdca", "LinearSDCA"))


def _api(*rows):
    """tf.estimator's top-level names shared by v1 and v2, and `rows`."""
    return rows + (
        (_L + "core.model_fn", "EstimatorSpec ModeKeys"),
        (_L + "core.run_config", "RunConfig"),
        (_L + "engine.train_eval", "TrainSpec EvalSpec train_and_evaluate"),
        (_L + "export.exporters", "Exporter LatestExporter FinalExporter BestExporter"),
        (_L + "graph.warm_starting", "WarmStartSettings VocabInfo"),
        (_L + "engine.extenders", "add_metrics"),
        (_L + "hooks", _SESSION_RUN_HOOK + " " + _BASIC_HOOKS),
        (_L + "head", _HEADS + " " + _PARSE_SPECS),
        _UNSUPPORTED)


TREE = {
    # ---------------------------------------------------- the API (tf.estimator)
    API_V2: _api((_L + "engine.estimator", "Estimator"), (_L + "canned", _CANNED_V2)),
    API_V2 + ".export": ((_L + "export", _RECEIVERS + " " + _EXPORT_OUTPUTS),),
    API_V2 + ".experimental": _EXPERIMENTAL + ((_L + "canned.rnn", "RNNClassifier RNNEstimator"),),
    API_V2 + ".inputs": (),  # IMPORT_ONLY: TF2's tf.estimator has no `inputs`.
    API_V1: _api((_L + "engine.estimator_v1", "Estimator=EstimatorV1"), (_L + "canned", _CANNED)),
    API_V1 + ".export": ((_L + "export", _RECEIVERS + " " + _EXPORT_OUTPUTS),),
    API_V1 + ".experimental": _EXPERIMENTAL + (
        (_L + "canned.dnn", "dnn_logit_fn_builder"),
        (_L + "canned.linear", "linear_logit_fn_builder"),
        (_L + "canned.kmeans", "KMeans=KMeansClustering")),
    API_V1 + ".inputs": (_INPUTS,),
    API_V1 + ".tpu": _L + "tpu",
    API_V1 + ".tpu.experimental": _L + "tpu.experimental",
    # ---------------------------------------------------- the packages above the API
    "tensorflow_estimator": (("@", f"estimator={API_V1}"),
                             (_L + "legacy.original_tree", "__version__=API_VERSION")),
    "tensorflow_estimator._api": (),
    "tensorflow_estimator._api.v1": (),
    "tensorflow_estimator._api.v1.v1": (("@", f"estimator={API_V1}"),),
    "tensorflow_estimator._api.v2": (),
    "tensorflow_estimator._api.v2.v2": (("@", f"estimator={API_V2}"),),
    "tensorflow_estimator.python": (),
    P + "api": (("@", f"estimator={API_V1}"),),
    P + "api._v1": (),
    P + "api._v1.v1": (("@", f"estimator={API_V1}"),),
    P + "api._v2": (),
    P + "api._v2.v2": (("@", f"estimator={API_V2}"),),
    # ---------------------------------------------------- python/estimator/*.py
    P[:-1]: (),
    P + "estimator": _ESTIMATOR + ((_L + "legacy.original_helpers",
                                    "create_per_replica_ready_for_local_init_op "
                                    "maybe_overwrite_model_dir_and_session_config"),
                                   (_L + "legacy.estimator_helpers", _ESTIMATOR_PRIVATE)),
    P + "estimator_lib": (  # Exactly the original's re-exports (v1 classes).
        (_L + "canned", _CANNED),
        (_L + "engine.estimator_v1", "Estimator=EstimatorV1"),
        (_L + "head", _HEADS + " " + _PARSE_SPECS),
        (_L + "core.model_fn", "EstimatorSpec ModeKeys call_logit_fn"),
        (_L + "core.run_config", "RunConfig"),
        (_L + "engine.train_eval", "TrainSpec EvalSpec train_and_evaluate"),
        (_L + "export.exporters", "Exporter LatestExporter FinalExporter"),
        (_L + "graph.warm_starting", "VocabInfo WarmStartSettings"),
        (_L + "engine.extenders", "add_metrics"),
        (_L + "hooks.early_stopping", _EARLY_STOPPING.replace(
            "make_stop_at_checkpoint_step_hook ", "")),
        (_L + "tpu.tpu_estimator", "TPUEstimator"),
        (_L + "canned.dnn", "dnn_logit_fn_builder"),
        (_L + "canned.linear", "linear_logit_fn_builder"),
        (_L + "legacy.keras_lib", "model_to_estimator"),
        (_L + "canned.kmeans", "KMeansClustering"),
        (_L + "canned.rnn", "RNNClassifier RNNEstimator"),
        ("@", f"basic_session_run_hooks={P}hooks.basic_session_run_hooks "
              f"hooks={P}hooks.hooks session_run_hook={P}hooks.session_run_hook "
              f"inputs={P}inputs.inputs export={P}export.export_lib")),
    P + "early_stopping": ((_L + "hooks.early_stopping",
                            _EARLY_STOPPING + " _StopOnPredicateHook _MultiWorkerEarlyStoppingHook "
                            "_stop_if_threshold_crossed_hook _stop_if_no_metric_improvement_hook"),
                           (_L + "hooks.early_stopping_helpers",
                            "_EVENT_FILE_GLOB_PATTERN _get_or_create_stop_var _CheckForStoppingHook "
                            "_summaries")),
    P + "estimator_export": _L + "legacy.estimator_export",
    P + "exporter": ((_L + "export.exporters",
                      "Exporter LatestExporter FinalExporter BestExporter"),
                     (_L + "legacy.export_helpers",
                      "_SavedModelExporter _loss_smaller _verify_compare_fn_args")),
    P + "extenders": _L + "engine.extenders",
    P + "gc": _L + "legacy.export_gc",
    P + "keras": _KERAS_LIB,
    P + "keras_lib": _KERAS_LIB,
    P + "mode_keys": ((_L + "core.model_fn", "ModeKeys"),),
    P + "model_fn": ((_L + "core.model_fn",
                      "EstimatorSpec ModeKeys call_logit_fn verify_model_fn_args"),
                     (_L + "core.tpu_spec", "_TPUEstimatorSpec=TPUEstimatorSpecBase"),
                     (_L + "legacy.model_fn_helpers",
                      "_VALID_MODEL_FN_ARGS _default_graph_error_message_template "
                      "_check_is_tensor _check_is_tensor_or_operation "
                      "_update_variable_collection _validate_estimator_spec_export_outputs "
                      "_validate_estimator_spec_hooks _validate_estimator_spec_loss "
                      "_validate_estimator_spec_predictions _validate_estimator_spec_train_op "
                      "_validate_eval_metric_ops _validate_scaffold"),
                     (_L + "legacy.original_helpers", "LOSS_METRIC_KEY AVERAGE_LOSS_METRIC_KEY")),
    P + "run_config": ((_L + "core.run_config", "RunConfig TaskType"),
                       (_L + "legacy.original_helpers", "get_default_session_config path_to_str"),
                       (_L + "legacy.run_config_helpers",
                        "_USE_DEFAULT _VALID_DEVICE_FN_ARGS _DEFAULT_REPLACEABLE_LIST "
                        "_SAVE_CKPT_ERR _TF_CONFIG_ENV _TASK_ENV_KEY _TASK_TYPE_KEY _TASK_ID_KEY "
                        "_CLUSTER_KEY _SERVICE_KEY _SESSION_MASTER_KEY _EVAL_SESSION_MASTER_KEY "
                        "_MODEL_DIR_KEY _LOCAL_MASTER _GRPC_SCHEME _get_session_master "
                        "_get_eval_session_master _count_ps _count_worker "
                        "_get_global_id_in_cluster _get_model_dir _validate_service "
                        "_validate_task_type_and_task_id _validate_save_ckpt_with_replaced_keys "
                        "_validate_properties")),
    P + "training": _L + "engine.train_eval",
    P + "util": ((_L + "legacy.original_helpers",
                  "fn_args MAX_DIRECTORY_CREATION_ATTEMPTS parse_input_fn_result "
                  "parse_iterator_result DistributedIteratorInitializerHook"),
                 (_L + "legacy.input_helpers", "_DatasetInitializerHook"),
                 (_L + "tpu.host_helpers", "MultiHostDatasetInitializerHook")),
    P + "warm_starting_util": _ESTIMATOR,
    # ---------------------------------------------------- canned/
    P + "canned": ((_L + "canned", _CANNED), (_L + "head", _HEADS + " " + _PARSE_SPECS),
                   _UNSUPPORTED),
    P + "canned.baseline": _L + "canned.baseline",
    P + "canned.boosted_trees": (_UNSUPPORTED,),
    P + "canned.dnn": _L + "canned.dnn",
    P + "canned.dnn_linear_combined": _L + "canned.dnn_linear_combined",
    P + "canned.head": _L + "legacy.v1_canned_head",
    P + "canned.kmeans": _L + "canned.kmeans",
    P + "canned.linear": _L + "canned.linear",
    P + "canned.linear_optimizer": (),
    P + "canned.linear_optimizer.python": (),
    P + "canned.linear_optimizer.python.utils": (),
    P + "canned.linear_optimizer.python.utils.sdca_ops": _L + "canned.linear_optimizer.sdca_ops",
    P + "canned.linear_optimizer.python.utils.sharded_mutable_dense_hashtable": (
        _L + "canned.linear_optimizer.sharded_mutable_dense_hashtable"),
    P + "canned.metric_keys": _L + "head.metric_keys",
    P + "canned.optimizers": _L + "canned.optimizers",
    P + "canned.parsing_utils": _L + "head.parsing",
    P + "canned.prediction_keys": _L + "head.prediction_keys",
    P + "canned.rnn": _L + "canned.rnn",
    P + "canned.saved_model_estimator": _L + "canned.saved_model_estimator",
    P + "canned.v1": (),  # Empty: the conformance harness puts the original's v1 helpers here.
    P + "canned.timeseries": (),
    **{P + "canned.timeseries." + name: _L + "canned.timeseries." + name for name in (
        "ar_model", "estimators", "feature_keys", "head", "math_utils", "model", "model_utils",
        "saved_model_utils", "state_management")},
    # ---------------------------------------------------- export/, head/, hooks/, inputs/
    P + "export": ((_L + "export", _RECEIVERS + " " + _EXPORT_OUTPUTS),),
    P + "export.export": ((_L + "export", _RECEIVERS), _SUPERVISED, _SIGNATURES,
                          (_L + "legacy.export_helpers",
                           "_SINGLE_TENSOR_DEFAULT_NAMES _check_tensor _check_tensor_key "
                           "_placeholder_from_tensor _placeholders_from_receiver_tensors_dict")),
    P + "export.export_lib": (
        (_L + "export", _RECEIVERS + " " + _EXPORT_OUTPUTS), _SUPERVISED, _SIGNATURES,
        (_L + "legacy.original_helpers", "TrainOutput EXPORT_TAG_MAP SIGNATURE_KEY_MAP "
                                         "export_outputs_for_mode get_export_outputs")),
    P + "export.export_output": ((_L + "export", _EXPORT_OUTPUTS),
                                 (_L + "legacy.original_helpers", "TrainOutput")),
    P + "export.function": _L + "legacy.export_function",
    P + "head": ((_L + "head", _HEADS),),
    **{P + "head." + name: _L + "head." + name for name in (
        "base_head", "binary_class_head", "head_utils", "multi_class_head", "multi_head",
        "multi_label_head", "regression_head", "sequential_head")},
    P + "hooks": ((_L + "hooks", _SESSION_RUN_HOOK + " " + _BASIC_HOOKS),),
    P + "hooks.basic_session_run_hooks": ((_L + "hooks", _BASIC_HOOKS),),
    P + "hooks.fake_summary_writer": _L + "legacy.fake_summary_writer",
    P + "hooks.hooks": ((_L + "hooks.early_stopping",
                         "InMemoryEvaluatorHook make_stop_at_checkpoint_step_hook "
                         "_StopAtCheckpointStepHook"),),
    P + "hooks.session_run_hook": ((_L + "hooks", _SESSION_RUN_HOOK),),
    P + "inputs": (_INPUTS,),
    P + "inputs.inputs": (_INPUTS,),
    P + "inputs.numpy_io": ((_L + "legacy.numpy_io", "numpy_input_fn"),
                            (_L + "legacy.input_helpers",
                             "_TARGET_KEY _get_unique_target_key _validate_and_convert_features")),
    P + "inputs.pandas_io": ((_L + "legacy.numpy_io", "pandas_input_fn"),
                             (_L + "legacy.original_helpers", "HAS_PANDAS"),
                             (_L + "legacy.input_helpers",
                              "_get_unique_target_key=_pandas_unique_target_key")),
    P + "inputs.queues": (),
    P + "inputs.queues.feeding_functions": ((_L + "legacy.original_helpers", "HAS_PANDAS"),),
    P + "inputs.queues.feeding_queue_runner": _L + "legacy.feeding_queue_runner",
    # ---------------------------------------------------- tools/, tpu/
    P + "tools": (),
    P + "tools.analytics": ((_L + "legacy.original_helpers",
                             "track_usage track_numerical_issues"),),
    P + "tools.checkpoint_converter": _L + "legacy.checkpoint_converter",
    P + "tpu": _L + "tpu",
    **{P + "tpu." + name: _L + "tpu." + name for name in (
        "experimental", "tpu_config", "tpu_estimator", "util")},
}

ALIASES = {
    "tensorflow.python.estimator": P[:-1],  # The pre-split path, still used by libraries.
    "tensorflow_estimator._api.v1.estimator": API_V1,
    "tensorflow_estimator._api.v2.estimator": API_V2,
    "tensorflow.estimator": API_V2,
    "tensorflow.compat.v1.estimator": API_V1,
    "tensorflow.compat.v2.estimator": API_V2,
}

IMPORT_ONLY = (API_V2 + ".inputs",)
