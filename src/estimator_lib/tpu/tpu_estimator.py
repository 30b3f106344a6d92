"""TPUEstimator on CPUs and GPUs: TPU-era programs run with `use_tpu=False`.

google-research/bert's run_classifier.py, ALBERT, ELECTRA and the tensorflow/tpu
reference models drive `tf.compat.v1.estimator.tpu.TPUEstimator`. With
`use_tpu=False` the original ran them as a plain Estimator, and so does this one:

- `input_fn` and `model_fn` must take `params`; `params["batch_size"]` is the
  global train / eval / predict batch size of the mode (absent when that batch
  size is None or, for model_fn, when exporting); model_fn also gets
  `params["use_tpu"] = False`. There is no `params["context"]` off TPU.
- A returned TPUEstimatorSpec becomes an EstimatorSpec (`as_estimator_spec()`):
  `eval_metrics` -> eval_metric_ops, `host_call` run with every step,
  `scaffold_fn()` the Scaffold. A plain EstimatorSpec is used as it is.
- One training step per session run (`iterations_per_loop` only spaces the
  `global_step/sec` and `examples/sec` logs); no `loss = ...` log lines;
  `training_loop marked as finished` (and the evaluation and prediction ones) at
  the end of each call, as the original's.
- `export_saved_model` writes the CPU MetaGraph (tags serve) and, with
  `export_to_tpu=True`, the one for TPU serving (serve, tpu) as the original did
  (tpu_inference.py); for the latter the model_fn gets `params["use_tpu"]` True
  with `export_saved_model_api_version=2` (False with V1, as the original).

`use_tpu=True` builds, exports on CPU, and evaluates with `eval_on_tpu=False`;
train, predict and TPU evaluation raise an error saying to pass `use_tpu=False`.
"""

import enum
import math
import weakref
from typing import Callable, Optional

import tensorflow as tf
from tensorflow.core.framework.summary_pb2 import Summary
from tensorflow.python.util import function_utils

from estimator_lib.engine.estimator import Estimator
from estimator_lib.engine.estimator_v1 import EstimatorV1
from estimator_lib.core.model_fn import ModeKeys
from estimator_lib.tpu import loop_logs
from estimator_lib.tpu import tpu_config as tpu_config_lib
from estimator_lib.tpu import tpu_inference
from estimator_lib.tpu import util
# The original module's helpers that need no TPU, at their original module path.
from estimator_lib.tpu.host_helpers import BatchConfig  # noqa: F401
from estimator_lib.tpu.host_helpers import InstallSignalHandlerHook  # noqa: F401
from estimator_lib.tpu.host_helpers import PeriodicLogger  # noqa: F401
from estimator_lib.tpu.host_helpers import inference_on_tpu  # noqa: F401
from estimator_lib.tpu.host_helpers import model_fn_inference_on_tpu  # noqa: F401
from estimator_lib.tpu.tpu_estimator_spec import TPUEstimatorSpec

logging = tf.compat.v1.logging

_BATCH_SIZE_KEY = "batch_size"
_CTX_KEY = "context"
_USE_TPU_KEY = "use_tpu"
# `use_tpu` is not reserved: models read and set it (as in the original).
_RESERVED_PARAMS_KEYS = [_BATCH_SIZE_KEY, _CTX_KEY]
_MODEL_FN_ARGS = frozenset(["features", "labels", "mode", "params", "config", "self"])
_MODE_NAMES = {ModeKeys.TRAIN: "train", ModeKeys.EVAL: "eval", ModeKeys.PREDICT: "infer"}

_NO_TPU_MESSAGE = (
    "Cannot find any TPU cores in the system: TPUEstimator(use_tpu=True) needs a TPU to "
    "{what}, and estimator_lib runs TPUEstimator programs on CPUs and GPUs only. Pass "
    "`use_tpu=False` to TPUEstimator (in BERT-style scripts, --use_tpu=False) to run "
    "train, evaluate and predict here; the input_fn and model_fn then get "
    "params['use_tpu'] == False and no params['context']. To train on TPUs, move the "
    "model to tf.distribute.TPUStrategy.")

_EMBEDDING_MESSAGE = (
    "TPUEstimator(embedding_config_spec=...) is not supported by estimator_lib: TPU "
    "embeddings (tf.compat.v1.estimator.tpu.experimental.EmbeddingConfigSpec) run on a "
    "TPU's embedding engine only. Pass embedding_config_spec=None and look up embeddings "
    "in the model_fn instead, with tf.compat.v1.feature_column.embedding_column (or "
    "shared_embedding_columns) and tf.compat.v1.feature_column.input_layer, or "
    "tf.nn.embedding_lookup over a variable; on TPUs, use "
    "tf.tpu.experimental.embedding.TPUEmbedding under tf.distribute.TPUStrategy.")


_TPU_ONLY_EXPORT_MESSAGE = (
    "TPUEstimator(export_to_cpu=False) exports the MetaGraph for TPU serving alone, so the "
    "checkpoint is restored into it in a session, and only a TPU can run that graph (the "
    "original failed there: `No OpKernel was registered to support Op "
    "'TPUOrdinalSelector'`). Pass export_to_cpu=True (the default: the CPU MetaGraph holds "
    "the variables, the TPU one is written beside it), or "
    "export_saved_model_api_version=ExportSavedModelApiVersion.V2 (the model_fn is then "
    "called plainly).")


class ExportSavedModelApiVersion(enum.Enum):
    """How `TPUEstimator.export_saved_model` builds the MetaGraph for TPU serving.

    `V1` (the default) calls the model_fn inside `tf.compat.v1.tpu.rewrite`, with
    `params["use_tpu"]` False, as the original passed it; `V2` calls it plainly, with
    `params["use_tpu"]` True, and the model_fn may call `tpu.rewrite` itself. The
    CPU MetaGraph is the same either way. `TPUEstimator` also takes 1 or 2.
    """
    V1 = 1
    V2 = 2


class ExamplesPerSecondHook(tf.compat.v1.train.StepCounterHook):
    """Logs and writes `global_step/sec` and `examples/sec` (batch size x steps/sec).

    With `batch_size=None` (a TPUEstimator built without that mode's batch size)
    only `global_step/sec` is reported.

    Args:
        batch_size: The batch size of a step, or None to report steps only.
        every_n_steps: Report every this many steps.
        every_n_secs: Report every this many seconds instead.
        output_dir: Where the summaries are written, or None.
        summary_writer: A summary writer to use instead, or None.
    """

    def __init__(self, batch_size: Optional[int], every_n_steps: Optional[int] = 100,
                 every_n_secs: Optional[float] = None, output_dir: Optional[str] = None,
                 summary_writer=None):
        self._batch_size = batch_size
        super().__init__(every_n_steps=every_n_steps, every_n_secs=every_n_secs,
                         output_dir=output_dir, summary_writer=summary_writer)

    def _log_and_record(self, elapsed_steps, elapsed_time, global_step):
        steps_per_sec = elapsed_steps / elapsed_time
        rates = [("global_step/sec", steps_per_sec)]
        if self._batch_size is not None:
            rates.append(("examples/sec", self._batch_size * steps_per_sec))
        for tag, value in rates:
            if self._summary_writer is not None:
                self._summary_writer.add_summary(
                    Summary(value=[Summary.Value(tag=tag, simple_value=value)]), global_step)
        for tag, value in rates:
            logging.info("%s: %g", tag, value)


def _add_to_params(params, key, value):
    if hasattr(params, "set_hparam"):  # An HParams object.
        if key in params:
            params.set_hparam(key, value)
        else:
            params.add_hparam(key, value)
    else:
        params[key] = value


def _outermost_graph():
    """The default graph, or the graph holding it (a loop body's FuncGraph)."""
    graph = tf.compat.v1.get_default_graph()
    while getattr(graph, "outer_graph", None) is not None:
        graph = graph.outer_graph
    return graph


def _verify_user_model_fn(model_fn, params):
    if model_fn is None:
        raise ValueError("model_fn must be provided to Estimator.")
    args = set(function_utils.fn_args(model_fn))
    if "features" not in args:
        raise ValueError(f"model_fn ({model_fn}) must include features argument.")
    if params is not None and "params" not in args:
        raise ValueError(f"model_fn ({model_fn}) does not include params argument, but "
                         f"params ({params}) is passed to Estimator.")
    if params is None and "params" in args:
        logging.warning("Estimator's model_fn (%s) includes params argument, but params "
                        "are not passed to Estimator.", model_fn)
    unexpected = sorted(args - _MODEL_FN_ARGS)
    if unexpected:
        raise ValueError(f"model_fn ({model_fn}) has following not expected args: "
                         f"{unexpected}")


class TPUEstimator(loop_logs.LoopLogs, EstimatorV1):
    """tf.compat.v1.estimator.tpu.TPUEstimator, running on CPUs and GPUs.

    Deliberate difference 18: without a TPU, `use_tpu=True` fails at once, naming why.

    Args:
        model_fn: Returns a TPUEstimatorSpec or an EstimatorSpec; must take `params`.
        model_dir: As Estimator's.
        config: A `estimator_lib.tpu.RunConfig` (required, as in the original).
        params: Hyperparameters; may not hold the reserved keys `batch_size`, `context`.
        use_tpu: Must be False to train, predict, or evaluate with eval_on_tpu=True:
            there is no TPU support. The default, True, is the original's.
        train_batch_size: Global training batch size: `params["batch_size"]` in TRAIN.
            Required with use_tpu=True, as in the original.
        eval_batch_size: `params["batch_size"]` in EVAL.
        predict_batch_size: `params["batch_size"]` in PREDICT.
        batch_axis: TPU sharding axes; unused on CPU/GPU.
        eval_on_tpu: False evaluates on CPU/GPU also when use_tpu=True.
        export_to_tpu: Also export the MetaGraph for TPU serving (tags serve, tpu),
            which only a TPU can run; PREDICT only, as in the original.
        export_to_cpu: Export the CPU MetaGraph (tags serve).
        warm_start_from: As Estimator's.
        embedding_config_spec: Must be None (TPU embeddings need a TPU).
        export_saved_model_api_version: 1, 2 or an ExportSavedModelApiVersion: V1
            calls the model_fn inside `tpu.rewrite` for the TPU MetaGraph, V2 calls it
            plainly (it may call `tpu.rewrite` itself).

    Raises:
        ValueError: For the arguments the original rejected, and for
            `embedding_config_spec`.

    Examples:
        A TPU program on the CPU (`use_tpu=False`): the model_fn takes `params` (its
        `batch_size` is the mode's batch) and returns a `TPUEstimatorSpec`, whose
        `eval_metrics` is a (metric_fn, tensors) pair:

        >>> import tempfile
        >>> import tensorflow as tf
        >>> from estimator_lib import tpu
        >>> def model_fn(features, labels, mode, params):
        ...     w = tf.compat.v1.get_variable("w", [], initializer=tf.compat.v1.zeros_initializer())
        ...     loss = tf.reduce_mean(tf.square(w * features["x"] - labels))
        ...     step = tf.compat.v1.train.get_or_create_global_step()
        ...     train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, step)
        ...     metric_fn = lambda x: {"mean_x": tf.compat.v1.metrics.mean(x)}
        ...     return tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train_op,
        ...                                 eval_metrics=(metric_fn, [features["x"]]))
        >>> def input_fn(params):
        ...     dataset = tf.data.Dataset.from_tensors(({"x": [1.0]}, [2.0])).repeat()
        ...     return dataset.unbatch().batch(params["batch_size"], drop_remainder=True)
        >>> config = tpu.RunConfig(model_dir=tempfile.mkdtemp(),
        ...                        tpu_config=tpu.TPUConfig(iterations_per_loop=2))
        >>> est = tpu.TPUEstimator(model_fn, config=config, use_tpu=False, train_batch_size=4,
        ...                        eval_batch_size=4)
        >>> est = est.train(input_fn, steps=2)
        >>> metrics = est.evaluate(input_fn, steps=1)
        >>> int(metrics["global_step"]), float(metrics["mean_x"])
        (2, 1.0)
    """

    # Its train/evaluate/predict add the original's log lines (loop_logs); subclasses
    # may not override its public members, as the original checked them.
    _ESTIMATOR_API_CLASS = True

    def __init__(self, model_fn: Optional[Callable] = None, model_dir: Optional[str] = None,
                 config=None, params: Optional[dict] = None, use_tpu: bool = True,
                 train_batch_size: Optional[int] = None,
                 eval_batch_size: Optional[int] = None,
                 predict_batch_size: Optional[int] = None, batch_axis=None,
                 eval_on_tpu: bool = True, export_to_tpu: bool = True,
                 export_to_cpu: bool = True, warm_start_from=None,
                 embedding_config_spec=None,
                 export_saved_model_api_version=ExportSavedModelApiVersion.V1):
        if config is None or not isinstance(config, tpu_config_lib.RunConfig):
            raise ValueError("`config` must be provided with type `tpu_config.RunConfig`")
        if params is not None and any(k in params for k in _RESERVED_PARAMS_KEYS):
            raise ValueError(f"{_RESERVED_PARAMS_KEYS} are reserved keys but existed in "
                             f"params {params}.")
        if embedding_config_spec is not None:
            raise ValueError(_EMBEDDING_MESSAGE)
        if use_tpu:
            if train_batch_size is None:
                raise ValueError("`train_batch_size` cannot be `None`")
            util.check_positive_integer(train_batch_size, "train_batch_size")
            if (config.tpu_config.per_host_input_for_training
                    is tpu_config_lib.InputPipelineConfig.PER_SHARD_V1
                    and config.tpu_config.num_cores_per_replica):
                raise ValueError(
                    "Model parallelism only supports per host input for training. Please "
                    "adjust TPURunconfig.per_host_input_for_training.")
            if eval_batch_size is not None:
                util.check_positive_integer(eval_batch_size, "eval_batch_size")
            if predict_batch_size is not None:
                util.check_positive_integer(predict_batch_size, "predict_batch_size")
        if not (isinstance(export_saved_model_api_version, ExportSavedModelApiVersion)
                or export_saved_model_api_version in (1, 2)):
            raise ValueError("export_saved_model_api_version should be 1 or 2; got "
                             f"{export_saved_model_api_version}.")
        _verify_user_model_fn(model_fn, params)
        self._user_model_fn = model_fn
        self._use_tpu = bool(use_tpu)
        self._eval_on_tpu = eval_on_tpu
        self._batch_sizes = {ModeKeys.TRAIN: train_batch_size,
                             ModeKeys.EVAL: eval_batch_size,
                             ModeKeys.PREDICT: predict_batch_size}
        self._export_to_tpu = export_to_tpu
        self._export_to_cpu = export_to_cpu
        self._export_saved_model_api_version = export_saved_model_api_version
        self._input_fn_graph = None
        self._exporting_for_tpu = False

        # The step rates are logged by ExamplesPerSecondHook instead of the
        # Estimator's `loss = ..` and step counter hooks, every
        # ceil(log_step_count_steps / iterations_per_loop) steps, as the original.
        iterations = util.parse_iterations_per_loop(config.tpu_config.iterations_per_loop)
        self._log_every_n_steps = config.log_step_count_steps
        self._log_every_n_secs = None
        if iterations.unit == "seconds":
            self._log_every_n_steps, self._log_every_n_secs = None, iterations.value
        elif self._log_every_n_steps is not None:
            self._log_every_n_steps = int(math.ceil(
                self._log_every_n_steps / iterations.value))
        config = config.replace(log_step_count_steps=None)
        super().__init__(model_fn=self._tpu_model_fn, model_dir=model_dir, config=config,
                         params=params or {}, warm_start_from=warm_start_from)

        logging.info("_TPUContext: eval_on_tpu %s", eval_on_tpu)
        if not use_tpu and eval_on_tpu:
            logging.warning("eval_on_tpu ignored because use_tpu is False.")
        if (config.tpu_config.num_shards == 1
                and config.tpu_config.num_cores_per_replica is None):
            logging.warning("Setting TPUConfig.num_shards==1 is an unsupported behavior. "
                            "Please fix as soon as possible (leaving num_shards as None.)")

    # -------------------------------------------------------------- input_fn

    def _on_tpu(self, mode):
        if not self._use_tpu:
            return False
        return not (mode == ModeKeys.EVAL and not self._eval_on_tpu)

    def _call_input_fn(self, input_fn, mode, input_context=None):
        """Calls input_fn with `params["batch_size"]` set to the mode's batch size."""
        args = function_utils.fn_args(input_fn)
        if "params" not in args:
            raise ValueError(
                f"input_fn ({input_fn}) does not include params argument, required by "
                "TPUEstimator to pass batch size as params[\"batch_size\"]")
        if self._on_tpu(mode):
            what = {ModeKeys.TRAIN: "train", ModeKeys.EVAL: "evaluate (eval_on_tpu=True)",
                    ModeKeys.PREDICT: "predict"}[mode]
            raise RuntimeError(_NO_TPU_MESSAGE.format(what=what))
        if (self.config.tpu_config.eval_training_input_configuration
                == tpu_config_lib.InputPipelineConfig.SLICED):
            raise ValueError("Invalid TPUConfig `eval_training_input_configuration` value. "
                             "SLICED mode only works on use_tpu = True.")
        params = self.params
        if self._batch_sizes[mode] is not None:
            _add_to_params(params, _BATCH_SIZE_KEY, self._batch_sizes[mode])
        kwargs = {"params": params}
        if "config" in args:
            kwargs["config"] = self.config
        if "mode" in args:
            kwargs["mode"] = mode
        if "input_context" in args:
            kwargs["input_context"] = input_context
        with tf.device("/device:CPU:0"):
            result = input_fn(**kwargs)
        # export_saved_model calls no input_fn: a model_fn built in another graph than
        # the last input_fn's (every replica's, under a strategy) is exporting.
        self._input_fn_graph = weakref.ref(_outermost_graph())
        return result

    # -------------------------------------------------------------- model_fn

    def _tpu_model_fn(self, features, labels, mode, config, params):
        """The Estimator's model_fn: the user's, with TPUEstimator's params and spec."""
        input_fn_graph = self._input_fn_graph and self._input_fn_graph()
        is_export = input_fn_graph is not _outermost_graph()
        if is_export and self._exporting_for_tpu:
            # The MetaGraph for TPU serving, in the original's TPU inference context.
            # params["use_tpu"] as the original's: False inside its V1 rewrite (it called
            # the model_fn there in PREDICT mode), True with V2.
            with tpu_inference.inference_context():
                if self._export_api_version() == ExportSavedModelApiVersion.V1:
                    return tpu_inference.model_fn_on_tpu(
                        lambda: self._call_user_model_fn(features, labels, mode, config,
                                                         params, use_tpu=False))
                return self._call_user_model_fn(features, labels, mode, config, params,
                                                use_tpu=True)
        if not is_export and self._batch_sizes[mode] is not None:
            _add_to_params(params, _BATCH_SIZE_KEY, self._batch_sizes[mode])
        return self._call_user_model_fn(features, labels, mode, config, params,
                                        use_tpu=False)

    def _call_user_model_fn(self, features, labels, mode, config, params, *, use_tpu):
        """The user's model_fn with TPUEstimator's params; its spec as an EstimatorSpec."""
        _add_to_params(params, _USE_TPU_KEY, use_tpu)
        logging.info("Running %s on CPU/GPU", _MODE_NAMES.get(mode, mode))

        args = function_utils.fn_args(self._user_model_fn)
        if "params" not in args:
            raise ValueError(
                f"model_fn ({self._user_model_fn}) does not include params argument, "
                "required by TPUEstimator to pass batch size as params['batch_size']")
        kwargs = {"params": params}
        if "labels" in args:
            kwargs["labels"] = labels
        elif labels is not None:
            raise ValueError("model_fn does not take labels, but input_fn returns labels.")
        if "mode" in args:
            kwargs["mode"] = mode
        if "config" in args:
            kwargs["config"] = config
        spec = self._user_model_fn(features=features, **kwargs)
        if isinstance(spec, TPUEstimatorSpec):
            spec = spec.as_estimator_spec()
        if self._log_every_n_steps is not None or self._log_every_n_secs is not None:
            examples_hook = ExamplesPerSecondHook(
                self._batch_sizes.get(mode),
                output_dir=self.model_dir if config.save_summary_steps else None,
                every_n_steps=self._log_every_n_steps, every_n_secs=self._log_every_n_secs)
            spec = spec._replace(training_hooks=tuple(spec.training_hooks) + (examples_hook,))
        return spec

    # ---------------------------------------------------------------- export

    def _export_api_version(self) -> ExportSavedModelApiVersion:
        return ExportSavedModelApiVersion(
            getattr(self._export_saved_model_api_version, "value",
                    self._export_saved_model_api_version))

    def _add_meta_graph_for_mode(self, builder, mode, receiver_fn, checkpoint_path,
                                 save_variables, export_tags=None, check_variables=True):
        """The CPU MetaGraph (export_to_cpu), then the TPU one (export_to_tpu, PREDICT)."""
        if self._export_to_tpu and mode != ModeKeys.PREDICT:
            logging.warning("TPUEstimator only handles mode PREDICT for exporting when "
                            "`export_to_tpu` is `True`; Mode %s will be ignored for TPU.",
                            mode)
        if not self._export_to_cpu and not self._export_to_tpu:
            raise ValueError("One of export_to_cpu and export_to_tpu must be true.")
        if self._export_to_cpu:
            super()._add_meta_graph_for_mode(builder, mode, receiver_fn, checkpoint_path,
                                             save_variables, export_tags=export_tags,
                                             check_variables=check_variables)
        if not (self._export_to_tpu and mode == ModeKeys.PREDICT):
            return
        # As the original: the CPU MetaGraph holds the variables; without it, the TPU
        # one restores and saves them in a session.
        check_and_save = not self._export_to_cpu
        if check_and_save and self._export_api_version() == ExportSavedModelApiVersion.V1:
            raise ValueError(_TPU_ONLY_EXPORT_MESSAGE)
        self._exporting_for_tpu = True
        try:
            super()._add_meta_graph_for_mode(
                builder, mode, receiver_fn, checkpoint_path, save_variables=check_and_save,
                export_tags=[tf.saved_model.SERVING, tf.saved_model.TPU],
                check_variables=check_and_save)
        finally:
            self._exporting_for_tpu = False


__all__ = ["ExamplesPerSecondHook", "ExportSavedModelApiVersion", "TPUEstimator",
           "TPUEstimatorSpec"]
