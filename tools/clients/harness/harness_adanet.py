"""pytest plugin for adanet's own tests: the wheel lacks adanet/core/testing_utils.py,
which they import; run.sh takes it from the repository at the release tag, and this
adds its folder to the installed `adanet.core` package. Nothing else changes."""

import os

import adanet.core

adanet.core.__path__.append(os.environ["ADANET_TESTING_UTILS_DIR"])
