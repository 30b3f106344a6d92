"""AutoGraph under a strategy: the user's model_fn converted as the original's, ours not.

MirroredStrategy converts the function it runs per replica, and everything that
function calls, with AutoGraph. The original's model_fns were converted that way
(a model_fn with Python control flow over tensors trained under the strategy);
estimator_lib's own frames are not (converting them cost model_to_estimator
1.4 s per replica before the first step).
"""

import tempfile
from unittest import mock

import numpy as np
import tensorflow as tf
import tf_keras
from tensorflow.python.autograph.impl import api as autograph_api

import estimator_lib as el
from tests.estimator_lib import testing


def _mirrored():
    return tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])


def _config(strategy=None):
    return el.RunConfig(model_dir=tempfile.mkdtemp(), train_distribute=strategy,
                        log_step_count_steps=None)


class _ConversionCounter:
    """Counts AutoGraph's conversions of functions, by the module they are defined in."""

    def __init__(self):
        self.modules = []
        self._original = autograph_api.converted_call

    def __call__(self, f, *args, **kwargs):
        self.modules.append(getattr(f, "__module__", None) or "")
        return self._original(f, *args, **kwargs)

    def ours(self):
        return [m for m in self.modules if m.startswith("estimator_lib")]


def _branching_model_fn(features, labels, mode):
    """A model_fn with a Python `if` on a tensor: needs AutoGraph in graph mode."""
    logits = tf.compat.v1.layers.dense(features["x"], 2)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    if tf.reduce_sum(features["x"]) > 1e9:  # never true: the plain loss is used
        loss = loss * 0.0
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return el.EstimatorSpec(mode, loss=loss, train_op=train_op)


class _GatedDense(tf_keras.layers.Layer):
    """A Keras layer whose call has a Python `if` on a tensor (Keras converts it)."""

    def build(self, input_shape):
        self.kernel = self.add_weight("kernel", shape=(input_shape[-1], 2))

    def call(self, inputs):
        outputs = tf.matmul(inputs, self.kernel)
        if tf.reduce_sum(inputs) > 1e9:
            outputs = outputs * 0.0
        return outputs


class AutoGraphUnderMirroredStrategyTest(tf.test.TestCase):

    def test_a_model_fn_with_tensor_control_flow_trains_as_under_the_original(self):
        estimator = el.Estimator(_branching_model_fn, config=_config(_mirrored()))
        estimator.train(testing.train_input_fn(), steps=3)
        self.assertEqual(estimator.get_variable_value("global_step"), 3)

    def test_the_model_fn_is_converted_and_estimator_lib_frames_are_not(self):
        counter = _ConversionCounter()
        estimator = el.Estimator(_branching_model_fn, config=_config(_mirrored()))
        with mock.patch.object(autograph_api, "converted_call", counter):
            estimator.train(testing.train_input_fn(), steps=1)
        self.assertIn(__name__, counter.modules)
        self.assertEqual(counter.ours(), [])

    def test_model_to_estimator_converts_none_of_its_own_code(self):
        inputs = tf_keras.Input((4,), name="x")
        model = tf_keras.Model(inputs, tf_keras.layers.Softmax()(_GatedDense()(inputs)))
        model.compile("sgd", "sparse_categorical_crossentropy")
        estimator = el.model_to_estimator(model, config=_config(_mirrored()))
        x, y = testing.separable_data(64)

        def input_fn():
            return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(8)

        counter = _ConversionCounter()
        with mock.patch.object(autograph_api, "converted_call", counter):
            estimator.train(input_fn, steps=2)
        self.assertEqual(counter.ours(), [])
        self.assertTrue(estimator.latest_checkpoint().endswith("-2"))
        predictions = list(estimator.predict(
            lambda: tf.data.Dataset.from_tensor_slices({"x": x[:4]}).batch(4)))
        self.assertLen(predictions, 4)
        self.assertTrue(np.all(np.isfinite([list(p.values())[0] for p in predictions])))

    def test_without_a_strategy_the_model_fn_is_not_converted(self):
        # As the original: only Keras layers convert their own `call`.
        counter = _ConversionCounter()
        estimator = el.Estimator(testing.linear_model_fn, config=_config())
        with mock.patch.object(autograph_api, "converted_call", counter):
            estimator.train(testing.train_input_fn(), steps=1)
        self.assertEqual(counter.ours(), [])
        self.assertNotIn(testing.__name__, counter.modules)


if __name__ == "__main__":
    tf.test.main()
