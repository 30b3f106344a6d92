"""The public names on first use, for `python -m estimator_lib.<module>` (see __init__)."""

import importlib
import importlib.util
import sys


def module_getattr(name: str):
    """`estimator_lib.__getattr__`: a submodule, or the public names loaded on first use.

    A submodule (`estimator_lib.flags`, `estimator_lib.bin`) is imported by itself, so
    reading flags never loads TensorFlow; any other name loads `estimator_lib._api`
    (TensorFlow and every public name) into the package once.
    """
    package = sys.modules["estimator_lib"]
    if name.startswith("__"):
        raise AttributeError(name)
    if importlib.util.find_spec(f"estimator_lib.{name}") is not None:
        return importlib.import_module(f"estimator_lib.{name}")
    api = importlib.import_module("estimator_lib._api")
    for key, value in vars(api).items():
        if not key.startswith("_"):
            setattr(package, key, value)
    try:
        return getattr(api, name)
    except AttributeError:
        raise AttributeError(f"module 'estimator_lib' has no attribute {name!r}") from None
