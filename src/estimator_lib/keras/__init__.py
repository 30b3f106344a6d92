"""Keras models as Estimators (`model_to_estimator`), and hooks as Keras callbacks."""

from estimator_lib.keras.conversion import model_to_estimator  # noqa: F401
