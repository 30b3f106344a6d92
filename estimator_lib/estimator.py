"""Estimator: train, evaluate, predict and export a model_fn, one graph per call."""

import contextlib
import copy
import os
import tempfile
from typing import Callable, Iterable, Optional

import numpy as np
import tensorflow as tf
from tensorflow.python.training import training_util

from estimator_lib import _keras_switch
from estimator_lib import checkpoints
from estimator_lib import distribute
from estimator_lib import evaluation
from estimator_lib import exporting
from estimator_lib import inputs
from estimator_lib import predictions as predictions_lib
from estimator_lib import replica_specs
from estimator_lib import session as session_lib
from estimator_lib import steps_loop
from estimator_lib import training_run
from estimator_lib import warm_starting
from estimator_lib.model_fn import EstimatorSpec
from estimator_lib.model_fn import ModeKeys
from estimator_lib.model_fn import canonical_mode
from estimator_lib.model_fn import check_hooks
from estimator_lib.model_fn import model_fn_args
from estimator_lib.model_fn import verify_model_fn_args
from estimator_lib.run_config import RunConfig
from estimator_lib.run_config import TaskType
from estimator_lib.run_config import get_default_session_config

logging = tf.compat.v1.logging

# Members a subclass may override (the original forbade overriding the rest).
_OVERRIDABLE = frozenset(["latest_checkpoint"])


def _check_positive(name, value):
    if value is not None and value <= 0:
        raise ValueError(f"Must specify {name} > 0, given: {value}")


class Estimator:
    """Trains, evaluates, predicts with and exports the model a `model_fn` builds.

    Same constructor, methods and behaviour as `tf.estimator.Estimator`; every call
    builds a fresh `tf.Graph` and runs it in a `tf.compat.v1` session.
    """

    def __init__(self, model_fn: Callable, model_dir: Optional[str] = None,
                 config: Optional[RunConfig] = None, params: Optional[dict] = None,
                 warm_start_from=None):
        _assert_members_are_not_overridden(type(self))
        if model_fn is None:
            raise ValueError("model_fn must be provided to Estimator.")
        verify_model_fn_args(model_fn, params)
        self._config = resolve_config(config, model_dir)
        self._model_dir = self._config.model_dir
        tf.io.gfile.makedirs(self._model_dir)
        self._session_config = self._config.session_config or get_default_session_config()
        self._model_fn = model_fn
        self._params = copy.deepcopy(params or {})
        self._warm_start_settings = warm_starting.resolve(warm_start_from)
        logging.info("Using config: %s", self._config.as_dict())

    # Read-only properties, as the original.
    model_dir = property(lambda self: self._model_dir)
    config = property(lambda self: self._config)
    params = property(lambda self: copy.deepcopy(self._params))

    @property
    def model_fn(self) -> Callable:
        """The model_fn bound to this Estimator's params: (features, labels, mode, config)."""

        def public_model_fn(features, labels, mode, config):
            return self._call_model_fn(features, labels, mode, config)

        return public_model_fn

    def latest_checkpoint(self) -> Optional[str]:
        """The newest checkpoint in model_dir, or None."""
        return checkpoints.latest_checkpoint(self._model_dir)

    def get_variable_names(self):
        """Names of all variables in the newest checkpoint."""
        self._require_checkpoint()
        return [name for name, _ in tf.train.list_variables(self._model_dir)]

    def get_variable_value(self, name: str) -> np.ndarray:
        """The value of variable `name` in the newest checkpoint."""
        self._require_checkpoint()
        return tf.train.load_variable(self._model_dir, name)

    def eval_dir(self, name: Optional[str] = None) -> str:
        """Where evaluate(name=...) writes its summaries."""
        return evaluation.eval_dir(self._model_dir, name)

    def _require_checkpoint(self):
        if not self.latest_checkpoint():
            raise ValueError(f"Could not find trained model in model_dir: {self._model_dir}.")

    # ------------------------------------------------------------------ train

    def train(self, input_fn: Callable, hooks: Optional[Iterable] = None,
              steps: Optional[int] = None, max_steps: Optional[int] = None,
              saving_listeners: Optional[Iterable] = None) -> "Estimator":
        """Trains: `steps` more steps, or up to global step `max_steps`, or until input ends."""
        if self._config.task_type in (TaskType.EVALUATOR, TaskType.PS):
            raise ValueError(
                "Train has been called wrong configuration. Please use train_and_evaluate, "
                "which calls the proper API for the task. Current configuration: task_type="
                f"{self._config.task_type!r}.")
        if steps is not None and max_steps is not None:
            raise ValueError("Can not provide both steps and max_steps.")
        _check_positive("steps", steps)
        _check_positive("max_steps", max_steps)
        if max_steps is not None and max_steps <= checkpoints.global_step_of(self._model_dir):
            logging.info("Skipping training since max_steps has already saved.")
            return self
        hooks = list(check_hooks(hooks, "hooks"))
        if steps is not None or max_steps is not None:
            hooks.append(tf.compat.v1.train.StopAtStepHook(steps, max_steps))
        saving_listeners = list(saving_listeners or [])
        loss = self._train_model(input_fn, hooks, saving_listeners)
        logging.info("Loss for final step: %s.", loss)
        return self

    def _train_model(self, input_fn, hooks, saving_listeners):
        """Builds the TRAIN graph (per replica under `train_distribute`) and runs it."""
        steps_per_run = self._config.steps_per_run
        if steps_per_run > 1:
            steps_loop.check_supported(self._config)
        strategy = self._config.train_distribute
        session_config = self._session_config_for(strategy)
        with tf.Graph().as_default() as graph, self._train_scope(graph, strategy):
            self._start_graph(graph)
            build_step, input_hooks = self._train_step(input_fn, strategy, steps_per_run)
            loop = None
            if steps_per_run == 1:
                spec = build_step()
            else:
                loop = steps_loop.make_train_loop(build_step, steps_per_run=steps_per_run)
                spec = loop.spec
            restore_from = checkpoints.newest_readable(self._model_dir)
            self._prepare_restore_or_warm_start(spec, restore_from, verified=True)
            return training_run.run(
                spec, config=self._config, worker_hooks=input_hooks + hooks,
                saving_listeners=saving_listeners, restore_from=restore_from,
                session_config=session_config, loop=loop)

    @contextlib.contextmanager
    def _train_scope(self, graph, strategy):
        if strategy is None:
            with graph.device(self._config.device_fn):
                yield
        else:
            scale_loss = strategy._scale_loss_for_estimator_enabled  # pylint: disable=protected-access
            with strategy.scope(), scale_loss():
                yield

    def _train_step(self, input_fn, strategy, steps_per_run):
        """(build_step, input hooks): build_step calls model_fn on the next batch.

        With `train_distribute`, model_fn runs once per replica, as the original.
        """
        def call_model_fn(features, labels):
            return self._call_model_fn(features, labels, ModeKeys.TRAIN, self._config)

        if strategy is not None:
            get_next, input_hooks = self._replicated_input(strategy, input_fn, ModeKeys.TRAIN)
            return (lambda: replica_specs.train_spec(strategy, call_model_fn, *get_next()),
                    input_hooks)
        if steps_per_run == 1:
            features, labels, input_hooks = self._input(input_fn, ModeKeys.TRAIN)
            return (lambda: call_model_fn(features, labels)), input_hooks
        with inputs.feeding_large_arrays() as feeds:
            result = self._call_input_fn(input_fn, ModeKeys.TRAIN)
        get_next, input_hooks = steps_loop.dataset_input(
            result, feeds, steps_per_run=steps_per_run)
        return (lambda: call_model_fn(*get_next())), input_hooks

    # --------------------------------------------------------------- evaluate

    def evaluate(self, input_fn: Callable, steps: Optional[int] = None,
                 hooks: Optional[Iterable] = None, checkpoint_path: Optional[str] = None,
                 name: Optional[str] = None) -> dict:
        """Evaluates a checkpoint (the newest by default); returns the metrics dict."""
        _check_positive("steps", steps)
        hooks = list(check_hooks(hooks, "hooks"))
        checkpoint_path = checkpoint_path or self.latest_checkpoint()
        if not checkpoint_path and not self._warm_start_settings:
            logging.info("Could not find trained model in model_dir: %s, running "
                         "initialization to evaluate.", self._model_dir)
        strategy = self._config.eval_distribute
        session_config = self._session_config_for(strategy)
        with tf.Graph().as_default() as graph, _scope(strategy):
            global_step = self._start_graph(graph)
            if strategy is None:
                features, labels, input_hooks = self._input(input_fn, ModeKeys.EVAL)
                spec = self._eval_spec(features, labels)
                update_op = tf.group(*[u for _, u in spec.eval_metric_ops.values()])
            else:
                get_next, input_hooks = self._replicated_input(strategy, input_fn, ModeKeys.EVAL)
                spec, update_op = replica_specs.eval_spec(strategy, self._eval_spec, *get_next())
            self._prepare_restore_or_warm_start(spec, checkpoint_path)
            final_ops = {name_: value for name_, (value, _) in spec.eval_metric_ops.items()}
            final_ops["global_step"] = global_step
            results = evaluation.run_evaluation(
                checkpoint_path=checkpoint_path, scaffold=spec.scaffold, update_op=update_op,
                final_ops=final_ops,
                hooks=input_hooks + [evaluation.StopAfterNEvalsHook(steps)] + hooks
                + list(spec.evaluation_hooks),
                master=self._config.evaluation_master, session_config=session_config)
        step = int(results["global_step"])
        output_dir = self.eval_dir(name)
        evaluation.write_dict_to_summary(output_dir, results, step)
        if checkpoint_path:
            evaluation.write_checkpoint_path_to_summary(output_dir, checkpoint_path, step)
        return results

    def _eval_spec(self, features, labels):
        """Calls model_fn in EVAL mode; its metrics gain `loss` (the mean over batches)."""
        spec = self._call_model_fn(features, labels, ModeKeys.EVAL, self._config)
        metrics = dict(spec.eval_metric_ops)
        for reserved in ("loss", "global_step"):
            if reserved in metrics:
                raise ValueError(
                    f'Metric with name "{reserved}" is not allowed, because Estimator '
                    "already defines a default metric with the same name.")
        metrics["loss"] = tf.compat.v1.metrics.mean(spec.loss)
        return spec._replace(eval_metric_ops=metrics)

    # ---------------------------------------------------------------- predict

    def predict(self, input_fn: Callable, predict_keys=None, hooks: Optional[Iterable] = None,
                checkpoint_path: Optional[str] = None, yield_single_examples: bool = True):
        """Yields predictions for every example (or batch) the input_fn gives."""
        hooks = list(check_hooks(hooks, "hooks"))
        checkpoint_path = checkpoint_path or self.latest_checkpoint()
        if not checkpoint_path and not self._warm_start_settings:
            logging.info("Could not find trained model in model_dir: %s, running "
                         "initialization to predict.", self._model_dir)
        with tf.Graph().as_default() as graph:
            self._start_graph(graph)
            features, _, input_hooks = self._input(input_fn, ModeKeys.PREDICT)
            spec = self._call_model_fn(features, None, ModeKeys.PREDICT, self._config)
            self._prepare_restore_or_warm_start(spec, checkpoint_path)
            predictions = predictions_lib.select(spec.predictions, predict_keys)
            creator = session_lib.ChiefSessionCreator(
                checkpoint_filename_with_path=checkpoint_path, scaffold=spec.scaffold,
                config=self._session_config)
            with tf.compat.v1.train.MonitoredSession(
                    session_creator=creator,
                    hooks=input_hooks + hooks + list(spec.prediction_hooks)) as session:
                while not session.should_stop():
                    values = session.run(predictions)
                    if yield_single_examples:
                        yield from predictions_lib.examples(values)
                    else:
                        yield values

    # ----------------------------------------------------------------- export

    def export_saved_model(self, export_dir_base, serving_input_receiver_fn: Callable,
                           assets_extra: Optional[dict] = None, as_text: bool = False,
                           checkpoint_path: Optional[str] = None,
                           experimental_mode: str = ModeKeys.PREDICT) -> bytes:
        """Exports the model as a SavedModel in `export_dir_base/<timestamp>`; returns it."""
        if not serving_input_receiver_fn:
            raise ValueError("An input_receiver_fn must be defined.")
        return self.experimental_export_all_saved_models(
            export_dir_base, {canonical_mode(experimental_mode): serving_input_receiver_fn},
            assets_extra=assets_extra, as_text=as_text, checkpoint_path=checkpoint_path)

    def experimental_export_all_saved_models(self, export_dir_base, input_receiver_fn_map,
                                             assets_extra=None, as_text=False,
                                             checkpoint_path=None) -> bytes:
        """Exports one SavedModel holding a MetaGraph per mode of `input_receiver_fn_map`."""
        checkpoint_path = checkpoint_path or self.latest_checkpoint()
        if not checkpoint_path:
            if self._warm_start_settings:
                checkpoint_path = self._warm_start_settings.ckpt_to_initialize_from
                if tf.io.gfile.isdir(checkpoint_path):
                    checkpoint_path = tf.train.latest_checkpoint(checkpoint_path)
            else:
                raise ValueError(f"Couldn't find trained model at {self._model_dir}.")

        def add_meta_graph(builder, mode, receiver_fn, save_variables):
            self._add_meta_graph_for_mode(builder, mode, receiver_fn, checkpoint_path,
                                          save_variables)

        return exporting.export_all(
            export_dir_base, {canonical_mode(m): fn for m, fn in input_receiver_fn_map.items()},
            add_meta_graph=add_meta_graph, assets_extra=assets_extra, as_text=as_text)

    def _add_meta_graph_for_mode(self, builder, mode, receiver_fn, checkpoint_path,
                                 save_variables):
        with tf.Graph().as_default() as graph:
            self._start_graph(graph)
            receiver = receiver_fn()
            spec = self._call_model_fn(receiver.features, getattr(receiver, "labels", None),
                                       mode, self._config)
            signatures = exporting.signature_defs(mode, spec, receiver)
            saver = spec.scaffold.saver or tf.compat.v1.train.Saver(sharded=True)
            checkpoints.require_readable(checkpoint_path)
            if spec.scaffold.saver is None:
                checkpoints.check_compatible(checkpoint_path)
            local_init_op = (spec.scaffold.local_init_op
                             or tf.compat.v1.train.Scaffold.default_local_init_op())
            with tf.compat.v1.Session(config=self._session_config) as session:
                saver.restore(session, checkpoint_path)
                kwargs = dict(
                    tags=exporting.tags_for(mode), signature_def_map=signatures,
                    assets_collection=tf.compat.v1.get_collection(
                        tf.compat.v1.GraphKeys.ASSET_FILEPATHS),
                    main_op=local_init_op, saver=saver, strip_default_attrs=True)
                if save_variables:
                    builder.add_meta_graph_and_variables(session, **kwargs)
                else:
                    builder.add_meta_graph(**kwargs)

    # ---------------------------------------------------------------- helpers

    def _start_graph(self, graph):
        """Seeds the new graph and creates its global step."""
        if self._config.tf_random_seed is not None:
            tf.compat.v1.set_random_seed(self._config.tf_random_seed)
        global_step = tf.compat.v1.train.create_global_step(graph)
        # The hooks read the step through this tensor; model_fn's ops depend on it
        # (see _call_model_fn), so a run reads the step before incrementing it.
        # TensorFlow's own version reads `initialized_value()`, which also evaluates
        # the initial value: under MultiWorkerMirroredStrategy that is a collective
        # broadcast, and a read by one worker alone (a chief-only hook) would leave
        # the workers' collectives out of step, hanging the next training step.
        # Like TensorFlow's, it reads 0 before initialisation (a Saver built in model_fn
        # restores under this dependency, before the step exists).
        with graph.name_scope(None), graph.name_scope(global_step.op.name + "/"):
            read = tf.compat.v1.cond(
                tf.compat.v1.is_variable_initialized(global_step),
                global_step.read_value, lambda: tf.zeros([], global_step.dtype),
                name="read_for_hooks")
        graph.add_to_collection(training_util.GLOBAL_STEP_READ_KEY, read)
        return global_step

    def _input(self, input_fn, mode):
        """Calls input_fn in the current graph; returns (features, labels, input hooks)."""
        with inputs.feeding_large_arrays() as feeds:
            result = self._call_input_fn(input_fn, mode)
        if mode == ModeKeys.PREDICT and not inputs.is_dataset(result):
            logging.warning("Input graph does not use tf.data.Dataset or contain a "
                            "QueueRunner. That means predict yields forever. This is "
                            "probably a mistake.")
        return inputs.parse_input_fn_result(result, feeds)

    def _call_input_fn(self, input_fn, mode, input_context=None):
        return inputs.call_input_fn(input_fn, mode, params=self.params, config=self._config,
                                    input_context=input_context)

    def _replicated_input(self, strategy, input_fn, mode):
        """(get_next, input hooks) over the strategy's iterator: per-replica batches.

        As the original: the input_fn batches per replica and is not split.
        """
        with inputs.feeding_large_arrays() as feeds:
            iterator = strategy.make_input_fn_iterator(
                lambda input_context: self._call_input_fn(input_fn, mode,
                                                          input_context=input_context))
        return (lambda: inputs.split_features_and_labels(iterator.get_next()),
                [inputs.InputInitializerHook(iterator.initialize, feeds)])

    def _session_config_for(self, strategy):
        if strategy is None:
            return self._session_config
        return distribute.session_config_for(strategy, self._session_config)

    def _prepare_restore_or_warm_start(self, spec, checkpoint_path, *, verified=False):
        """Checks the checkpoint to restore is readable and fits the graph, or warm-starts."""
        if checkpoint_path:
            if not verified:
                checkpoints.require_readable(checkpoint_path)
            if spec.scaffold.saver is None and len(tf.compat.v1.get_collection(
                    tf.compat.v1.GraphKeys.SAVERS)) == 0:
                checkpoints.check_compatible(checkpoint_path)
        elif self._warm_start_settings:
            warm_starting.apply(self._warm_start_settings)

    def _call_model_fn(self, features, labels, mode, config):
        args = model_fn_args(self._model_fn)
        kwargs = {}
        if "labels" in args:
            kwargs["labels"] = labels
        elif labels is not None:
            raise ValueError("model_fn does not take labels, but input_fn returns labels.")
        if "mode" in args:
            kwargs["mode"] = canonical_mode(mode)
        if "params" in args:
            kwargs["params"] = self.params
        if "config" in args:
            kwargs["config"] = config
        logging.info("Calling model_fn.")
        step_read = training_util._get_or_create_global_step_read()  # pylint: disable=protected-access
        try:
            with tf.control_dependencies([step_read] if step_read is not None else []), \
                    _keras_switch.keras_seed(config.tf_random_seed):
                spec = self._model_fn(features=features, **kwargs)
        except Exception as e:
            if _keras_switch.keras3_in_use():
                raise RuntimeError(_keras_switch.keras3_message(
                    f"model_fn ({type(e).__name__}: {e})")) from e
            raise
        logging.info("Done calling model_fn.")
        if not isinstance(spec, EstimatorSpec):
            raise ValueError(
                f"model_fn should return an EstimatorSpec. Received: {type(spec).__name__} "
                f"({spec!r:.200}).")
        return spec


def _scope(strategy):
    return strategy.scope() if strategy is not None else contextlib.nullcontext()


def resolve_config(config, model_dir):
    """RunConfig with model_dir settled (argument, config, or a new temporary folder)."""
    if config is None:
        logging.info("Using default config.")
        config = RunConfig()
    elif not isinstance(config, RunConfig):
        raise ValueError(
            "config must be an instance of `RunConfig`, but provided "
            f"{type(config).__name__}.")
    if model_dir is not None:
        model_dir = os.fspath(model_dir)
        if config.model_dir is not None and config.model_dir != model_dir:
            raise ValueError(
                "`model_dir` are set both in constructor and `RunConfig`, but with different "
                f"values. In constructor: '{model_dir}', in `RunConfig`: "
                f"'{config.model_dir}'.")
        config = config.replace(model_dir=model_dir)
    elif config.model_dir is None:
        model_dir = tempfile.mkdtemp()
        logging.warning("Using temporary folder as model directory: %s", model_dir)
        config = config.replace(model_dir=model_dir)
    return config


def _assert_members_are_not_overridden(cls):
    if cls is Estimator:
        return
    for name, member in vars(Estimator).items():
        if name.startswith("_") or name in _OVERRIDABLE:
            continue
        for klass in cls.__mro__:
            if klass is Estimator:
                break
            if name in vars(klass) and vars(klass)[name] is not member:
                raise ValueError(
                    f"Subclasses of Estimator cannot override members of Estimator. {cls} "
                    f"does override {name}.")
