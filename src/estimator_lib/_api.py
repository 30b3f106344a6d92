"""The public names of estimator_lib (tf.estimator's), one import each.

estimator_lib/__init__.py imports them all at once, or, under `python -m
estimator_lib.<module>`, on first use (so that a binary parses its flags and
answers --help before TensorFlow loads).
"""

# pylint: disable=g-bad-import-order,unused-import
# First: a TensorFlow without the internals we need fails here, in one line.
from estimator_lib.tf_internals import registry as _registry
_registry.check()

from estimator_lib import experimental
from estimator_lib import export
from estimator_lib import hooks
from estimator_lib.engine.estimator import Estimator
from estimator_lib.engine.extenders import add_metrics
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
from estimator_lib.core.model_fn import EstimatorSpec
from estimator_lib.core.model_fn import ModeKeys
from estimator_lib.core.run_config import RunConfig
from estimator_lib.engine.train_eval import EvalSpec
from estimator_lib.engine.train_eval import TrainSpec
from estimator_lib.engine.train_eval import train_and_evaluate
from estimator_lib.graph.warm_starting import VocabInfo
from estimator_lib.graph.warm_starting import WarmStartSettings

# Built on the names above (they read `estimator_lib.X`): the canned estimators
# (tf.estimator's are the V2 classes), heads and TPUEstimator; then the aliases.
from estimator_lib import canned
from estimator_lib import head
from estimator_lib import tpu
from estimator_lib.canned import BaselineClassifierV2 as BaselineClassifier
from estimator_lib.canned import BaselineEstimatorV2 as BaselineEstimator
from estimator_lib.canned import BaselineRegressorV2 as BaselineRegressor
from estimator_lib.canned import DNNClassifierV2 as DNNClassifier
from estimator_lib.canned import DNNEstimatorV2 as DNNEstimator
from estimator_lib.canned import DNNLinearCombinedClassifierV2 as DNNLinearCombinedClassifier
from estimator_lib.canned import DNNLinearCombinedEstimatorV2 as DNNLinearCombinedEstimator
from estimator_lib.canned import DNNLinearCombinedRegressorV2 as DNNLinearCombinedRegressor
from estimator_lib.canned import DNNRegressorV2 as DNNRegressor
from estimator_lib.canned import LinearClassifierV2 as LinearClassifier
from estimator_lib.canned import LinearEstimatorV2 as LinearEstimator
from estimator_lib.canned import LinearRegressorV2 as LinearRegressor
from estimator_lib.head import BinaryClassHead
from estimator_lib.head import Head
from estimator_lib.head import LogisticRegressionHead
from estimator_lib.head import MultiClassHead
from estimator_lib.head import MultiHead
from estimator_lib.head import MultiLabelHead
from estimator_lib.head import PoissonRegressionHead
from estimator_lib.head import RegressionHead
from estimator_lib.head import classifier_parse_example_spec
from estimator_lib.head import regressor_parse_example_spec
from estimator_lib import compat  # noqa: F401  (estimator_lib.compat.install())
