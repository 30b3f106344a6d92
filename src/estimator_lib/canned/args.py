"""Constructor-argument checks shared by the canned estimators.

Each raises a ValueError naming the argument and what arrived, when the
estimator is built: before a model_dir is made or a graph is built.
"""

from typing import Tuple

from estimator_lib.canned import feature_inputs
from estimator_lib.canned import optimizers


def hidden_units(units) -> Tuple[int, ...]:
    """Checks `hidden_units`: an iterable of positive ints; returns it as a tuple.

    Raises:
        ValueError: If it is not iterable or holds anything but positive ints.
    """
    try:
        units = tuple(units)
    except TypeError:
        raise ValueError(
            "`hidden_units` must be an iterable of positive ints, e.g. [64, 32]. "
            f"Received: hidden_units={units!r}.") from None
    for width in units:
        if isinstance(width, bool) or not isinstance(width, int) or width < 1:
            raise ValueError(
                "`hidden_units` must be an iterable of positive ints, e.g. [64, 32]. "
                f"Received: hidden_units={units!r}.")
    return units


def feature_columns(columns, *, v2: bool, arg_name: str = "feature_columns",
                    required: bool = True) -> tuple:
    """Checks the feature columns an estimator was given.

    Args:
        columns: The feature columns given (any iterable).
        v2: Whether the estimator is a v2 one (v2 columns and Keras optimizers required).
        arg_name: The argument's name, for the error messages.
        required: Whether an empty list is an error.

    Returns:
        The columns, as a tuple.

    Raises:
        ValueError: If the columns are empty (when required), not feature columns, or not v2
            ones for a v2 estimator.
    """
    columns = feature_inputs.check_columns(columns, arg_name=arg_name)
    if required and not columns:
        raise ValueError(f"`{arg_name}` must not be empty. Received: {arg_name}={columns!r}.")
    if v2 and columns:
        feature_inputs.require_v2(columns)
    return columns


def activation(fn) -> None:
    """Checks `activation_fn` is None or callable.

    Raises:
        ValueError: If it is neither.
    """
    if fn is not None and not callable(fn):
        raise ValueError(f"`activation_fn` must be callable, e.g. tf.nn.relu. Received: {fn!r}.")


def dropout(rate, *, arg_name: str = "dropout") -> None:
    """Checks a dropout rate: None or a probability in [0, 1).

    Raises:
        ValueError: Naming `arg_name`, if it is anything else.
    """
    if rate is None:
        return
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate < 1:
        raise ValueError(
            f"`{arg_name}` must be None or a probability in [0, 1). Received: "
            f"{arg_name}={rate!r}.")


def optimizer(opt, *, v2: bool, arg_name: str = "optimizer", learning_rate=None):
    """Checks a name early; for v2, wraps the argument to give one optimizer per graph.

    Args:
        opt: The optimizer argument: a name, an instance, or a callable returning one.
        v2: Whether the estimator is a v2 one (v2 columns and Keras optimizers required).
        arg_name: The argument's name, for the error messages.
        learning_rate: The learning rate a name is built with; None for the optimizer's default.

    Returns:
        The optimizer argument, checked (and for v2, wrapped so that each graph gets its own
        instance).

    Raises:
        ValueError: If a name is not a known optimizer.
    """
    optimizers.check_optimizer_name(opt, arg_name=arg_name)
    if v2:
        return optimizers.KerasOptimizerArg(opt, learning_rate=learning_rate)
    return opt


def sparse_combiner(combiner, *, arg_name: str = "sparse_combiner") -> None:
    """Checks a sparse combiner: 'mean', 'sqrtn' or 'sum'.

    Raises:
        ValueError: Naming `arg_name`, if it is anything else.
    """
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(
            f"`{arg_name}` must be one of 'mean', 'sqrtn', 'sum'. Received: "
            f"{arg_name}={combiner!r}.")
