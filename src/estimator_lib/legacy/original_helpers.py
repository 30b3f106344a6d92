"""Module-level helpers of the original's estimator, run_config, model_fn, util and keras_lib.

Libraries built on tf.estimator call these from the original's module paths (a
canned estimator of their own calls `estimator.maybe_overwrite_model_dir_and_session_config`,
an input pipeline `util.parse_input_fn_result`); `compat.install()` puts each at its
original path (the table of legacy/original_tree.py). They behave as the original's did.
So do the export module's names that TensorFlow still ships (`build_all_signature_defs`,
`TrainOutput`, ...), re-exported here for that table.
"""

import collections.abc
import importlib.util
import tempfile
from typing import List, Optional, Sequence

import tensorflow as tf
from tensorflow.python.saved_model import model_utils
from tensorflow.python.saved_model.model_utils import export_output
from tensorflow.python.util import function_utils

from estimator_lib.graph import inputs
from estimator_lib.core.run_config import RunConfig
from estimator_lib.core.run_config import get_default_session_config

logging = tf.compat.v1.logging

# model_fn.py's metric keys.
LOSS_METRIC_KEY = "loss"
AVERAGE_LOSS_METRIC_KEY = "average_loss"

# util.py: attempts at creating a timestamped directory; the argument-name helper.
MAX_DIRECTORY_CREATION_ATTEMPTS = 10
fn_args = function_utils.fn_args

# export/export.py and export_lib.py: TensorFlow's own names, as the original re-exported them.
build_all_signature_defs = model_utils.build_all_signature_defs
get_temp_export_dir = model_utils.get_temp_export_dir
get_timestamped_export_dir = model_utils.get_timestamped_export_dir
export_outputs_for_mode = model_utils.export_outputs_for_mode
get_export_outputs = model_utils.get_export_outputs
EXPORT_TAG_MAP = model_utils.EXPORT_TAG_MAP
SIGNATURE_KEY_MAP = model_utils.SIGNATURE_KEY_MAP
TrainOutput = export_output.TrainOutput

# pandas_io.py / feeding_functions.py: whether pandas can be imported. Found without
# importing it, so estimator_lib's import does not pay for pandas.
HAS_PANDAS = importlib.util.find_spec("pandas") is not None


def path_to_str(path):
    """`path.__fspath__()` as a str for a PathLike `path`; anything else unchanged.

    Args:
        path: A PathLike object, a str, bytes, None, ...

    Returns:
        A str for a PathLike, else `path` itself.
    """
    if hasattr(path, "__fspath__"):
        path = tf.compat.as_str_any(path.__fspath__())
    return path


def maybe_overwrite_model_dir_and_session_config(config: Optional[RunConfig], model_dir):
    """The RunConfig an Estimator built with (`config`, `model_dir`) runs with.

    As the original: no config -> `RunConfig()` (logs "Using default config."); no
    session_config -> the default one; `model_dir` (a str or PathLike) set on it; no
    model_dir anywhere -> a new temporary folder (logs a warning).

    Args:
        config: A RunConfig, or None.
        model_dir: The constructor's model_dir (None or '' for none).

    Returns:
        A RunConfig with `session_config` and `model_dir` set.

    Raises:
        ValueError: If `config` is not a RunConfig, or its model_dir differs from a
            given `model_dir`.
    """
    if config is None:
        config = RunConfig()
        logging.info("Using default config.")
    if not isinstance(config, RunConfig):
        raise ValueError(
            f"config must be an instance of `RunConfig`, but provided {config}.")
    if config.session_config is None:
        config = config.replace(session_config=get_default_session_config())
    model_dir = path_to_str(model_dir)
    if model_dir is not None:
        if getattr(config, "model_dir", None) is not None and config.model_dir != model_dir:
            raise ValueError(
                "`model_dir` are set both in constructor and `RunConfig`, but with different "
                f"values. In constructor: '{model_dir}', in `RunConfig`: "
                f"'{config.model_dir}' ")
    if model_dir:
        config = config.replace(model_dir=model_dir)
    elif getattr(config, "model_dir", None) is None:
        model_dir = tempfile.mkdtemp()
        logging.warning("Using temporary folder as model directory: %s", model_dir)
        config = config.replace(model_dir=model_dir)
    return config


def create_per_replica_ready_for_local_init_op(scaffold: tf.compat.v1.train.Scaffold):
    """The Scaffold's `ready_for_local_init_op`, or the default one for a replica.

    The default reports uninitialised global variables, and is kept in (and read
    back from) the READY_FOR_LOCAL_INIT_OP collection.
    """
    if scaffold.ready_for_local_init_op:
        return scaffold.ready_for_local_init_op

    def default_ready_for_local_init_op():
        return tf.compat.v1.report_uninitialized_variables(tf.compat.v1.global_variables())

    return tf.compat.v1.train.Scaffold.get_or_default(
        "ready_for_local_init_op", tf.compat.v1.GraphKeys.READY_FOR_LOCAL_INIT_OP,
        default_ready_for_local_init_op)


def parse_input_fn_result(result):
    """(features, labels, hooks) from an input_fn's result (util.py's contract).

    A Dataset becomes an initializable iterator, initialised by the returned hook.
    """
    return inputs.parse_input_fn_result(result)


def parse_iterator_result(result):
    """(features, labels) from a 2-tuple/list, else (result, None)."""
    return inputs.split_features_and_labels(result)


class DistributedIteratorInitializerHook(tf.compat.v1.train.SessionRunHook):
    """Initialises a distributed iterator (`iterator.initialize()`) once the session exists."""

    def __init__(self, iterator):
        self._iterator = iterator
        self._initializer = None

    def begin(self):
        """Builds the iterator's initializer ops (`iterator.initialize()`)."""
        self._initializer = self._iterator.initialize()

    def after_create_session(self, session, coord):
        """Runs the iterator's initializer in the new session.

        Args:
            session: The session just created.
            coord: The session's coordinator (unused).
        """
        del coord
        session.run(self._initializer)


def standardize_sample_weights(x_weight, output_names: Sequence[str]) -> List:
    """One sample (or class) weight per model output, from what the caller passed.

    Args:
        x_weight: None, one weight, a list/tuple of one per output, or a dict of
            output name -> weight.
        output_names: The model's output names.

    Returns:
        A list as long as `output_names` (None where no weight was given).

    Raises:
        ValueError: A list of the wrong length, or a dict with unknown names.
        TypeError: A single weight (not a list or dict) for a multi-output model.
    """
    if x_weight is None or (isinstance(x_weight, (list, tuple)) and not x_weight):
        return [None for _ in output_names]
    if len(output_names) == 1:
        if isinstance(x_weight, (list, tuple)) and len(x_weight) == 1:
            return x_weight
        if isinstance(x_weight, dict) and output_names[0] in x_weight:
            return [x_weight[output_names[0]]]
        return [x_weight]
    if isinstance(x_weight, (list, tuple)):
        if len(x_weight) != len(output_names):
            raise ValueError(
                f"Provided `sample_weights` was a list of {len(x_weight)} elements, but the "
                f"model has {len(output_names)} outputs. You should provide one "
                "`sample_weights`array per model output.")
        return x_weight
    if isinstance(x_weight, collections.abc.Mapping):
        unknown = set(x_weight.keys()).difference(output_names)
        if unknown:
            raise ValueError(
                f"Unknown entries in sample_weights dictionary: {list(unknown)}. Only "
                f"expected following keys: {output_names}")
        return [x_weight.get(name) for name in output_names]
    raise TypeError(
        "The model has multiple outputs, so `sample_weights` should be either a list or a "
        f"dict. Provided `sample_weights` type not understood: {x_weight}")


def track_usage(tool_id: str, tags: Sequence[str]) -> None:
    """tools/analytics.py: no usage tracking outside Google (the original's no-op)."""
    del tool_id, tags


def track_numerical_issues(exc_info) -> None:
    """tools/analytics.py: no tracking outside Google (the original's no-op)."""
    del exc_info
