"""core/quiet_start.py and the TF_CPP_MIN_LOG_LEVEL rules of core/environment.py.

The start-up filtering itself runs in real processes (tests/estimator_lib/bin/
first_hour_quiet_test.py, legacy/runner_test.py); here, which lines it drops.
"""

import os
import unittest
from unittest import mock

from estimator_lib.core import environment
from estimator_lib.core import quiet_start

_CUINIT = ("E0000 00:00:1795658448.092569   26216 cuda_platform.cc:52] failed call to "
           "cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)")


# TF 2.16-2.20's own timestamped format (this one: 2.18.1).
_CUINIT_TIMESTAMPED = (
    "2026-12-02 05:18:39.877407: E external/local_xla/xla/stream_executor/cuda/"
    "cuda_driver.cc:152] failed call to cuInit: INTERNAL: CUDA error: Failed call to "
    "cuInit: UNKNOWN ERROR (303)")
# Written by TF 2.16-2.18 on every machine, TF_CPP_MIN_LOG_LEVEL=2 or not (2.16.2, 2.18.1).
_FACTORY_LINES = (
    "2026-12-02 05:18:03.133440: E external/local_xla/xla/stream_executor/cuda/"
    "cuda_fft.cc:479] Unable to register cuFFT factory: Attempting to register factory "
    "for plugin cuFFT when one has already been registered",
    "2026-12-02 05:18:03.187149: E external/local_xla/xla/stream_executor/cuda/"
    "cuda_dnn.cc:10575] Unable to register cuDNN factory: Attempting to register factory "
    "for plugin cuDNN when one has already been registered",
    "E0000 00:00:1796188708.841915   31478 cuda_blas.cc:1418] Unable to register cuBLAS "
    "factory: Attempting to register factory for plugin cuBLAS when one has already been "
    "registered")

# tf-nightly 2.23.0.dev20261026 on a machine without a GPU: the cuInit line and the
# source locations of its status.
_CUINIT_WITH_TRACE = (
    "E0000 00:00:1796207659.045909   20038 cuda_platform.cc:57] failed call to cuInit: "
    "INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)\n"
    "=== Source Location Trace: ===\n"
    "external/xla/xla/stream_executor/cuda/cuda_status.cc:50\n"
    "\n")


class QuietStartTest(unittest.TestCase):

    def test_the_nightlys_cuinit_trace_goes_with_its_line(self):
        text = ("I0000 00:00:1.0   1 port.cc:153] oneDNN custom operations are on.\n"
                + _CUINIT_WITH_TRACE + "my program's line\n\nits next line\n")
        program = ["my program's line", "", "its next line"]
        self.assertEqual(program, quiet_start.without_noise(text, gpu_expected=False))
        # Where NVIDIA devices exist the cuInit line is kept, and its trace with it.
        self.assertEqual(_CUINIT_WITH_TRACE.splitlines() + program,
                         quiet_start.without_noise(text, gpu_expected=True))

    def test_a_trace_after_a_kept_line_is_kept(self):
        trace = _CUINIT_WITH_TRACE.split("\n", 1)[1]
        text = ("E0000 00:00:1.0   1 some_op.cc:9] a real failure\n" + trace
                + "I0000 00:00:1.0   1 x.cc:1] start-up info after it\n")
        self.assertEqual(["E0000 00:00:1.0   1 some_op.cc:9] a real failure",
                          "=== Source Location Trace: ===",
                          "external/xla/xla/stream_executor/cuda/cuda_status.cc:50", ""],
                         quiet_start.without_noise(text, gpu_expected=False))

    def test_the_start_up_lines_of_tf_2_16_to_2_20_are_noise(self):
        for line in _FACTORY_LINES + (
                "2026-12-02 05:09:27.826409: I tensorflow/core/util/port.cc:113] oneDNN "
                "custom operations are on.",
                "2026-12-02 05:09:31.297924: W tensorflow/compiler/tf2tensorrt/utils/"
                "py_utils.cc:38] TF-TRT Warning: Could not find TensorRT"):
            self.assertTrue(quiet_start.is_start_up_noise(line, gpu_expected=True), line)
        self.assertTrue(quiet_start.is_start_up_noise(_CUINIT_TIMESTAMPED, gpu_expected=False))
        self.assertFalse(quiet_start.is_start_up_noise(_CUINIT_TIMESTAMPED, gpu_expected=True))
        self.assertFalse(quiet_start.is_start_up_noise(
            "2026-12-02 05:18:03.133440: E some_op.cc:9] a real failure", gpu_expected=False))

    def test_start_up_lines_are_noise(self):
        for line in (
                "WARNING: All log messages before absl::InitializeLog() is called are "
                "written to STDERR",
                "I0000 00:00:1795658569.127887   28940 cudart_stub.cc:31] Could not find "
                "cuda drivers on your machine, GPU will not be used.",
                "To enable the following instructions: AVX2 FMA, in other operations, "
                "rebuild TensorFlow with the appropriate compiler flags."):
            self.assertTrue(quiet_start.is_start_up_noise(line, gpu_expected=True), line)

    def test_a_failed_cuinit_is_noise_only_without_nvidia_devices(self):
        self.assertTrue(quiet_start.is_start_up_noise(_CUINIT, gpu_expected=False))
        self.assertFalse(quiet_start.is_start_up_noise(_CUINIT, gpu_expected=True))

    def test_other_errors_and_the_users_lines_are_kept(self):
        for line in ("E0000 00:00:1.0   1 some_op.cc:9] a real failure",
                     "Traceback (most recent call last):", "my program's line"):
            self.assertFalse(quiet_start.is_start_up_noise(line, gpu_expected=False), line)

    def test_the_log_level_is_set_only_when_the_user_did_not(self):
        with mock.patch.dict(os.environ, {environment.TF_CPP_LOG_VARIABLE: "0"}):
            self.assertTrue(environment.tf_cpp_log_level_chosen())
            self.assertFalse(environment.default_tf_cpp_log_level("2"))
            self.assertEqual(os.environ[environment.TF_CPP_LOG_VARIABLE], "0")
        with mock.patch.dict(os.environ, {}):
            os.environ.pop(environment.TF_CPP_LOG_VARIABLE, None)
            self.assertFalse(environment.tf_cpp_log_level_chosen())
            self.assertTrue(environment.default_tf_cpp_log_level("2"))
            self.assertEqual(os.environ[environment.TF_CPP_LOG_VARIABLE], "2")


if __name__ == "__main__":
    unittest.main()
