"""`python -m estimator_lib.compat --enable | --disable | --status`.

Turns on, for one Python environment, what `compat.install()` does in one process:
with it on, `tf.estimator`, `tf.compat.v1.estimator`, `tensorflow_estimator.*` ...
resolve to estimator_lib whenever TensorFlow is first imported there (a program,
`python -m pytest`, a notebook, a multiprocessing child), with no change to the code.

`--enable` writes one file, `estimator_lib_activation.pth`, into the environment's
site-packages (sysconfig's purelib: the active virtual environment's). Its one line
puts a stub finder on sys.meta_path at every Python start; on the first import of
tensorflow, tensorflow_estimator or estimator_lib it loads `activation_hook.py`
(standard library only), which waits for TensorFlow's import (see that module). `--disable` deletes the file.
`--status` says whether it is on, where the file is, and whether a fresh interpreter
of this environment gets tf.estimator from estimator_lib.
"""

import argparse
import difflib
import json
import os
import subprocess
import sys
import sysconfig
from typing import Optional, Sequence

from estimator_lib.legacy import activation_hook

PTH_NAME = "estimator_lib_activation.pth"
HOOK_PATH = os.path.abspath(activation_hook.__file__)

# What a fresh interpreter of the environment reports (`--status`).
_CHECK = """\
import json, os, sys
import tensorflow as tf
hook = sys.modules.get("_estimator_lib_activation")
estimator = getattr(tf, "estimator", None)
try:
    import tensorflow_estimator
    estimator_package = tensorflow_estimator.__name__
except ImportError as error:
    estimator_package = repr(error)
print(json.dumps({
    "hook_loaded": hook is not None,
    "hook_error": getattr(getattr(hook, "STATE", None), "error", None),
    "tf_version": tf.__version__,
    "tf_estimator": getattr(estimator, "__name__", None),
    "tf_estimator_class": getattr(getattr(estimator, "Estimator", None), "__module__", None),
    "tensorflow_estimator": estimator_package,
    "legacy_keras": os.environ.get("TF_USE_LEGACY_KERAS"),
}))
"""


def site_packages() -> str:
    """The environment's site-packages (purelib) of the running interpreter."""
    return sysconfig.get_path("purelib")


def pth_path(site_dir: Optional[str] = None) -> str:
    """Where the activation file goes: `estimator_lib_activation.pth` in a site-packages.

    Args:
        site_dir: The site-packages folder; None for this interpreter's
            (`site_packages()`).

    Returns:
        The file's path (whether or not it exists).
    """
    return os.path.join(site_dir or site_packages(), PTH_NAME)


# The .pth file's code, run at every Python start: a stub finder, first on sys.meta_path,
# that answers None at once for every name but three, and on the first import of one of
# those loads the hook (activation_hook.py, by path: not through the package, which
# would load TensorFlow) and hands the import to it. Compiling the hook at every start
# would cost ~1-20 ms where bytecode is not cached; the stub costs ~0.4 ms.
_STUB = """\
class EstimatorLibActivationStub:
    def find_spec(self, name, path=None, target=None):
        if name not in ("tensorflow", "tensorflow_estimator", "estimator_lib"):
            return None
        import sys
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        try:
            import importlib.machinery
            module = sys.modules.setdefault({module!r}, type(sys)({module!r}))
            module.__file__ = {hook!r}
            importlib.machinery.SourceFileLoader({module!r}, {hook!r}).exec_module(module)
            module.watch()
            finders = module.finders()
        except Exception as error:
            sys.stderr.write("estimator_lib activation: cannot load " + {hook!r} + " ("
                             + repr(error) + "); estimator_lib moved or uninstalled? "
                             + "Delete " + {pth!r} + ", or run `python -m "
                             + "estimator_lib.compat --enable` again.\\n")
            return None
        return finders[0].find_spec(name, path, target) if finders else None
if not any(type(f).__name__ == "EstimatorLibActivationStub"
           for f in __import__("sys").meta_path):
    __import__("sys").meta_path.insert(0, EstimatorLibActivationStub())
"""


def pth_line(hook_path: str = HOOK_PATH, pth: str = PTH_NAME) -> str:
    """The .pth file's one line (site runs lines that start with `import`)."""
    source = _STUB.format(module=activation_hook.MODULE_NAME, hook=hook_path, pth=pth)
    return f"import sys; exec({source!r})\n"


def enable(site_dir: Optional[str] = None) -> str:
    """Writes the .pth file (again, if present); returns its path."""
    path = pth_path(site_dir)
    if not os.access(os.path.dirname(path), os.W_OK):
        raise PermissionError(
            f"Cannot write {path}: this environment's site-packages is not writable. "
            "Run it with a virtual environment's python (`VENV/bin/python -m "
            "estimator_lib.compat --enable`), or as its owner.")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(pth_line(pth=path))
    os.replace(tmp, path)
    return path


def disable(site_dir: Optional[str] = None) -> bool:
    """Deletes the .pth file; True if there was one."""
    path = pth_path(site_dir)
    if not os.path.exists(path):
        return False
    os.remove(path)
    return True


def check(python: str = sys.executable) -> dict:
    """Runs a fresh interpreter of the environment and reports what it sees."""
    result = subprocess.run([python, "-c", _CHECK], capture_output=True, text=True,
                            timeout=600, check=False)
    lines = result.stdout.strip().splitlines()
    if result.returncode != 0 or not lines:
        return {"failed": (result.stderr.strip().splitlines() or ["no output"])[-1]}
    return json.loads(lines[-1])


def works(report: dict) -> bool:
    """Whether a `check()` report shows activation working.

    Args:
        report: The dict `check()` returned.

    Returns:
        True when the hook loaded without error and `tf.estimator.Estimator` comes
        from estimator_lib.
    """
    return (report.get("hook_loaded") is True and not report.get("hook_error")
            and (report.get("tf_estimator_class") or "").startswith("estimator_lib"))


def status(site_dir: Optional[str] = None) -> int:
    """Prints the state; 0 when off, or on and working; 1 when on and not working."""
    path = pth_path(site_dir)
    if not os.path.exists(path):
        print(f"estimator_lib activation: off ({path} absent).\n"
              "Turn it on with `python -m estimator_lib.compat --enable`.")
        return 0
    with open(path) as f:
        current = f.read() == pth_line(pth=path)
    print(f"estimator_lib activation: on\n  .pth file: {path}\n  hook:      {HOOK_PATH}"
          + ("" if current else "\n  (the file names another hook or an older line: "
             "run --enable again to point it here)"))
    report = check()
    ok = works(report)
    print(f"  check:     {'works' if ok else 'NOT working'}: a fresh interpreter's "
          f"`import tensorflow` gave {json.dumps(report)}")
    if not ok:
        print("  Turn it off with `python -m estimator_lib.compat --disable`.")
    return 0 if ok else 1


def _refuse_misspelt_options(parser: argparse.ArgumentParser, argv: Sequence[str],
                             known: Sequence[str]) -> None:
    """Exits (status 2) naming the option meant, for an option close to one of `known`."""
    for arg in argv:
        option = arg.split("=", 1)[0]
        if option.startswith("--") and option not in known:
            close = difflib.get_close_matches(option, known, n=1)
            if close:
                parser.error(f"unrecognized argument {option}: did you mean {close[0]}?")


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The command line: `--enable`, `--disable` or `--status` (exactly one).

    Args:
        argv: The arguments after the program name; None reads `sys.argv`.

    Returns:
        The exit status: 0 on success; 1 when `--enable` may not write the file, or
        `--status` finds it on and not working.
    """
    parser = argparse.ArgumentParser(
        prog="python -m estimator_lib.compat",
        description="Activate estimator_lib's tf.estimator for this Python environment, "
                    "without changing any code: TensorFlow's first import then installs "
                    "tf.estimator, tf.compat.v1.estimator and tensorflow_estimator.")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--enable", action="store_true",
                       help=f"write {PTH_NAME} into this environment's site-packages")
    group.add_argument("--disable", action="store_true", help=f"delete {PTH_NAME}")
    group.add_argument("--status", action="store_true",
                       help="say whether it is on, where, and whether it works")
    _refuse_misspelt_options(parser, sys.argv[1:] if argv is None else argv,
                             ("--enable", "--disable", "--status", "--help"))
    args = parser.parse_args(argv)
    if args.enable:
        try:
            path = enable()
        except PermissionError as error:
            print(f"estimator_lib.compat: {error}", file=sys.stderr)
            return 1
        print(f"estimator_lib activation: on for {sys.prefix}\n  wrote {path}\n"
              "  TensorFlow's first import in this environment now installs tf.estimator "
              "(and sets TF_USE_LEGACY_KERAS=1 if unset).\n"
              "  Check: python -m estimator_lib.compat --status; "
              "undo: python -m estimator_lib.compat --disable")
        return 0
    if args.disable:
        removed = disable()
        print(f"estimator_lib activation: off for {sys.prefix} "
              f"({'deleted' if removed else 'there was no'} {pth_path()})")
        return 0
    return status()
