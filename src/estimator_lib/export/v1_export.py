"""`export_savedmodel`: the deprecated export method of the original's v1 Estimator.

`tf.compat.v1.estimator.Estimator` had it, and so had the classes built on that
class whatever namespace exported them (the RNN estimators of
tf.estimator.experimental): `ExportSavedModelV1` adds it to an Estimator subclass.
Unlike `export_saved_model`, it keeps the default-valued attrs in the graph unless
asked (`strip_default_attrs=False`).
"""

import tensorflow as tf

from estimator_lib.core.model_fn import ModeKeys

logging = tf.compat.v1.logging


class _BuilderKeepingDefaultAttrs:
    """A SavedModel builder whose MetaGraphs keep or strip default attrs as asked."""

    def __init__(self, builder, strip_default_attrs: bool):
        self._builder = builder
        self._strip = strip_default_attrs

    def add_meta_graph_and_variables(self, *args, **kwargs):
        kwargs["strip_default_attrs"] = self._strip
        return self._builder.add_meta_graph_and_variables(*args, **kwargs)

    def add_meta_graph(self, *args, **kwargs):
        kwargs["strip_default_attrs"] = self._strip
        return self._builder.add_meta_graph(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._builder, name)


class ExportSavedModelV1:
    """Mixin for an `Estimator` subclass (listed before it): `export_savedmodel`."""

    _strip_default_attrs = True

    def export_savedmodel(self, export_dir_base, serving_input_receiver_fn,
                          assets_extra=None, as_text=False, checkpoint_path=None,
                          strip_default_attrs=False):
        """Exports as `export_saved_model` (its deprecated name), keeping default attrs.

        Args:
            export_dir_base: The directory under which the timestamped export is created.
            serving_input_receiver_fn: Returns a `ServingInputReceiver`.
            assets_extra: A dict of destination (under `assets.extra`) to source path, or None.
            as_text: Whether to write the SavedModel proto as text.
            checkpoint_path: The checkpoint to export; None takes the newest.
            strip_default_attrs: Whether to strip default-valued attributes from the graph's
                nodes.

        Returns:
            The export directory, as bytes.

        Raises:
            ValueError: As `export_saved_model`.
        """
        logging.warning(
            "export_savedmodel (from tf.compat.v1.estimator.Estimator) is deprecated and "
            "will be removed in a future version. Instructions for updating: This function "
            "has been renamed, use `export_saved_model` instead.")
        if not serving_input_receiver_fn:
            raise ValueError("An input_receiver_fn must be defined.")
        self._strip_default_attrs = bool(strip_default_attrs)
        try:
            return self._export_all_saved_models(
                export_dir_base, {ModeKeys.PREDICT: serving_input_receiver_fn},
                assets_extra=assets_extra, as_text=as_text, checkpoint_path=checkpoint_path,
                strip_default_attrs=strip_default_attrs)
        finally:
            del self._strip_default_attrs

    def _add_meta_graph_for_mode(self, builder, *args, **kwargs):
        builder = _BuilderKeepingDefaultAttrs(builder, self._strip_default_attrs)
        return super()._add_meta_graph_for_mode(builder, *args, **kwargs)
