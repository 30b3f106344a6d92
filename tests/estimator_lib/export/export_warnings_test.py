"""export_saved_model logs no deprecation warning of TensorFlow's own signature helpers
(docs/estimator.md, deliberate difference 24), in a program run as a user runs it."""

import os
import subprocess
import sys
import textwrap

import tensorflow as tf

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))

_PROGRAM = textwrap.dedent("""\
    import sys

    import estimator_lib
    import tensorflow as tf


    def model_fn(features, labels, mode):
        w = tf.compat.v1.get_variable("w", [1])
        predictions = features["x"] * w
        loss = None if labels is None else tf.reduce_mean(tf.square(predictions - labels))
        train_op = None
        if mode == estimator_lib.ModeKeys.TRAIN:
            train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
                loss, global_step=tf.compat.v1.train.get_global_step())
        return estimator_lib.EstimatorSpec(mode, predictions={"y": predictions}, loss=loss,
                                           train_op=train_op)


    estimator = estimator_lib.Estimator(model_fn, model_dir=sys.argv[1])
    estimator.train(lambda: tf.data.Dataset.from_tensors(({"x": [1.0]}, [1.0])), steps=1)
    receiver = estimator_lib.export.build_raw_serving_input_receiver_fn(
        {"x": tf.zeros([1])})
    tf.get_logger().warning("a warning of the program's own")
    print(estimator.export_saved_model(sys.argv[2], receiver).decode())
    """)


class ExportWarningsTest(tf.test.TestCase):

    def test_no_tensor_info_deprecation_warnings(self):
        work = self.get_temp_dir()
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [_REPO, env.get("PYTHONPATH")]))
        process = subprocess.run(
            [sys.executable, "-c", _PROGRAM, os.path.join(work, "model"),
             os.path.join(work, "export")],
            env=env, capture_output=True, text=True, timeout=300, check=False)
        self.assertEqual(process.returncode, 0, process.stderr[-3000:])
        self.assertTrue(os.path.isfile(os.path.join(process.stdout.strip(),
                                                    "saved_model.pb")))
        self.assertIn("a warning of the program's own", process.stderr)
        self.assertNotIn("build_tensor_info", process.stderr)
        self.assertNotIn("get_tensor_from_tensor_info", process.stderr)


if __name__ == "__main__":
    tf.test.main()
