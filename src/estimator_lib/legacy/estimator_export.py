"""The original's `estimator_export.py`: the decorator naming a symbol's tf.estimator API path.

TensorFlow 2.21's `tf_export` no longer knows the `estimator` API, so this keeps
the decorator's observable effect by itself: the symbol is wrapped to log the
original's deprecation warning ("Use tf.keras instead.") and carries its API names
in `_estimator_api_names` / `_estimator_api_names_v1`, as TensorFlow's api_export set them.
"""

import sys
from typing import Optional, Sequence, TypeVar

# TensorFlow's deprecation decorator (what the original wrapped every exported symbol
# in); TensorFlow exposes no public equivalent that logs its once-per-symbol warning.
from tensorflow.python.util import deprecation

T = TypeVar("T")

_NAMES = "_estimator_api_names"
_NAMES_V1 = "_estimator_api_names_v1"
_CONSTANTS = "_estimator_api_constants"
_CONSTANTS_V1 = "_estimator_api_constants_v1"


class estimator_export:  # pylint: disable=invalid-name
    """Marks a function or class as exported under the given `tf.estimator` API names."""

    def __init__(self, *args: str, v1: Optional[Sequence[str]] = None):
        """Export under the names `*args` (the first is canonical).

        Args:
            *args: API names in dotted form, e.g. "estimator.Estimator".
            v1: Names in the TF1 API; the `args` when None.
        """
        self._names = args
        self._names_v1 = tuple(v1) if v1 is not None else args

    def __call__(self, func: T) -> T:
        """Returns `func` wrapped to log a deprecation warning, carrying its API names."""
        func = deprecation.deprecated(None, "Use tf.keras instead.")(func)
        setattr(func, _NAMES, self._names)
        setattr(func, _NAMES_V1, self._names_v1)
        return func

    def export_constant(self, module_name: str, name: str) -> None:
        """Records the constant `name` of module `module_name` under these API names."""
        module = sys.modules[module_name]
        for attribute, names in ((_CONSTANTS, self._names), (_CONSTANTS_V1, self._names_v1)):
            constants = getattr(module, attribute, [])
            constants.append((names, name))
            setattr(module, attribute, constants)
