"""estimator_export: marks the API names and logs the original's deprecation warning."""

import sys

import tensorflow as tf

from estimator_lib.legacy.estimator_export import estimator_export


class EstimatorExportTest(tf.test.TestCase):

    def test_function_is_named_and_warns_once(self):

        @estimator_export("estimator.foo", v1=["estimator.bar"])
        def foo():
            return 3

        self.assertEqual(("estimator.foo",), foo._estimator_api_names)
        self.assertEqual(("estimator.bar",), foo._estimator_api_names_v1)
        with self.assertLogs("tensorflow", "WARNING") as logs:
            self.assertEqual(3, foo())
        self.assertIn("Use tf.keras instead.", "\n".join(logs.output))

    def test_constant(self):
        estimator_export("estimator.CONST").export_constant(__name__, "CONST")
        module = sys.modules[__name__]
        self.assertIn((("estimator.CONST",), "CONST"), module._estimator_api_constants)


if __name__ == "__main__":
    tf.test.main()
