"""The Estimator: its four entry points, evaluation, train_and_evaluate, add_metrics."""
