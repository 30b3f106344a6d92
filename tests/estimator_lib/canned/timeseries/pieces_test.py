"""canned/timeseries: argument checks, numpy canonicalisation and the original paths."""

import importlib

import numpy as np
import tensorflow as tf

from estimator_lib import compat
from estimator_lib.canned.timeseries import ar_model
from estimator_lib.canned.timeseries import estimators
from estimator_lib.canned.timeseries import feature_keys
from estimator_lib.canned.timeseries import head as ts_head
from estimator_lib.canned.timeseries import math_utils
from estimator_lib.canned.timeseries import model_utils
from estimator_lib.canned.timeseries import saved_model_utils
from estimator_lib.canned.timeseries import state_management


class ArgumentsTest(tf.test.TestCase):

    def test_ar_model_rejects_bad_arguments_by_name(self):
        for kwargs, pattern in (
                (dict(loss="l1"), "loss must be"),
                (dict(output_window_size=0), "output_window_size must be > 0"),
                (dict(num_time_buckets=0), "num_time_buckets must be > 0"),
                (dict(periodicities=[-2]), "periodicities must be > 0"),
                (dict(periodicities=None, input_window_size=0),
                 "periodicities or input_window_size")):
            arguments = dict(periodicities=4, input_window_size=2, output_window_size=1,
                             num_features=1)
            arguments.update(kwargs)
            with self.assertRaisesRegex(ValueError, pattern):
                ar_model.ARModel(**arguments)

    def test_times_or_steps(self):
        previous = {feature_keys.FilteringResults.TIMES: np.array([[3, 4]])}
        self.assertAllEqual([[5, 6, 7]], model_utils.canonicalize_times_or_steps_from_output(
            times=None, steps=3, previous_model_output=previous))
        self.assertAllEqual([[9]], model_utils.canonicalize_times_or_steps_from_output(
            times=[9], steps=None, previous_model_output=previous))
        with self.assertRaisesRegex(ValueError, "Only one of"):
            model_utils.canonicalize_times_or_steps_from_output(1, 1, previous)
        with self.assertRaisesRegex(ValueError, "must be after"):
            model_utils.canonicalize_times_or_steps_from_output([4], None, previous)
        with self.assertRaisesRegex(ValueError, "batch dimension matching"):
            model_utils.canonicalize_times_or_steps_from_output([[5], [6]], None, previous)

    def test_numpy_features_get_batch_and_time_axes(self):
        # The original's version raised NameError (its module dropped its numpy import).
        one = saved_model_utils._canonicalize_numpy_data({"times": 3, "values": 1.5}, False)
        self.assertEqual((1, 1), one["times"].shape)
        self.assertEqual((1, 1, 1), one["values"].shape)
        series = saved_model_utils._canonicalize_numpy_data(
            {"times": [1, 2], "values": [1., 2.]}, True)
        self.assertEqual((1, 2, 1), series["values"].shape)
        with self.assertRaisesRegex(ValueError, "prefixed by the shape"):
            saved_model_utils._canonicalize_numpy_data({"times": [1, 2], "values": [1.]}, False)
        with self.assertRaisesRegex(ValueError, "unbatched"):
            saved_model_utils._canonicalize_numpy_data(
                {"times": [[1], [2]], "values": [[1.], [2.]]}, True)

    def test_state_manager_refuses_state_in_training(self):
        with self.assertRaisesRegex(ValueError, "not supported"):
            state_management.FilteringOnlyStateManager().define_loss(
                model=None, features={feature_keys.State.STATE_TUPLE: ()}, mode="train")
        with self.assertRaisesRegex(ValueError, "Overriding start state"):
            state_management.PassthroughStateManager().define_loss(
                model=None, features={feature_keys.State.STATE_TUPLE: ()}, mode="eval")

    def test_state_to_dictionary_numbers_the_flat_state(self):
        self.assertEqual({"model_state_00": 1, "model_state_01": 2, "model_state_02": 3},
                         ts_head.state_to_dictionary((1, (2, 3))))

    def test_replicate_state(self):
        with tf.Graph().as_default(), self.cached_session() as session:
            tiled = math_utils.replicate_state((tf.constant([1, 2]), tf.constant(5.)), 3)
            first, second = session.run(tiled)
        self.assertAllEqual([[1, 2]] * 3, first)
        self.assertAllEqual([5., 5., 5.], second)


class OriginalPathsTest(tf.test.TestCase):

    def test_the_original_modules_are_ours(self):
        installed = compat.is_installed()
        compat.install()
        try:
            prefix = "tensorflow_estimator.python.estimator.canned.timeseries."
            self.assertIs(importlib.import_module(prefix + "estimators"), estimators)
            self.assertIs(importlib.import_module(prefix + "ar_model").ARModel,
                          ar_model.ARModel)
            self.assertIs(importlib.import_module(prefix + "saved_model_utils"),
                          saved_model_utils)
            self.assertEqual("model_state", importlib.import_module(
                prefix + "feature_keys").State.STATE_PREFIX)
        finally:
            if not installed:
                compat.uninstall()


if __name__ == "__main__":
    tf.test.main()
