"""Process-wide test set-up: Keras 2 for tf.keras, and two logical CPU devices.

Logical devices can be configured once per process, before TensorFlow
initialises its runtime, so it happens here, at collection time.
"""

import estimator_lib  # noqa: F401  (sets TF_USE_LEGACY_KERAS before TensorFlow loads)
import tensorflow as tf

NUM_LOGICAL_CPUS = 2

_cpus = tf.config.list_physical_devices("CPU")
tf.config.set_logical_device_configuration(
    _cpus[0], [tf.config.LogicalDeviceConfiguration()] * NUM_LOGICAL_CPUS)


def pytest_collection_modifyitems(config, items):
    """Drops tf.test.TestCase's inherited `test_session` (a context manager, not a test)."""
    del config
    items[:] = [item for item in items if item.name != "test_session"]
