"""TF_USE_LEGACY_KERAS is set by importing estimator_lib; Keras 3 objects get one clear error."""

import os
import subprocess
import sys

import tensorflow as tf

from estimator_lib.core import keras_switch as _keras_switch

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_SRC = os.path.join(_ROOT, "src")

# `from tensorflow.keras.layers import Dense` rebinds `tf.keras` to a module named
# `tensorflow.keras`, whose layers are still tf_keras's: Keras 2 is in use, and a
# model_fn's own exception must come out as itself.
_REBOUND_TF_KERAS = """
import estimator_lib
import tensorflow as tf
from tensorflow.keras.layers import Dense
from estimator_lib.core import keras_switch
print(tf.keras.__name__, keras_switch.keras3_in_use())
def model_fn(features, labels, mode):
    raise KeyError("the model_fn's own")
def input_fn():
    return {"x": tf.constant([[1.0]])}, tf.constant([[1.0]])
try:
    estimator_lib.Estimator(model_fn).train(input_fn, steps=1)
except KeyError as e:
    print("KeyError", e)
"""


class KerasSwitchTest(tf.test.TestCase):

    def test_importing_estimator_lib_first_gives_keras_2(self):
        env = {k: v for k, v in os.environ.items() if k != "TF_USE_LEGACY_KERAS"}
        env["PYTHONPATH"] = _ROOT
        script = ("import estimator_lib, os, tensorflow as tf; "
                  "print(os.environ['TF_USE_LEGACY_KERAS'], tf.keras.__name__, "
                  "tf.compat.v1.layers.Dense.__module__)")
        out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                             text=True, check=True, timeout=120).stdout.split()
        self.assertEqual(out[0], "1")
        self.assertTrue(out[1].startswith("tf_keras"), out)
        self.assertTrue(out[2].startswith("tf_keras"), out)

    def test_keras3_object_is_refused_with_the_fix(self):
        import keras  # pylint: disable=import-outside-toplevel  (Keras 3 ships with TF 2.21)
        layer = keras.layers.Dense(2)
        with self.assertRaisesRegex(ValueError, r"`keras_model` is a Keras 3 object.*"
                                                r"TF_USE_LEGACY_KERAS=1"):
            _keras_switch.check_not_keras3(layer, argument="keras_model")
        _keras_switch.check_not_keras3(tf.keras.layers.Dense(2), argument="keras_model")

    def test_tf_keras_rebound_by_a_from_import_is_still_keras_2(self):
        env = dict(os.environ, PYTHONPATH=_SRC, TF_CPP_MIN_LOG_LEVEL="3")
        env.pop("TF_USE_LEGACY_KERAS", None)
        result = subprocess.run([sys.executable, "-c", _REBOUND_TF_KERAS], env=env,
                                capture_output=True, text=True, timeout=300)
        lines = result.stdout.splitlines()
        self.assertEqual(lines[:1], ["tensorflow.keras False"], result.stderr[-2000:])
        self.assertEqual(lines[1:], ["KeyError \"the model_fn's own\""],
                         result.stderr[-2000:])

    def test_keras3_in_use_reads_the_layers(self):
        self.assertFalse(_keras_switch.keras3_in_use())


if __name__ == "__main__":
    tf.test.main()
