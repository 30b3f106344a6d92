"""numpy_input_fn and pandas_input_fn: in-memory arrays as an Estimator input_fn.

The names and arguments of `tf.compat.v1.estimator.inputs.*`. The original fed
the arrays through queues and threads and its input_fn returned `(features,
labels)` tensors; here the input_fn returns the same tensors, the `get_next()` of
a `tf.data` iterator over the arrays, so code that calls the input_fn itself
(`features, labels = input_fn()`, then `session.run`) works as before. Inside the
Estimator that iterator is initialised by the Estimator, with the large arrays
fed rather than frozen into the graph (tf_patches 1); where the Estimator needs
the Dataset itself (a tf.distribute strategy, `steps_per_run > 1`) it gets it.

Semantics kept from the original: `shuffle` must be given explicitly; a dict
`x` gives a dict of features, an array `x` a single feature tensor; `y` may be
an array (one label tensor) or a dict (a dict of labels); `num_epochs=None`
repeats forever in full batches, a number of epochs ends with a smaller last
batch; `queue_capacity` bounds the shuffle buffer. Unlike the original, bad
arguments are reported when the input_fn is built, not when it is first called.
"""

import collections
from typing import Callable, Mapping, Optional, Union

import numpy as np
import tensorflow as tf

from estimator_lib.graph import inputs

# The label key the original used for a DataFrame target.
DEFAULT_TARGET_COLUMN = "target"

_ArrayOrDict = Union[np.ndarray, Mapping[str, np.ndarray]]


def _check_shuffle(shuffle) -> None:
    if not isinstance(shuffle, bool):
        raise ValueError(
            "shuffle must be provided and explicitly set as boolean (it is recommended to "
            f"set it as True for training). Received: shuffle={shuffle!r}.")


def _check_positive(name: str, value, *, allow_none: bool = False,
                    allow_zero: bool = False) -> None:
    if value is None and allow_none:
        return
    if (isinstance(value, bool) or not isinstance(value, (int, np.integer))
            or value < (0 if allow_zero else 1)):
        works = ("a non-negative" if allow_zero else "a positive") + " integer" + (
            " or None" if allow_none else "")
        raise ValueError(f"`{name}` must be {works}. Received: {name}={value!r}.")


def _as_sorted_dict(value, argument: str) -> "collections.OrderedDict[str, np.ndarray]":
    """A dict argument as an OrderedDict of arrays, keys sorted as the original."""
    if not value:
        raise ValueError("x cannot be an empty dict." if argument == "x" else
                         f"{argument} cannot be empty dict, use None instead.")
    return collections.OrderedDict(
        (key, np.asarray(value[key])) for key in sorted(value))


def _features_dict(x) -> "collections.OrderedDict[str, np.ndarray]":
    if isinstance(x, Mapping):
        return _as_sorted_dict(x, "x")
    if isinstance(x, np.ndarray):
        if x.size == 0:
            raise ValueError("x cannot be an empty array.")
        return collections.OrderedDict(x=x)
    raise TypeError(
        f"x must be a dict or array (of numpy arrays). Received: {type(x).__name__}.")


def _check_lengths(features: Mapping, labels: Optional[Mapping]) -> None:
    arrays = list(features.values()) + list((labels or {}).values())
    lengths = {value.shape[0] if value.ndim else None for value in arrays}
    if len(lengths) != 1 or None in lengths:
        raise ValueError(
            "Length of tensors in x and y is mismatched. All elements in x and y must have "
            f"the same length. Received shapes: x: {_shapes(features)}, y: "
            f"{_shapes(labels) if labels is not None else None}.")


def _shapes(arrays: Mapping) -> dict:
    return {key: value.shape for key, value in arrays.items()}


def _make_dataset(element, *, batch_size: int, num_epochs: Optional[int], shuffle: bool,
                  queue_capacity: Optional[int], rows: int) -> tf.data.Dataset:
    dataset = tf.data.Dataset.from_tensor_slices(element)
    if shuffle:
        # queue_capacity=None: the original sized its queue from the data.
        dataset = dataset.shuffle(queue_capacity or max(rows, 1),
                                  reshuffle_each_iteration=True)
    dataset = dataset.repeat(num_epochs)
    # The original dequeued full batches forever with num_epochs=None, and allowed a
    # smaller last batch when the epochs run out.
    return dataset.batch(batch_size, drop_remainder=num_epochs is None)


def _input_fn_of(make_dataset: Callable[[], tf.data.Dataset]) -> Callable:
    """The input_fn: the original's tensors, and its Dataset form for the Estimator.

    Called, it returns the `(features, labels)` tensors of a one-shot iterator, as the
    original's queue gave; in the Estimator's graph the iterator becomes an
    initializable one that the Estimator initialises with the large arrays fed
    (tf_patches 1). Where the Estimator consumes Datasets only (a strategy's
    per-replica input, the in-graph loop) it calls `input_fn.dataset_input_fn`
    instead (`graph/inputs.dataset_form`), which returns the Dataset itself.
    """
    def input_fn():
        return tf.compat.v1.data.make_one_shot_iterator(make_dataset()).get_next()

    setattr(input_fn, inputs.DATASET_INPUT_FN, make_dataset)
    return input_fn


def _check_common(*, batch_size, num_epochs, shuffle, queue_capacity, num_threads) -> None:
    _check_shuffle(shuffle)
    _check_positive("batch_size", batch_size)
    _check_positive("num_epochs", num_epochs, allow_none=True, allow_zero=True)
    _check_positive("queue_capacity", queue_capacity, allow_none=True)
    _check_positive("num_threads", num_threads)


def numpy_input_fn(x: _ArrayOrDict, y: Optional[_ArrayOrDict] = None, batch_size: int = 128,
                   num_epochs: Optional[int] = 1, shuffle: Optional[bool] = None,
                   queue_capacity: int = 1000, num_threads: int = 1) -> Callable:
    """Returns an input_fn feeding dicts (or an array) of numpy arrays in batches.

    Arguments as `tf.compat.v1.estimator.inputs.numpy_input_fn` (positional, as legacy
    programs call it).

    Deliberate difference 25: an `x` that is neither a dict nor an array is refused here.

    Args:
        x: A dict of name -> array (features are then a dict) or a single array (then the
            feature is a single tensor). Arrays share their first dimension.
        y: None, an array (labels are a tensor) or a dict of arrays (a dict of labels).
        batch_size: Examples per batch.
        num_epochs: Passes over the data; None repeats forever, 0 gives no batch.
        shuffle: Whether to shuffle. Required, as in the original: there is no default.
        queue_capacity: Size of the shuffle buffer; None: the number of examples.
        num_threads: Accepted for compatibility; tf.data decides parallelism itself.

    Returns:
        An input_fn returning `features` or `(features, labels)` tensors: the next
        batch of an iterator over the arrays (OutOfRangeError after the last).

    Raises:
        ValueError: If `shuffle` is not a bool, `x` or `y` is empty or of the wrong type,
            keys clash between `x` and `y`, lengths differ, or a count is not positive.

    Examples:
        >>> input_fn = numpy_input_fn({"x": np.arange(4.0)}, np.arange(4), batch_size=2,
        ...                           shuffle=False)
        >>> with tf.Graph().as_default():
        ...     features, labels = input_fn()
        ...     with tf.compat.v1.Session() as session:
        ...         session.run([features, labels])
        [{'x': array([0., 1.])}, array([0, 1])]
        >>> numpy_input_fn({"x": np.arange(4.0)})
        Traceback (most recent call last):
        ...
        ValueError: shuffle must be provided and explicitly set as boolean ...
    """
    _check_common(batch_size=batch_size, num_epochs=num_epochs, shuffle=shuffle,
                  queue_capacity=queue_capacity, num_threads=num_threads)
    features = _features_dict(x)
    labels = None
    if isinstance(y, Mapping):
        labels = _as_sorted_dict(y, "y")
        duplicates = sorted(set(features) & set(labels))
        if duplicates and isinstance(x, Mapping):
            raise ValueError(
                f"{len(duplicates)} duplicate keys are found in both x and y: {duplicates}.")
    elif y is not None:
        labels = collections.OrderedDict(y=np.asarray(y))
    _check_lengths(features, labels)
    single_feature = not isinstance(x, Mapping)
    single_label = labels is not None and not isinstance(y, Mapping)

    def make_dataset():
        feature_part = features["x"] if single_feature else dict(features)
        if labels is None:
            element = feature_part
        else:
            element = (feature_part, labels["y"] if single_label else dict(labels))
        return _make_dataset(
            element, batch_size=batch_size, num_epochs=num_epochs, shuffle=shuffle,
            queue_capacity=queue_capacity, rows=len(next(iter(features.values()))))

    return _input_fn_of(make_dataset)


def _import_pandas():
    """The pandas module, or None when it is not installed (pandas is optional)."""
    try:
        import pandas  # pylint: disable=import-outside-toplevel
    except ImportError:
        return None
    return pandas


def pandas_input_fn(x, y=None, batch_size: int = 128, num_epochs: Optional[int] = 1,
                    shuffle: Optional[bool] = None, queue_capacity: int = 1000,
                    num_threads: int = 1, target_column: str = DEFAULT_TARGET_COLUMN
                    ) -> Callable:
    """Returns an input_fn feeding a pandas DataFrame's columns as a dict of features.

    Arguments as `tf.compat.v1.estimator.inputs.pandas_input_fn`.

    Args:
        x: A DataFrame; each column becomes a feature named after it.
        y: None, a Series (labels are a tensor) or a DataFrame (a dict of labels keyed
            by its column names). Its index must equal `x`'s.
        batch_size: Examples per batch.
        num_epochs: Passes over the data; None repeats forever, 0 gives no batch.
        shuffle: Whether to shuffle. Required: there is no default.
        queue_capacity: Size of the shuffle buffer; None: the number of examples.
        num_threads: Accepted for compatibility; tf.data decides parallelism itself.
        target_column: A name `y` may not share with a column of `x`.

    Returns:
        An input_fn returning `features` or `(features, labels)` tensors: the next
        batch of an iterator over the arrays (OutOfRangeError after the last).

    Raises:
        TypeError: If pandas is not installed, or `x` is not a DataFrame.
        ValueError: If `shuffle` is not a bool, `target_column` names a column of `x`,
            the indexes of `x` and `y` differ, or a count is not positive.

    Examples:
        >>> import pandas as pd
        >>> x = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": [0, 1, 0, 1]})
        >>> input_fn = pandas_input_fn(x, pd.Series([0, 1, 1, 0]), batch_size=2,
        ...                            shuffle=False)
        >>> with tf.Graph().as_default():
        ...     features, labels = input_fn()
        ...     with tf.compat.v1.Session() as session:
        ...         batch = session.run([features, labels])
        >>> {name: values.tolist() for name, values in batch[0].items()}, batch[1].tolist()
        ({'a': [1.0, 2.0], 'b': [0, 1]}, [0, 1])
    """
    pandas = _import_pandas()
    if pandas is None:
        raise TypeError(
            "pandas_input_fn needs pandas, which is not installed; `pip install pandas`, "
            "or pass the columns as numpy arrays to numpy_input_fn.")
    _check_common(batch_size=batch_size, num_epochs=num_epochs, shuffle=shuffle,
                  queue_capacity=queue_capacity, num_threads=num_threads)
    if not isinstance(x, pandas.DataFrame):
        raise TypeError(f"`x` must be a pandas DataFrame. Received: {type(x).__name__}.")
    if not isinstance(target_column, str):
        raise TypeError(
            "target_column must be a string type. Received: "
            f"{type(target_column).__name__}.")
    features = collections.OrderedDict(
        (str(column), np.asarray(x[column].values)) for column in x.columns)
    labels = None
    if y is not None:
        if target_column in features:
            raise ValueError(
                f"Cannot use name {target_column!r} for the target column: the DataFrame "
                f"already has a column with that name ({list(features)}). Pass another "
                "`target_column`.")
        if not np.array_equal(np.asarray(x.index), np.asarray(y.index)):
            raise ValueError(
                "Index for x and y are mismatched. Received: x.index="
                f"{list(x.index)[:10]}, y.index={list(y.index)[:10]}.")
        if isinstance(y, pandas.DataFrame):
            labels = collections.OrderedDict(
                (str(column), np.asarray(y[column].values)) for column in y.columns)
        else:
            labels = np.asarray(y.values)

    def make_dataset():
        element = dict(features)
        if labels is not None:
            element = (element, dict(labels) if isinstance(labels, Mapping) else labels)
        return _make_dataset(
            element, batch_size=batch_size, num_epochs=num_epochs, shuffle=shuffle,
            queue_capacity=queue_capacity, rows=len(x.index))

    return _input_fn_of(make_dataset)
