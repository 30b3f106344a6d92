"""The public names of estimator_lib (tf.estimator's), one import each.

estimator_lib/__init__.py imports them all at once, or, under `python -m
estimator_lib.<module>`, on first use (so that a binary parses its flags and
answers --help before TensorFlow loads).
"""

# pylint: disable=g-bad-import-order,unused-import
from estimator_lib import tf_patches
from estimator_lib import compat  # noqa: F401  (estimator_lib.compat.install())
from estimator_lib import experimental
from estimator_lib import export
from estimator_lib import hooks
from estimator_lib.estimator import Estimator
from estimator_lib.extenders import add_metrics
from estimator_lib.export.exporters import BestExporter
from estimator_lib.export.exporters import Exporter
from estimator_lib.export.exporters import FinalExporter
from estimator_lib.export.exporters import LatestExporter
from estimator_lib.hooks import CheckpointSaverHook
from estimator_lib.hooks import CheckpointSaverListener
from estimator_lib.hooks import FeedFnHook
from estimator_lib.hooks import FinalOpsHook
from estimator_lib.hooks import GlobalStepWaiterHook
from estimator_lib.hooks import LoggingTensorHook
from estimator_lib.hooks import NanLossDuringTrainingError
from estimator_lib.hooks import NanTensorHook
from estimator_lib.hooks import ProfilerHook
from estimator_lib.hooks import SecondOrStepTimer
from estimator_lib.hooks import SessionRunArgs
from estimator_lib.hooks import SessionRunContext
from estimator_lib.hooks import SessionRunHook
from estimator_lib.hooks import SessionRunValues
from estimator_lib.hooks import StepCounterHook
from estimator_lib.hooks import StopAtStepHook
from estimator_lib.hooks import SummarySaverHook
from estimator_lib.keras import model_to_estimator
from estimator_lib.model_fn import EstimatorSpec
from estimator_lib.model_fn import ModeKeys
from estimator_lib.run_config import RunConfig
from estimator_lib.train_eval import EvalSpec
from estimator_lib.train_eval import TrainSpec
from estimator_lib.train_eval import train_and_evaluate
from estimator_lib.warm_starting import VocabInfo
from estimator_lib.warm_starting import WarmStartSettings

if tf_patches.tf_config_names_a_cluster():
    tf_patches.bound_multi_worker_wait()  # See tf_patches: the strategy is built before us.
