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
    """A class representing a type of model export (subclass it for your own).

    As the original's, a plain class: the `abc.abstractmethod` marks are
    documentation only (a subclass that leaves one out still constructs).
    """

    @property
    @abc.abstractmethod
    def name(self) -> str:
        """Directory name under model_dir/export; unique among a spec's exporters."""

    @abc.abstractmethod
    def export(self, estimator, export_path, checkpoint_path, eval_result,
               is_the_final_export):
        """Exports the given Estimator to a specific format; returns the export path."""


class _SavedModelExporter(Exporter):

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
    """Exports once, when training ends (`is_the_final_export`)."""

    def export(self, estimator, export_path, checkpoint_path, eval_result,
               is_the_final_export):
        if not is_the_final_export:
            return None
        logging.info("Performing the final export in the end of training.")
        return self._export(estimator, export_path, checkpoint_path)


class LatestExporter(_SavedModelExporter):
    """Exports after every evaluation, keeping the newest `exports_to_keep`."""

    def __init__(self, name, serving_input_receiver_fn, assets_extra=None, as_text=False,
                 exports_to_keep=5):
        super().__init__(name, serving_input_receiver_fn, assets_extra, as_text)
        _check_exports_to_keep(exports_to_keep)
        self._exports_to_keep = exports_to_keep

    def export(self, estimator, export_path, checkpoint_path, eval_result,
               is_the_final_export):
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
    """Exports when an evaluation beats the best so far (read back from eval events)."""

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

    def export(self, estimator, export_path, checkpoint_path, eval_result,
               is_the_final_export):
        if self._model_dir != estimator.model_dir and self._event_file_pattern:
            self._model_dir = estimator.model_dir
            self._best_eval_result = self._get_best_eval_result(
                os.path.join(estimator.model_dir, self._event_file_pattern))
        path = None
        if self._best_eval_result is None or self._compare_fn(
                best_eval_result=self._best_eval_result, current_eval_result=eval_result):
            logging.info("Exporting a better model (%s instead of %s)...", eval_result,
                         self._best_eval_result)
            path = self._export(estimator, export_path, checkpoint_path)
            self._garbage_collect_exports(export_path)
            self._best_eval_result = eval_result
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
