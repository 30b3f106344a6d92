"""TensorFlow loaded by an entry point without its C++ start-up lines on stderr.

For the binaries and `python -m estimator_lib.run` only: a program that imports
estimator_lib gets TensorFlow exactly as TensorFlow starts. TF 2.21 logs its start-up
lines (`I0000 ... cudart_stub.cc ... Could not find cuda drivers`, the CPU-feature
note) through absl before absl's log is initialised, where TF_CPP_MIN_LOG_LEVEL does
not reach, and on a machine without a GPU the first device listing logs
`E0000 ... failed call to cuInit: ... CUDA error`. A user reads "ERROR" and "CUDA
error" before anything of theirs. TF 2.16-2.20 write some of those lines in their own
timestamped format (`2026-12-02 05:18:39.877407: E ...cuda_driver.cc:152] failed call
to cuInit`), and 2.16-2.18 add "Unable to register cuFFT/cuDNN/cuBLAS factory" errors
(a CUDA plugin registered twice, on every machine): hidden too. The nightly (2.23.0.dev)
follows its cuInit line with the error's source locations (`=== Source Location Trace:
===`, one `path/file.cc:50` a line, a blank line): hidden with the line they follow,
kept with a line that is kept. So `load_tensorflow`
imports TensorFlow and lists the GPUs with stderr (file descriptor 2) captured, then
passes on what was written less those lines. The cuInit line is kept where NVIDIA
device files exist (/dev/nvidia0...): there a failed cuInit is a real problem (a driver
that does not load).
"""

import glob
import importlib
import os
import re
import sys
import tempfile
from typing import List

from estimator_lib.core import environment

# TF_CPP_MIN_LOG_LEVEL set by an entry point: C++ warnings and info hidden, errors kept.
ENTRY_POINT_TF_CPP_LOG_LEVEL = "2"
# A C++ log line's start: absl's `E0000 00:00:1795658448.092569   26216 file.cc:52] `
# (2.18+), or TensorFlow's own `2026-12-02 05:18:03.133440: E path/file.cc:479] `
# (2.16-2.20); then the severity.
_TIMESTAMP = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: "
_START_UP_NOISE = re.compile(
    r"^(WARNING: All log messages before absl::InitializeLog\(\)|[IW]\d{4} "
    rf"|{_TIMESTAMP}[IW] "
    r"|To enable the following instructions:|.*rebuild TensorFlow with the appropriate"
    # 2.16-2.18: XLA's and TensorFlow's CUDA plugins both register, GPU or not.
    rf"|(E\d{{4}} |{_TIMESTAMP}E ).*Unable to register cu(FFT|DNN|BLAS) factory: "
    r"Attempting to register factory for plugin cu(FFT|DNN|BLAS) when one has already "
    r"been registered$)")
_NO_GPU_NOISE = re.compile(rf"^(E\d{{4}} |{_TIMESTAMP}E ).*failed call to cuInit")
# The source locations absl prints after a logged error's status (the nightly's cuInit).
_TRACE_START = "=== Source Location Trace: ==="
_TRACE_LOCATION = re.compile(r"^\S+:\d+$")


def nvidia_devices_present() -> bool:
    """Whether this machine has NVIDIA device files (/dev/nvidia0, ...); no TensorFlow."""
    return bool(glob.glob("/dev/nvidia[0-9]*"))


def is_start_up_noise(line: str, *, gpu_expected: bool) -> bool:
    """Whether `line` is one of TensorFlow's start-up lines filtered by `load_tensorflow`."""
    return bool(_START_UP_NOISE.match(line)
                or (not gpu_expected and _NO_GPU_NOISE.match(line)))


def without_noise(text: str, *, gpu_expected: bool) -> List[str]:
    """The lines of `text` (stderr captured while TensorFlow started) less the start-up
    lines, each with the source-location trace that follows it (module docstring)."""
    kept = []
    noise = in_trace = False  # Whether the last line outside a trace was dropped.
    for line in text.splitlines():
        if line.rstrip() == _TRACE_START:
            in_trace = True
        elif in_trace and _TRACE_LOCATION.match(line.rstrip()):
            pass
        elif in_trace and not line.strip():
            in_trace = False  # The blank line that ends the trace: part of it.
        else:
            in_trace = False
            noise = is_start_up_noise(line, gpu_expected=gpu_expected)
        if not noise:
            kept.append(line)
    return kept


def write_without_noise(text: str, *, gpu_expected: bool) -> None:
    """Writes `text` (stderr captured while TensorFlow started) to stderr, less the
    start-up lines (tests/conftest.py filters its xdist workers' start the same way)."""
    for line in without_noise(text, gpu_expected=gpu_expected):
        sys.stderr.write(line + "\n")
    sys.stderr.flush()


def load_tensorflow(*, verbose: bool = False) -> None:
    """Imports TensorFlow (Keras 2 first) and lists its GPUs, hiding the start-up lines.

    Does nothing but import when `verbose`, when TF_CPP_MIN_LOG_LEVEL is set by the user
    (they asked for TensorFlow's own lines) or when TensorFlow is already loaded.
    Otherwise sets TF_CPP_MIN_LOG_LEVEL=2 for this process (an entry point's choice,
    documented in docs/binaries.md) and filters stderr while TensorFlow starts. Listing
    the physical GPUs does not initialise the runtime: logical devices may still be set.

    Args:
        verbose: True to show every line TensorFlow writes (e.g. --verbosity=1).
    """
    importlib.import_module("estimator_lib.core.keras_switch")  # Before TensorFlow.
    if verbose or "tensorflow" in sys.modules or not environment.default_tf_cpp_log_level(
            ENTRY_POINT_TF_CPP_LOG_LEVEL):
        importlib.import_module("tensorflow")
        return
    gpu_expected = nvidia_devices_present()
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as captured:
        os.dup2(captured.fileno(), 2)
        try:
            tf = importlib.import_module("tensorflow")
            tf.config.list_physical_devices("GPU")  # Where cuInit runs (and fails).
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            captured.seek(0)
            write_without_noise(captured.read().decode(errors="replace"),
                                gpu_expected=gpu_expected)
