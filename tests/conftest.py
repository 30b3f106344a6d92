"""Process-wide test set-up: Keras 2 for tf.keras, and two logical CPU devices.

Logical devices can be configured once per process, before TensorFlow
initialises its runtime, so it happens here, at collection time: in each of
pytest-xdist's worker processes (setup.cfg's `-n 2`), or in pytest's own with `-n 0`.

`pytest --quick` runs the representative subset listed in tests/quick.txt (what CI
runs on TensorFlow 2.16 and on Python 3.13, and tools/test_tf_versions.sh on every
TensorFlow 2.16-2.21 and the nightly).
"""

import os
import sys
import tempfile

import pytest

NUM_LOGICAL_CPUS = 2


def _start_tensorflow():
    import estimator_lib  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
    import tensorflow as tf  # pylint: disable=import-outside-toplevel  (after estimator_lib)
    tf.config.list_physical_devices("GPU")  # Where cuInit runs (and fails without a GPU).
    cpus = tf.config.list_physical_devices("CPU")
    tf.config.set_logical_device_configuration(
        cpus[0], [tf.config.LogicalDeviceConfiguration()] * NUM_LOGICAL_CPUS)


# TensorFlow's C++ start-up lines (and a failed cuInit without a GPU) are hidden as the
# binaries hide them (core/quiet_start.py): pytest's own process starts TensorFlow under
# pytest's capture, but an xdist worker's lines would reach the terminal after the
# summary. stderr (fd 2) is captured while TensorFlow starts, and passed on without them.
sys.stderr.flush()
_saved_stderr = os.dup(2)
with tempfile.TemporaryFile() as _captured:
    os.dup2(_captured.fileno(), 2)
    try:
        _start_tensorflow()
    finally:
        os.dup2(_saved_stderr, 2)
        os.close(_saved_stderr)
        _captured.seek(0)
        from estimator_lib.core import quiet_start  # pylint: disable=wrong-import-position
        quiet_start.write_without_noise(
            _captured.read().decode(errors="replace"),
            gpu_expected=quiet_start.nvidia_devices_present())


_QUICK_LIST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "quick.txt")


def quick_entries(path=_QUICK_LIST):
    """tests/quick.txt's node ids (a file, or file::Class[::test]), comments dropped."""
    with open(path) as f:
        lines = (line.split("#", 1)[0].strip() for line in f)
        return [line for line in lines if line]


def pytest_addoption(parser):
    parser.addoption("--quick", action="store_true", default=False,
                     help="run only the representative subset in tests/quick.txt "
                          "(~5 min on 2 cores)")


def pytest_ignore_collect(collection_path, config):
    """Under --quick, files the subset does not name are not even imported."""
    if not config.getoption("--quick") or collection_path.suffix != ".py":
        return None
    root = str(config.rootpath)
    relative = os.path.relpath(str(collection_path), root).replace(os.sep, "/")
    if not relative.endswith("_test.py"):
        return None
    files = {entry.split("::", 1)[0] for entry in quick_entries()}
    return None if relative in files else True


def pytest_collection_modifyitems(config, items):
    """Drops tf.test.TestCase's inherited `test_session` (a context manager, not a test),
    and under --quick keeps only the subset (an entry that selects nothing is an error)."""
    items[:] = [item for item in items if item.name != "test_session"]
    if not config.getoption("--quick"):
        return
    entries = quick_entries()
    kept = [item for item in items
            if any(item.nodeid == e or item.nodeid.startswith(e + "::") for e in entries)]
    empty = [e for e in entries
             if not any(item.nodeid == e or item.nodeid.startswith(e + "::") for item in kept)]
    if empty:
        raise pytest.UsageError(f"tests/quick.txt names what selects no test: {empty}")
    kept_ids = {item.nodeid for item in kept}
    config.hook.pytest_deselected(items=[item for item in items if item.nodeid not in kept_ids])
    items[:] = kept
