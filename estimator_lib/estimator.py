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
from estimator_lib import locking
from estimator_lib import session as session_lib
from estimator_lib import steps_loop
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


def _has_loss_summary(loss):
    for summary in tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.SUMMARIES):
        if summary.op.type == "ScalarSummary" and summary.op.inputs[0].op.name.endswith("loss"):
            return True
    del loss
    return False


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
        steps_per_run = self._config.steps_per_run
        if steps_per_run > 1:
            steps_loop.check_supported(self._config)
        if self._config.train_distribute is not None:
            return self._train_model_distributed(input_fn, hooks, saving_listeners)
        with tf.Graph().as_default() as graph, graph.device(self._config.device_fn):
            global_step = self._start_graph(graph)
            loop = None
            if steps_per_run == 1:
                features, labels, input_hooks = self._input(input_fn, ModeKeys.TRAIN)
                spec = self._call_model_fn(features, labels, ModeKeys.TRAIN, self._config)
            else:
                with inputs.feeding_large_arrays() as feeds:
                    result = self._call_input_fn(input_fn, ModeKeys.TRAIN)
                get_next, input_hooks = steps_loop.dataset_input(
                    result, feeds, steps_per_run=steps_per_run)
                loop = steps_loop.make_train_loop(
                    lambda: self._call_model_fn(*get_next(), ModeKeys.TRAIN, self._config),
                    steps_per_run=steps_per_run)
                spec = loop.spec
            restore_from = checkpoints.newest_readable(self._model_dir)
            self._prepare_restore_or_warm_start(spec, restore_from, verified=True)
            return self._train_with_spec(spec, input_hooks + hooks, saving_listeners,
                                         global_step, restore_from=restore_from, loop=loop)

    def _train_model_distributed(self, input_fn, hooks, saving_listeners):
        """Training with `train_distribute`: model_fn once per replica, one session."""
        strategy = self._config.train_distribute
        session_config = distribute.session_config_for(strategy, self._session_config)
        with tf.Graph().as_default() as graph, strategy.scope(), \
                strategy._scale_loss_for_estimator_enabled():  # pylint: disable=protected-access
            global_step = self._start_graph(graph)
            # As the original: the input_fn batches per replica and is not split.
            with inputs.feeding_large_arrays() as feeds:
                iterator = strategy.make_input_fn_iterator(
                    lambda input_context: self._call_input_fn(input_fn, ModeKeys.TRAIN,
                                                              input_context=input_context))

            def build_step():
                features, labels = inputs.split_features_and_labels(iterator.get_next())
                specs, (per_replica_loss, per_replica_train_op) = \
                    distribute.call_for_each_replica(
                        strategy,
                        lambda f, l: self._call_model_fn(f, l, ModeKeys.TRAIN, self._config),
                        features, labels, outputs=lambda spec: (spec.loss, spec.train_op))
                first = specs[0]
                # Hooks and the scaffold come from replica 0, as in the original.
                return EstimatorSpec(
                    ModeKeys.TRAIN, loss=distribute.reduce_loss(strategy, per_replica_loss),
                    train_op=strategy.group(per_replica_train_op),
                    training_hooks=first.training_hooks,
                    training_chief_hooks=first.training_chief_hooks, scaffold=first.scaffold)

            loop = None
            if self._config.steps_per_run == 1:
                spec = build_step()
            else:
                loop = steps_loop.make_train_loop(
                    build_step, steps_per_run=self._config.steps_per_run)
                spec = loop.spec
            restore_from = checkpoints.newest_readable(self._model_dir)
            self._prepare_restore_or_warm_start(spec, restore_from, verified=True)
            return self._train_with_spec(
                spec, [inputs.InputInitializerHook(iterator.initialize, feeds)] + hooks,
                saving_listeners, global_step, restore_from=restore_from,
                session_config=session_config, loop=loop)

    def _train_with_spec(self, spec, worker_hooks, saving_listeners, global_step, *,
                         restore_from, session_config=None, loop=None):
        """Runs the training session; `loop` (a steps_loop.TrainLoop) when steps_per_run > 1."""
        config = self._config
        if not _has_loss_summary(spec.loss):
            tf.compat.v1.summary.scalar("loss", spec.loss)
        scaffold = spec.scaffold
        if scaffold.saver is not None and not tf.compat.v1.get_collection(
                tf.compat.v1.GraphKeys.SAVERS):
            # Hooks that save the variables (InMemoryEvaluatorHook) find it there.
            tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.SAVERS, scaffold.saver)
        if scaffold.saver is None and not tf.compat.v1.get_collection(
                tf.compat.v1.GraphKeys.SAVERS):
            tf.compat.v1.add_to_collection(
                tf.compat.v1.GraphKeys.SAVERS,
                tf.compat.v1.train.Saver(
                    sharded=True, max_to_keep=config.keep_checkpoint_max,
                    keep_checkpoint_every_n_hours=config.keep_checkpoint_every_n_hours,
                    defer_build=True, save_relative_paths=True))
        worker_hooks = list(worker_hooks)
        worker_hooks.append(tf.compat.v1.train.NanTensorHook(spec.loss))
        if config.log_step_count_steps is not None and loop is not None:
            worker_hooks.append(loop.logging_hook(config.log_step_count_steps))
        elif config.log_step_count_steps is not None:
            worker_hooks.append(tf.compat.v1.train.LoggingTensorHook(
                {"loss": spec.loss,
                 "step": training_util._get_or_create_global_step_read()},  # pylint: disable=protected-access
                every_n_iter=config.log_step_count_steps))
        worker_hooks.extend(spec.training_hooks)
        if loop is not None:
            worker_hooks.append(loop.stop_hook(worker_hooks + list(spec.training_chief_hooks)))

        chief_hooks = []
        saver_types = (tf.compat.v1.train.CheckpointSaverHook, checkpoints.CheckpointSaverHook)
        saver_hooks = [h for h in worker_hooks + list(spec.training_chief_hooks)
                       if isinstance(h, saver_types)]
        if (config.save_checkpoints_secs or config.save_checkpoints_steps) and not saver_hooks:
            saver_hook = loop.checkpoint_saver_hook if loop else checkpoints.CheckpointSaverHook
            chief_hooks.append(saver_hook(
                self._model_dir, save_secs=config.save_checkpoints_secs,
                save_steps=config.save_checkpoints_steps, scaffold=scaffold,
                save_graph_def=config.checkpoint_save_graph_def,
                save_on_create=not distribute.is_multi_worker(config)))
            saver_hooks = chief_hooks[:1]
        if saving_listeners and distribute.roles(config)[1]:
            if not saver_hooks:
                raise ValueError(
                    "There should be a CheckpointSaverHook to use saving_listeners. Please set "
                    "one of the RunConfig.save_checkpoints_steps or "
                    "RunConfig.save_checkpoints_secs.")
            # Both our hook and TensorFlow's keep their listeners in `_listeners`.
            saver_hooks[0]._listeners.extend(saving_listeners)  # pylint: disable=protected-access

        # A loop's runs make several steps: its own step counter and summary saver
        # count them, in place of the session's.
        save_summary_steps, log_step_count_steps = (
            config.save_summary_steps, config.log_step_count_steps)
        counting_hooks = []
        if loop is not None:
            counting_hooks = loop.counting_hooks(
                output_dir=self._model_dir, scaffold=scaffold,
                save_summary_steps=save_summary_steps, log_step_count_steps=log_step_count_steps)
            save_summary_steps = log_step_count_steps = None
        initializes, writes = distribute.roles(config)
        loss = None
        any_step_done = False
        with contextlib.ExitStack() as stack:
            if writes:
                stack.enter_context(locking.model_dir_lock(self._model_dir))
                _open_summary_writer_without_graph(self._model_dir)
            session = stack.enter_context(session_lib.training_session(
                model_dir=self._model_dir, restore_from=restore_from,
                initializes=initializes, writes=writes, scaffold=scaffold,
                master=config.master, config=session_config or self._session_config,
                worker_hooks=worker_hooks,
                chief_hooks=chief_hooks + list(spec.training_chief_hooks) + counting_hooks,
                save_summary_steps=save_summary_steps,
                log_step_count_steps=log_step_count_steps,
                max_wait_secs=config.session_creation_timeout_secs,
                cluster=(config.cluster_spec.as_dict()
                         if distribute.is_multi_worker(config) else None)))
            while not session.should_stop():
                _, loss = session.run([spec.train_op, spec.loss])
                any_step_done = True
        if not any_step_done:
            logging.warning("Training with estimator made no steps. Perhaps input is empty or "
                            "misspecified.")
        return loss

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
        session_config = (distribute.session_config_for(strategy, self._session_config)
                          if strategy is not None else self._session_config)
        with tf.Graph().as_default() as graph, _scope(strategy):
            global_step = self._start_graph(graph)
            if strategy is None:
                features, labels, input_hooks = self._input(input_fn, ModeKeys.EVAL)
                spec = self._eval_spec(features, labels)
                update_op = tf.group(*[u for _, u in spec.eval_metric_ops.values()])
            else:
                spec, update_op, input_hooks = self._eval_spec_distributed(strategy, input_fn)
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

    def _eval_spec_distributed(self, strategy, input_fn):
        """EVAL graph with `eval_distribute`: model_fn per replica, metrics summed across.

        tf.compat.v1 and Keras metrics keep their state in sync-on-read variables
        and compute their value across replicas, so replica 0's value ops read the
        aggregate; every replica's update ops run each step.
        """
        with inputs.feeding_large_arrays() as feeds:
            iterator = strategy.make_input_fn_iterator(
                lambda input_context: self._call_input_fn(input_fn, ModeKeys.EVAL,
                                                          input_context=input_context))
        features, labels = inputs.split_features_and_labels(iterator.get_next())
        specs, updates = distribute.call_for_each_replica(
            strategy, self._eval_spec, features, labels,
            outputs=lambda spec: [update for _, update in spec.eval_metric_ops.values()])
        first = specs[0]
        metrics = {name: (distribute.first_replica_value(strategy, value), update)
                   for name, (value, update) in first.eval_metric_ops.items()}
        return (first._replace(eval_metric_ops=metrics), strategy.group(updates),
                [inputs.InputInitializerHook(iterator.initialize, feeds)])

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
            predictions = _extract_keys(spec.predictions, predict_keys)
            creator = session_lib.ChiefSessionCreator(
                checkpoint_filename_with_path=checkpoint_path, scaffold=spec.scaffold,
                config=self._session_config)
            with tf.compat.v1.train.MonitoredSession(
                    session_creator=creator,
                    hooks=input_hooks + hooks + list(spec.prediction_hooks)) as session:
                while not session.should_stop():
                    values = session.run(predictions)
                    if not yield_single_examples:
                        yield values
                    elif not isinstance(values, dict):
                        yield from values
                    else:
                        for i in range(_batch_length(values)):
                            yield {key: value[i] for key, value in values.items()}

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


def _open_summary_writer_without_graph(logdir):
    """Opens the cached summary writer of `logdir` outside the training graph.

    FileWriterCache writes the current default graph, constants and all, when it
    first opens a directory's writer; the checkpoint hook writes a lean copy instead.
    """
    with tf.Graph().as_default():
        tf.compat.v1.summary.FileWriterCache.get(logdir)


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


def _extract_keys(predictions, predict_keys):
    if predict_keys is None:
        return predictions
    if isinstance(predict_keys, str):
        predict_keys = [predict_keys]
    if not isinstance(predictions, dict):
        raise ValueError("predict_keys argument is not valid in case of non-dict predictions.")
    existing = {key: value for key, value in predictions.items() if key in predict_keys}
    if not existing:
        raise ValueError(
            f"Expected to run at least one output from {sorted(predictions)}, provided "
            f"{predict_keys}.")
    return existing


def _batch_length(values: dict) -> int:
    length = None
    for key, value in values.items():
        if length is None:
            length = value.shape[0]
        elif value.shape[0] != length:
            raise ValueError(
                f"Batch length of predictions should be same. {key} has different batch "
                "length than others.")
    return length or 0


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
