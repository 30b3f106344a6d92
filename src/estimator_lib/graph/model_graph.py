"""Building one call's graph for an owner: the global step, the input, the model_fn's spec.

Every entry point of the Estimator (train, evaluate, predict, export) builds a fresh
`tf.Graph` with these pieces. `ModelGraph` holds one thing, its owner (the
Estimator, a `GraphOwner`), and at each step calls the owner's hook point or reads
the owner's attribute as the original Estimator read `self` at that point: a
subclass's override, or an attribute replaced on an instance after construction
(`est._model_fn = wrapped`), is seen at the next call. The owner's defaults call the
module functions here and in `graph/inputs.py` directly.
"""

from typing import Callable, Optional, Protocol

import tensorflow as tf
from tensorflow.python.training import training_util

from estimator_lib.core import keras_switch as _keras_switch
from estimator_lib.core.model_fn import EstimatorSpec
from estimator_lib.core.model_fn import canonical_mode
from estimator_lib.core.model_fn import model_fn_args
from estimator_lib.core.run_config import RunConfig
from estimator_lib.distribute import strategies
from estimator_lib.graph import inputs
from estimator_lib.graph import restore
from estimator_lib.graph import warm_starting
from estimator_lib.tf_internals import patches as tf_patches

logging = tf.compat.v1.logging


class GraphOwner(Protocol):
    """What ModelGraph reads of its owner (the Estimator), at every call.

    The attributes and methods are the original Estimator's private names; each is
    read when the graph needs it, never copied at construction.
    """

    _model_fn: Callable
    _config: RunConfig
    _warm_start_settings: Optional[warm_starting.WarmStartSettings]

    @property
    def config(self) -> RunConfig:
        """The RunConfig the model_fn receives."""

    def _call_input_fn(self, input_fn: Callable, mode: str, input_context=None):
        """Calls `input_fn`; returns what it returned."""

    def _get_features_and_labels_from_input_fn(self, input_fn: Callable, mode: str):
        """Returns `(features, labels, input hooks)` of `input_fn` (train, evaluate)."""

    def _get_features_from_input_fn(self, input_fn: Callable, mode: str):
        """Returns `(features, input hooks)` of `input_fn` (predict)."""

    def _get_iterator_from_input_fn(self, input_fn: Callable, mode: str, distribution=None):
        """Returns `(iterator, input hooks)` of `input_fn` (a strategy's replicas)."""

    def _call_model_fn(self, features, labels, mode: str, config: RunConfig) -> EstimatorSpec:
        """Calls the model_fn; returns its EstimatorSpec."""

    def _create_and_assert_global_step(self, graph: tf.Graph) -> Optional[tf.Variable]:
        """Creates the graph's global step (or None, where the model brings its own)."""

    def _maybe_warm_start(self, checkpoint_path: Optional[str]) -> None:
        """Warm-starts the variables when no checkpoint is restored."""


class ModelGraph:
    """The graph-building steps of one Estimator call, reading the owner at each step.

    Args:
        owner: The Estimator (a `GraphOwner`).
    """

    def __init__(self, owner: GraphOwner):
        self.owner = owner

    @property
    def config(self) -> RunConfig:
        """The owner's RunConfig, as read now (`owner._config`)."""
        return self.owner._config  # pylint: disable=protected-access

    def start_graph(self, graph: tf.Graph) -> Optional[tf.Variable]:
        """Seeds the new graph and creates its global step (the owner's hook point).

        Args:
            graph: The new graph, the default one.

        Returns:
            The global step, or None where the owner creates none.
        """
        # A distributed job's session may still be closing on a thread (tf_patches,
        # patch 2): building a graph while a session closes can abort the process.
        tf_patches.wait_for_closing_sessions()
        if self.config.tf_random_seed is not None:
            tf.compat.v1.set_random_seed(self.config.tf_random_seed)
        global_step = self.owner._create_and_assert_global_step(graph)  # pylint: disable=protected-access
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

    def input(self, input_fn: Callable, mode: str, *, strategy=None,
              steps_per_run: int = 1):
        """Returns `(get_next, input hooks)` of `input_fn` in the current graph.

        `graph/inputs.py`'s `read` is the one input path of every branch (see there).

        Args:
            input_fn: The input_fn.
            mode: The `ModeKeys` mode.
            strategy: The strategy whose replicas each take a batch, or None.
            steps_per_run: Training steps per session run (above 1: the in-graph loop
                takes a batch per step).
        """
        return inputs.read(self.owner, input_fn, mode, strategy=strategy,
                           steps_per_run=steps_per_run)

    def call_model_fn(self, features, labels, mode: str) -> EstimatorSpec:
        """Calls the owner's `_call_model_fn` with the owner's `config`.

        Under a strategy's replica call, the model_fn is converted by AutoGraph as the
        strategy would have (`strategies.call_for_each_replica` says how, per replica
        thread); an override of `_call_model_fn` that calls the Estimator's keeps that.

        Args:
            features: The features.
            labels: The labels, or None.
            mode: The `ModeKeys` mode.

        Returns:
            The `EstimatorSpec`.
        """
        return self.owner._call_model_fn(features, labels, mode, self.owner.config)  # pylint: disable=protected-access

    def prepare_restore_or_warm_start(self, spec: EstimatorSpec,
                                      checkpoint_path: Optional[str], *,
                                      verified: bool = False,
                                      warm_start: bool = False) -> None:
        """Checks the checkpoint to restore is readable and fits the graph, or warm-starts.

        Args:
            spec: The `EstimatorSpec` whose scaffold restores.
            checkpoint_path: The checkpoint to restore, or None.
            verified: Whether the checkpoint was already checked.
            warm_start: Whether to warm-start through the owner's `_maybe_warm_start`
                (evaluate, predict, as the original); else (train) the owner's
                `_warm_start_settings` apply when no checkpoint is restored.

        Raises:
            ValueError: If the checkpoint cannot be read or does not fit the graph.
        """
        if checkpoint_path:
            if not verified:
                restore.require_readable(checkpoint_path)
            if spec.scaffold.saver is None and len(tf.compat.v1.get_collection(
                    tf.compat.v1.GraphKeys.SAVERS)) == 0:
                restore.check_compatible(checkpoint_path)
        if warm_start:
            self.owner._maybe_warm_start(checkpoint_path)  # pylint: disable=protected-access
            return
        settings = self.owner._warm_start_settings  # pylint: disable=protected-access
        if not checkpoint_path and settings:
            warm_starting.apply(settings)


def call_model_fn(model_fn: Callable, features, labels, mode: str, *, params: dict,
                  config: RunConfig) -> EstimatorSpec:
    """Calls `model_fn` with the arguments it names; checks it returned a spec.

    The Estimator's `_call_model_fn` calls this with its own `_model_fn` and params.
    Under a strategy's replica call the model_fn is converted by AutoGraph as the
    strategy would have converted it (`strategies.model_fn_as_the_strategy_calls_it`).

    Args:
        model_fn: The model_fn.
        features: The features.
        labels: The labels, or None.
        mode: The `ModeKeys` mode.
        params: The params dict passed to model_fn (a copy).
        config: The `RunConfig` passed to model_fn.

    Returns:
        The `EstimatorSpec`.

    Raises:
        ValueError: If the model_fn takes no labels but labels were given, or did not
            return an `EstimatorSpec`.
    """
    args = model_fn_args(model_fn)
    kwargs = {}
    if "labels" in args:
        kwargs["labels"] = labels
    elif labels is not None:
        raise ValueError("model_fn does not take labels, but input_fn returns labels.")
    if "mode" in args:
        kwargs["mode"] = canonical_mode(mode)
    if "params" in args:
        kwargs["params"] = params
    if "config" in args:
        kwargs["config"] = config
    logging.info("Calling model_fn.")
    # Called directly in eager mode (`est.model_fn(...)`), there is no graph to order.
    step_read = (None if tf.executing_eagerly()
                 else training_util._get_or_create_global_step_read())  # pylint: disable=protected-access
    try:
        with tf.control_dependencies([step_read] if step_read is not None else []), \
                tf_patches.keras_initializers_seeded(config.tf_random_seed):
            spec = strategies.model_fn_as_the_strategy_calls_it(model_fn)(
                features=features, **kwargs)
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

