"""estimator_lib: the tf.estimator API, re-provided on TensorFlow 2.16+.

Import it before TensorFlow touches `tf.keras`: it sets TF_USE_LEGACY_KERAS=1 so
that `tf.keras` is Keras 2 (tf_keras), which graph-mode Estimators need.

Examples:
    A model_fn that branches on the mode (`ModeKeys`): trained (y = 2x), evaluated,
    then asked for a prediction:

    >>> import tempfile
    >>> import tensorflow as tf
    >>> import estimator_lib
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
    >>> est = estimator_lib.Estimator(model_fn, model_dir=tempfile.mkdtemp())
    >>> est = est.train(input_fn, steps=20)
    >>> float(est.evaluate(input_fn, steps=1)["loss"]) < 1e-6
    True
    >>> predictions = est.predict(lambda: tf.data.Dataset.from_tensors({"x": [3.0]}))
    >>> round(float(next(predictions)["y"]), 3)
    6.0

    Warm-starting from another model_dir (`WarmStartSettings`), remapping the rows of
    a vocabulary-backed variable from its old vocabulary file to a new one
    (`VocabInfo`, TensorFlow's class):

    >>> vocab_info = estimator_lib.VocabInfo(
    ...     new_vocab="new_vocab.txt", new_vocab_size=100, num_oov_buckets=1,
    ...     old_vocab="old_vocab.txt")
    >>> settings = estimator_lib.WarmStartSettings(
    ...     est.model_dir, var_name_to_vocab_info={"embedding/weights": vocab_info})
    >>> settings.var_name_to_vocab_info["embedding/weights"].new_vocab_size
    100
"""

# pylint: disable=g-bad-import-order,wrong-import-position
import sys as _sys

from estimator_lib.core import keras_switch as _keras_switch  # noqa: F401  (must run before TensorFlow loads)

__version__ = "0.1.0"

if _sys.argv[:1] == ["-m"]:
    # `python -m estimator_lib.<module>`: Python imports this package before the module
    # runs (argv[0] is "-m" until then). The binaries parse their flags and answer --help
    # or a flag error before TensorFlow loads, so the public names load on first use.
    from estimator_lib._lazy_api import module_dir as __dir__  # noqa: F401
    from estimator_lib._lazy_api import module_getattr as __getattr__  # noqa: F401
else:
    # The core names now; the canned estimators, heads, model_to_estimator, tpu,
    # experimental and compat on first use (_lazy_api.LAZY_NAMES), through __getattr__.
    from estimator_lib._lazy_api import module_dir as __dir__  # noqa: F401
    from estimator_lib._lazy_api import module_getattr as __getattr__  # noqa: F401
    from estimator_lib._api import *  # noqa: F401,F403  pylint: disable=wildcard-import
