"""TensorFlow's and tf_keras' versions: read, compared by minor release, checked to match.

tf_keras X.Y is built against TensorFlow X.Y's internals, and pip cannot say "the
tf-keras of tensorflow's minor" (setup.cfg allows each in 2.16-2.21), so `check()` of
tf_internals/registry.py refuses a pair of different minors when the API loads.
"""

import importlib
import re
from typing import Tuple


def minor(version: str) -> Tuple[int, int]:
    """Returns (major, minor) of a version string: "2.18.1", "2.23.0-dev20261026" alike.

    Raises:
        ValueError: If `version` does not start with `major.minor`.
    """
    found = re.match(r"(\d+)\.(\d+)", version)
    if not found:
        raise ValueError(f"Expected a version like '2.18.1'. Received: {version!r}.")
    return int(found.group(1)), int(found.group(2))


def tensorflow_version() -> str:
    """Returns the running TensorFlow's version string (imports TensorFlow)."""
    return importlib.import_module("tensorflow").__version__


def tf_keras_version() -> str:
    """Returns tf_keras' version string, or "?" where it does not say (imports it)."""
    try:
        return importlib.import_module("tf_keras").__version__
    except (ImportError, AttributeError):
        return "?"


def check_keras_matches(tensorflow: str, tf_keras: str) -> None:
    """Raises ImportError, in one line, unless `tensorflow` and `tf_keras` (versions)
    share their minor version ("?": tf_keras' version unknown, not checked)."""
    if tf_keras == "?" or minor(tensorflow) == minor(tf_keras):
        return
    major, minor_version = minor(tensorflow)
    raise ImportError(
        f"estimator_lib needs the tf_keras of TensorFlow's minor version; found "
        f"TensorFlow {tensorflow} with tf_keras {tf_keras}. Install the matching one: "
        f'pip install "tf-keras=={major}.{minor_version}.*" (or the TensorFlow of '
        "tf_keras' version).")
