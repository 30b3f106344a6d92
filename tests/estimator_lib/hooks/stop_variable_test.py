"""The original's `signal_early_stopping/STOP` in our checkpoints: created, set on a
stop, and kept out of a model_dir whose checkpoints never had it."""

import os
import shutil
import tempfile

import tensorflow as tf

import estimator_lib as el
from estimator_lib.hooks import stop_variable
from tests.estimator_lib import testing

_STOP = f"{stop_variable.SCOPE}/{stop_variable.NAME}"
_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "data")


def _stop_hook(estimator, stop):
    return el.experimental.make_early_stopping_hook(
        estimator, lambda: stop, run_every_secs=None, run_every_steps=2)


class StopVariableTest(tf.test.TestCase):

    def _estimator(self, model_dir=None, **config):
        return el.Estimator(testing.linear_model_fn, config=el.RunConfig(
            model_dir=model_dir or tempfile.mkdtemp(dir=self.get_temp_dir()), **config))

    def _saved(self, estimator):
        return dict(tf.train.list_variables(estimator.model_dir))

    def test_set_when_training_stops_early_as_the_original(self):
        stopped, not_stopped = self._estimator(), self._estimator()
        stopped.train(testing.train_input_fn(), max_steps=10,
                      hooks=[_stop_hook(stopped, True)])
        not_stopped.train(testing.train_input_fn(), max_steps=4,
                          hooks=[_stop_hook(not_stopped, False)])
        self.assertLess(stopped.get_variable_value("global_step"), 10)
        self.assertEqual(stopped.get_variable_value(_STOP), True)
        self.assertEqual(not_stopped.get_variable_value(_STOP), False)
        self.assertEqual(self._saved(stopped)[_STOP], [])

    def test_under_a_strategy_an_int32_of_the_replicas_votes(self):
        estimator = self._estimator(
            train_distribute=tf.distribute.MirroredStrategy(["CPU:0", "CPU:1"]))
        estimator.train(testing.train_input_fn(), max_steps=10,
                        hooks=[_stop_hook(estimator, True)])
        value = estimator.get_variable_value(_STOP)
        self.assertEqual(value.dtype, tf.int32.as_numpy_dtype)
        self.assertEqual(value, 2)

    def test_a_model_dir_trained_without_it_resumes_with_a_hook_and_back(self):
        estimator = self._estimator()
        estimator.train(testing.train_input_fn(), max_steps=2)
        estimator.train(testing.train_input_fn(), max_steps=4,
                        hooks=[_stop_hook(estimator, False)])
        self.assertEqual(estimator.get_variable_value("global_step"), 4)
        self.assertNotIn(_STOP, self._saved(estimator))

        with_it = self._estimator()
        with_it.train(testing.train_input_fn(), max_steps=2, hooks=[_stop_hook(with_it, False)])
        self.assertIn(_STOP, self._saved(with_it))
        with_it.train(testing.train_input_fn(), max_steps=4)  # As the original: not restored.
        self.assertEqual(with_it.get_variable_value("global_step"), 4)

    def test_the_originals_model_dir_without_it_resumes_with_a_hook(self):
        # The original failed here: "Key signal_early_stopping/STOP not found in checkpoint".
        model_dir = os.path.join(tempfile.mkdtemp(dir=self.get_temp_dir()), "tf215")
        shutil.copytree(os.path.join(_DATA, "tf215_custom_model_dir"), model_dir)
        estimator = self._estimator(model_dir)
        estimator.train(testing.train_input_fn(), steps=2, hooks=[_stop_hook(estimator, False)])
        self.assertEqual(estimator.get_variable_value("global_step"), 22)


if __name__ == "__main__":
    tf.test.main()
