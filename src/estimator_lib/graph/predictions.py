"""What predict() yields: the predictions asked for, a batch or an example at a time."""

from typing import Callable, Iterator, Optional


def select(predictions, predict_keys):
    """The entries of `predictions` named by `predict_keys` (a key or a list); all if None.

    Raises:
        ValueError: If keys are asked of non-dict predictions, or none of them exists.
    """
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


def examples(values, length_of: Optional[Callable] = None) -> Iterator:
    """Splits one run's batch of predictions (an array, or a dict of them) into examples.

    `length_of(values)` replaces `batch_length` for a dict
    (`Estimator._extract_batch_length`, a subclass may override it).

    Raises:
        ValueError: If the arrays of a dict differ in batch length.
    """
    if not isinstance(values, dict):
        yield from values
        return
    for i in range((length_of or batch_length)(values)):
        yield {key: value[i] for key, value in values.items()}


def batch_length(values: dict) -> int:
    """The batch length every array of `values` shares."""
    length = None
    for key, value in values.items():
        if length is None:
            length = value.shape[0]
        elif value.shape[0] != length:
            raise ValueError(
                f"Batch length of predictions should be same. {key} has different batch "
                "length than others.")
    return length or 0
