"""Building one call's graph: the global step, the input_fn's batch, the model_fn's spec.

Every entry point of the Estimator (train, evaluate, predict, export) builds a fresh
`tf.Graph` with these pieces; `ModelGraph` holds what they need (the model_fn, its
params, the RunConfig, the warm-start settings) so the paths can live in their own
modules.
"""

import copy
from typing import Callable, Optional

import tensorflow as tf
from tensorflow.python.training import training_util
from tensorflow.python.util import deprecation

from estimator_lib.core import keras_switch as _keras_switch
from estimator_lib.graph import inputs
from estimator_lib.tf_internals import patches as tf_patches
from estimator_lib.tf_internals import process_swaps
from estimator_lib.graph import warm_starting
from estimator_lib.distribute import strategies
from estimator_lib.core.model_fn import EstimatorSpec
from estimator_lib.core.model_fn import ModeKeys
from estimator_lib.core.model_fn import canonical_mode
from estimator_lib.core.model_fn import model_fn_args
from estimator_lib.core.run_config import RunConfig
from estimator_lib.graph import restore

logging = tf.compat.v1.logging


class ModelGraph:
    """The model_fn with its params and config, and the graph-building steps around it."""

    def __init__(self, model_fn: Callable, *, params: dict, config: RunConfig,
                 session_config: tf.compat.v1.ConfigProto, warm_start_settings=None,
                 input_fn_caller: Optional[Callable] = None,
                 model_fn_caller: Optional[Callable] = None,
                 input_reader: Optional[Callable] = None,
                 global_step_creator: Optional[Callable] = None):
        """The callers replace the default steps, so that an Estimator subclass
        overriding the original's private method sees it called where the original
        called it: `input_fn_caller(input_fn, mode, input_context)`
        (`Estimator._call_input_fn`, which TPUEstimator overrides as in the original),
        `model_fn_caller(features, labels, mode, config)` (`_call_model_fn`),
        `input_reader(input_fn, mode)` -> (features, labels, hooks)
        (`_get_features_and_labels_from_input_fn`), `global_step_creator(graph)`
        (`_create_and_assert_global_step`).

        Args:
            model_fn: The model_fn.
            params: The Estimator's params dict.
            config: The `RunConfig`.
            session_config: The sessions' `ConfigProto`.
            warm_start_settings: The `WarmStartSettings`, or None.
            input_fn_caller: Replaces the input_fn call (see above), or None.
            model_fn_caller: Replaces the model_fn call, or None.
            input_reader: Replaces the reading of the input_fn's result, or None.
            global_step_creator: Replaces the global step's creation, or None.
        """
        self.model_fn = model_fn
        self._input_fn_caller = input_fn_caller
        self._model_fn_caller = model_fn_caller
        self._input_reader = input_reader
        self._global_step_creator = global_step_creator
        self._params = params
        self.config = config
        self.session_config = session_config
        self.warm_start_settings = warm_start_settings

    @property
    def params(self) -> dict:
        """A copy of the params, as each model_fn and input_fn call receives."""
        return copy.deepcopy(self._params)

    def start_graph(self, graph: tf.Graph) -> tf.Variable:
        """Seeds the new graph and creates its global step."""
        # A distributed job's session may still be closing on a thread (tf_patches,
        # patch 2): building a graph while a session closes can abort the process.
        tf_patches.wait_for_closing_sessions()
        if self.config.tf_random_seed is not None:
            tf.compat.v1.set_random_seed(self.config.tf_random_seed)
        global_step = (self._global_step_creator or self.default_create_global_step)(graph)
        if global_step is None:
            return None
        # The hooks read the step through this tensor; model_fn's ops depend on it
        # (see call_model_fn), so a run reads the step before incrementing it.
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

    @staticmethod
    def default_create_global_step(graph: tf.Graph) -> tf.Variable:
        """Creates the global step in `graph`, as the original Estimator's `_create_global_step`.

        Args:
            graph: The graph being built.

        Returns:
            The int64 global-step variable (`tf.compat.v1.train.create_global_step`).

        Raises:
            ValueError: If `graph` has a global step already.
        """
        return tf.compat.v1.train.create_global_step(graph)

    def session_config_for(self, strategy) -> tf.compat.v1.ConfigProto:
        """The session's ConfigProto: the strategy's devices added."""
        if strategy is None:
            return self.session_config
        return strategies.session_config_for(strategy, self.session_config)

    # ------------------------------------------------------------------ input

    def call_input_fn(self, input_fn: Callable, mode: str, input_context=None):
        """Calls `input_fn` with the optional arguments it names.

        Args:
            input_fn: The input_fn.
            mode: The `ModeKeys` mode.
            input_context: The `tf.distribute.InputContext`, or None.

        Returns:
            What `input_fn` returned.
        """
        if self._input_fn_caller is not None:
            return self._input_fn_caller(input_fn, mode, input_context)
        return self.default_input_fn_call(input_fn, mode, input_context)

    def default_input_fn_call(self, input_fn: Callable, mode: str, input_context=None):
        """The default input_fn call: the optional arguments it names are passed.

        Args:
            input_fn: The input_fn.
            mode: The `ModeKeys` mode.
            input_context: The `tf.distribute.InputContext`, or None.

        Returns:
            What `input_fn` returned.
        """
        return inputs.call_input_fn(input_fn, mode, params=self.params, config=self.config,
                                    input_context=input_context)

    def input(self, input_fn: Callable, mode: str):
        """Calls input_fn in the current graph; returns (features, labels, input hooks)."""
        if self._input_reader is not None:
            return self._input_reader(input_fn, mode)
        return self.default_input(input_fn, mode)

    def default_input(self, input_fn: Callable, mode: str,
                      validate_predict_input: Optional[Callable] = None):
        """`validate_predict_input(result)` replaces the PREDICT check of the input_fn's
        result (`Estimator._validate_features_in_predict_input`).

        Args:
            input_fn: The input_fn.
            mode: The `ModeKeys` mode.
            validate_predict_input: Replaces the PREDICT check of the result, or None.

        Returns:
            The triple `(features, labels, input hooks)`.
        """
        with tf_patches.large_arrays_fed() as feeds:
            result = self.call_input_fn(input_fn, mode)
        if mode == ModeKeys.PREDICT:
            (validate_predict_input or self.warn_without_dataset)(result)
        return inputs.parse_input_fn_result(result, feeds)

    @staticmethod
    def warn_without_dataset(result) -> None:
        """The original's warning for a PREDICT input that would yield forever."""
        if not inputs.reads_a_dataset_or_queue(result):
            logging.warning("Input graph does not use tf.data.Dataset or contain a "
                            "QueueRunner. That means predict yields forever. This is "
                            "probably a mistake.")

    def replicated_input(self, strategy, input_fn: Callable, mode: str):
        """(get_next, input hooks) over the strategy's iterator: per-replica batches.

        As the original: the input_fn batches per replica and is not split.

        Args:
            strategy: The `tf.distribute` strategy.
            input_fn: The input_fn.
            mode: The `ModeKeys` mode.

        Returns:
            The pair `(get_next, input hooks)`.
        """
        with tf_patches.large_arrays_fed() as feeds, \
                tf_patches.per_device_autotune_off(), process_swaps.ignoring_warnings(
                    tf_patches.DATA_OPTIONS_WARNING, UserWarning):
            # TensorFlow's MultiDeviceIterator reads dataset.options() in graph mode, which
            # warns (a UserWarning) on every replicated input; the user did nothing to see.
            iterator = strategy.make_input_fn_iterator(
                # The per-device datasets' own prefetch runs the input beside the step.
                lambda input_context: tf_patches.autotune_thread_off(self.call_input_fn(
                    inputs.dataset_form(input_fn), mode, input_context=input_context),
                    keep_injected_prefetch=False))
        return (lambda: inputs.split_features_and_labels(iterator.get_next()),
                [inputs.InputInitializerHook(lambda: _initializer(iterator), feeds)])

    # --------------------------------------------------------------- model_fn

    def call_model_fn(self, features, labels, mode: str,
                      config: Optional[RunConfig] = None, *, autograph=None) -> EstimatorSpec:
        """Calls the model_fn (through `model_fn_caller`, a subclass's `_call_model_fn`,
        where one is set; that one is called as written, without `autograph`).

        Args:
            features: The features.
            labels: The labels, or None.
            mode: The `ModeKeys` mode.
            config: The `RunConfig`.
            autograph: Under a strategy, its AutoGraph status (see below); None otherwise.

        Returns:
            The `EstimatorSpec`.
        """
        if self._model_fn_caller is not None:
            return self._model_fn_caller(features, labels, mode, config or self.config)
        return self.default_model_fn_call(features, labels, mode, config, autograph=autograph)

    def default_model_fn_call(self, features, labels, mode: str,
                              config: Optional[RunConfig] = None, *,
                              autograph=None) -> EstimatorSpec:
        """Calls the model_fn with the arguments it names; checks it returned a spec.

        `autograph`: under a strategy, the AutoGraph status the strategy passed to the
        replica's call (`strategies.call_for_each_replica`): the model_fn is converted
        as the strategy would have converted it. None: called as written.

        Args:
            features: The features.
            labels: The labels, or None.
            mode: The `ModeKeys` mode.
            config: The `RunConfig`.
            autograph: Under a strategy, its AutoGraph status (see below); None otherwise.

        Returns:
            The `EstimatorSpec`.

        Raises:
            ValueError: If the model_fn did not return an `EstimatorSpec`.
        """
        config = config or self.config
        args = model_fn_args(self.model_fn)
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
        # Called directly in eager mode (`est.model_fn(...)`), there is no graph to order.
        step_read = (None if tf.executing_eagerly()
                     else training_util._get_or_create_global_step_read())  # pylint: disable=protected-access
        try:
            with tf.control_dependencies([step_read] if step_read is not None else []), \
                    tf_patches.keras_initializers_seeded(config.tf_random_seed):
                model_fn = strategies.model_fn_as_the_strategy_calls_it(self.model_fn,
                                                                        autograph)
                spec = model_fn(features=features, **kwargs)
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

    # ---------------------------------------------------------------- restore

    def prepare_restore_or_warm_start(self, spec: EstimatorSpec,
                                      checkpoint_path: Optional[str], *,
                                      verified: bool = False,
                                      warm_start: Optional[Callable] = None) -> None:
        """Checks the checkpoint to restore is readable and fits the graph, or warm-starts
        (`warm_start(checkpoint_path)`: `Estimator._maybe_warm_start` in evaluate and
        predict, as the original).

        Args:
            spec: The `EstimatorSpec` whose scaffold restores.
            checkpoint_path: The checkpoint to restore, or None.
            verified: Whether the checkpoint was already checked.
            warm_start: Called with the checkpoint path to warm-start, or None.

        Raises:
            ValueError: If the checkpoint cannot be read or does not fit the graph.
        """
        if checkpoint_path:
            if not verified:
                restore.require_readable(checkpoint_path)
            if spec.scaffold.saver is None and len(tf.compat.v1.get_collection(
                    tf.compat.v1.GraphKeys.SAVERS)) == 0:
                restore.check_compatible(checkpoint_path)
        if warm_start is not None:
            warm_start(checkpoint_path)  # Warm-starts only without a checkpoint.
        elif not checkpoint_path and self.warm_start_settings:
            warm_starting.apply(self.warm_start_settings)


def _initializer(iterator):
    """The distributed iterator's initializer ops, without TensorFlow's own deprecation
    warning: its `initializer` property calls the deprecated `initialize()`."""
    with deprecation.silence():
        return iterator.initializer
