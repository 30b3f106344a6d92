"""The core public names of estimator_lib (tf.estimator's), one import each.

estimator_lib/__init__.py imports these at once, or, under `python -m
estimator_lib.<module>`, on first use (so that a binary parses its flags and
answers --help before TensorFlow loads). The canned estimators, heads,
`model_to_estimator`, `experimental`, `tpu` and `compat` load on first use
(`_lazy_api.LAZY_NAMES`): a program that trains its own model_fn never pays for
importing them (bench/startup_import.py, tests/estimator_lib/import_cost_test.py).
"""

# pylint: disable=g-bad-import-order,unused-import
# First: a TensorFlow without the internals we need fails here, in one line.
from estimator_lib.tf_internals import registry as _registry
_registry.check()
from estimator_lib.tf_internals import patches as _patches
_patches.write_graph_on_protobuf_7()  # patch 6: tf.io.write_graph on TF 2.20 + protobuf 7

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
from estimator_lib.core.model_fn import EstimatorSpec
from estimator_lib.core.model_fn import ModeKeys
from estimator_lib.core.run_config import RunConfig
from estimator_lib.engine.train_eval import EvalSpec
from estimator_lib.engine.train_eval import TrainSpec
from estimator_lib.engine.train_eval import train_and_evaluate
from estimator_lib.graph.warm_starting import VocabInfo
from estimator_lib.graph.warm_starting import WarmStartSettings


# tf.keras.estimator.model_to_estimator and tf_keras.estimator's find ours (_keras_route).
from estimator_lib import _keras_route
_keras_route.install_keras_route()
