"""After a plain `import estimator_lib`, tf.keras.estimator.model_to_estimator and
tf_keras.estimator.model_to_estimator convert with estimator_lib (issue #37), in a
program run as a user runs it; `import tensorflow_estimator` still fails."""

import os
import subprocess
import sys
import textwrap

import tensorflow as tf

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))

_PROGRAM = textwrap.dedent("""\
    import os
    import sys

    import estimator_lib
    import tensorflow as tf
    import tf_keras


    def model():
        net = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
        net.compile(optimizer=tf.keras.optimizers.legacy.SGD(), loss="mse")
        return net


    work = sys.argv[1]
    for name, convert in (("tf.keras", tf.keras.estimator.model_to_estimator),
                          ("tf_keras", tf_keras.estimator.model_to_estimator),
                          ("v1", tf.compat.v1.keras.estimator.model_to_estimator)):
        estimator = convert(keras_model=model(), model_dir=os.path.join(work, name))
        print(name, type(estimator).__module__, type(estimator).__name__)
    try:
        import tensorflow_estimator
    except ImportError as error:
        print("tensorflow_estimator:", type(error).__name__)
    estimator_lib._keras_route.uninstall_keras_route()
    try:
        tf.keras.estimator.model_to_estimator(keras_model=model())
    except NotImplementedError:
        print("uninstalled: NotImplementedError")
    """)


class KerasRouteTest(tf.test.TestCase):

    def test_tf_keras_estimator_names_convert_with_estimator_lib(self):
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
        env.pop("TF_USE_LEGACY_KERAS", None)  # What `import estimator_lib` sets.
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [_REPO, env.get("PYTHONPATH")]))
        process = subprocess.run([sys.executable, "-c", _PROGRAM, self.get_temp_dir()],
                                 env=env, capture_output=True, text=True, timeout=300,
                                 check=False)
        self.assertEqual(process.returncode, 0, process.stderr[-3000:])
        self.assertEqual(process.stdout.splitlines(), [
            "tf.keras estimator_lib.engine.estimator Estimator",
            "tf_keras estimator_lib.engine.estimator Estimator",
            "v1 estimator_lib.engine.estimator_v1 EstimatorV1",
            "tensorflow_estimator: ModuleNotFoundError",
            "uninstalled: NotImplementedError",
        ])
        self.assertNotIn("Traceback", process.stderr)


if __name__ == "__main__":
    tf.test.main()
