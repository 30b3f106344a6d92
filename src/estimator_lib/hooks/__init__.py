"""SessionRunHooks: the protocol and the built-in hooks, under their tf.estimator names.

TensorFlow 2.21 still ships all of these in `tf.compat.v1.train`; the Estimator's
names were aliases of them, so legacy hooks that subclass either keep working.
"""

import tensorflow as tf


_train = tf.compat.v1.train

SessionRunHook = _train.SessionRunHook
SessionRunArgs = _train.SessionRunArgs
SessionRunContext = _train.SessionRunContext
SessionRunValues = _train.SessionRunValues

LoggingTensorHook = _train.LoggingTensorHook
StopAtStepHook = _train.StopAtStepHook
CheckpointSaverHook = _train.CheckpointSaverHook
CheckpointSaverListener = _train.CheckpointSaverListener
StepCounterHook = _train.StepCounterHook
NanTensorHook = _train.NanTensorHook
NanLossDuringTrainingError = _train.NanLossDuringTrainingError
SummarySaverHook = _train.SummarySaverHook
GlobalStepWaiterHook = _train.GlobalStepWaiterHook
FinalOpsHook = _train.FinalOpsHook
FeedFnHook = _train.FeedFnHook
ProfilerHook = _train.ProfilerHook
SecondOrStepTimer = _train.SecondOrStepTimer

__all__ = [
    "SessionRunHook", "SessionRunArgs", "SessionRunContext", "SessionRunValues",
    "LoggingTensorHook", "StopAtStepHook", "CheckpointSaverHook", "CheckpointSaverListener",
    "StepCounterHook", "NanTensorHook", "NanLossDuringTrainingError", "SummarySaverHook",
    "GlobalStepWaiterHook", "FinalOpsHook", "FeedFnHook", "ProfilerHook", "SecondOrStepTimer",
]

# Throughput, input-stall and profiling hooks (issue 6).
from estimator_lib.hooks.input_stall import InputStallHook  # noqa: E402
from estimator_lib.hooks.profiler import ProfileStepsHook  # noqa: E402
from estimator_lib.hooks.throughput import ExamplesPerSecondHook  # noqa: E402
from estimator_lib.hooks.global_batch import GlobalBatch  # noqa: E402
from estimator_lib.hooks.throughput import TimeHistory  # noqa: E402
from estimator_lib.hooks.global_batch import global_batch_size  # noqa: E402
from estimator_lib.hooks.global_batch import make_global_batch  # noqa: E402

__all__ += [
    "InputStallHook", "ProfileStepsHook", "ExamplesPerSecondHook", "GlobalBatch", "TimeHistory",
    "global_batch_size", "make_global_batch",
]
