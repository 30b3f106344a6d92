"""The time-series estimators against numbers the original recorded (TF 2.15.1).

tests/data/make_tf215_timeseries_fixtures.py ran the original from the same start
(constant initial weights, data in order, one thread) and kept its losses,
evaluate() results, saved_model_utils round trips and two model_dirs. Tolerance:
rtol 1e-4, atol 1e-5 (float32 kernels of TF 2.15 and 2.21 may differ in the last
bits; a wrong op or order is orders of magnitude off).
"""

import json
import os
import shutil
import sys

import numpy as np
import tensorflow as tf
import tf_keras

from estimator_lib.canned.timeseries import ar_model
from estimator_lib.canned.timeseries import estimators
from estimator_lib.canned.timeseries import saved_model_utils
from estimator_lib.core.run_config import RunConfig

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "..", "data")
sys.path.insert(0, DATA)
import timeseries_fixture_model as fm  # noqa: E402

RTOL, ATOL = 1e-4, 1e-5

with open(os.path.join(DATA, "tf215_timeseries.json")) as _f:
    RECORD = json.load(_f)


def run_config(model_dir):
    return RunConfig(model_dir=model_dir, tf_random_seed=1, save_checkpoints_steps=1000,
                     keep_checkpoint_max=1, save_summary_steps=1000,
                     session_config=tf.compat.v1.ConfigProto(
                         intra_op_parallelism_threads=1, inter_op_parallelism_threads=1))


def train_input_fn():
    times, values = fm.train_windows()
    return tf.data.Dataset.from_tensor_slices({"times": times, "values": values}).batch(
        fm.BATCH).repeat()


def eval_input_fn():
    times, values = fm.series()
    return tf.data.Dataset.from_tensors({"times": times[None], "values": values[None]})


class LossHook(tf.compat.v1.train.SessionRunHook):
    """Records the head's `loss` summary's input each step (as the generator)."""

    def __init__(self):
        self.losses = []

    def begin(self):
        summaries = [op for op in tf.compat.v1.get_default_graph().get_operations()
                     if op.type == "ScalarSummary" and op.name.startswith("head/")]
        self._loss = summaries[0].inputs[1]

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self._loss)

    def after_run(self, run_context, run_values):
        self.losses.append(float(run_values.results))


def train(estimator, steps):
    hook = LossHook()
    estimator.train(train_input_fn, steps=steps, hooks=[hook])
    return hook.losses


class TimeSeriesFixturesTest(tf.test.TestCase):

    def assert_close(self, expected, actual, what):
        np.testing.assert_allclose(np.asarray(actual, dtype=np.float64),
                                   np.asarray(expected, dtype=np.float64),
                                   rtol=RTOL, atol=ATOL, err_msg=what)

    def assert_evaluation(self, expected, actual):
        for key in ("loss", "average_loss", "mean", "covariance", "observed", "times",
                    "global_step"):
            self.assert_close(expected[key], actual[key], key)
        self.assertEqual(len(expected["start_tuple"]), len(actual.get("start_tuple", ())))
        for number, (want, got) in enumerate(zip(expected["start_tuple"],
                                                 actual.get("start_tuple", ()))):
            self.assert_close(want, got, f"start_tuple[{number}]")

    def assert_outputs(self, expected, actual, what):
        self.assertCountEqual(expected, actual, what)
        for key in expected:
            self.assert_close(expected[key], actual[key], f"{what}[{key}]")

    def ar_estimator(self, model_dir, loss):
        return estimators.TimeSeriesRegressor(
            model=ar_model.ARModel(
                periodicities=fm.PERIODICITY, input_window_size=fm.INPUT_WINDOW,
                output_window_size=fm.OUTPUT_WINDOW, num_features=1,
                prediction_model_factory=fm.flat_factory(tf_keras),
                num_time_buckets=fm.BUCKETS, loss=loss),
            optimizer=tf.compat.v1.train.AdamOptimizer(0.05), config=run_config(model_dir))

    def check_ar_run(self, key, loss):
        record = RECORD[key]
        estimator = self.ar_estimator(os.path.join(self.get_temp_dir(), key), loss)
        self.assert_close(record["losses"], train(estimator, record["steps"]), "losses")
        evaluation = estimator.evaluate(eval_input_fn, steps=1)
        self.assert_evaluation(record["evaluate"], evaluation)
        path = estimator.export_saved_model(os.path.join(self.get_temp_dir(), key + "_export"),
                                            estimator.build_raw_serving_input_receiver_fn())
        times, values = fm.series()
        steps = len(record["predict_after_eval"]["times"][0])
        with tf.Graph().as_default(), tf.compat.v1.Session() as session:
            signatures = tf.compat.v1.saved_model.load(session, [tf.saved_model.SERVING], path)
            self.assert_outputs(record["predict_after_eval"], saved_model_utils.predict_continuation(
                continue_from=evaluation, signatures=signatures, session=session, steps=steps),
                "predict_continuation after evaluate")
            filtered = saved_model_utils.filter_continuation(
                continue_from=evaluation, signatures=signatures, session=session,
                features={"times": [24, 25], "values": [2.5, 3.1]})
            self.assert_outputs(record["filter_continuation"], filtered, "filter_continuation")
            self.assert_outputs(record["predict_after_filter"],
                                saved_model_utils.predict_continuation(
                                    continue_from=filtered, signatures=signatures,
                                    session=session, steps=3),
                                "predict_continuation after filter_continuation")
            cold = saved_model_utils.cold_start_filter(
                signatures=signatures, session=session,
                features={"times": times[:12], "values": values[:12]})
            self.assert_outputs(record["cold_start_filter"], cold, "cold_start_filter")
            self.assert_outputs(record["predict_after_cold_start"],
                                saved_model_utils.predict_continuation(
                                    continue_from=cold, signatures=signatures, session=session,
                                    times=[np.arange(12, 12 + steps)]),
                                "predict_continuation after cold_start_filter")

    def test_ar_regressor_normal_likelihood_matches_the_original(self):
        self.check_ar_run("ar", ar_model.ARModel.NORMAL_LIKELIHOOD_LOSS)

    def test_ar_regressor_squared_loss_matches_the_original(self):
        self.check_ar_run("ar_squared", ar_model.ARModel.SQUARED_LOSS)

    def copy_model_dir(self, name):
        target = os.path.join(self.get_temp_dir(), name)
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(os.path.join(DATA, name), target)
        return target

    def test_evaluates_the_originals_ar_model_dir(self):
        model_dir = self.copy_model_dir("tf215_timeseries_ar")
        estimator = self.ar_estimator(model_dir, ar_model.ARModel.NORMAL_LIKELIHOOD_LOSS)
        self.assert_evaluation(RECORD["ar"]["evaluate"],
                               estimator.evaluate(eval_input_fn, steps=1))

    def test_lstm_autoregressor_resumes_the_originals_model_dir(self):
        record = RECORD["lstm"]
        model_dir = self.copy_model_dir("tf215_timeseries_lstm")

        def make():
            return estimators.LSTMAutoRegressor(
                periodicities=fm.PERIODICITY, input_window_size=fm.INPUT_WINDOW,
                output_window_size=fm.OUTPUT_WINDOW, num_timesteps=fm.BUCKETS, num_units=3,
                optimizer=tf.compat.v1.train.AdamOptimizer(0.05), config=run_config(model_dir))

        self.assert_evaluation(record["evaluate"], make().evaluate(eval_input_fn, steps=1))
        resumed = make()
        self.assert_close(record["resume_losses"], train(resumed, record["resume_steps"]),
                          "losses after resuming")
        self.assert_evaluation(record["evaluate_after_resume"],
                               resumed.evaluate(eval_input_fn, steps=1))


if __name__ == "__main__":
    tf.test.main()
