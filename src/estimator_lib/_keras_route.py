"""The keras_lib route: `tf.keras.estimator.model_to_estimator` after `import estimator_lib`.

tf_keras's model_to_estimator functions (`tf.keras.estimator`,
`tf.compat.v1.keras.estimator`, `tf_keras.estimator`) import
`tensorflow_estimator.python.estimator.keras_lib` when called; TensorFlow 2.16+ has no
such package, so they end in `NotImplementedError: ... not available in your
installation`. `import estimator_lib` (`_api`) registers that one module path in
`sys.modules` (nothing of tf_keras or TensorFlow is touched, and `import
tensorflow_estimator` still fails: its parents stay absent), holding
`keras_lib.model_to_estimator`, which converts with `estimator_lib.model_to_estimator`
(loaded on first call). Not registered when a real `tensorflow_estimator` package is
installed. `uninstall_keras_route()` removes it; `estimator_lib.compat.install()`
replaces it with the whole legacy tree and `compat.uninstall()` puts it back.
"""

import importlib.util
import sys
import types

from estimator_lib.tf_internals import module_attributes

ROUTE = "tensorflow_estimator.python.estimator"
_route_assignments = module_attributes.Assignments()


def keras_lib_model_to_estimator(*args, **kwargs):
    """`tensorflow_estimator.python.estimator.keras_lib.model_to_estimator`, as tf_keras
    calls it (the v1 Estimator unless `use_v2_estimator`)."""
    from estimator_lib.legacy import keras_lib  # pylint: disable=import-outside-toplevel
    return keras_lib.model_to_estimator(*args, **kwargs)


def _route_module() -> types.ModuleType:
    keras_lib = types.ModuleType(f"{ROUTE}.keras_lib", "estimator_lib's model_to_estimator, "
                                                       "where tf_keras looks for it.")
    keras_lib.model_to_estimator = keras_lib_model_to_estimator
    route = types.ModuleType(ROUTE, "Only `keras_lib`, for tf_keras (estimator_lib."
                                    "_keras_route); estimator_lib.compat.install() "
                                    "provides the rest.")
    route.keras_lib = keras_lib
    return route


def install_keras_route() -> None:
    """Registers the route unless it (or anything) is at that path, or the real package
    is installed. Idempotent."""
    if ROUTE in sys.modules or importlib.util.find_spec("tensorflow_estimator") is not None:
        return
    _route_assignments.set(sys.modules, ROUTE, _route_module())


def uninstall_keras_route() -> None:
    """Removes the route `install_keras_route()` registered (what was there before comes back)."""
    _route_assignments.undo()
