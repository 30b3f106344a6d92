"""Runs an unmodified legacy tf.estimator program on TensorFlow 2.16+.

    python -m estimator_lib.run SCRIPT [ARGS...]
    python -m estimator_lib.run -m PACKAGE.MODULE [ARGS...]

Keeps `tf.keras` on Keras 2 (TF_USE_LEGACY_KERAS=1, before anything resolves
it), installs the legacy import surfaces (estimator_lib.compat.install), then
runs SCRIPT as `__main__` with `sys.argv == [SCRIPT, *ARGS]` and the script's
directory first on `sys.path` — as `python SCRIPT ARGS...` would; `-m MODULE`
runs a module (a package's `__main__`, relative imports and all) with the current
directory first on `sys.path` and `sys.argv[0]` its file, as `python -m MODULE`
would. absl `app.run` scripts parse their flags from those arguments. The exit
status is the script's: 0 when it ends, its `sys.exit` code, 1 on an uncaught
exception.

TensorFlow is loaded first without its C++ start-up lines (core/quiet_start.py:
TF_CPP_MIN_LOG_LEVEL=2 for this process unless the environment sets it); the
program's own output and logging, TensorFlow's Python logging included, are
untouched.
"""

import importlib.util
import os
import runpy
import sys
from typing import Optional, Sequence

from estimator_lib.core import keras_switch as _keras_switch
from estimator_lib.core import quiet_start

USAGE = ("usage: python -m estimator_lib.run SCRIPT [ARGS...]\n"
         "       python -m estimator_lib.run -m MODULE [ARGS...]")
_USAGE_ERROR = 2


def _fail(message: str) -> int:
    print(f"estimator_lib.run: {message}\n{USAGE}", file=sys.stderr)
    return _USAGE_ERROR


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs the script named in `argv[1]` with `argv[2:]`; returns its exit status.

    A `SystemExit` from the script propagates, so `python -m` exits with its code.
    `sys.argv` and `sys.path[0]` are restored afterwards.

    Args:
        argv: This program's argv (default `sys.argv`): [program, SCRIPT, ARGS...].

    Returns:
        0 when the script ends normally; 2 with a usage line on stderr when no script
        is given or it does not exist.
    """
    argv = list(sys.argv if argv is None else argv)
    if len(argv) < 2:
        return _fail("no script given.")
    script = argv[1]
    if script in ("-h", "--help"):
        print(__doc__.strip().splitlines()[0], USAGE, sep="\n")
        return 0
    module = None
    if script == "-m":
        if len(argv) < 3:
            return _fail("-m needs a module name.")
        module, args, first_path = argv[2], argv[3:], os.getcwd()
    elif not os.path.isfile(script):
        return _fail(f"cannot find script {script!r}.")
    else:
        args, first_path = argv[2:], os.path.dirname(os.path.abspath(script))
    saved_argv, saved_path0 = sys.argv, (sys.path[0] if sys.path else None)
    if sys.path:
        sys.path[0] = first_path
    else:
        sys.path.insert(0, first_path)
    try:
        if module is not None:
            origin = _module_origin(module)
            if origin is None:
                return _fail(f"no module named {module!r} (looked under {first_path} and "
                             "sys.path).")
        # The package set it when first imported, unless the caller set it otherwise; a
        # legacy program needs Keras 2, and tf.keras is resolved on first use.
        _keras_switch.use_keras2()
        quiet_start.load_tensorflow()
        from estimator_lib.legacy import aliases  # pylint: disable=import-outside-toplevel
        aliases.install()
        if module is None:
            sys.argv = [script] + args
            runpy.run_path(script, run_name="__main__")
        else:
            sys.argv = [origin] + args
            runpy.run_module(module, run_name="__main__", alter_sys=True)
    finally:
        sys.argv = saved_argv
        if saved_path0 is not None and sys.path and sys.path[0] == first_path:
            sys.path[0] = saved_path0
    return 0


def _module_origin(name: str):
    """The file `python -m name` would run (a package's __main__.py), or None."""
    try:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations is not None:
            spec = importlib.util.find_spec(f"{name}.__main__")
    except (ImportError, ValueError):
        return None
    return spec.origin if spec is not None else None


if __name__ == "__main__":
    sys.exit(main())
