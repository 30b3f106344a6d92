"""EstimatorV1: `tf.compat.v1.estimator.Estimator`, the Estimator plus `export_savedmodel`.

The original's v1 classes — `tf.compat.v1.estimator.Estimator`, the v1 canned
estimators (`tf.compat.v1.estimator.DNNClassifier`, ...) and
`tf.compat.v1.estimator.tpu.TPUEstimator` — subclassed its v1 Estimator, which
kept the deprecated `export_savedmodel` (export/v1_export.py); the v2 classes hid that
name (reading it raises AttributeError). Here the v1 classes subclass `EstimatorV1`.
"""

import abc

from estimator_lib.engine.estimator import Estimator
from estimator_lib.export import v1_export


class _V1Meta(abc.ABCMeta):
    """Makes every estimator_lib Estimator an instance of the v1 class, as the
    original's EstimatorV2 subclassed the v1 Estimator.

    An ABCMeta (the class has no abstract method), so that a library's
    `class Base(tf.compat.v1.estimator.Estimator, metaclass=abc.ABCMeta)` (or with
    `abc.ABC` among its bases) has no metaclass conflict, as with the original's plain
    class (docs/estimator.md).
    """

    def __instancecheck__(cls, instance):
        if cls is EstimatorV1:
            return isinstance(instance, Estimator)
        return super().__instancecheck__(instance)

    def __subclasscheck__(cls, subclass):
        if cls is EstimatorV1:
            return issubclass(subclass, Estimator)
        return super().__subclasscheck__(subclass)


class EstimatorV1(v1_export.ExportSavedModelV1, Estimator, metaclass=_V1Meta):
    """`tf.compat.v1.estimator.Estimator`: the Estimator plus `export_savedmodel`."""

    _ESTIMATOR_API_CLASS = True  # Subclasses may not override its public members.
