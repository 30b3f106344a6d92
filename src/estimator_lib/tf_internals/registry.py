"""Every TensorFlow and tf_keras private estimator_lib touches, in one list.

A *private* is a module under `tensorflow.python`, `tensorflow.core`, `tf_keras.src`
(no public API promises it), an attribute whose name starts with `_` of an object
TensorFlow or tf_keras owns, or a name under their `__internal__` namespaces (registered
as the path the code spells, e.g. `tensorflow` + `compat.v2.__internal__.ops.f`). Public
attributes of TensorFlow's or the user's objects that estimator_lib assigns
(`opt.iterations`) are entries too, with `writes=True`, made where their `users` say.
Reads may happen where the entry's `users` say; writes of private attributes of
TensorFlow-owned objects happen only in this package (patches.py and one module per
area: session_runs, saver, keras_model, keras_layers, hooks, module_attributes,
summary_writer, saved_model_builder).
tests/estimator_lib/tf_internals/registry_test.py walks the source and fails on any
private touched outside this list, or listed for a file that no longer touches it.

`check()` runs when estimator_lib's public API loads (`estimator_lib/_api.py`, first
line): each entry whose `check` is IMPORT is resolved, and a TensorFlow that lacks one
fails there with one line naming the TensorFlow version and every missing name, never
deep inside training. INSTANCE entries are attributes set on instances (not visible on
the class); the tests that exercise their users check them.

Every entry exists in TensorFlow 2.15 (the original's) through 2.21 (every release
tested: README, "Python and TensorFlow versions") unless its `since` (the first release
that has it) or `until` (the last) says otherwise; `check()` and `missing()` ask only for
the entries of the running release. A private that moved has one entry per place, with
ranges that meet (an alternative: `_pywrap_profiler` until 2.18, `_pywrap_profiler_plugin`
since 2.19), and its user imports whichever the release has. `check()` also refuses a
tf_keras whose minor version is not TensorFlow's: tf_keras X.Y is built against
TensorFlow X.Y's internals.
"""

import dataclasses
import importlib
from typing import List, Optional, Tuple

from estimator_lib.tf_internals import versions

IMPORT = "import"  # Resolved by check(): a module, or a module/class attribute.
INSTANCE = "instance"  # An attribute of instances: checked by its users' tests.


@dataclasses.dataclass(frozen=True)
class Private:
    """One private: `module` (dotted) and, unless the module itself is the private,
    `attribute` (dotted below the module, e.g. `Saver._var_list`)."""

    module: str
    attribute: Optional[str]
    users: Tuple[str, ...]  # Files under estimator_lib/ that touch it.
    why: str
    check: str = IMPORT
    writes: bool = False  # True when estimator_lib assigns or mutates it.
    since: str = "2.15"  # The first TensorFlow release that has it ("2.19").
    until: Optional[str] = None  # The last one that has it; None: every later one.

    def on(self, version: str) -> bool:
        """Says whether TensorFlow `version` ("2.18.1", "2.23.0-dev...") has this private."""
        release = versions.minor(version)
        return versions.minor(self.since) <= release and (
            self.until is None or release <= versions.minor(self.until))

    @property
    def name(self) -> str:
        """The private's full dotted name: `module` or `module.attribute`."""
        return self.module + (f".{self.attribute}" if self.attribute else "")

    @property
    def leaf(self) -> str:
        """The last component of the name (e.g. `_var_list`)."""
        return (self.attribute or self.module).rsplit(".", 1)[-1]


def _p(module, attribute, users, why, **kwargs) -> Private:
    users = (users,) if isinstance(users, str) else tuple(users)
    return Private(module, attribute, users, why, **kwargs)


_TF = "tensorflow.python."
_FC = _TF + "feature_column."
PRIVATES: List[Private] = [
    # ------------------------------------------------------------ training
    _p(_TF + "training.training_util", None,
       ("graph/model_graph.py", "hooks/early_stopping.py", "hooks/throughput.py",
        "training/checkpoints.py", "training/steps_loop.py", "training/train_graph.py"),
       "the global-step read collection key and its getter, which the hooks share"),
    _p(_TF + "training.training_util", "_get_or_create_global_step_read",
       ("graph/model_graph.py", "hooks/early_stopping.py", "hooks/throughput.py",
        "training/steps_loop.py", "training/train_graph.py"),
       "the one read of the global step every hook fetches (the original's too)"),
    _p(_TF + "training.basic_session_run_hooks", "StepCounterHook._set_steps_per_run",
       "training/hook_plan.py", "a step counter that counts steps_per_run steps a run"),
    _p(_TF + "training.basic_session_run_hooks", "StopAtStepHook._last_step",
       "training/steps_loop_hooks.py", "the loop's last run stops at the hook's step",
       check=INSTANCE),
    _p(_TF + "training.basic_session_run_hooks", "CheckpointSaverHook._listeners",
       "tf_internals/hooks.py", "train()'s saving_listeners join an existing saver hook",
       check=INSTANCE, writes=True),
    _p(_TF + "training.saver", "Saver._var_list", "tf_internals/saver.py",
       "a Saver built in the steps_per_run loop's body is rebuilt outside it",
       check=INSTANCE, writes=True),
    _p(_TF + "training.saver", "Saver._is_built", "tf_internals/saver.py",
       "as Saver._var_list", check=INSTANCE, writes=True),
    _p(_TF + "client.session", "BaseSession._do_call", "tf_internals/session_runs.py",
       "repeated fetches run through a callable, errors translated as Session.run does"),
    _p(_TF + "client.session", "BaseSession._closed", "tf_internals/session_runs.py",
       "a closed session's runs go to Session.run (its own error)", check=INSTANCE),
    # perf (issue 36): repeated runs over the structure's distinct tensors, then a packer.
    _p(_TF + "client.session", None, "tf_internals/session_runs.py",
       "the fetch handler that says which tensors a structure runs and how it is built"),
    _p(_TF + "client.session", "_FetchHandler", "tf_internals/session_runs.py",
       "the distinct tensors and ops of a fetch structure, and the results' structure"),
    _p(_TF + "client.session", "BaseSession._call_tf_sessionrun",
       "tf_internals/session_runs.py",
       "the run make_callable makes (TF_SessionRun), over flat fetch and target lists"),
    _p(_TF + "framework.ops", "SymbolicTensor._as_tf_output", "tf_internals/session_runs.py",
       "a fetched tensor as TF_SessionRun takes it, as make_callable passes it"),
    _p(_TF + "framework.ops", "Operation._c_op", "tf_internals/session_runs.py",
       "a target op as TF_SessionRun takes it, as make_callable passes it"),
    _p(_TF + "client.pywrap_tf_session", None, "tf_internals/session_runs.py",
       "the RunOptions and RunMetadata buffers of a run, as make_callable makes them"),
    _p(_TF + "client.pywrap_tf_session", None, "bin/jobs/job.py",
       "the binaries' device count without creating a session"),
    _p(_TF + "ops.while_v2", None, "training/steps_loop.py",
       "the steps_per_run loop's body graph, whose savers are rebuilt outside"),
    _p(_TF + "trackable.base", None, "training/steps_loop.py",
       "a saveable's tensors, to find the ones built inside the loop"),
    _p(_TF + "checkpoint.graph_view", None, ("engine/estimator.py", "keras/cloning.py"),
       "object-based checkpoints' saveables (model_to_estimator's checkpoint format)"),
    _p(_TF + "training.saving.saveable_object", "SaveSpec._tensor",
       "training/steps_loop.py", "a saveable's tensor, to see which graph built it",
       check=INSTANCE),
    _p(_TF + "ops.variables", "Variable._save_slice_info", "graph/restore.py",
       "a partitioned variable is saved under its whole name and shape",
       check=INSTANCE),
    # ------------------------------------------------------------ distribute
    _p(_TF + "autograph.impl.api", None, "distribute/strategies.py",
       "our own model_fn wrappers are not converted by AutoGraph under a strategy"),
    _p(_TF + "distribute.collective_all_reduce_strategy",
       "CollectiveAllReduceExtended._initialize_multi_worker", "tf_internals/patches.py",
       "bounds MultiWorkerMirroredStrategy's wait for the cluster (patch 4)",
       writes=True),
    _p(_TF + "distribute.distribute_lib", "StrategyExtendedV1._update_config_proto",
       "distribute/strategies.py", "the strategy's session settings (collective leader, "
       "device filters), as the original's Estimator applied them", check=INSTANCE),
    _p(_TF + "distribute.distribute_lib", "StrategyV1._scale_loss_for_estimator_enabled",
       "distribute/strategies.py", "the loss-scaling switch the original Estimator used",
       check=INSTANCE),
    _p(_TF + "framework.ops", "Graph._is_loss_scaled_by_optimizer",
       ("distribute/strategies.py", "legacy/estimator_helpers.py"),
       "whether an optimizer already scaled the loss", check=INSTANCE),
    # ------------------------------------------------------------ the original's private helpers
    _p(_TF + "eager.monitoring", None, "legacy/estimator_helpers.py",
       "the API-usage gauges of the original's estimator.py, which libraries set"),
    _p(_TF + "training.device_setter", None, "distribute/parameter_servers.py",
       "STANDARD_PS_OPS, as the original's _get_replica_device_setter placed them"),
    _p(_TF + "training.server_lib", None, "distribute/parameter_servers.py",
       "Server, looked up there at each start as the original's executor did: programs "
       "and tests replace it in that module"),
    _p(_TF + "training.basic_session_run_hooks", None, "engine/training_executor.py",
       "SecondOrStepTimer, looked up there at each evaluation listener's begin as the "
       "original's: programs and tests replace it in that module"),
    _p(_TF + "training.monitored_session", "Scaffold._user_init_fn",
       "legacy/estimator_helpers.py",
       "the replicas' init_fn, as the original's _combine_distributed_scaffold merged them",
       check=INSTANCE),
    # ------------------------------------------------------------ data
    _p(_TF + "framework.constant_op", "_constant_impl", "tf_internals/patches.py",
       "large numpy arrays fed rather than frozen (patch 1)", writes=True),
    _p(_TF + "data.ops.dataset_ops", "DatasetV1._make_one_shot_iterator",
       "tf_internals/patches.py", "one-shot iterators over fed arrays (patch 1)",
       writes=True),
    _p(_TF + "data.ops.dataset_ops", "DatasetV2._variant_tensor", "tf_internals/patches.py",
       "the last transformation of an input_fn's Dataset (patch 5)", check=INSTANCE),
    _p(_TF + "data.ops.multi_device_iterator_ops", "_create_device_dataset",
       "tf_internals/patches.py", "per-device datasets without autotune threads (patch 5)",
       writes=True),
    # ------------------------------------------------------------ feature columns
    _p(_FC + "feature_column", None, "canned/feature_inputs.py",
       "v1 feature columns (the original's canned estimators take both)"),
    _p(_FC + "feature_column", "_FeatureColumn", "canned/feature_inputs.py",
       "a v1 feature column is told apart from a v2 one"),
    _p(_FC + "feature_column", "_LazyBuilder", "head/checks.py",
       "a weight column's dense tensor, as the original's heads read it"),
    _p(_FC + "feature_column", "_NumericColumn", "head/checks.py",
       "the weight column's type check, as the original's heads"),
    _p(_FC + "feature_column", "_NumericColumn._get_dense_tensor", "head/checks.py",
       "as _LazyBuilder"),
    _p(_FC + "feature_column_lib", None,
       ("canned/feature_inputs.py", "head/checks.py", "head/parsing.py"),
       "feature-column types and parse specs the original's heads and canned use"),
    _p(_FC + "feature_column_v2", None, ("canned/linear_model.py", "canned/linear_sdca.py"),
       "the linear model's weighted sums, built as the original built them"),
    _p(_FC + "feature_column_v2", "_StateManagerImpl", "canned/linear_model.py",
       "the linear model's feature-column state, as the original"),
    _p(_FC + "feature_column_v2", "_create_weighted_sum", "canned/linear_model.py",
       "the linear model's per-column weighted sum (same variables as the original)"),
    _p(_FC + "feature_column_v2", "_normalize_feature_columns", "canned/linear_model.py",
       "the original's column checks and order"),
    _p(_FC + "feature_column_v2", "_sanitize_column_name_for_variable_scope",
       "canned/linear_model.py", "the original's variable scope names per column"),
    _p(_FC + "feature_column_v2", "_verify_static_batch_size_equality",
       "canned/linear_model.py", "the original's batch-size check across columns"),
    _p(_FC + "serialization", None, "canned/linear_model.py",
       "the linear model's get_config/from_config of feature columns"),
    _p(_TF + "ops.variable_scope", None, "canned/linear_model.py",
       "variable scopes named exactly as the original's"),
    _p(_TF + "ops.variable_scope", "_pure_variable_scope", "canned/linear_model.py",
       "the linear model's variable names, exactly the original's"),
    _p(_TF + "ops.lookup_ops", None, "head/vocabulary.py",
       "label vocabularies as the original's heads build them"),
    # ------------------------------------------------------------ export, model_fn
    _p(_TF + "saved_model.model_utils.export_output", None,
       ("export/receivers.py", "legacy/original_helpers.py"),
       "ExportOutput classes: the original's, which TensorFlow still ships"),
    _p(_TF + "saved_model.model_utils.export_utils", None,
       ("core/model_fn.py", "core/tpu_spec.py", "export/saved_model.py",
        "legacy/model_fn_helpers.py"),
       "signature defs and export tags, as the original built them"),
    _p(_TF + "saved_model.model_utils.mode_keys", None, "core/model_fn.py",
       "the ModeKeys the original used"),
    _p(_TF + "util.function_utils", None,
       ("core/model_fn.py", "core/run_config.py", "engine/extenders.py", "graph/inputs.py",
        "head/arguments.py", "head/v1_head.py", "legacy/export_function.py",
        "legacy/original_helpers.py", "legacy/run_config_helpers.py", "tpu/tpu_estimator.py",
        "tpu/tpu_estimator_spec.py"),
       "the argument names a model_fn, input_fn or metric_fn takes (functools.partial aware)"),
    _p(_TF + "util.tf_inspect", None, "tpu/tpu_estimator_spec.py",
       "host_call argument names, as the original"),
    _p("tensorflow.core.protobuf.rewriter_config_pb2", None, "core/run_config.py",
       "the default session config's rewriter options, as the original's"),
    _p("tensorflow.core.framework.summary_pb2", "Summary", "tpu/tpu_estimator.py",
       "the TPUEstimator's examples/sec summary"),
    # ------------------------------------------------------------ profiler
    _p(_TF + "client.timeline", None, "hooks/profiler.py", "chrome traces of a step"),
    _p(_TF + "profiler.profiler_v2", None, "hooks/profiler.py",
       "whether a profiler session is already running"),
    _p(_TF + "profiler.profiler_v2", "_profiler", "hooks/profiler.py",
       "as profiler_v2", check=INSTANCE),
    # The Chrome-trace converter TensorBoard's profile plugin calls: one function, moved.
    _p(_TF + "profiler.internal._pywrap_profiler", "xspace_to_tools_data",
       "hooks/profiler.py", "the profile's Chrome trace (where 2.15-2.18 keep the converter)",
       until="2.18"),
    _p(_TF + "profiler.internal._pywrap_profiler_plugin", "xspace_to_tools_data",
       "hooks/profiler.py", "the profile's Chrome trace (where 2.19+ keep the converter)",
       since="2.19"),
    # ------------------------------------------------------------ graph.pbtxt
    _p(_TF + "framework.graph_io", "text_format", "tf_internals/patches.py",
       "tf.io.write_graph (and TensorFlow's CheckpointSaverHook) on protobuf 7, where "
       "2.15-2.20 pass the float_format it dropped (patch 6)", writes=True, until="2.20"),
    # ------------------------------------------------------------ RNN, SavedModelEstimator
    _p(_FC + "sequence_feature_column", "concatenate_context_input", "canned/rnn.py",
       "context features joined to each sequence step, as the original's RNN"),
    _p("tf_keras.src.layers.rnn.base_rnn", "RNN._enable_caching_device",
       "tf_internals/keras_layers.py", "RNN cells read their variables once per run",
       check=INSTANCE, writes=True),
    _p("tf_keras.src.engine.base_layer", "Layer._keras_mask", "tf_internals/keras_layers.py",
       "the RNN logits' sequence mask, for Keras losses and the sequential head",
       check=INSTANCE, writes=True),
    _p(_TF + "saved_model.loader_impl", None, "canned/saved_model_estimator.py",
       "SavedModelEstimator loads MetaGraphs and their assets as the original"),
    _p(_TF + "saved_model.builder_impl", "SavedModelBuilder._add_train_op",
       "tf_internals/saved_model_builder.py", "the TRAIN MetaGraph holds its train op",
       writes=True),
    # ------------------------------------------------------------ KMeans, LinearSDCA
    _p(_TF + "ops.clustering_ops", None, "canned/kmeans.py",
       "the original KMeans estimator's own graph builder, which TensorFlow still ships"),
    _p(_TF + "ops.variables", None, "canned/linear_optimizer/partitioned_weights.py",
       "PartitionedVariable weights of the SDCA model, as the original"),
    # ------------------------------------------------------------ TPU export
    _p(_TF + "framework.function", None, "tpu/tpu_inference.py",
       "the {serve, tpu} MetaGraph's TPUPartitionedCall function, as the original wrote it"),
    _p(_TF + "tpu.tpu", None, "tpu/tpu_inference.py",
       "tpu.rewrite of the model_fn for the {serve, tpu} MetaGraph, as the original"),
    _p(_TF + "tpu.tpu", "_TPUInferenceContext", "tpu/tpu_inference.py",
       "the inference context tpu.rewrite's graph is built in, as the original"),
    # ------------------------------------------------------------ legacy surfaces
    _p(_TF + "saved_model.model_utils", None, "legacy/original_helpers.py",
       "the original export module's names, which TensorFlow still ships"),
    _p(_TF + "util.deprecation", None, "legacy/estimator_export.py",
       "the original's estimator_export decorator marks deprecations as TensorFlow does"),
    _p(_TF + "util.deprecation", "silence", "graph/inputs.py",
       "a distributed iterator's `initializer` property (the replacement TensorFlow names) "
       "calls its own deprecated initialize(); the warning is TensorFlow's, not the user's"),
    _p(_TF + "platform.gfile", None, "legacy/export_gc.py",
       "the original gc module's directory listing, which its own tests mock"),
    _p("tensorflow.core.framework.summary_pb2", None, "legacy/fake_summary_writer.py",
       "the original FakeSummaryWriter's summaries, as protos"),
    _p(_TF + "framework.test_util", None, "legacy/fake_summary_writer.py",
       "the original FakeSummaryWriter's MetaGraph comparison"),
    _p(_TF + "summary.writer.writer", None, "tf_internals/summary_writer.py",
       "FakeSummaryWriter installed as TensorFlow's FileWriter (the original's test helper)",
       writes=True),
    _p(_TF + "summary.writer.writer_cache", None, "tf_internals/summary_writer.py",
       "as summary.writer.writer: the cache builds writers from its own reference",
       writes=True),
    _p("tensorflow.python", None, "legacy/aliases.py",
       "`tensorflow.python.estimator`, the pre-split path legacy libraries import"),
    # ------------------------------------------------------------ tf_keras
    _p("tf_keras.src.backend", None, ("keras/cloning.py", "tf_internals/patches.py"),
       "the graph-mode session and learning phase; seeded initializers (patch 3)"),
    _p("tf_keras.src.backend", "_SEED_GENERATOR", "tf_internals/patches.py",
       "Keras initializers follow tf_random_seed (patch 3)", writes=True),
    _p("tf_keras.src.mixed_precision.autocast_variable", None, "tf_internals/keras_model.py",
       "mixed-precision variables unwrapped for the optimizer"),
    _p("tf_keras.src.mixed_precision.autocast_variable", "AutoCastVariable._variable",
       "tf_internals/keras_model.py", "as autocast_variable", check=INSTANCE),
    _p("tf_keras.src.optimizers", None, "keras/conversion.py",
       "the compiled optimizer's config, cloned per call as the original"),
    _p("tf_keras.src.optimizers.optimizer", None, "keras/conversion.py",
       "Keras optimizers told apart from tf.compat.v1 ones"),
    _p("tf_keras.src.optimizers.optimizer_v1", None, "keras/conversion.py",
       "wrapped TF1 optimizers (TFOptimizer), cloned by the cloning code"),
    _p("tf_keras.src.saving.serialization_lib", None, "keras/conversion.py",
       "safe-mode deserialization of a saved model's config"),
    _p("tf_keras.src.engine.training", "Model._collected_trainable_weights",
       "tf_internals/keras_model.py", "the variables the optimizer updates",
       check=INSTANCE, writes=True),
    _p("tf_keras.src.engine.training", "Model._get_compile_args",
       "tf_internals/keras_model.py", "compile args cached as clone_and_build_model does",
       writes=True),
    _p("tf_keras.src.engine.training_v1", "Model._make_train_function",
       "keras/conversion.py", "the graph-mode train op of a compiled clone"),
    _p("tf_keras.src.engine.training_v1", "Model._make_test_function",
       "keras/conversion.py", "the graph-mode metric ops of a compiled clone"),
    _p("tf_keras.src.engine.training_v1", "Model._compile_metric_functions",
       "keras/conversion.py", "the compiled metrics, named as the original",
       check=INSTANCE),
    _p("tf_keras.src.engine.training_v1", "Model._compile_weights_loss_and_weighted_metrics",
       "keras/cloning.py", "sample weights reach the loss and metrics"),
    _p("tf_keras.src.engine.training", "Model._jit_compile", "keras/conversion.py",
       "jit_compile=True is refused with a clear error", check=INSTANCE),
    _p("tf_keras.src.engine.functional", "Functional._is_graph_network",
       "keras/cloning.py", "functional models keep their input names",
       check=INSTANCE),
    _p("tf_keras.src.engine.functional", "Functional._nested_inputs",
       "keras/cloning.py", "the input structure features are matched to",
       check=INSTANCE),
    _p("tf_keras.src.engine.base_layer", "Layer._track_trackable", "keras/cloning.py",
       "the global step in the object-based checkpoint, as the original"),
    _p("tf_keras.src.optimizers.optimizer", "Optimizer._iterations",
       "canned/optimizers.py", "a Keras optimizer already built elsewhere is refused",
       check=INSTANCE),
    _p("tf_keras.src.optimizers.legacy.optimizer_v2", "OptimizerV2._hypers_created",
       "canned/optimizers.py", "as Optimizer._iterations", check=INSTANCE),
    _p("tensorflow.python.framework.ops", "Graph._last_loss_reduction",
       "tf_internals/keras_model.py", "a wrapped TF1 optimizer sees the loss summed",
       check=INSTANCE, writes=True),
    # ------------------------------------------ the `__internal__` namespaces (as used)
    _p("tensorflow", "compat.v2.__internal__.ops.broadcast_weights",
       ("head/base_head.py", "head/binary_class_head.py", "head/v1_head.py"),
       "weights broadcast to the loss and metrics' shape, as the original's heads"),
    _p("tensorflow", "compat.v2.__internal__.types.Tensor", "legacy/model_fn_helpers.py",
       "the original model_fn's tensor checks (a Tensor or a Variable), by the same class"),
    _p("tf_keras", "__internal__.losses.compute_weighted_loss", "head/base_head.py",
       "the heads' weighted loss, as the original (tf.compat.v2.keras's, i.e. tf_keras')"),
    _p("tensorflow", "__internal__.feature_column.FeatureColumn", "head/parsing.py",
       "v2 feature columns told apart, as the original's parsing utils"),
    _p("tensorflow", "compat.v2.__internal__.feature_column.FeatureColumn",
       "canned/feature_inputs.py", "v2 feature columns told apart from v1 ones"),
    _p("tensorflow", "compat.v2.__internal__.feature_column.DenseColumn",
       ("canned/linear_model.py", "canned/linear_sdca.py"),
       "dense columns told apart from categorical ones, as the original's linear model"),
    _p("tensorflow", "compat.v2.__internal__.feature_column.FeatureTransformationCache",
       ("canned/linear_model.py", "canned/linear_sdca.py"),
       "one transformation of each feature per graph, as the original's linear model"),
    _p("tensorflow", "__internal__.feature_column.serialize_feature_column",
       "canned/rnn.py", "the RNN model's get_config, as the original"),
    _p("tensorflow", "__internal__.feature_column.deserialize_feature_column",
       "canned/rnn.py", "the RNN model's from_config, as the original"),
    _p("tf_keras", "__internal__.optimizers.convert_to_legacy_optimizer",
       "canned/optimizers.py", "a new-style Keras optimizer run on the legacy path"),
    _p("tf_keras", "__internal__.models.clone_and_build_model", "keras/cloning.py",
       "model_to_estimator's clone in the Estimator's graph, as the original"),
    _p("tensorflow", "compat.v2.__internal__.function.Function", "legacy/export_function.py",
       "the original export_function module's names"),
    _p("tensorflow", "compat.v2.__internal__.tracking.AutoTrackable",
       "legacy/export_function.py", "as __internal__.function.Function"),
    _p("tensorflow", "__internal__.autograph.control_status_ctx",
       "distribute/strategies.py", "model_fns converted by AutoGraph as the caller's status"),
    _p("tensorflow", "__internal__.autograph.tf_convert", "distribute/strategies.py",
       "as __internal__.autograph.control_status_ctx"),
    _p("tensorflow", "__internal__.tracking.no_automatic_dependency_tracking",
       "tf_internals/keras_model.py", "a list set on a Keras model is no checkpoint "
       "dependency"),
    # ---------------------- public attributes of TensorFlow's or the user's objects written
    _p("tf_keras.src.optimizers.legacy.optimizer_v2", "OptimizerV2.iterations",
       ("canned/optimizers.py", "canned/rnn.py"),
       "the canned optimizer's step is the global step, as the original (on an optimizer "
       "the user passed too: the original did the same)", writes=True),
    _p("tf_keras.src.optimizers.legacy.optimizer_v2", "OptimizerV2.clipnorm",
       "canned/rnn.py", "an optimizer given by name clips gradients, as the original's RNN",
       writes=True),
    _p("tf_keras.src.engine.training", "Model.optimizer", "keras/conversion.py",
       "the user's model's new-style optimizer replaced by its legacy conversion, as the "
       "original's model_to_estimator did", check=INSTANCE, writes=True),
    _p("tf_keras.src.engine.base_layer", "Layer.trainable", "bin/jobs/models.py",
       "the transfer model's base frozen (a model the job builds itself)", writes=True),
]


def _resolve(private: Private):
    target = importlib.import_module(private.module)
    if private.attribute is None or private.check != IMPORT:
        return
    for part in private.attribute.split("."):
        target = getattr(target, part)


def missing(version: Optional[str] = None) -> List[str]:
    """The names of the IMPORT entries TensorFlow `version` (default: this one) has,
    according to their `since`/`until`, that this process cannot resolve."""
    version = version or versions.tensorflow_version()
    absent = []
    for private in PRIVATES:
        if not private.on(version):
            continue
        try:
            _resolve(private)
        except (ImportError, AttributeError):
            absent.append(private.name)
    return absent


def check() -> None:
    """Raises ImportError, in one line, if tf_keras' minor version is not TensorFlow's,
    or if this TensorFlow lacks a private we need."""
    version = versions.tensorflow_version()
    versions.check_keras_matches(version, versions.tf_keras_version())
    absent = missing(version)
    if absent:
        raise ImportError(
            f"estimator_lib needs TensorFlow internals that TensorFlow {version} "
            f"(tf_keras {versions.tf_keras_version()}) does not have: {', '.join(absent)}. "
            "estimator_lib is tested on TensorFlow 2.16 to 2.21; install one of them "
            "(e.g. tensorflow==2.21.* and tf-keras==2.21.*), or report this with the "
            "version.")
