"""The time-series heads: a model_fn around a TimeSeriesModel and a state manager.

`TimeSeriesRegressionHead.create_estimator_spec` is the Estimator's model_fn:
training minimises the model's loss; evaluation (filtering) returns the model's
predictions, times and end state as metrics; prediction forecasts from a fed
state; and, when the features carry the flattened state (`model_state_<n>`, the
serving receivers), the export's three signatures: predict, filter and
cold_start_filter. `OneShotPredictionHead` serves filtering and prediction in one
stateless signature.
"""

from typing import Any, Dict, Optional

import tensorflow as tf

from estimator_lib.canned.timeseries import feature_keys
from estimator_lib.canned.timeseries import head_features
from estimator_lib.canned.timeseries.head_features import state_to_dictionary
from estimator_lib.core.model_fn import EstimatorSpec, ModeKeys
from estimator_lib.export.receivers import PredictOutput
from estimator_lib.head import metric_keys
from estimator_lib.head import v1_head

__all__ = ["TimeSeriesRegressionHead", "OneShotPredictionHead", "state_to_dictionary"]


class _NoStatePredictOutput(PredictOutput):
    """A PredictOutput whose signature takes no `model_state_*` inputs."""

    def as_signature_def(self, receiver_tensors):
        return super().as_signature_def(receiver_tensors={
            key: value for key, value in receiver_tensors.items()
            if not key.startswith(feature_keys.State.STATE_PREFIX)})


def _model_scope(**kwargs):
    return tf.compat.v1.variable_scope("model", use_resource=True, **kwargs)


class TimeSeriesRegressionHead(v1_head.V1Head):
    """Determines input and output signatures for a time series model (a v1 head, as
    the original's subclassed `canned.head._Head`)."""

    def __init__(self, model, state_manager, optimizer, input_statistics_generator=None,
                 name: Optional[str] = None):
        """Creates the head.

        Args:
            model: A TimeSeriesModel.
            state_manager: A state manager (state_management.py).
            optimizer: A tf.compat.v1.train.Optimizer.
            input_statistics_generator: A math_utils.InputStatisticsFromMiniBatch, or None.
            name: An optional name for the head (suffixes its summaries).
        """
        self.model = model
        self.state_manager = state_manager
        self.optimizer = optimizer
        self.input_statistics_generator = input_statistics_generator
        self._name = name

    @property
    def name(self) -> Optional[str]:
        """The head's name (suffixes its summaries), or None."""
        return self._name

    @property
    def logits_dimension(self) -> int:
        """Always 1, as the original's (heads must name one; this head reads no logits)."""
        return 1

    def create_loss(self, features, mode, logits=None, labels=None):
        """The state manager's ModelOutputs; summarises the loss.

        Args:
            features: The dict of feature tensors (times, values, exogenous features).
            mode: The `ModeKeys` mode.
            logits: Unused (the interface of heads).
            labels: Must be None: the series are features.

        Returns:
            The `ModelOutputs` of the state manager.
        """
        del logits, labels  # The model computes its own.
        outputs = self.state_manager.define_loss(self.model, features, mode)
        tf.compat.v1.summary.scalar(v1_head.summary_key(self._name, metric_keys.MetricKeys.LOSS),
                                    outputs.loss)
        return outputs

    def _train_ops(self, features) -> EstimatorSpec:
        global_step = tf.compat.v1.train.get_global_step()
        if tf.compat.v1.control_flow_v2_enabled():
            with _model_scope():
                outputs = self.create_loss(features, ModeKeys.TRAIN)
            train_op = self.optimizer.minimize(outputs.loss, global_step=global_step)
            return EstimatorSpec(loss=outputs.loss, mode=ModeKeys.TRAIN, train_op=train_op)
        # Under v1 control flow, TF 2.21 never finishes a training step whose tf_keras
        # LSTM loops (LSTMAutoRegressor) or their gradients carry the control
        # dependency the Estimator calls model_fn under (its read of the global step
        # for hooks). So the model and its updates are built without it, and only the
        # step's increment keeps it: the step is still read before it is incremented.
        with tf.control_dependencies(None):
            with _model_scope():
                outputs = self.create_loss(features, ModeKeys.TRAIN)
            update = self.optimizer.minimize(outputs.loss)
        if global_step is None:
            return EstimatorSpec(loss=outputs.loss, mode=ModeKeys.TRAIN, train_op=update)
        with tf.control_dependencies([update]), tf.compat.v1.colocate_with(global_step):
            train_op = tf.compat.v1.assign_add(global_step, 1)
        return EstimatorSpec(loss=outputs.loss, mode=ModeKeys.TRAIN, train_op=train_op)

    def _evaluate_ops(self, features) -> EstimatorSpec:
        with _model_scope():
            outputs = self.create_loss(features, ModeKeys.EVAL)
        metrics = {key: head_features.identity_metric(key, value)
                   for key, value in outputs.predictions.items()}
        times_key = feature_keys.FilteringResults.TIMES
        metrics[times_key] = head_features.identity_metric(times_key, outputs.prediction_times)
        state_key = feature_keys.FilteringResults.STATE_TUPLE
        metrics[state_key] = head_features.identity_metric_nested(state_key, outputs.end_state)
        metrics[metric_keys.MetricKeys.LOSS_MEAN] = tf.compat.v1.metrics.mean(
            outputs.loss, name="average_loss")
        return EstimatorSpec(loss=outputs.loss, mode=ModeKeys.EVAL, eval_metric_ops=metrics,
                             predictions=outputs.predictions)

    def _predict_ops(self, features) -> EstimatorSpec:
        with _model_scope():
            predictions = self.model.predict(features=features)
        predictions[feature_keys.PredictionResults.TIMES] = features[
            feature_keys.PredictionFeatures.TIMES]
        return EstimatorSpec(predictions=predictions, mode=ModeKeys.PREDICT)

    def _serving_ops(self, features) -> EstimatorSpec:
        with _model_scope():
            predictions = self.model.predict(features=features)
        with _model_scope(reuse=True):
            filtered = self.create_loss(features, ModeKeys.EVAL)
        with _model_scope(reuse=True):
            stateless = {k: v for k, v in features.items()
                         if not k.startswith(feature_keys.State.STATE_PREFIX)}
            cold = self.model.define_loss(features=stateless, mode=ModeKeys.EVAL)
        labels = feature_keys.SavedModelLabels
        return EstimatorSpec(mode=ModeKeys.PREDICT, predictions={}, export_outputs={
            labels.PREDICT: PredictOutput(predictions),
            labels.FILTER: PredictOutput(state_to_dictionary(filtered.end_state)),
            labels.COLD_START_FILTER: _NoStatePredictOutput(
                state_to_dictionary(cold.end_state)),
        })

    def _convert_feature_to_tensor(self, name: str, value):
        """Casts times to int64 and values to the model's dtype."""
        if name in (feature_keys.TrainEvalFeatures.TIMES, feature_keys.PredictionFeatures.TIMES):
            return tf.cast(value, tf.int64)
        if name == feature_keys.TrainEvalFeatures.VALUES:
            return tf.cast(value, self.model.dtype)
        if name == feature_keys.PredictionFeatures.STATE_TUPLE:
            return value  # Its dtypes are the model's.
        return tf.compat.v1.convert_to_tensor_or_sparse_tensor(value)

    def _gather_state(self, features):
        """`features` with `model_state_<n>` packed into STATE_TUPLE; whether it was."""
        return head_features.gather_state(features, lambda: self.model.get_start_state())

    def _check_predict_features(self, features) -> None:
        head_features.check_predict_features(features, one_shot=False)

    def create_estimator_spec(self, features, mode, labels=None) -> EstimatorSpec:
        """The model_fn: checks the features, builds the mode's graph.

        Args:
            features: The dict of feature tensors (times, values, exogenous features).
            mode: The `ModeKeys` mode.
            labels: Must be None: the series are features.

        Returns:
            The `EstimatorSpec` for `mode`.

        Raises:
            ValueError: Labels were passed, an unknown mode, or unsuitable features.
        """
        with tf.compat.v1.name_scope(self._name, "head"):
            if labels is not None and not (isinstance(labels, dict) and labels == {}):
                raise ValueError(
                    "The model received a `labels`, which is not supported. Pass "
                    f"'{feature_keys.TrainEvalFeatures.TIMES}' and "
                    f"'{feature_keys.TrainEvalFeatures.VALUES}' as features.")
            features = {name: self._convert_feature_to_tensor(name=name, value=value)
                        for name, value in features.items()}
            input_statistics = None
            if self.input_statistics_generator is not None:
                input_statistics = self.input_statistics_generator.initialize_graph(
                    features, update_statistics=(mode == ModeKeys.TRAIN))
            self.model.initialize_graph(input_statistics=input_statistics)
            features, passed_flat_state = self._gather_state(features)
            if mode in (ModeKeys.TRAIN, ModeKeys.EVAL):
                head_features.check_train_eval_features(features, self.model)
            elif mode == ModeKeys.PREDICT:
                self._check_predict_features(features)
            else:
                raise ValueError(f"Unknown mode '{mode}' passed to model_fn.")
            self.state_manager.initialize_graph(model=self.model,
                                                input_statistics=input_statistics)
            if mode == ModeKeys.TRAIN:
                return self._train_ops(features)
            if mode == ModeKeys.EVAL:
                return self._evaluate_ops(features)
            if passed_flat_state:
                return self._serving_ops(features)
            return self._predict_ops(features)


class OneShotPredictionHead(TimeSeriesRegressionHead):
    """A time series head which exports a single stateless serving signature.

    The serving signature takes `times` ([batch, total length]), `values`
    ([batch, filter length, num_features], filter length < total length) and the
    exogenous features (shaped like `times`), but no state: it filters the first
    filter-length steps from the model's start state, then predicts the rest.
    """

    def _check_predict_features(self, features) -> None:
        head_features.check_predict_features(features, one_shot=True)

    def _evaluate_ops(self, features) -> EstimatorSpec:
        spec = super()._evaluate_ops(features)
        del spec.eval_metric_ops[feature_keys.State.STATE_TUPLE]
        return spec

    def _serving_ops(self, features) -> EstimatorSpec:
        with _model_scope():
            values_key = feature_keys.FilteringFeatures.VALUES
            filtering, predicting = {}, {}
            filtered_length = tf.compat.v1.shape(features[values_key])[1]
            for key, value in features.items():
                if key == feature_keys.State.STATE_TUPLE:
                    continue
                if key == values_key:
                    filtering[key] = value
                else:
                    filtering[key] = value[:, :filtered_length]
                    predicting[key] = value[:, filtered_length:]
            cold = self.model.define_loss(features=filtering, mode=ModeKeys.EVAL)
            predicting[feature_keys.State.STATE_TUPLE] = cold.end_state
        with _model_scope(reuse=True):
            predictions = self.model.predict(features=predicting)
        return EstimatorSpec(mode=ModeKeys.PREDICT, predictions={}, export_outputs={
            feature_keys.SavedModelLabels.PREDICT: _NoStatePredictOutput(predictions)})
