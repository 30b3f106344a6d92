"""`bench/compare_run.py --phases`: when the Estimator's fixed-cost phases start and end.

compare_run imports this module (which loads nothing but `time`); only a `--phases`
run makes a PhaseRecorder, which patches estimator_lib and TensorFlow classes in its
process, so the measured runs never use it.
"""

import time


class PhaseRecorder:
    """Wraps the Estimator's fixed-cost functions to record when each starts and ends."""

    def __init__(self, tf):
        # pylint: disable=import-outside-toplevel
        from estimator_lib.graph import inputs
        from estimator_lib.graph import model_graph
        from estimator_lib.graph import restore
        from estimator_lib.keras import conversion
        from estimator_lib.training import checkpoints
        from estimator_lib.training import train_model
        from estimator_lib.engine.estimator import Estimator
        self.spans = []
        train = tf.compat.v1.train
        targets = [
            (conversion, "_save_first_checkpoint", "model_to_estimator: first checkpoint (warm start)"),
            (Estimator, "train", "Estimator.train"),
            (model_graph.ModelGraph, "call_model_fn", "model_fn (graph construction)"),
            (model_graph.ModelGraph, "prepare_restore_or_warm_start", "warm start / restore check"),
            (restore, "newest_readable", "newest readable checkpoint lookup"),
            (train_model, "_open_summary_writer_without_graph", "summary writer open"),
            (train.MonitoredSession, "__init__", "MonitoredSession created (hooks' begin, "
             "session, after_create_session)"),
            (train.Scaffold, "finalize", "Scaffold.finalize (init ops, saver build)"),
            (tf.compat.v1.Session, "__init__", "tf.compat.v1.Session()"),
            (train.ChiefSessionCreator, "create_session", "session creation + init/restore"),
            (checkpoints.EstimatorCheckpointSaverHook, "after_create_session",
             "checkpoint hook after_create_session (graph.pbtxt, meta, step-0 save)"),
            (checkpoints.EstimatorCheckpointSaverHook, "end", "checkpoint hook end (final save)"),
            (checkpoints.EstimatorCheckpointSaverHook, "_save", "checkpoint save"),
            (tf.compat.v1.train.Saver, "save", "Saver.save"),
            (tf.compat.v1.train.Saver, "restore", "Saver.restore"),
            (inputs.InputInitializerHook, "after_create_session", "iterator initializer run"),
            (train.SummarySaverHook, "after_run", "SummarySaverHook.after_run"),
            (train.SummarySaverHook, "end", "SummarySaverHook.end"),
            (train.StepCounterHook, "end", "StepCounterHook.end"),
            (train.MonitoredSession, "close", "MonitoredSession.close (hooks' end, teardown)"),
            (tf.compat.v1.Session, "close", "tf.compat.v1.Session.close"),
            (tf.compat.v1.summary.FileWriter, "flush", "FileWriter.flush"),
        ]
        for owner, name, label in targets:
            self._wrap(owner, name, label)

    def _wrap(self, owner, name, label):
        function = getattr(owner, name)
        spans = self.spans

        def wrapped(*args, **kwargs):
            start = time.time()
            try:
                return function(*args, **kwargs)
            finally:
                spans.append({"label": label, "start": start, "end": time.time()})

        wrapped.__name__ = getattr(function, "__name__", name)
        wrapped.__wrapped__ = function
        setattr(owner, name, wrapped)
