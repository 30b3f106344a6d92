"""pytest plugin for DeepCTR 0.9.4's estimator tests, identical on both sides: its
version gate `tests.utils.TEST_Estimator` (True only for TensorFlow 2.2-2.5) is forced
open before the test files import it, so that the estimator tests run instead of
returning at once."""

import tests.utils  # run.sh's folder: DeepCTR's tests/ package, from the release tag

tests.utils.TEST_Estimator = True
