"""Writes tests/data/tf215_timeseries* with the ORIGINAL time-series estimators (TF 2.15.1).

Run by hand only, in the throw-away venv described in tests/data/README.md:

    TF_CPP_MIN_LOG_LEVEL=2 /tmp/tf215/bin/python tests/data/make_tf215_timeseries_fixtures.py

Fixed data (timeseries_fixture_model.series: a 24-step series), read in order, in a
single-threaded session, under v1 behaviour (the original's evaluate() needs
reference variables; see main):

- ar: TimeSeriesRegressor over an ARModel whose prediction model has constant
  initial weights (timeseries_fixture_model.flat_factory), normal likelihood loss:
  the loss of each of AR_STEPS training steps, evaluate() on the whole series,
  then the raw-receiver export driven by saved_model_utils (predict_continuation
  after the evaluation, cold_start_filter then predict_continuation);
- ar_squared: the same with SQUARED_LOSS (evaluate reports unscaled losses);
- lstm: LSTMAutoRegressor (tf_random_seed=1, num_units=3), LSTM_STEPS steps here;
  its model_dir is kept (tf215_timeseries_lstm/) with evaluate() at that point, and
  the losses of RESUME_STEPS more steps and evaluate() after them.

The model_dirs are pruned to the last checkpoint (no .meta, events or graph).
Nothing of the original is copied: only its outputs are kept.
"""

import json
import os
import shutil
import sys
import tempfile

import numpy as np
import tensorflow as tf
from tensorflow_estimator.python.estimator.canned.timeseries import ar_model
from tensorflow_estimator.python.estimator.canned.timeseries import estimators
from tensorflow_estimator.python.estimator.canned.timeseries import saved_model_utils

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import timeseries_fixture_model as fm  # noqa: E402

AR_STEPS = 6
LSTM_STEPS = 2
RESUME_STEPS = 3
PREDICT_STEPS = 5


def run_config(model_dir):
    return tf.estimator.RunConfig(
        model_dir=model_dir, tf_random_seed=1, save_checkpoints_steps=1000,
        keep_checkpoint_max=1, save_summary_steps=1000,
        session_config=tf.compat.v1.ConfigProto(intra_op_parallelism_threads=1,
                                                inter_op_parallelism_threads=1))


def train_input_fn():
    times, values = fm.train_windows()
    data = tf.data.Dataset.from_tensor_slices({"times": times, "values": values})
    return data.batch(fm.BATCH).repeat()


def eval_input_fn():
    times, values = fm.series()
    return tf.data.Dataset.from_tensors({"times": times[None], "values": values[None]})


class LossHook(tf.compat.v1.train.SessionRunHook):
    """Records the head's `loss` summary's input each step."""

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


def listed(result):
    return {key: np.asarray(value).tolist() for key, value in result.items()
            if key != "start_tuple"} | {
        "start_tuple": [np.asarray(v).tolist() for v in result.get("start_tuple", ())]}


def train(estimator, steps):
    hook = LossHook()
    estimator.train(train_input_fn, steps=steps, hooks=[hook])
    return hook.losses


def prune(model_dir, target):
    """Copies the last checkpoint of model_dir to target, `checkpoint` made relative."""
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(target)
    prefix = os.path.basename(tf.train.latest_checkpoint(model_dir))
    for name in os.listdir(model_dir):
        if name.startswith(prefix + ".") and not name.endswith(".meta"):
            shutil.copy(os.path.join(model_dir, name), target)
    with open(os.path.join(target, "checkpoint"), "w") as f:
        f.write(f'model_checkpoint_path: "{prefix}"\nall_model_checkpoint_paths: "{prefix}"\n')


def exported(estimator, evaluation, export_base):
    """saved_model_utils round trips on the raw-receiver export."""
    path = estimator.export_saved_model(export_base,
                                        estimator.build_raw_serving_input_receiver_fn())
    times, values = fm.series()
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        signatures = tf.compat.v1.saved_model.load(session, [tf.saved_model.SERVING], path)
        after_eval = saved_model_utils.predict_continuation(
            continue_from=evaluation, signatures=signatures, session=session,
            steps=PREDICT_STEPS)
        filtered = saved_model_utils.filter_continuation(
            continue_from=evaluation, signatures=signatures, session=session,
            features={"times": [24, 25], "values": [2.5, 3.1]})
        after_filter = saved_model_utils.predict_continuation(
            continue_from=filtered, signatures=signatures, session=session, steps=3)
        cold = saved_model_utils.cold_start_filter(
            signatures=signatures, session=session,
            features={"times": times[:12], "values": values[:12]})
        after_cold = saved_model_utils.predict_continuation(
            continue_from=cold, signatures=signatures, session=session,
            times=[np.arange(12, 12 + PREDICT_STEPS)])
    return {"predict_after_eval": {k: np.asarray(v).tolist() for k, v in after_eval.items()},
            "filter_continuation": {k: np.asarray(v).tolist() for k, v in filtered.items()},
            "predict_after_filter": {k: np.asarray(v).tolist()
                                     for k, v in after_filter.items()},
            "cold_start_filter": {k: np.asarray(v).tolist() for k, v in cold.items()},
            "predict_after_cold_start": {k: np.asarray(v).tolist()
                                         for k, v in after_cold.items()}}


def ar_run(work, loss):
    model_dir = os.path.join(work, loss)
    estimator = estimators.TimeSeriesRegressor(
        model=ar_model.ARModel(
            periodicities=fm.PERIODICITY, input_window_size=fm.INPUT_WINDOW,
            output_window_size=fm.OUTPUT_WINDOW, num_features=1,
            prediction_model_factory=fm.flat_factory(tf.keras),
            num_time_buckets=fm.BUCKETS, loss=loss),
        optimizer=tf.compat.v1.train.AdamOptimizer(0.05), config=run_config(model_dir))
    losses = train(estimator, AR_STEPS)
    evaluation = estimator.evaluate(eval_input_fn, steps=1)
    record = {"steps": AR_STEPS, "losses": losses, "evaluate": listed(evaluation)}
    record.update(exported(estimator, evaluation, os.path.join(work, loss + "_export")))
    return record


def lstm_run(work):
    model_dir = os.path.join(work, "lstm")

    def make():
        return estimators.LSTMAutoRegressor(
            periodicities=fm.PERIODICITY, input_window_size=fm.INPUT_WINDOW,
            output_window_size=fm.OUTPUT_WINDOW, num_timesteps=fm.BUCKETS, num_units=3,
            optimizer=tf.compat.v1.train.AdamOptimizer(0.05), config=run_config(model_dir))

    losses = train(make(), LSTM_STEPS)
    prune(model_dir, os.path.join(HERE, "tf215_timeseries_lstm"))
    first = make().evaluate(eval_input_fn, steps=1)
    resumed = make()
    resume_losses = train(resumed, RESUME_STEPS)
    return {"steps": LSTM_STEPS, "losses": losses, "evaluate": listed(first),
            "resume_steps": RESUME_STEPS, "resume_losses": resume_losses,
            "evaluate_after_resume": listed(resumed.evaluate(eval_input_fn, steps=1))}


def main():
    # The original's saved_model_utils removes its own `numpy` import
    # (remove_undocumented), so cold_start_filter and filter_continuation raise
    # NameError there; given back here to record their numbers (ours has no such bug).
    saved_model_utils.numpy = np
    # The original's evaluation metrics assign values of any shape to variables of
    # shape (): only reference variables allow it (its tests are @run_v1_only).
    tf.compat.v1.disable_v2_behavior()
    work = tempfile.mkdtemp()
    record = {
        "tensorflow": tf.__version__,
        "ar": ar_run(work, ar_model.ARModel.NORMAL_LIKELIHOOD_LOSS),
        "ar_squared": ar_run(work, ar_model.ARModel.SQUARED_LOSS),
        "lstm": lstm_run(work),
    }
    prune(os.path.join(work, ar_model.ARModel.NORMAL_LIKELIHOOD_LOSS),
          os.path.join(HERE, "tf215_timeseries_ar"))
    with open(os.path.join(HERE, "tf215_timeseries.json"), "w") as f:
        json.dump(record, f, indent=1)
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
