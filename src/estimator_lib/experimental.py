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
