"""Estimators for time series models: TimeSeriesRegressor and LSTMAutoRegressor."""

import functools
from typing import Any, Optional, Sequence, Union

import tensorflow as tf

from estimator_lib.canned import optimizers
from estimator_lib.canned.timeseries import ar_model
from estimator_lib.canned.timeseries import head as ts_head_lib
from estimator_lib.canned.timeseries import math_utils
from estimator_lib.canned.timeseries import serving
from estimator_lib.canned.timeseries import state_management
from estimator_lib.engine.estimator_v1 import EstimatorV1


class TimeSeriesRegressor(EstimatorV1):
    """An Estimator to fit and evaluate a time series model."""

    def __init__(self, model, state_manager=None, optimizer=None,
                 model_dir: Optional[str] = None, config=None,
                 head_type=ts_head_lib.TimeSeriesRegressionHead):
        """Wraps `model` in a head whose create_estimator_spec is the model_fn.

        Args:
            model: A TimeSeriesModel (e.g. ar_model.ARModel).
            state_manager: A state manager; by default FilteringOnlyStateManager for
                an ARModel, else PassthroughStateManager.
            optimizer: A tf.compat.v1.train.Optimizer; by default Adam(0.02).
            model_dir: See `Estimator`.
            config: See `Estimator`.
            head_type: The head class (a TimeSeriesRegressionHead).
        """
        statistics = math_utils.InputStatisticsFromMiniBatch(dtype=model.dtype,
                                                            num_features=model.num_features)
        if state_manager is None:
            state_manager = (state_management.FilteringOnlyStateManager()
                             if isinstance(model, ar_model.ARModel)
                             else state_management.PassthroughStateManager())
        if optimizer is None:
            optimizer = tf.compat.v1.train.AdamOptimizer(0.02)
        self._time_series_model = model
        head = head_type(model=model, state_manager=state_manager, optimizer=optimizer,
                         input_statistics_generator=statistics)
        super().__init__(model_fn=head.create_estimator_spec, model_dir=model_dir,
                         config=config)

    def _model_start_state_placeholders(self, batch_size_tensor, static_batch_size=None):
        """`model_state_<n>` placeholders defaulting to the model's start state."""
        return serving.start_state_placeholders(self._time_series_model, batch_size_tensor,
                                                static_batch_size)

    def build_one_shot_parsing_serving_input_receiver_fn(
            self, filtering_length: int, prediction_length: int,
            default_batch_size: Optional[int] = None, values_input_dtype=None,
            truncate_values: bool = False):
        """An input receiver fn parsing tf.Examples, for a OneShotPredictionHead export.

        Args:
            filtering_length: Steps with values (filtered).
            prediction_length: Steps predicted after them (times and exogenous
                features are given for both).
            default_batch_size: A static batch size, or None.
            values_input_dtype: float32 (default) or int64, the Examples' values dtype.
            truncate_values: Expect filtering_length + prediction_length values and use
                the first filtering_length.

        Returns:
            A serving input receiver fn taking a [batch] string Tensor of Examples.
        """
        return serving.one_shot_parsing_receiver_fn(
            self._time_series_model, filtering_length, prediction_length, default_batch_size,
            values_input_dtype, truncate_values)

    def build_raw_serving_input_receiver_fn(self, default_batch_size: Optional[int] = None,
                                            default_series_length: Optional[int] = None):
        """An input receiver fn of placeholders: times, values, exogenous features, state.

        Args:
            default_batch_size: A static batch size, or None.
            default_series_length: A static series length, or None.

        Returns:
            A serving input receiver fn for export_saved_model.
        """
        return serving.raw_receiver_fn(self._time_series_model, default_batch_size, default_series_length)


class LSTMAutoRegressor(TimeSeriesRegressor):
    """An Estimator for an LSTM autoregressive model.

    A window-based model: windows of `input_window_size` steps in, of
    `output_window_size` steps out; the input_fn's windows are their sum. Each
    periodicity is cut into `num_timesteps` buckets giving time features (see
    ar_model.ARModel). Exports one stateless signature (OneShotPredictionHead).
    """

    def __init__(self, periodicities: Union[int, Sequence[int]], input_window_size: int,
                 output_window_size: int, model_dir: Optional[str] = None,
                 num_features: int = 1, extra_feature_columns: Optional[Sequence[Any]] = None,
                 num_timesteps: int = 10, loss: str = ar_model.ARModel.NORMAL_LIKELIHOOD_LOSS,
                 num_units: int = 128, optimizer: Any = "Adam", config=None):
        """Builds the ARModel with an LSTMPredictionModel of `num_units`.

        Args:
            periodicities: Periodicities of the data, in the time feature's units.
            input_window_size: Past steps regressed on.
            output_window_size: Future steps predicted at once.
            model_dir: See `Estimator`.
            num_features: Dimension of the series.
            extra_feature_columns: `tf.feature_column`s of exogenous features.
            num_timesteps: Buckets per periodicity.
            loss: ARModel.NORMAL_LIKELIHOOD_LOSS or SQUARED_LOSS.
            num_units: Units of the encoder and decoder LSTMs.
            optimizer: A name, an Optimizer or a callable (Adam, learning rate 0.01,
                by default).
            config: A RunConfig.
        """
        optimizer = optimizers.get_optimizer_instance(optimizer, learning_rate=0.01)
        model = ar_model.ARModel(
            periodicities=periodicities, input_window_size=input_window_size,
            output_window_size=output_window_size, num_features=num_features,
            exogenous_feature_columns=extra_feature_columns, num_time_buckets=num_timesteps,
            loss=loss, prediction_model_factory=functools.partial(
                ar_model.LSTMPredictionModel, num_units=num_units))
        super().__init__(model=model,
                         state_manager=state_management.FilteringOnlyStateManager(),
                         optimizer=optimizer, model_dir=model_dir, config=config,
                         head_type=ts_head_lib.OneShotPredictionHead)
