"""EstimatorV1: `tf.compat.v1.estimator.Estimator`, the Estimator plus `export_savedmodel`.

The original's v1 classes — `tf.compat.v1.estimator.Estimator`, the v1 canned
estimators (`tf.compat.v1.estimator.DNNClassifier`, ...) and
`tf.compat.v1.estimator.tpu.TPUEstimator` — subclassed its v1 Estimator, which
kept the deprecated `export_savedmodel`; the v2 classes hid that name (reading it
raises AttributeError). Here the v1 classes subclass `EstimatorV1`.
"""

from typing import Callable, Optional

import tensorflow as tf

from estimator_lib import estimator as estimator_lib
from estimator_lib.model_fn import ModeKeys

logging = tf.compat.v1.logging

Estimator = estimator_lib.Estimator


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


class _V1Meta(type):
    """Makes every estimator_lib Estimator an instance of the v1 class, as the
    original's EstimatorV2 subclassed the v1 Estimator."""

    def __instancecheck__(cls, instance):
        if cls is EstimatorV1:
            return isinstance(instance, Estimator)
        return super().__instancecheck__(instance)

    def __subclasscheck__(cls, subclass):
        if cls is EstimatorV1:
            return issubclass(subclass, Estimator)
        return super().__subclasscheck__(subclass)


class EstimatorV1(Estimator, metaclass=_V1Meta):
    """`tf.compat.v1.estimator.Estimator`: the Estimator plus `export_savedmodel`."""

    _ESTIMATOR_API_CLASS = True  # Subclasses may not override its public members.
    _strip_default_attrs = True

    def export_savedmodel(self, export_dir_base, serving_input_receiver_fn: Callable,
                          assets_extra: Optional[dict] = None, as_text: bool = False,
                          checkpoint_path: Optional[str] = None,
                          strip_default_attrs: bool = False) -> bytes:
        """Deprecated name of `export_saved_model`, keeping default attrs by default.

        Args:
            export_dir_base: Where the timestamped export directory is made.
            serving_input_receiver_fn: Returns a `ServingInputReceiver`.
            assets_extra: {destination under assets.extra: source path}, or None.
            as_text: Write `saved_model.pbtxt` instead of `saved_model.pb`.
            checkpoint_path: The checkpoint to export; the newest when None.
            strip_default_attrs: Remove default-valued attrs from the NodeDefs.

        Returns:
            The export directory, as bytes.

        Raises:
            ValueError: If `serving_input_receiver_fn` is missing or there is no
                checkpoint.
        """
        logging.warning(
            "export_savedmodel (from tf.compat.v1.estimator.Estimator) is deprecated and "
            "will be removed in a future version. Instructions for updating: This function "
            "has been renamed, use `export_saved_model` instead.")
        if not serving_input_receiver_fn:
            raise ValueError("An input_receiver_fn must be defined.")
        self._strip_default_attrs = bool(strip_default_attrs)
        try:
            return self.experimental_export_all_saved_models(
                export_dir_base, {ModeKeys.PREDICT: serving_input_receiver_fn},
                assets_extra=assets_extra, as_text=as_text, checkpoint_path=checkpoint_path)
        finally:
            del self._strip_default_attrs

    def _add_meta_graph_for_mode(self, builder, *args, **kwargs):
        builder = _BuilderKeepingDefaultAttrs(builder, self._strip_default_attrs)
        return super()._add_meta_graph_for_mode(builder, *args, **kwargs)
