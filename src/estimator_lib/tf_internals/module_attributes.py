"""Reversible assignments to TensorFlow's modules and to `sys.modules`.

`estimator_lib.compat.install()` puts the legacy import surfaces back where TensorFlow
2.16 removed them: `tf.estimator`, `tf.compat.v1.estimator`, `tf.compat.v2.estimator`,
`tensorflow.python.estimator`, and `tensorflow_estimator.*` entries in `sys.modules`.
Every such write goes through an `Assignments`, which `undo()` reverts (uninstall()).
"""

import sys
from typing import List, Tuple

_MISSING = object()


class Assignments:
    """Assignments of module attributes (or `sys.modules` keys), undone in reverse."""

    def __init__(self):
        self._done: List[Tuple[object, str, object]] = []

    def set(self, target, name: str, value) -> None:
        """`target.name = value` (`sys.modules[name] = value` when target is
        sys.modules), remembering what was there.

        Args:
            target: The object (or `sys.modules`) to assign on.
            name: The attribute's (or module's) name.
            value: The new value.
        """
        if target is sys.modules:
            self._done.append((target, name, sys.modules.get(name, _MISSING)))
            sys.modules[name] = value
        else:
            self._done.append((target, name, getattr(target, name, _MISSING)))
            setattr(target, name, value)

    def undo(self) -> None:
        """Restores every assignment's previous value (or absence), newest first."""
        while self._done:
            target, name, previous = self._done.pop()
            if target is sys.modules:
                if previous is _MISSING:
                    sys.modules.pop(name, None)
                else:
                    sys.modules[name] = previous
            elif previous is _MISSING:
                if hasattr(target, name):
                    delattr(target, name)
            else:
                setattr(target, name, previous)
