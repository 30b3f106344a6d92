"""Estimator: train, evaluate, predict and export a model_fn, one graph per call."""

import copy
from typing import Callable, Iterable, Optional

import numpy as np
import tensorflow as tf
from tensorflow.python.checkpoint import graph_view

from estimator_lib.engine import construction
from estimator_lib.engine import evaluation
from estimator_lib.graph import predictions as predictions_lib
from estimator_lib.graph import warm_starting
from estimator_lib.core import run_config as run_config_lib
from estimator_lib.distribute import job_shape
from estimator_lib.distribute import replica_specs
from estimator_lib.distribute import strategies
from estimator_lib.export import saved_model
from estimator_lib.core.model_fn import ModeKeys
from estimator_lib.core.model_fn import canonical_mode
from estimator_lib.core.model_fn import check_hooks
from estimator_lib.core.model_fn import verify_model_fn_args
from estimator_lib.graph import inputs
from estimator_lib.graph import model_graph
from estimator_lib.graph.model_graph import ModelGraph
from estimator_lib.core.run_config import RunConfig
from estimator_lib.core.run_config import get_default_session_config
from estimator_lib.graph import restore
from estimator_lib.hooks import in_memory_evaluator
from estimator_lib.tf_internals import saved_model_builder
from estimator_lib.training import session as session_lib
from estimator_lib.training.train_model import train_model

logging = tf.compat.v1.logging

_check_positive = construction.check_positive
_HOOKS_LEAD = "Hooks must be a SessionRunHook"


class Estimator:
    """Trains, evaluates, predicts with and exports the model a `model_fn` builds.

    Same constructor, methods and behaviour as `tf.estimator.Estimator`; every call
    builds a fresh `tf.Graph` and runs it in a `tf.compat.v1` session. Subclasses may
    not override the public methods (the constructor checks, as the original's did).

    Args:
        model_fn: Builds the model: called as `model_fn(features, labels, mode, params,
            config)`, where only `features` is required and the others are passed when
            the function names them. Returns an `EstimatorSpec` for the given
            `ModeKeys` mode.
        model_dir: Directory for checkpoints, summaries and exports' defaults. None
            takes `config.model_dir`, or else a new temporary directory (logged). If
            both are given they must agree.
        config: A `RunConfig`; None means `RunConfig()` (with TF_CONFIG read).
        params: A dict passed to `model_fn` as `params` (deep-copied; read back with
            the `params` property). `model_fn` must accept `params` if this is given.
        warm_start_from: Where to warm-start variables from when no checkpoint exists
            in `model_dir`: a checkpoint or SavedModel path (all variables) or a
            `WarmStartSettings`.

    Raises:
        ValueError: If `model_fn` is None, its arguments do not match what is passed,
            `config` is not a `RunConfig`, `model_dir` disagrees with
            `config.model_dir`, or a subclass overrides a public method.

    Examples:
        A linear model trained, evaluated, asked for predictions and exported:

        >>> import tempfile
        >>> import numpy as np
        >>> import tensorflow as tf
        >>> import estimator_lib
        >>> def model_fn(features, labels, mode):
        ...     w = tf.compat.v1.get_variable("w", [1, 1])
        ...     y = tf.matmul(features["x"], w)
        ...     if mode == estimator_lib.ModeKeys.PREDICT:
        ...         return estimator_lib.EstimatorSpec(mode, predictions={"y": y})
        ...     loss = tf.reduce_mean(tf.square(y - labels))
        ...     step = tf.compat.v1.train.get_global_step()
        ...     train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        ...         loss, global_step=step)
        ...     return estimator_lib.EstimatorSpec(mode, loss=loss, train_op=train_op)
        >>> def input_fn():
        ...     x = np.array([[1.0], [2.0]], np.float32)
        ...     return tf.data.Dataset.from_tensor_slices(({"x": x}, 2 * x)).repeat().batch(2)
        >>> est = estimator_lib.Estimator(model_fn, model_dir=tempfile.mkdtemp())
        >>> est = est.train(input_fn, steps=2)
        >>> sorted(est.evaluate(input_fn, steps=1))
        ['global_step', 'loss']
        >>> def predict_input_fn():
        ...     return tf.data.Dataset.from_tensors({"x": [[3.0]]})
        >>> [sorted(p) for p in est.predict(predict_input_fn)]
        [['y']]
        >>> receiver_fn = estimator_lib.export.build_raw_serving_input_receiver_fn(
        ...     {"x": tf.zeros([1, 1])})
        >>> path = est.export_saved_model(tempfile.mkdtemp(), receiver_fn)
        >>> tf.saved_model.contains_saved_model(path.decode())
        True
    """

    _ESTIMATOR_API_CLASS = True  # Subclasses may not override its public members.

    def __init__(self, model_fn: Callable, model_dir: Optional[str] = None,
                 config: Optional[RunConfig] = None, params: Optional[dict] = None,
                 warm_start_from=None):
        # Through the class, as the original: a subclass may replace the check.
        type(self)._assert_members_are_not_overridden(self)
        construction.check_config_type(config)  # first, as the original
        if model_fn is None:
            raise ValueError("model_fn must be provided to Estimator.")
        verify_model_fn_args(model_fn, params)
        self._config = construction.resolve_config(config, model_dir)
        tf.io.gfile.makedirs(self._model_dir)
        # Each piece of constructor state lives here alone, by the original's name; the
        # graphs read it at every call (graph/model_graph.py), so a program or library
        # that replaces one on the instance (`est._model_fn = wrapped`) is obeyed.
        self._session_config = self._config.session_config or get_default_session_config()
        self._model_fn = model_fn
        self._params = copy.deepcopy(params or {})
        self._warm_start_settings = warm_starting.resolve(warm_start_from)
        logging.info("Using config: %s",
                     run_config_lib.as_original_dict(self._config, self._session_config))

    # The original's copies of four RunConfig fields, views of `_config` here: one
    # authority, and `est._device_fn = fn` replaces the config's (docs/estimator.md,
    # "Call-time reads").
    _model_dir = construction.ConfigAlias("model_dir")
    _train_distribution = construction.ConfigAlias("train_distribute")
    _eval_distribution = construction.ConfigAlias("eval_distribute")
    _device_fn = construction.ConfigAlias("device_fn", default=job_shape.default_device_fn)

    # Read-only properties, as the original.
    model_dir = property(lambda self: self._model_dir,
                         doc="The directory checkpoints and summaries go to (read-only).")
    config = property(lambda self: self._config, doc="""\
        The `RunConfig` this Estimator runs with (read-only).

        Deliberate difference 9: the same object on every read, not a deep copy.
        """)

    # The v1 method, hidden as the original's v2 class hid it (estimator_v1 has it).
    export_savedmodel = construction.HiddenFromApi(construction.EXPORT_SAVEDMODEL_HIDDEN)

    def __getattr__(self, name):
        # Only for names not found (or hidden): the v1 method's name gets the
        # original's hint.
        if name == "export_savedmodel":
            raise AttributeError(construction.EXPORT_SAVEDMODEL_HIDDEN)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
    params = property(lambda self: copy.deepcopy(self._params),
                      doc="A deep copy of the `params` dict given to the constructor.")

    @property
    def model_fn(self) -> Callable:
        """The model_fn bound to this Estimator's params: (features, labels, mode, config)."""

        def public_model_fn(features, labels, mode, config):
            """Calls the Estimator's model_fn through `_call_model_fn`.

            Args:
                features: The features.
                labels: The labels, or None.
                mode: The `ModeKeys` mode.
                config: The RunConfig.
            """
            return self._call_model_fn(features, labels, mode, config)

        return public_model_fn

    def _assert_members_are_not_overridden(self) -> None:
        """Raises ValueError if this subclass overrides a public Estimator member."""
        construction.assert_members_are_not_overridden(type(self))

    def latest_checkpoint(self) -> Optional[str]:
        """Finds the newest checkpoint in `model_dir`.

        Returns:
            The checkpoint's path prefix (as `tf.train.latest_checkpoint` gives it),
            or None when `model_dir` holds none.
        """
        return restore.latest_checkpoint(self._model_dir)

    def get_variable_names(self):
        """Lists the variables saved in the newest checkpoint of `model_dir`.

        Returns:
            A list of variable names (strings).

        Raises:
            ValueError: If `model_dir` holds no checkpoint yet.
        """
        self._require_checkpoint()
        return [name for name, _ in tf.train.list_variables(self._model_dir)]

    def get_variable_value(self, name: str) -> np.ndarray:
        """Reads one variable's value from the newest checkpoint of `model_dir`.

        Args:
            name: The variable's name, one of `get_variable_names()`.

        Returns:
            The value, as a numpy array (or scalar).

        Raises:
            ValueError: If `model_dir` holds no checkpoint yet.
        """
        self._require_checkpoint()
        return tf.train.load_variable(self._model_dir, name)

    def eval_dir(self, name: Optional[str] = None) -> str:
        """Returns the directory `evaluate(name=...)` writes its summaries to.

        Args:
            name: The evaluation's name; None for the default evaluation.

        Returns:
            `model_dir/eval`, or `model_dir/eval_<name>` when `name` is given.
        """
        return evaluation.eval_dir(self._model_dir, name)

    def _require_checkpoint(self):
        if not self.latest_checkpoint():
            raise ValueError(f"Could not find trained model in model_dir: {self._model_dir}.")

    # ------------------------------------------------------------------ train

    def train(self, input_fn: Callable, hooks: Optional[Iterable] = None,
              steps: Optional[int] = None, max_steps: Optional[int] = None,
              saving_listeners: Optional[Iterable] = None) -> "Estimator":
        """Trains the model on what `input_fn` gives, resuming from the newest checkpoint.

        Training stops after `steps` more steps, on reaching global step `max_steps`, when
        `input_fn`'s data runs out (`OutOfRangeError`/`StopIteration`), or when a hook
        requests a stop, whichever comes first. Checkpoints and summaries are written as
        `config` says; a final checkpoint is written at the end.

        Where it differs from the original on purpose (docs/estimator.md):

        - Deliberate difference 1: large numpy inputs are fed, not frozen into the graph.
        - Deliberate difference 4: a checkpoint that does not fit is refused first.
        - Deliberate difference 5: a call that made no step says so.
        - Deliberate difference 20: SIGTERM and SIGINT write a checkpoint first.
        - Deliberate difference 21: the input runs without tf.data's autotune thread.
        - Deliberate difference 22: hooks read the step before its increment.

        Args:
            input_fn: Returns the training input: a `tf.data.Dataset` of
                `(features, labels)`, or a tuple `(features, labels)` of tensors or
                dicts of tensors. It may take `mode`, `params`, `config` and
                `input_context` arguments, passed when named.
            hooks: `SessionRunHook`s run in the training loop, beside those the
                Estimator adds (checkpoints, summaries, step counter, NaN check, loss
                logging) and those of `model_fn`'s spec.
            steps: How many steps to run from the current global step (incremental:
                two calls with `steps=10` run 20 steps). None runs until another stop.
            max_steps: The global step to stop at. If the checkpoint in `model_dir`
                is already there, the call returns at once. Cannot be given with
                `steps`.
            saving_listeners: `CheckpointSaverListener`s called around each
                checkpoint save.

        Returns:
            This Estimator (`self`), so calls can be chained.

        Raises:
            ValueError: If both `steps` and `max_steps` are given, either is not
                positive, or the config's task (an evaluator) does not train.
            TypeError: If a hook is not a `SessionRunHook` or a listener not a
                `CheckpointSaverListener`.
            tf.compat.v1.train.NanLossDuringTrainingError: If the loss becomes NaN (the
                Estimator's own `NanTensorHook` checks every step).
            tf.errors.NotFoundError: If `model_dir`'s checkpoint lacks a variable of the
                graph, before training starts (also a ValueError).
            tf.errors.InvalidArgumentError: If only the shapes of `model_dir`'s
                checkpoint differ from the graph's, before training starts (also a
                ValueError).
            KeyboardInterrupt: On SIGINT under Python's own handler, once the
                checkpoint is written (`estimator_lib.training.preemption.Interrupted`).
            SystemExit: On SIGTERM (or SIGINT with the default action), once the
                checkpoint is written (`estimator_lib.training.preemption.Preempted`).
        """
        role = job_shape.role_of(self._config)
        if not role.trains:
            raise ValueError(
                "Train has been called wrong configuration. Please use train_and_evaluate, "
                "which calls the proper API for the task. Current configuration: task_type="
                f"{role.task_type!r}.")
        hooks = check_hooks(hooks, "hooks", lead=_HOOKS_LEAD)
        saving_listeners = list(check_hooks(
            saving_listeners, "saving_listeners", tf.compat.v1.train.CheckpointSaverListener,
            lead="saving_listeners must be a list of CheckpointSaverListener"))
        if steps is not None and max_steps is not None:
            raise ValueError("Can not provide both steps and max_steps.")
        _check_positive("steps", steps)
        _check_positive("max_steps", max_steps)
        if max_steps is not None and max_steps <= restore.global_step_of(self._model_dir):
            logging.info("Skipping training since max_steps has already saved.")
            return self
        job = job_shape.decide(self._config, self._session_config)
        loss = train_model(ModelGraph(self), input_fn, job=job, hooks=hooks, steps=steps,
                           max_steps=max_steps, saving_listeners=saving_listeners)
        logging.info("Loss for final step: %s.", loss)
        return self

    # --------------------------------------------------------------- evaluate

    def evaluate(self, input_fn: Callable, steps: Optional[int] = None,
                 hooks: Optional[Iterable] = None, checkpoint_path: Optional[str] = None,
                 name: Optional[str] = None) -> dict:
        """Evaluates the model on what `input_fn` gives, from one checkpoint.

        Runs until `input_fn`'s data ends or `steps` batches have been read, computes
        the `eval_metric_ops` of `model_fn`'s EVAL spec plus the mean `loss`, and
        writes them as summaries to `eval_dir(name)`.

        Where it differs from the original on purpose (docs/estimator.md):

        - Deliberate difference 4: a checkpoint that does not fit is refused first.
        - Deliberate difference 21: the input runs without tf.data's autotune thread.

        Args:
            input_fn: Returns the evaluation input, as for `train()` (a
                `tf.data.Dataset` or a `(features, labels)` tuple).
            steps: How many batches to evaluate; None reads until the input ends
                (then `input_fn` must end: a repeating dataset never stops).
            hooks: `SessionRunHook`s run in the evaluation session.
            checkpoint_path: The checkpoint to evaluate; None takes the newest in
                `model_dir` (with none, the variables are initialised, or
                warm-started, and a message logged).
            name: Names this evaluation, so that evaluations on different data write
                to different directories (`eval_<name>`).

        Returns:
            A dict of metric name to value, with `loss` and `global_step` included.

        Raises:
            ValueError: If `steps` is not positive, or the model's metrics use the
                reserved names `loss` or `global_step`.
            TypeError: If a hook is not a `SessionRunHook`.
        """
        _check_positive("steps", steps)
        hooks = list(check_hooks(hooks, "hooks", lead=_HOOKS_LEAD))
        checkpoint_path = checkpoint_path or self.latest_checkpoint()
        if not checkpoint_path and not self._warm_start_settings:
            logging.info("Could not find trained model in model_dir: %s, running "
                         "initialization to evaluate.", self._model_dir)
        with tf.Graph().as_default(), strategies.scope(self._evaluation().strategy):
            graph = self._evaluate_build_graph(input_fn, checkpoint_path)
            return self._evaluate_run(graph, steps=steps, hooks=hooks,
                                      checkpoint_path=checkpoint_path, name=name)

    def _evaluate_build_graph(self, input_fn: Callable,
                              checkpoint_path: Optional[str]) -> evaluation.EvalGraph:
        """Builds evaluate()'s graph in the default graph, under eval_distribute's scope.

        Apart from `_evaluate_run` so that InMemoryEvaluatorHook builds it once and
        runs it at every evaluation, as the original's hook did.
        """
        strategy = self._evaluation().strategy
        model = ModelGraph(self)
        global_step = model.start_graph(tf.compat.v1.get_default_graph())
        get_next, input_hooks = model.input(input_fn, ModeKeys.EVAL, strategy=strategy)

        def eval_spec(features, labels):
            return self._eval_spec(model, features, labels)

        if strategy is None:
            spec = eval_spec(*get_next())
            update_op = tf.group(*[u for _, u in spec.eval_metric_ops.values()])
        else:
            spec, update_op = replica_specs.eval_spec(strategy, eval_spec, *get_next())
        model.prepare_restore_or_warm_start(spec, checkpoint_path, warm_start=True)
        return evaluation.eval_graph(spec, update_op, global_step, input_hooks)

    def _evaluate_run(self, graph: evaluation.EvalGraph, *, steps: Optional[int], hooks: list,
                      checkpoint_path: Optional[str], name: Optional[str],
                      scaffold=None) -> dict:
        """One evaluation of `graph` (the default graph): its metrics, written to eval_dir.

        `scaffold` replaces the graph's own (InMemoryEvaluatorHook's copies the
        training variables in instead of restoring a checkpoint).
        """
        results = evaluation.run_evaluation(
            checkpoint_path=checkpoint_path, scaffold=scaffold or graph.scaffold,
            update_op=graph.update_op, final_ops=graph.final_ops,
            hooks=graph.input_hooks + [evaluation.StopAfterNEvalsHook(steps)] + hooks
            + graph.evaluation_hooks,
            master=self._config.evaluation_master,
            session_config=self._evaluation().session_config)
        step = int(results["global_step"])
        output_dir = self.eval_dir(name)
        evaluation.write_dict_to_summary(output_dir, results, step)
        if checkpoint_path:
            evaluation.write_checkpoint_path_to_summary(output_dir, checkpoint_path, step)
        return results

    def _evaluation(self) -> job_shape.EvaluationShape:
        """The strategy evaluate() runs under and its session config (job_shape)."""
        return job_shape.evaluation(self._config, self._session_config)

    @staticmethod
    def _eval_spec(model: ModelGraph, features, labels):
        """Calls model_fn in EVAL mode; its metrics gain `loss` (the mean over batches)."""
        spec = model.call_model_fn(features, labels, ModeKeys.EVAL)
        metrics = dict(spec.eval_metric_ops)
        for reserved in ("loss", "global_step"):
            if reserved in metrics:
                # The original's quoting: "loss", `global_step`.
                quoted = f'"{reserved}"' if reserved == "loss" else f"`{reserved}`"
                raise ValueError(
                    f"Metric with name {quoted} is not allowed, because Estimator already "
                    "defines a default metric with the same name.")
        metrics["loss"] = tf.compat.v1.metrics.mean(spec.loss)
        return spec._replace(eval_metric_ops=metrics)

    # ---------------------------------------------------------------- predict

    def predict(self, input_fn: Callable, predict_keys=None, hooks: Optional[Iterable] = None,
                checkpoint_path: Optional[str] = None, yield_single_examples: bool = True):
        """Yields the model's predictions for each example (or batch) of `input_fn`.

        A generator: the graph is built and the checkpoint restored on the first
        `next()`; it ends when `input_fn`'s data ends.

        Args:
            input_fn: Returns the features: a `tf.data.Dataset` of features (or of
                `(features, labels)`, labels ignored), or a tensor or dict of tensors.
            predict_keys: The keys of the `predictions` dict to yield (a string or a
                list of strings); None yields every key.
            hooks: `SessionRunHook`s run in the prediction session.
            checkpoint_path: The checkpoint to predict with; None takes the newest in
                `model_dir` (with none, the variables are initialised, or
                warm-started, and a message logged).
            yield_single_examples: True yields one example at a time (each tensor's
                first dimension is split); False yields each batch as it is computed.

        Yields:
            A dict of prediction key to value (or a single value, when `model_fn`'s
            `predictions` is a tensor), one per example or per batch.

        Raises:
            ValueError: If `predict_keys` is given for predictions that are not a dict
                or names none of their keys, or (with `yield_single_examples`) the
                predictions' first dimensions differ.
            TypeError: If a hook is not a `SessionRunHook`.
        """
        hooks = list(check_hooks(hooks, "hooks", lead=_HOOKS_LEAD))
        checkpoint_path = checkpoint_path or self.latest_checkpoint()
        if not checkpoint_path and not self._warm_start_settings:
            logging.info("Could not find trained model in model_dir: %s, running "
                         "initialization to predict.", self._model_dir)
        with tf.Graph().as_default() as graph:
            model = ModelGraph(self)
            model.start_graph(graph)
            get_next, input_hooks = model.input(input_fn, ModeKeys.PREDICT)
            spec = model.call_model_fn(get_next()[0], None, ModeKeys.PREDICT)
            model.prepare_restore_or_warm_start(spec, checkpoint_path, warm_start=True)
            predictions = self._extract_keys(spec.predictions, predict_keys)
            with session_lib.local_session(
                    scaffold=spec.scaffold, checkpoint_path=checkpoint_path,
                    config=self._session_config,
                    hooks=input_hooks + hooks + list(spec.prediction_hooks)) as session:
                while not session.should_stop():
                    values = session.run(predictions)
                    if yield_single_examples:
                        yield from predictions_lib.examples(values,
                                                            self._extract_batch_length)
                    else:
                        yield values

    # ----------------------------------------------------------------- export

    def export_saved_model(self, export_dir_base, serving_input_receiver_fn: Callable,
                           assets_extra: Optional[dict] = None, as_text: bool = False,
                           checkpoint_path: Optional[str] = None,
                           experimental_mode: str = ModeKeys.PREDICT) -> bytes:
        """Exports the model as a SavedModel for serving.

        Builds `model_fn`'s graph in `experimental_mode` on the features the receiver
        gives, restores the checkpoint into it and writes a SavedModel with one
        signature per `export_outputs` entry of the spec.

        Deliberate difference 24: it logs no `build_tensor_info` deprecation warnings.

        Args:
            export_dir_base: The directory under which a new directory, named by the
                current timestamp, is created for the export.
            serving_input_receiver_fn: Takes no arguments and returns a
                `ServingInputReceiver` or `TensorServingInputReceiver` (for TRAIN and
                EVAL modes, a `SupervisedInputReceiver`).
            assets_extra: A dict of destination path (relative to the export's
                `assets.extra` directory) to source path, copied in.
            as_text: Whether to write the SavedModel proto as text.
            checkpoint_path: The checkpoint to export; None takes the newest in
                `model_dir` (or the warm-start checkpoint when there is none).
            experimental_mode: The `ModeKeys` mode to export the graph in; PREDICT by
                default.

        Returns:
            The export directory's path, as bytes.

        Raises:
            ValueError: If `serving_input_receiver_fn` is missing or no checkpoint is
                found.
        """
        if not serving_input_receiver_fn:
            raise ValueError("An input_receiver_fn must be defined.")
        return self._export_all_saved_models(
            export_dir_base, {canonical_mode(experimental_mode): serving_input_receiver_fn},
            assets_extra=assets_extra, as_text=as_text, checkpoint_path=checkpoint_path)

    def experimental_export_all_saved_models(self, export_dir_base, input_receiver_fn_map,
                                             assets_extra=None, as_text=False,
                                             checkpoint_path=None) -> bytes:
        """Exports one SavedModel holding a MetaGraph per mode of `input_receiver_fn_map`.

        Like `export_saved_model`, but the graph is built once per mode, so that a
        single SavedModel can serve training, evaluation and prediction signatures.
        The variables are saved with the first mode's graph, in the order TRAIN,
        EVAL, PREDICT.

        Args:
            export_dir_base: The directory under which a new timestamped directory is
                created for the export.
            input_receiver_fn_map: A dict of `ModeKeys` mode to receiver function
                (`SupervisedInputReceiver` for TRAIN and EVAL, `ServingInputReceiver`
                for PREDICT).
            assets_extra: A dict of destination path (under `assets.extra`) to source
                path, copied in.
            as_text: Whether to write the SavedModel proto as text.
            checkpoint_path: The checkpoint to export; None takes the newest in
                `model_dir` (or the warm-start checkpoint when there is none).

        Returns:
            The export directory's path, as bytes.

        Raises:
            ValueError: If no checkpoint is found or the map holds no known mode.
        """
        return self._export_all_saved_models(export_dir_base, input_receiver_fn_map,
                                             assets_extra=assets_extra, as_text=as_text,
                                             checkpoint_path=checkpoint_path)

    def _export_all_saved_models(self, export_dir_base, input_receiver_fn_map,
                                 assets_extra=None, as_text=False, checkpoint_path=None,
                                 strip_default_attrs=True) -> bytes:
        """The export every public export method calls, as the original's (a subclass
        may override it). `strip_default_attrs=False` (the v1 `export_savedmodel`'s
        default) is applied by export/v1_export.py's `_add_meta_graph_for_mode`."""
        del strip_default_attrs
        checkpoint_path = checkpoint_path or self.latest_checkpoint()
        if not checkpoint_path:
            if self._warm_start_settings:
                checkpoint_path = self._warm_start_settings.ckpt_to_initialize_from
                if tf.io.gfile.isdir(checkpoint_path):
                    checkpoint_path = tf.train.latest_checkpoint(checkpoint_path)
            else:
                raise ValueError(f"Couldn't find trained model at {self._model_dir}.")

        def add_meta_graph(builder, mode, receiver_fn, save_variables):
            """Adds one mode's MetaGraph through `_add_meta_graph_for_mode`.

            Args:
                builder: The SavedModel builder.
                mode: The `ModeKeys` mode.
                receiver_fn: That mode's input receiver function.
                save_variables: Whether this MetaGraph saves the variables.
            """
            self._add_meta_graph_for_mode(builder, mode, receiver_fn, checkpoint_path,
                                          save_variables)

        return saved_model.export_all(
            export_dir_base, {canonical_mode(m): fn for m, fn in input_receiver_fn_map.items()},
            add_meta_graph=add_meta_graph, assets_extra=assets_extra, as_text=as_text)

    def _add_meta_graph_for_mode(self, builder, mode, receiver_fn, checkpoint_path,
                                 save_variables, export_tags=None, check_variables=True):
        # export_tags and check_variables as the original's: TPUEstimator adds a
        # MetaGraph tagged (serve, tpu) that no CPU session can restore into.
        with tf.Graph().as_default() as graph:
            model = ModelGraph(self)
            model.start_graph(graph)
            receiver = receiver_fn()
            spec = model.call_model_fn(receiver.features, getattr(receiver, "labels", None),
                                       mode)
            signatures = saved_model.signature_defs(mode, spec, receiver)
            saver = spec.scaffold.saver or tf.compat.v1.train.Saver(sharded=True)
            if isinstance(saver, (tf.compat.v1.train.Checkpoint, tf.train.Checkpoint)):
                # An object-based Checkpoint as the Scaffold's saver: a Saver of its
                # objects restores and is written into the SavedModel, as the original.
                saver = tf.compat.v1.train.Saver(
                    var_list=graph_view.ObjectGraphView(saver).frozen_saveable_objects(),
                    sharded=True)
            restores = save_variables or check_variables
            if restores:
                # Checked only where the original's restore ran (a subclass or
                # TPUEstimator passing check_variables=False reads no checkpoint).
                restore.require_readable(checkpoint_path)
                if spec.scaffold.saver is None:
                    restore.check_compatible(checkpoint_path)
            local_init_op = (spec.scaffold.local_init_op
                             or tf.compat.v1.train.Scaffold.default_local_init_op())
            # SavedModelEstimator trains with the TRAIN MetaGraph's train op.
            saved_model_builder.add_train_op(builder, spec.train_op)
            kwargs = dict(
                tags=export_tags or saved_model.tags_for(mode), signature_def_map=signatures,
                assets_collection=tf.compat.v1.get_collection(
                    tf.compat.v1.GraphKeys.ASSET_FILEPATHS),
                main_op=local_init_op, saver=saver, strip_default_attrs=True)
            if not restores:
                builder.add_meta_graph(**kwargs)
                return
            with session_lib.plain_session(self._session_config) as session:
                saver.restore(session, checkpoint_path)
                if save_variables:
                    builder.add_meta_graph_and_variables(session, **kwargs)
                else:
                    builder.add_meta_graph(**kwargs)

    # ---------------------------------------------------------------- helpers

    # The original's private hook points (construction.HOOK_POINTS): ModelGraph calls
    # them through the instance where the original called them, so a subclass's
    # override is seen; the defaults call graph/ directly.

    def _call_input_fn(self, input_fn, mode, input_context=None):
        """Calls input_fn with the arguments it names (TPUEstimator overrides it)."""
        return inputs.call_input_fn(input_fn, mode, params=self.params, config=self.config,
                                    input_context=input_context)

    def _call_model_fn(self, features, labels, mode, config):
        """Calls `self._model_fn` (read now) with the arguments it names."""
        return model_graph.call_model_fn(self._model_fn, features, labels, mode,
                                         params=self.params, config=config or self.config)

    def _get_features_and_labels_from_input_fn(self, input_fn, mode):
        """(features, labels, input hooks) of input_fn's result (train, evaluate)."""
        return inputs.parse_input_fn_result(self._call_input_fn(input_fn, mode))

    def _get_features_from_input_fn(self, input_fn, mode):
        """(features, input hooks) of input_fn's result (predict)."""
        features, _, hooks = inputs.parse_input_fn_result(self._call_input_fn(input_fn, mode))
        self._validate_features_in_predict_input(features)
        return features, hooks

    def _get_iterator_from_input_fn(self, input_fn, mode, distribution=None):
        """(iterator, input hooks) of input_fn: with a strategy (train), its per-replica
        iterator over what `_call_input_fn` returns for each input context."""
        return inputs.iterator(self, input_fn, mode, distribution)

    def _validate_features_in_predict_input(self, result):
        inputs.warn_without_dataset(result)

    def _extract_keys(self, predictions, predict_keys):
        return predictions_lib.select(predictions, predict_keys)

    def _extract_batch_length(self, preds_evaluated):
        return predictions_lib.batch_length(preds_evaluated)

    def _create_global_step(self, graph):
        return tf.compat.v1.train.create_global_step(graph)

    def _create_and_assert_global_step(self, graph):
        return construction.check_global_step(self._create_global_step(graph), graph)

    def _maybe_warm_start(self, checkpoint_path):
        if not checkpoint_path and self._warm_start_settings:
            warm_starting.apply(self._warm_start_settings)


@in_memory_evaluator.evaluation_of.register(Estimator)
def _in_memory_evaluation(estimator: Estimator) -> in_memory_evaluator.InMemoryEvaluation:
    """InMemoryEvaluatorHook's interface: evaluate()'s two halves, by the original's names."""
    return in_memory_evaluator.InMemoryEvaluation(
        scope=lambda: strategies.scope(estimator._evaluation().strategy),
        build=lambda input_fn: estimator._evaluate_build_graph(input_fn, checkpoint_path=None),
        run=lambda built, **kwargs: estimator._evaluate_run(built, checkpoint_path=None,
                                                            **kwargs))
