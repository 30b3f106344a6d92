"""Foundations every layer reads: EstimatorSpec and ModeKeys, RunConfig, TF_CONFIG, the
environment variables, and the Keras 2 switch. Imports nothing of estimator_lib but
tf_internals."""
