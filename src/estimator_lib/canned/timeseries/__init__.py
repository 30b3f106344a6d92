"""The original's `canned/timeseries` package: time-series models on the Estimator.

`estimators.TimeSeriesRegressor` wraps a `model.TimeSeriesModel` (here
`ar_model.ARModel`) with a `head.TimeSeriesRegressionHead`;
`estimators.LSTMAutoRegressor` is that over an LSTM prediction model with a
`head.OneShotPredictionHead`. `saved_model_utils` drives an exported model.
After `estimator_lib.compat.install()` each module is also at
`tensorflow_estimator.python.estimator.canned.timeseries.<module>`.
"""
