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
    """`tf.compat.v1.estimator.Estimator`: the Estimator plus `export_savedmodel`.

    Examples:
        `tf.compat.v1.estimator.Estimator` under `estimator_lib.compat.install()`: the
        same training, plus the deprecated `export_savedmodel`:

        >>> import os
        >>> import tempfile
        >>> import tensorflow as tf
        >>> import estimator_lib
        >>> from estimator_lib import compat
        >>> def model_fn(features, labels, mode):
        ...     w = tf.compat.v1.get_variable("w", [], initializer=tf.compat.v1.zeros_initializer())
        ...     prediction = w * features["x"]
        ...     if mode == estimator_lib.ModeKeys.PREDICT:
        ...         return estimator_lib.EstimatorSpec(mode, predictions={"y": prediction})
        ...     loss = tf.reduce_mean(tf.square(prediction - labels))
        ...     step = tf.compat.v1.train.get_or_create_global_step()
        ...     train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, step)
        ...     return estimator_lib.EstimatorSpec(mode, loss=loss, train_op=train_op)
        >>> def input_fn():
        ...     return tf.data.Dataset.from_tensors(({"x": [1.0, 2.0]}, [2.0, 4.0])).repeat()
        >>> def serving_input_receiver_fn():
        ...     x = tf.compat.v1.placeholder(tf.float32, [None], name="x")
        ...     return estimator_lib.export.ServingInputReceiver({"x": x}, {"x": x})
        >>> est = compat.EstimatorV1(model_fn, model_dir=tempfile.mkdtemp())
        >>> est = est.train(input_fn, steps=2)
        >>> path = est.export_savedmodel(os.path.join(est.model_dir, "export"),
        ...                              serving_input_receiver_fn)
        >>> sorted(os.listdir(os.fsdecode(path)))
        ['saved_model.pb', 'variables']
    """

    _ESTIMATOR_API_CLASS = True  # Subclasses may not override its public members.
