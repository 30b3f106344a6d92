"""Exporters: what train_and_evaluate exports after each evaluation."""

import abc
import os
import re
from typing import Callable, Optional

import tensorflow as tf

from estimator_lib.core.model_fn import model_fn_args
from estimator_lib.hooks.early_stopping import read_eval_metrics

logging = tf.compat.v1.logging

_EXPORT_DIR = re.compile(r"^\d{10}$")


class Exporter:
    """A kind of model export that `train_and_evaluate` runs after each evaluation.

    Subclass it for your own: give it a `name` and an `export` method, and list an
    instance in `EvalSpec(exporters=...)`. As the original's, a plain class: the
    `abc.abstractmethod` marks are documentation only (a subclass that leaves one out
    still constructs).

    Examples:
        An exporter of your own: `train_and_evaluate` calls `export` after each
        evaluation, with the evaluated checkpoint and its metrics:

        >>> import os
        >>> import tempfile
        >>> import numpy as np
        >>> import tensorflow as tf
        >>> import estimator_lib
        >>> def input_fn():
        ...     x = np.array([[0.0], [1.0], [2.0], [3.0]], np.float32)
        ...     return tf.data.Dataset.from_tensor_slices(({"x": x}, 2.0 * x)).repeat().batch(4)
        >>> est = estimator_lib.LinearRegressor([tf.feature_column.numeric_column("x")],
        ...                                     model_dir=tempfile.mkdtemp())
        >>> class LossLog(estimator_lib.Exporter):
        ...     name = "loss_log"
        ...     def __init__(self):
        ...         self.calls = []
        ...     def export(self, estimator, export_path, checkpoint_path, eval_result,
        ...                is_the_final_export):
        ...         self.calls.append((int(eval_result["global_step"]), is_the_final_export))
        >>> log = LossLog()
        >>> _ = estimator_lib.train_and_evaluate(
        ...     est, estimator_lib.TrainSpec(input_fn, max_steps=2),
        ...     estimator_lib.EvalSpec(input_fn, steps=1, exporters=[log], throttle_secs=0))
        >>> log.calls
        [(2, True)]
    """

    @property
    @abc.abstractmethod
    def name(self) -> str:
        """The directory name under `model_dir/export`; unique among a spec's exporters."""

    @abc.abstractmethod
    def export(self, estimator, export_path, checkpoint_path, eval_result,
               is_the_final_export):
        """Exports `estimator` after an evaluation.

        Args:
            estimator: The `Estimator` to export.
            export_path: The directory under which the timestamped export is written
                (`model_dir/export/<exporter name>` under `train_and_evaluate`).
            checkpoint_path: The checkpoint just evaluated, the one exported.
            eval_result: The metrics dict of that evaluation.
            is_the_final_export: Whether this is the export after training ended.

        Returns:
            The export's path (a string or bytes), or None when nothing was exported.
        """


class _SavedModelExporter(Exporter):
    """The shared part of the SavedModel exporters: a name and the export's options."""

    def __init__(self, name: str, serving_input_receiver_fn: Callable,
                 assets_extra: Optional[dict] = None, as_text: bool = False):
        if not name:
            raise ValueError(f"`name` must be a non-empty string. Received: {name!r}.")
        self._name = name
        self._serving_input_receiver_fn = serving_input_receiver_fn
        self._assets_extra = assets_extra
        self._as_text = as_text

    @property
    def name(self):
        """The name given at construction (the export directory's name)."""
        return self._name

    def _export(self, estimator, export_path, checkpoint_path):
        return estimator.export_saved_model(
            export_path, self._serving_input_receiver_fn, assets_extra=self._assets_extra,
            as_text=self._as_text, checkpoint_path=checkpoint_path)


def _check_exports_to_keep(exports_to_keep):
    if exports_to_keep is not None and exports_to_keep <= 0:
        raise ValueError(
            f"`exports_to_keep`, if provided, must be a positive number. Got "
            f"{exports_to_keep}.")


def _garbage_collect(export_path, exports_to_keep):
    """Deletes all but the newest `exports_to_keep` timestamped exports."""
    if exports_to_keep is None or not tf.io.gfile.isdir(export_path):
        return
    exports = sorted(name for name in tf.io.gfile.listdir(export_path)
                     if _EXPORT_DIR.match(name.rstrip("/")))
    for name in exports[:-exports_to_keep]:
        try:
            tf.io.gfile.rmtree(os.path.join(export_path, name))
        except tf.errors.NotFoundError as e:
            logging.warning("Can not delete %s recursively: %s", name, e)


class FinalExporter(_SavedModelExporter):
    """Exports a SavedModel once, after the evaluation that ends training.

    Args:
        name: The exporter's name, the directory under `model_dir/export`.
        serving_input_receiver_fn: Takes no arguments and returns a
            `ServingInputReceiver` (as for `Estimator.export_saved_model`).
        assets_extra: A dict of destination path (under `assets.extra`) to source
            path, copied into each export.
        as_text: Whether to write the SavedModel proto as text.

    Raises:
        ValueError: If `name` is empty.

    Examples:
        Called as `train_and_evaluate` calls it (list it in `EvalSpec(exporters=...)`),
        here by hand: nothing until the final export:

        >>> import os
        >>> import tempfile
        >>> import numpy as np
        >>> import tensorflow as tf
        >>> import estimator_lib
        >>> def input_fn():
        ...     x = np.array([[0.0], [1.0], [2.0], [3.0]], np.float32)
        ...     return tf.data.Dataset.from_tensor_slices(({"x": x}, 2.0 * x)).repeat().batch(4)
        >>> est = estimator_lib.LinearRegressor([tf.feature_column.numeric_column("x")],
        ...                                     model_dir=tempfile.mkdtemp())
        >>> est = est.train(input_fn, steps=2)
        >>> receiver_fn = estimator_lib.export.build_raw_serving_input_receiver_fn(
        ...     {"x": tf.zeros([1, 1])})
        >>> exporter = estimator_lib.FinalExporter("final", receiver_fn)
        >>> export_path = os.path.join(est.model_dir, "export", exporter.name)
        >>> exporter.export(est, export_path, est.latest_checkpoint(), {}, False) is None
        True
        >>> path = exporter.export(est, export_path, est.latest_checkpoint(), {}, True)
        >>> sorted(os.listdir(os.fsdecode(path)))  # path: bytes, as the original's
        ['saved_model.pb', 'variables']
    """

    def export(self, estimator, export_path, checkpoint_path, eval_result,
               is_the_final_export):
        """Exports a SavedModel if this is the final export; otherwise does nothing.

        Args:
            estimator: The `Estimator` to export.
            export_path: The directory under which the timestamped export is written
                (`model_dir/export/<exporter name>` under `train_and_evaluate`).
            checkpoint_path: The checkpoint just evaluated, the one exported.
            eval_result: The metrics dict of that evaluation.
            is_the_final_export: Whether this is the export after training ended.

        Returns:
            The export directory (bytes), or None when not the final export.
        """
        if not is_the_final_export:
            return None
        logging.info("Performing the final export in the end of training.")
        return self._export(estimator, export_path, checkpoint_path)


class LatestExporter(_SavedModelExporter):
    """Exports a SavedModel after every evaluation, keeping the newest `exports_to_keep`.

    Args:
        name: The exporter's name, the directory under `model_dir/export`.
        serving_input_receiver_fn: Takes no arguments and returns a
            `ServingInputReceiver` (as for `Estimator.export_saved_model`).
        assets_extra: A dict of destination path (under `assets.extra`) to source
            path, copied into each export.
        as_text: Whether to write the SavedModel proto as text.
        exports_to_keep: How many of the newest exports to keep; older ones are
            deleted. None keeps them all.

    Raises:
        ValueError: If `name` is empty or `exports_to_keep` is not positive.

    Examples:
        Called as `train_and_evaluate` calls it after each evaluation (list it in
        `EvalSpec(exporters=...)`), here by hand after two steps of training:

        >>> import os
        >>> import tempfile
        >>> import numpy as np
        >>> import tensorflow as tf
        >>> import estimator_lib
        >>> def input_fn():
        ...     x = np.array([[0.0], [1.0], [2.0], [3.0]], np.float32)
        ...     return tf.data.Dataset.from_tensor_slices(({"x": x}, 2.0 * x)).repeat().batch(4)
        >>> est = estimator_lib.LinearRegressor([tf.feature_column.numeric_column("x")],
        ...                                     model_dir=tempfile.mkdtemp())
        >>> est = est.train(input_fn, steps=2)
        >>> receiver_fn = estimator_lib.export.build_raw_serving_input_receiver_fn(
        ...     {"x": tf.zeros([1, 1])})
        >>> exporter = estimator_lib.LatestExporter("latest", receiver_fn, exports_to_keep=1)
        >>> export_path = os.path.join(est.model_dir, "export", exporter.name)
        >>> path = exporter.export(est, export_path, est.latest_checkpoint(), {}, False)
        >>> sorted(os.listdir(os.fsdecode(path))), len(os.listdir(export_path))  # path: bytes
        (['saved_model.pb', 'variables'], 1)
    """

    def __init__(self, name, serving_input_receiver_fn, assets_extra=None, as_text=False,
                 exports_to_keep=5):
        super().__init__(name, serving_input_receiver_fn, assets_extra, as_text)
        _check_exports_to_keep(exports_to_keep)
        self._exports_to_keep = exports_to_keep

    def export(self, estimator, export_path, checkpoint_path, eval_result,
               is_the_final_export):
        """Exports a SavedModel, then deletes all but the newest `exports_to_keep`.

        Args:
            estimator: The `Estimator` to export.
            export_path: The directory under which the timestamped export is written
                (`model_dir/export/<exporter name>` under `train_and_evaluate`).
            checkpoint_path: The checkpoint just evaluated, the one exported.
            eval_result: The metrics dict of that evaluation.
            is_the_final_export: Whether this is the export after training ended.

        Returns:
            The export directory (bytes).
        """
        path = self._export(estimator, export_path, checkpoint_path)
        self._garbage_collect_exports(export_path)
        return path

    def _garbage_collect_exports(self, export_dir_base):
        """Deletes all but the newest `exports_to_keep` exports (the original's hook)."""
        _garbage_collect(export_dir_base, self._exports_to_keep)


def _loss_smaller(best_eval_result, current_eval_result):
    """Default BestExporter comparison: a smaller `loss` is better."""
    for result, what in ((best_eval_result, "best_eval_result"),
                         (current_eval_result, "current_eval_result")):
        if not result or "loss" not in result:
            raise ValueError(f"{what} cannot be empty or no loss is found in it.")
    return best_eval_result["loss"] > current_eval_result["loss"]


def _check_compare_fn_args(compare_fn) -> None:
    """The original's check: exactly the arguments best_eval_result, current_eval_result."""
    args = model_fn_args(compare_fn)
    for required in ("best_eval_result", "current_eval_result"):
        if required not in args:
            raise ValueError(
                f"compare_fn ({compare_fn}) must include {required} argument. Received "
                f"arguments: {sorted(args)}.")
    unexpected = sorted(args - {"best_eval_result", "current_eval_result"})
    if unexpected:
        raise ValueError(f"compare_fn ({compare_fn}) has following not expected args: "
                         f"{unexpected}")


class BestExporter(_SavedModelExporter):
    """Exports a SavedModel when an evaluation beats the best one so far.

    The best result so far is read back, on the first export, from the evaluation
    event files in `model_dir` (so a restarted job remembers it), then kept.

    Args:
        name: The exporter's name, the directory under `model_dir/export`.
        serving_input_receiver_fn: Takes no arguments and returns a
            `ServingInputReceiver` (as for `Estimator.export_saved_model`).
        event_file_pattern: The glob, relative to `model_dir`, of the event files the
            earlier results are read from; None starts with no best result.
        compare_fn: Called as `compare_fn(best_eval_result=..., current_eval_result=...)`
            with two metrics dicts; returns True when the current one is better. The
            default prefers the smaller `loss`.
        assets_extra: A dict of destination path (under `assets.extra`) to source
            path, copied into each export.
        as_text: Whether to write the SavedModel proto as text.
        exports_to_keep: How many of the newest exports to keep; None keeps all.

    Raises:
        ValueError: If `name` is empty, `compare_fn` is not callable or takes other
            arguments than those two, or `exports_to_keep` is not positive.

    Examples:
        Called as `train_and_evaluate` calls it after each evaluation (list it in
        `EvalSpec(exporters=...)`), here by hand with made-up results: it exports on
        the first (no best yet) and on a smaller loss, not on a larger one:

        >>> import os
        >>> import tempfile
        >>> import numpy as np
        >>> import tensorflow as tf
        >>> import estimator_lib
        >>> def input_fn():
        ...     x = np.array([[0.0], [1.0], [2.0], [3.0]], np.float32)
        ...     return tf.data.Dataset.from_tensor_slices(({"x": x}, 2.0 * x)).repeat().batch(4)
        >>> est = estimator_lib.LinearRegressor([tf.feature_column.numeric_column("x")],
        ...                                     model_dir=tempfile.mkdtemp())
        >>> est = est.train(input_fn, steps=2)
        >>> receiver_fn = estimator_lib.export.build_raw_serving_input_receiver_fn(
        ...     {"x": tf.zeros([1, 1])})
        >>> exporter = estimator_lib.BestExporter("best", receiver_fn, event_file_pattern=None)
        >>> export_path = os.path.join(est.model_dir, "export", exporter.name)
        >>> [exporter.export(est, export_path, est.latest_checkpoint(), {"loss": loss},
        ...                  False) is not None for loss in (2.0, 3.0, 1.0)]
        [True, False, True]
    """

    def __init__(self, name="best_exporter", serving_input_receiver_fn=None,
                 event_file_pattern="eval/*.tfevents.*", compare_fn=_loss_smaller,
                 assets_extra=None, as_text=False, exports_to_keep=5):
        super().__init__(name, serving_input_receiver_fn, assets_extra, as_text)
        if not callable(compare_fn):
            raise ValueError("`compare_fn` must be a callable (best_eval_result, "
                             "current_eval_result) -> bool.")
        _check_compare_fn_args(compare_fn)
        _check_exports_to_keep(exports_to_keep)
        self._compare_fn = compare_fn
        self._event_file_pattern = event_file_pattern
        self._exports_to_keep = exports_to_keep
        self._best_eval_result = None
        self._model_dir = None
        self._has_exported = False

    def export(self, estimator, export_path, checkpoint_path, eval_result,
               is_the_final_export):
        """Exports a SavedModel if `eval_result` is better than the best so far.

        Args:
            estimator: The `Estimator` to export.
            export_path: The directory under which the timestamped export is written
                (`model_dir/export/<exporter name>` under `train_and_evaluate`).
            checkpoint_path: The checkpoint just evaluated, the one exported.
            eval_result: The metrics dict of that evaluation.
            is_the_final_export: Whether this is the export after training ended.

        Returns:
            The export directory (bytes), or None when the result was not better.

        Raises:
            ValueError: If the default comparison finds no `loss` in a result.
        """
        if self._model_dir != estimator.model_dir and self._event_file_pattern:
            self._model_dir = estimator.model_dir
            self._best_eval_result = self._get_best_eval_result(
                os.path.join(estimator.model_dir, self._event_file_pattern))
        path = None
        # As the original: this exporter's first export is made whatever the event files'
        # best (a restarted job exports once), later ones only when better.
        if self._best_eval_result is None or not self._has_exported or self._compare_fn(
                best_eval_result=self._best_eval_result, current_eval_result=eval_result):
            logging.info("Exporting a better model (%s instead of %s)...", eval_result,
                         self._best_eval_result)
            self._best_eval_result = eval_result
            path = self._export(estimator, export_path, checkpoint_path)
            self._garbage_collect_exports(export_path)
            self._has_exported = True
        else:
            logging.info("Keeping the current best model (%s instead of %s).",
                         self._best_eval_result, eval_result)
        return path

    def _garbage_collect_exports(self, export_dir_base):
        """Deletes all but the newest `exports_to_keep` exports (the original's hook)."""
        _garbage_collect(export_dir_base, self._exports_to_keep)

    def _get_best_eval_result(self, event_files):
        """The best eval result in the event files matching the pattern `event_files`."""
        pattern = event_files
        directories = {os.path.dirname(path) for path in tf.io.gfile.glob(pattern)}
        best = None
        for directory in directories:
            for step, metrics in read_eval_metrics(directory).items():
                candidate = dict(metrics, global_step=step)
                if "loss" in candidate and (best is None or self._compare_fn(
                        best_eval_result=best, current_eval_result=candidate)):
                    best = candidate
        return best
