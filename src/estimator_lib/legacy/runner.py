"""Runs an unmodified legacy tf.estimator program on TensorFlow 2.16+.

    python -m estimator_lib.run SCRIPT [ARGS...]

Keeps `tf.keras` on Keras 2 (TF_USE_LEGACY_KERAS=1, before anything resolves
it), installs the legacy import surfaces (estimator_lib.compat.install), then
runs SCRIPT as `__main__` with `sys.argv == [SCRIPT, *ARGS]` and the script's
directory first on `sys.path` — as `python SCRIPT ARGS...` would. absl
`app.run` scripts parse their flags from those arguments. The exit status is
the script's: 0 when it ends, its `sys.exit` code, 1 on an uncaught exception.
"""

import os
import runpy
import sys
from typing import Optional, Sequence

from estimator_lib.core import keras_switch as _keras_switch

USAGE = "usage: python -m estimator_lib.run SCRIPT [ARGS...]"
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
    if not os.path.isfile(script):
        return _fail(f"cannot find script {script!r}.")
    # The package set it when first imported, unless the caller set it otherwise; a
    # legacy program needs Keras 2, and tf.keras is resolved on first use.
    _keras_switch.use_keras2()
    from estimator_lib.legacy import aliases  # pylint: disable=import-outside-toplevel
    aliases.install()
    saved_argv, saved_path0 = sys.argv, (sys.path[0] if sys.path else None)
    sys.argv = [script] + argv[2:]
    script_dir = os.path.dirname(os.path.abspath(script))
    if sys.path:
        sys.path[0] = script_dir
    else:
        sys.path.insert(0, script_dir)
    try:
        runpy.run_path(script, run_name="__main__")
    finally:
        sys.argv = saved_argv
        if saved_path0 is not None and sys.path and sys.path[0] == script_dir:
            sys.path[0] = saved_path0
    return 0


if __name__ == "__main__":
    sys.exit(main())
