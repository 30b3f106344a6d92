"""ModelFunction / EstimatorSpecFunction: what TF 2.15's returned for the same calls."""

import tensorflow as tf

from estimator_lib.legacy import export_function as function
from estimator_lib.core.model_fn import EstimatorSpec


def _model_fn(features, labels, mode, params):
    del mode
    return {"y": features * params["k"] + (0.0 if labels is None else labels)}


class ModelFunctionTest(tf.test.TestCase):

    def test_each_mode_calls_the_model_fn(self):
        obj = function.ModelFunction.from_function(_model_fn, params={"k": 2.0})
        x = tf.constant([1.0, 2.0])
        self.assertAllEqual([2.0, 4.0], obj.predict(x)["y"])
        self.assertAllEqual([3.0, 6.0], obj.train(x, x)["y"])
        self.assertAllEqual([3.0, 6.0], obj.evaluate(x, x)["y"])
        self.assertEqual({}, dict(obj.variables))
        self.assertEqual(["eval", "infer", "train"], sorted(obj._functions))
        self.assertIsInstance(obj._functions["infer"], tf.types.experimental.PolymorphicFunction)

    def test_modes_and_arguments_are_checked(self):
        obj = function.ModelFunction.from_function(_model_fn, params={"k": 2.0})
        with self.assertRaisesRegex(ValueError, "multiple functions with name infer"):
            obj.add_mode(_model_fn, "infer")
        with self.assertRaisesRegex(ValueError, "Mode x is not defined the ModelFunction"):
            obj.call("x", 1)
        with self.assertRaisesRegex(ValueError, "does not include params argument"):
            function.ModelFunction.from_function(lambda features: features, params={"a": 1})

    def test_a_model_fn_without_labels(self):
        obj = function.ModelFunction.from_function(lambda features: features + 1,
                                                   all_modes=["infer"])
        self.assertEqual(2.0, obj.predict(tf.constant(1.0)).numpy())
        self.assertFalse(obj._functions["infer"].expects_labels)

    def test_one_tensor_input_signature(self):
        fn = function.EstimatorSpecFunction(
            lambda features, labels, mode: features, "train",
            input_signature=[tf.TensorSpec([], tf.float32)])
        self.assertTrue(fn.expects_labels)  # As the original: the model_fn names labels.
        self.assertEqual(3.0, fn(tf.constant(3.0)).numpy())
        self.assertEqual("train", fn.name)

    def test_an_estimator_spec_fails_the_trace_as_in_2_15(self):
        def model_fn(features, labels, mode):
            del labels
            step = tf.compat.v1.train.get_or_create_global_step()
            return EstimatorSpec(mode, predictions=features, loss=tf.constant(1.0),
                                 train_op=tf.compat.v1.assign_add(step, 1))

        obj = function.ModelFunction.from_function(model_fn)
        with self.assertRaisesRegex(TypeError, "must return zero or more Tensors"):
            obj.predict(tf.constant([1.0]))


if __name__ == "__main__":
    tf.test.main()
