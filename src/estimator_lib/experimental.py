"""The `tf.estimator.experimental` names: early stopping, in-training evaluation, helpers,
LinearSDCA."""

# pylint: disable=unused-import
from estimator_lib.canned.rnn import RNNClassifier  # noqa: F401
from estimator_lib.canned.rnn import RNNEstimator  # noqa: F401
from estimator_lib.canned.linear_sdca import LinearSDCA  # noqa: F401
from estimator_lib.export.receivers import build_raw_supervised_input_receiver_fn  # noqa: F401
from estimator_lib.hooks.early_stopping import InMemoryEvaluatorHook  # noqa: F401
from estimator_lib.hooks.early_stopping import make_early_stopping_hook  # noqa: F401
from estimator_lib.hooks.early_stopping import make_stop_at_checkpoint_step_hook  # noqa: F401
from estimator_lib.hooks.early_stopping import read_eval_metrics  # noqa: F401
from estimator_lib.hooks.early_stopping import stop_if_higher_hook  # noqa: F401
from estimator_lib.hooks.early_stopping import stop_if_lower_hook  # noqa: F401
from estimator_lib.hooks.early_stopping import stop_if_no_decrease_hook  # noqa: F401
from estimator_lib.hooks.early_stopping import stop_if_no_increase_hook  # noqa: F401
from estimator_lib.core.model_fn import call_logit_fn  # noqa: F401

# What the reference's experimental page shows (and `import *` gives).
__all__ = [
    "RNNClassifier",
    "RNNEstimator",
    "LinearSDCA",
    "build_raw_supervised_input_receiver_fn",
    "InMemoryEvaluatorHook",
    "make_early_stopping_hook",
    "make_stop_at_checkpoint_step_hook",
    "read_eval_metrics",
    "stop_if_higher_hook",
    "stop_if_lower_hook",
    "stop_if_no_decrease_hook",
    "stop_if_no_increase_hook",
    "call_logit_fn",
]
