"""The hook `python -m estimator_lib.compat --enable` leaves in an environment.

The environment's `estimator_lib_activation.pth` puts a stub finder on sys.meta_path
at every Python start; the first import of `tensorflow`, `tensorflow_estimator` or
`estimator_lib` loads this file, by path and under the name `_estimator_lib_activation`
(never through the `estimator_lib` package, which would load TensorFlow), and the stub
hands that import to `ActivationFinder` here (`estimator_lib.legacy.activation` writes
the stub). It imports nothing but the standard library. A process that never imports
one of those names pays the stub's definition (~0.4 ms) and nothing more.

- `import tensorflow` (first, anywhere: a program, pytest, a notebook, a worker):
  TF_USE_LEGACY_KERAS=1 is set if the environment does not set it (estimator_lib's
  graph-mode Estimators need Keras 2 in `tf.keras`), TensorFlow loads as usual, and
  once its import has finished `estimator_lib.compat.install()` runs: `tf.estimator`,
  `tf.compat.v1.estimator`, `tensorflow_estimator.*` ... resolve to estimator_lib.
- `import tensorflow_estimator` (before TensorFlow): does the above, then answers
  with the module `install()` registered.
- `import estimator_lib`, when the package's own import is what loads TensorFlow:
  `install()` waits until the package has finished loading.

When TensorFlow is first imported from inside another estimator_lib module (the
package's binaries, `python -m estimator_lib.run`, which installs by itself), nothing
is installed. The finder removes itself once its work is done. A failure of
`install()` leaves `import tensorflow` working and prints one line to stderr naming
the error and the command that turns the hook off.
"""

import _thread
import os
import sys

MODULE_NAME = "_estimator_lib_activation"
DISABLE_COMMAND = "python -m estimator_lib.compat --disable"
LEGACY_KERAS_VARIABLE = "TF_USE_LEGACY_KERAS"

_TENSORFLOW = "tensorflow"
_ESTIMATOR_PACKAGE = "tensorflow_estimator"
_LIBRARY = "estimator_lib"


class _State:
    """What this process's hook has done (read by `--status` and the tests)."""

    def __init__(self):
        self.lock = _thread.RLock()
        self.busy_threads = set()
        self.installed = False
        self.error = None  # the message printed when install() failed

    @property
    def busy(self) -> bool:
        """This thread is searching for a spec, or installing: answer nothing."""
        return _thread.get_ident() in self.busy_threads

    @busy.setter
    def busy(self, value: bool) -> None:
        if value:
            self.busy_threads.add(_thread.get_ident())
        else:
            self.busy_threads.discard(_thread.get_ident())


STATE = _State()


def _initializing(name: str) -> bool:
    spec = getattr(sys.modules.get(name), "__spec__", None)
    return bool(getattr(spec, "_initializing", False))


def _library_initializing() -> bool:
    """True while a module of the estimator_lib package is still being imported."""
    return any(_initializing(name) for name in list(sys.modules)
               if name == _LIBRARY or name.startswith(_LIBRARY + "."))


class _AfterExec:
    """A module's own loader, plus a call once the module has been executed."""

    def __init__(self, loader, after):
        self._loader = loader
        self._after = after

    def __getattr__(self, name):
        return getattr(self._loader, name)

    def create_module(self, spec):
        create = getattr(self._loader, "create_module", None)
        return create(spec) if create is not None else None

    def exec_module(self, module):
        try:
            self._loader.exec_module(module)
        finally:
            # The module keeps its own loader (importlib.resources, inspect read it).
            module.__loader__ = self._loader
            spec = getattr(module, "__spec__", None)
            if spec is not None and spec.loader is self:
                spec.loader = self._loader
        self._after()


class _EstimatorPackageLoader:
    """`import tensorflow_estimator` before TensorFlow: activates, then answers with
    the module `install()` registered (the import system returns what sys.modules
    holds after exec_module)."""

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        sys.modules.pop(_ESTIMATOR_PACKAGE, None)  # install() must see it absent
        __import__(_TENSORFLOW)
        if not STATE.installed:
            _activate()
        if _ESTIMATOR_PACKAGE not in sys.modules:
            raise ImportError(
                f"estimator_lib's activation could not provide {_ESTIMATOR_PACKAGE}: "
                f"{STATE.error or 'estimator_lib.compat.install() did not run'}.",
                name=_ESTIMATOR_PACKAGE)


class ActivationFinder:
    """First on sys.meta_path: waits for tensorflow, tensorflow_estimator, estimator_lib."""

    def find_spec(self, fullname, path=None, target=None):
        """Finds the spec of TensorFlow, tensorflow_estimator or estimator_lib, wrapped
        to activate after it loads.

        Args:
            fullname: The module's full name.
            path: The parent package's path, or None.
            target: The module being reloaded, or None.

        Returns:
            A `ModuleSpec`, or None for other modules (the next finder is asked).
        """
        if fullname not in (_TENSORFLOW, _ESTIMATOR_PACKAGE, _LIBRARY) or STATE.busy:
            return None
        if fullname == _ESTIMATOR_PACKAGE:
            import importlib.machinery  # pylint: disable=import-outside-toplevel
            return importlib.machinery.ModuleSpec(
                fullname, _EstimatorPackageLoader(), is_package=True)
        if fullname == _TENSORFLOW:
            # Before TensorFlow loads: tf.keras resolves from it on first use.
            os.environ.setdefault(LEGACY_KERAS_VARIABLE, "1")
        spec = self._others_spec(fullname, path, target)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        after = _after_tensorflow if fullname == _TENSORFLOW else _after_library
        spec.loader = _AfterExec(spec.loader, after)
        return spec

    def _others_spec(self, fullname, path, target):
        with STATE.lock:
            STATE.busy = True
            try:
                for finder in list(sys.meta_path):
                    find = getattr(finder, "find_spec", None)
                    if finder is self or find is None:
                        continue
                    spec = find(fullname, path, target)
                    if spec is not None:
                        return spec
                return None
            finally:
                STATE.busy = False


def _after_tensorflow():
    if _initializing(_LIBRARY):
        return  # estimator_lib's own import loaded TensorFlow: install after it (below)
    if _library_initializing():
        remove()  # an estimator_lib entry point: it installs what it needs itself
        return
    _activate()


def _after_library():
    if _TENSORFLOW in sys.modules and not _initializing(_TENSORFLOW):
        _activate()


def _activate():
    """Runs compat.install() once; a failure is reported, not raised."""
    with STATE.lock:
        if STATE.installed or STATE.busy:
            return
        STATE.busy = True
        try:
            # compat.install() is this function (compat.py, the api layer above, re-exports it).
            from estimator_lib.legacy import aliases  # pylint: disable=import-outside-toplevel
            aliases.install()
            STATE.installed = True
        except Exception as error:  # pylint: disable=broad-except
            STATE.error = f"{type(error).__name__}: {error}"
            sys.stderr.write(
                "estimator_lib activation: TensorFlow loaded, but tf.estimator could "
                f"not be installed ({STATE.error}). Turn the activation off with "
                f"`{DISABLE_COMMAND}`.\n")
        finally:
            STATE.busy = False
            remove()


def finders():
    """This hook's finders now on sys.meta_path."""
    return [f for f in sys.meta_path if type(f).__name__ == ActivationFinder.__name__
            and type(f).__module__ == MODULE_NAME]


def remove():
    """Takes the finder off sys.meta_path (once its work is done)."""
    for finder in finders():
        try:
            sys.meta_path.remove(finder)
        except ValueError:  # another thread removed it first
            pass


def watch():
    """Puts the finder first on sys.meta_path, unless TensorFlow is already loaded."""
    if _TENSORFLOW not in sys.modules and not finders():
        sys.meta_path.insert(0, ActivationFinder())
