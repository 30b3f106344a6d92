"""The original `early_stopping.py`'s private helpers that hooks/early_stopping.py does not
need itself: the stop variable's getter, the workers' stop check, the event reader.

compat.install() puts them at `tensorflow_estimator.python.estimator.early_stopping`
(legacy/original_tree.py), where the original's tests and libraries reach them.
"""

import os

import tensorflow as tf

from estimator_lib.hooks import stop_variable

logging = tf.compat.v1.logging

_EVENT_FILE_GLOB_PATTERN = "events.out.tfevents.*"


def _get_or_create_stop_var():
    """The graph's `signal_early_stopping/STOP` variable (False until a hook stops)."""
    return stop_variable.get_or_create(None)


class _CheckForStoppingHook(tf.compat.v1.train.SessionRunHook):
    """Stops a run once another task's early-stopping hook has set the STOP variable."""

    def __init__(self):
        self._stop_var = None

    def begin(self):
        """Gets (or makes) the STOP variable."""
        self._stop_var = _get_or_create_stop_var()

    def before_run(self, run_context):
        """Reads the STOP variable with the step."""
        del run_context
        return tf.compat.v1.train.SessionRunArgs(self._stop_var)

    def after_run(self, run_context, run_values):
        """Requests a stop when the STOP variable is set."""
        if run_values.results:
            logging.info("Early stopping requested, suspending run.")
            run_context.request_stop()


def _summaries(eval_dir):
    """Yields the Event protos of the event files in `eval_dir` (the rest of a corrupt
    file is skipped with a warning)."""
    if not tf.io.gfile.exists(eval_dir):
        return
    for event_file in tf.io.gfile.glob(os.path.join(eval_dir, _EVENT_FILE_GLOB_PATTERN)):
        try:
            yield from tf.compat.v1.train.summary_iterator(event_file)
        except tf.errors.DataLossError as e:
            logging.warning("Skipping rest of the file due to encountering data corruption "
                            "error; file path: %s; original error raised by "
                            "`tf.train.summary_iterator`: %s", event_file, e)
