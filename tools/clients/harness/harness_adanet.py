"""pytest plugin for adanet's own tests, identical on both sides.

- The wheel lacks adanet/core/testing_utils.py, which they import; run.sh takes it from
  the repository at the release tag, and this adds its folder to the installed
  `adanet.core` package.
- Their setUp parses `flags.FLAGS(sys.argv)`, as run by `python x_test.py` (no flags);
  under pytest sys.argv holds pytest's own options, which absl rejects, so sys.argv is
  cut to the program name once pytest has read it.
- Its version gate `tf_compat.skip_for_tf2` (13 of the 15 tests) is forced open, so
  that those estimator tests run on TensorFlow 2 (before the test files import it).
- adanet 0.9.0's Estimator imports `graph_view` from `tensorflow.python.training.tracking`,
  which TensorFlow 2.11 moved to `tensorflow.python.checkpoint` (the same module, with
  the `ObjectGraphView.frozen_saveable_objects` adanet calls, on both 2.15 and 2.21):
  the old path is given the module (88 of adanet/core's 98 tests fail on the original
  without it).
"""

import os
import sys

import types

import adanet.core
from adanet import tf_compat
from tensorflow.python.checkpoint import graph_view

if "tensorflow.python.training.tracking" not in sys.modules:
    _tracking = types.ModuleType("tensorflow.python.training.tracking")
    _tracking.graph_view = graph_view
    sys.modules["tensorflow.python.training.tracking"] = _tracking
    sys.modules["tensorflow.python.training.tracking.graph_view"] = graph_view

adanet.core.__path__.append(os.environ["ADANET_TESTING_UTILS_DIR"])
tf_compat.skip_for_tf2 = lambda test: test


def pytest_configure(config):
    del config
    del sys.argv[1:]
