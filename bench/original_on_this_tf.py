"""Imports tensorflow-estimator 2.15's own package on the TensorFlow of this venv.

For benchmarks only (bench/canned.py --original_source): it measures the
original's canned estimators on the same TensorFlow as estimator_lib, which
separates what the TensorFlow version costs from what the Estimator's code
costs. Nothing of the original is copied: `--original_source` names a folder
holding its unpacked wheel, e.g.

    pip download --no-deps tensorflow-estimator==2.15.0 -d /tmp/w
    python -m zipfile -e /tmp/w/tensorflow_estimator-2.15.0-py2.py3-none-any.whl /tmp/est215

The modules TensorFlow deleted after 2.15 (the Estimator's distribute glue, TPU
embedding, ...) are replaced by empty stand-ins as the import asks for them;
the canned DNN and linear estimators never call into them on one CPU device.
"""

import importlib
import re
import sys
import types


class _StandIn(types.ModuleType):
    """A removed module: every attribute is an empty class."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return type(name, (object,), {})


def _stand_in(dotted):
    parent, _, child = dotted.rpartition(".")
    module = _StandIn(dotted)
    sys.modules[dotted] = module
    try:
        setattr(importlib.import_module(parent), child, module)
    except Exception:  # pylint: disable=broad-except  (the parent is itself missing)
        pass


def load(source_dir):
    """(linear, dnn, run_config) modules of the original, imported from `source_dir`."""
    sys.path.insert(0, source_dir)
    from tensorflow.python.util import tf_export  # pylint: disable=import-outside-toplevel
    # TF 2.16 dropped the estimator API name the original's decorators register under.
    # pylint: disable=protected-access
    tf_export.ESTIMATOR_API_NAME = "estimator"
    tf_export.API_ATTRS["estimator"] = tf_export._Attributes(
        "_estimator_api_names", "_estimator_api_constants")
    tf_export.API_ATTRS_V1["estimator"] = tf_export._Attributes(
        "_estimator_api_names_v1", "_estimator_api_constants_v1")
    # pylint: enable=protected-access
    for _ in range(50):
        try:
            from tensorflow_estimator.python.estimator import run_config  # pylint: disable=import-outside-toplevel
            from tensorflow_estimator.python.estimator.canned import dnn, linear  # pylint: disable=import-outside-toplevel
            return linear, dnn, run_config
        except ModuleNotFoundError as error:
            _stand_in(error.name)
        except ImportError as error:
            found = re.search(r"cannot import name '(\w+)' from '([\w.]+)'", str(error))
            if not found:
                raise
            _stand_in(f"{found.group(2)}.{found.group(1)}")
        for name in [n for n in sys.modules if n.startswith("tensorflow_estimator")]:
            del sys.modules[name]
    raise ImportError(f"Could not import tensorflow_estimator from {source_dir}.")
