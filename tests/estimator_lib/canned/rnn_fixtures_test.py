"""The RNN estimators and SavedModelEstimator against the original's recorded runs.

tests/data/make_tf215_rnn_fixtures.py ran them on TF 2.15 (the data, columns and
configurations below are its own functions, loaded from it); here the same runs
must give the same numbers (relative 1e-4).
"""

import gzip
import importlib.util
import json
import os
import shutil

import numpy as np
import tensorflow as tf
import tf_keras

import estimator_lib as el
from estimator_lib.canned.rnn import RNNClassifier
from estimator_lib.canned.saved_model_estimator import SavedModelEstimator
from estimator_lib.export.receivers import SupervisedInputReceiver

_DATA = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "data")
_spec = importlib.util.spec_from_file_location(
    "make_tf215_rnn_fixtures", os.path.join(_DATA, "make_tf215_rnn_fixtures.py"))
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)

with open(os.path.join(_DATA, "tf215_rnn.json")) as _f:
    RECORDS = json.load(_f)

RTOL, ATOL = 1e-4, 1e-6


def _classifier(name, model_dir):
    kwargs, label_key = gen.build_kwargs(name, tf.feature_column, tf_keras.optimizers)
    return RNNClassifier(config=gen.run_config(el.RunConfig, model_dir), **kwargs), label_key


def _prediction_input_fn(label_key):
    return lambda: gen.input_fn(label_key, repeat=False)().map(lambda features, _: features)


def _labels():
    return [ex["label_cls"] for ex in gen.EXAMPLES]


class _RecordAsserts(tf.test.TestCase):

    def assert_results(self, expected: dict, actual: dict):
        self.assertEqual(sorted(expected), sorted(actual))
        for key, value in expected.items():
            self.assertAllClose(value, actual[key], rtol=RTOL, atol=ATOL, msg=key)

    def assert_predictions(self, expected: list, actual: list):
        self.assertLen(actual, len(expected))
        for want, got in zip(expected, actual):
            got = {k: gen.plain(v) for k, v in got.items()}
            self.assertEqual(sorted(want), sorted(got))
            for key, value in want.items():
                if value and isinstance(np.ravel(value)[0], str):
                    self.assertEqual(value, got[key], msg=key)
                else:
                    self.assertAllClose(value, got[key], rtol=RTOL, atol=ATOL, msg=key)


class OriginalRunsTest(_RecordAsserts):

    def _train_from_the_recorded_start(self, name):
        rec = RECORDS[name]
        model_dir = os.path.join(self.get_temp_dir(), name)
        est, label_key = _classifier(name, model_dir)
        gen.write_checkpoint({k: np.array(v["value"], dtype=v["dtype"])
                              for k, v in rec["initial"].items()}, model_dir)
        est.train(gen.input_fn(label_key, repeat=True), steps=rec["steps"])
        self.assert_results(rec["evaluate"],
                            est.evaluate(gen.input_fn(label_key, repeat=False), steps=1))
        self.assert_predictions(rec["predictions"],
                                list(est.predict(_prediction_input_fn(label_key))))
        self.assertEqual(sorted(rec["checksums"]), sorted(est.get_variable_names()))
        for key, value in gen.checksums(est).items():
            self.assertAllClose(rec["checksums"][key], value, rtol=RTOL, atol=ATOL, msg=key)

    def test_simple_rnn_classifier_with_vocabulary_and_context_trains_as_the_original(self):
        self._train_from_the_recorded_start("classifier")

    def test_weighted_lstm_with_adam_trains_as_the_original(self):
        self._train_from_the_recorded_start("lstm_weighted")

    def test_stacked_gru_over_sequences_trains_as_the_original(self):
        self._train_from_the_recorded_start("gru_sequential")

    def test_resumes_the_originals_model_dir(self):
        rec = RECORDS["classifier"]
        model_dir = os.path.join(self.get_temp_dir(), "resumed")
        shutil.copytree(os.path.join(_DATA, "tf215_rnn_model_dir"), model_dir)
        est, label_key = _classifier("classifier", model_dir)
        self.assert_results(rec["evaluate"],
                            est.evaluate(gen.input_fn(label_key, repeat=False), steps=1))
        self.assert_predictions(rec["predictions"],
                                list(est.predict(_prediction_input_fn(label_key))))
        est.train(gen.input_fn(label_key, repeat=True), steps=1)
        self.assertEqual(rec["steps"] + 1, est.get_variable_value("global_step"))


class OriginalSavedModelTest(_RecordAsserts):

    def _saved_model_dir(self):
        """A copy of the original's SavedModel, its saved_model.pb unpacked."""
        target = os.path.join(self.get_temp_dir(), "saved_model")
        shutil.copytree(os.path.join(_DATA, "tf215_rnn_saved_model"), target)
        with gzip.open(os.path.join(target, "saved_model.pb.gz")) as src, \
                open(os.path.join(target, "saved_model.pb"), "wb") as dst:
            dst.write(src.read())
        return target

    def _check(self, saved_model_dir, expected):
        sme = SavedModelEstimator(saved_model_dir, os.path.join(self.get_temp_dir(), "sme"))
        examples = gen.serialized_examples()
        self.assert_results(expected["evaluate"], sme.evaluate(
            lambda: ({"examples": tf.constant(examples)}, tf.constant(_labels())), steps=1))
        self.assert_predictions(expected["predictions"], list(sme.predict(
            lambda: tf.data.Dataset.from_tensors({"inputs": tf.constant(examples)}))))

    def test_evaluates_and_predicts_the_originals_saved_model_as_the_original(self):
        self._check(self._saved_model_dir(), RECORDS["classifier"]["saved_model_estimator"])

    def test_our_export_of_the_originals_model_serves_the_same(self):
        model_dir = os.path.join(self.get_temp_dir(), "resumed")
        shutil.copytree(os.path.join(_DATA, "tf215_rnn_model_dir"), model_dir)
        est, _ = _classifier("classifier", model_dir)
        seq, ctx = gen.columns(tf.feature_column)
        feature_spec = tf.feature_column.make_parse_example_spec(seq + ctx)

        def supervised_receiver_fn():
            serialized = tf.compat.v1.placeholder(tf.string, [None], name="input_example_tensor")
            labels = tf.compat.v1.placeholder(tf.string, [None, 1], name="label")
            features = tf.compat.v1.io.parse_example(serialized, feature_spec)
            return SupervisedInputReceiver(features, labels,
                                           {"examples": serialized, "label": labels})

        export_dir = est.experimental_export_all_saved_models(
            os.path.join(self.get_temp_dir(), "export"),
            {el.ModeKeys.EVAL: supervised_receiver_fn,
             el.ModeKeys.PREDICT: el.export.build_parsing_serving_input_receiver_fn(
                 feature_spec)})
        self._check(export_dir, RECORDS["classifier"]["saved_model_estimator"])


if __name__ == "__main__":
    tf.test.main()
