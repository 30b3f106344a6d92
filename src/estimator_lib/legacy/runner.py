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
exception. estimator_lib's own outcomes end the program as they end the binaries:
training stopped by SIGTERM prints `estimator_lib.run: Training stopped by SIGTERM:
checkpoint at step N written in ...; exiting with status 143.` (exit 143; Ctrl-C left
uncaught: 130), and a user error of estimator_lib's (a model_dir in use, bad data;
core/user_errors.py) is one line and exit 1, its traceback only when the program's
arguments hold --verbosity=1. An exception of the program's own keeps its traceback.

TensorFlow is loaded first without its C++ start-up lines (core/quiet_start.py:
TF_CPP_MIN_LOG_LEVEL=2 for this process unless the environment sets it); the
program's own output and logging, TensorFlow's Python logging included, are
untouched.
"""

import importlib.util
import os
import runpy
import sys
import traceback
from typing import Callable, Optional, Sequence

from estimator_lib.core import keras_switch as _keras_switch
from estimator_lib.core import quiet_start
from estimator_lib.core import user_errors

USAGE = ("usage: python -m estimator_lib.run SCRIPT [ARGS...]\n"
         "       python -m estimator_lib.run -m MODULE [ARGS...]")
_USAGE_ERROR = 2
_USER_ERROR = 1
_PROGRAM = "estimator_lib.run"


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
            _run_reporting(lambda: runpy.run_path(script, run_name="__main__"), args)
        else:
            sys.argv = [origin] + args
            _run_reporting(
                lambda: runpy.run_module(module, run_name="__main__", alter_sys=True), args)
    finally:
        sys.argv = saved_argv
        if saved_path0 is not None and sys.path and sys.path[0] == first_path:
            sys.path[0] = saved_path0
    return 0


def _verbose(args: Sequence[str]) -> bool:
    """Whether the program's arguments ask absl for --verbosity (or -v) of 1 or more."""
    for i, arg in enumerate(args):
        name, _, value = arg.partition("=")
        if name in ("--verbosity", "-v"):
            if not value and i + 1 < len(args):
                value = args[i + 1]
            try:
                return int(value) >= 1
            except ValueError:
                return False
    return False


def _run_reporting(run: Callable[[], object], args: Sequence[str]) -> None:
    """Runs the program; estimator_lib's own outcomes end it as the binaries end.

    Training stopped by SIGTERM (`Preempted`) or an uncaught Ctrl-C after its
    checkpoint (`Interrupted`): the one line bin.train prints, exit 143 or 130. A
    user error of estimator_lib's (core/user_errors.py: a model_dir in use, bad
    data): one line and exit 1, the traceback only under --verbosity=1. Any other
    exception, the program's own included, propagates with its traceback.
    """
    try:
        run()
    except BaseException as error:  # pylint: disable=broad-except
        stopped = user_errors.loaded([user_errors.PREEMPTED, user_errors.INTERRUPTED])
        if isinstance(error, stopped):
            sys.stdout.flush()
            print(f"{_PROGRAM}: {error}", file=sys.stderr, flush=True)
            sys.exit(error.code)
        if not isinstance(error, user_errors.loaded(user_errors.USER_ERRORS)):
            raise
        if _verbose(args):
            traceback.print_exc()
        sys.stdout.flush()
        print(f"{_PROGRAM}: error: {user_errors.one_line(error)} (--verbosity=1 shows the "
              "traceback)", file=sys.stderr, flush=True)
        sys.exit(_USER_ERROR)


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
