"""Private helpers of the original `util.py`, `inputs/numpy_io.py` and `inputs/pandas_io.py`,
by their names and signatures.

compat.install() puts each at its original path (legacy/original_tree.py); the
pandas helper stands there as `_get_unique_target_key`, as numpy_io's does at its own.
"""

import collections
import uuid

import numpy as np

from estimator_lib.graph import inputs

_TARGET_KEY = "__target_key__"


# parse_input_fn_result's hooks are instances of it (graph/inputs.py).
_DatasetInitializerHook = inputs.DatasetInitializerHook


def _get_unique_target_key(features):
    """A key not in `features` (`__target_key__`, `_n` appended until free) for the target."""
    target_key = _TARGET_KEY
    while target_key in features:
        target_key += "_n"
    return target_key


def _pandas_unique_target_key(features, target_column_name):
    """`target_column_name`, or a uuid-suffixed one when the DataFrame has that column."""
    if target_column_name in features:
        target_column_name += "_" + str(uuid.uuid4())
    return target_column_name


def _validate_and_convert_features(x):
    """An OrderedDict copy of a dict of arrays (sorted by key) or of one array.

    Raises:
        ValueError: If `x` is empty.
        TypeError: If `x` is neither a dict nor a numpy array.
    """
    if isinstance(x, dict):
        if not x:
            raise ValueError("x cannot be an empty dict")
        return collections.OrderedDict(sorted(x.items(), key=lambda t: t[0]))
    if isinstance(x, np.ndarray):
        if x.size == 0:
            raise ValueError("x cannot be an empty array")
        return collections.OrderedDict({"__direct_np_input__": x})
    raise TypeError(f"x must be a dict or array; got {type(x).__name__}")
