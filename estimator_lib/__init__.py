"""estimator_lib: the tf.estimator API, re-provided on TensorFlow 2.16+.

Import it before TensorFlow touches `tf.keras`: it sets TF_USE_LEGACY_KERAS=1 so
that `tf.keras` is Keras 2 (tf_keras), which graph-mode Estimators need.
"""

# pylint: disable=g-bad-import-order,wrong-import-position
from estimator_lib import _keras_switch  # noqa: F401  (must run before TensorFlow loads)

from estimator_lib import tf_patches
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


# Built on the names above (they import `estimator_lib` itself): the canned
# estimators (tf.estimator's are the V2 classes), heads and TPUEstimator.
from estimator_lib import canned  # noqa: E402
from estimator_lib import head  # noqa: E402
from estimator_lib import tpu  # noqa: E402
from estimator_lib.canned import BaselineClassifierV2 as BaselineClassifier  # noqa: E402
from estimator_lib.canned import BaselineEstimatorV2 as BaselineEstimator  # noqa: E402
from estimator_lib.canned import BaselineRegressorV2 as BaselineRegressor  # noqa: E402
from estimator_lib.canned import DNNClassifierV2 as DNNClassifier  # noqa: E402
from estimator_lib.canned import DNNEstimatorV2 as DNNEstimator  # noqa: E402
from estimator_lib.canned import DNNLinearCombinedClassifierV2 as DNNLinearCombinedClassifier  # noqa: E402,E501
from estimator_lib.canned import DNNLinearCombinedEstimatorV2 as DNNLinearCombinedEstimator  # noqa: E402,E501
from estimator_lib.canned import DNNLinearCombinedRegressorV2 as DNNLinearCombinedRegressor  # noqa: E402,E501
from estimator_lib.canned import DNNRegressorV2 as DNNRegressor  # noqa: E402
from estimator_lib.canned import LinearClassifierV2 as LinearClassifier  # noqa: E402
from estimator_lib.canned import LinearEstimatorV2 as LinearEstimator  # noqa: E402
from estimator_lib.canned import LinearRegressorV2 as LinearRegressor  # noqa: E402
from estimator_lib.head import BinaryClassHead  # noqa: E402
from estimator_lib.head import Head  # noqa: E402
from estimator_lib.head import LogisticRegressionHead  # noqa: E402
from estimator_lib.head import MultiClassHead  # noqa: E402
from estimator_lib.head import MultiHead  # noqa: E402
from estimator_lib.head import MultiLabelHead  # noqa: E402
from estimator_lib.head import PoissonRegressionHead  # noqa: E402
from estimator_lib.head import RegressionHead  # noqa: E402
from estimator_lib.head import classifier_parse_example_spec  # noqa: E402
from estimator_lib.head import regressor_parse_example_spec  # noqa: E402

from estimator_lib import compat  # noqa: E402,F401  (estimator_lib.compat.install())

__version__ = "0.1.0"

if tf_patches.tf_config_names_a_cluster():
    tf_patches.bound_multi_worker_wait()  # See tf_patches: the strategy is built before us.
