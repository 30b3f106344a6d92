"""State managers: how a model's loss is defined from its start state or a fed one."""

from estimator_lib.canned.timeseries import feature_keys
from estimator_lib.core.model_fn import ModeKeys


class PassthroughStateManager:
    """A minimal wrapper for models which do not need state management."""

    def __init__(self):
        self._input_statistics = None
        self._graph_initialized = False

    def initialize_graph(self, model, input_statistics=None) -> None:
        """Adds required operations to the graph (none here)."""
        del model  # Unused.
        self._graph_initialized = True
        self._input_statistics = input_statistics

    def define_loss(self, model, features, mode):
        """The model's loss from its own start state.

        Args:
            model: A TimeSeriesModel.
            features: TIMES, VALUES and any exogenous features.
            mode: tf.estimator.ModeKeys.TRAIN or EVAL.

        Returns:
            A ModelOutputs.

        Raises:
            ValueError: If a start state was passed (State.STATE_TUPLE).
        """
        if feature_keys.State.STATE_TUPLE in features:
            raise ValueError("Overriding start state is not supported for this model.")
        return model.define_loss(features, mode)


class FilteringOnlyStateManager(PassthroughStateManager):
    """State manager for models which use state only for filtering.

    Window-based models (ARModel) need no state to train (they need a specific
    window size); when filtering, a fed state (their last input window) replaces
    the start state.
    """

    def define_loss(self, model, features, mode):
        """The loss from a fed FilteringFeatures.STATE_TUPLE, else from the start state.

        Args:
            model: The time-series model.
            features: The batch's features.
            mode: The `ModeKeys` mode.

        Returns:
            The `ModelOutputs` of the batch.

        Raises:
            ValueError: If a state is fed while training.
        """
        key = feature_keys.FilteringFeatures.STATE_TUPLE
        if key not in features:
            return model.define_loss(features, mode)
        if mode == ModeKeys.TRAIN:
            raise ValueError("Overriding saved state for training is not supported (but a "
                             f"value for feature {key} was specified).")
        start_state = features.pop(key)
        return model.get_batch_loss(features=features, mode=mode, state=start_state)
