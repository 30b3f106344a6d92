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


class QuietStartTest(unittest.TestCase):

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
