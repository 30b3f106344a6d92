"""TPUEstimator's calls end with the original's `<loop> marked as finished` lines.

Observed on the original (TF 2.15.1 + tensorflow-estimator 2.15.0) on a CPU with
use_tpu=False: one line after train and evaluate, two after a predict run to its
end, and `Reraising captured error` (WARNING) before an error propagates.
"""

import tensorflow as tf

from estimator_lib import tpu
from tests.estimator_lib import testing


def _model_fn(features, labels, mode, params):
    del params
    return testing.linear_model_fn(features, labels, mode)


def _input_fn(params):
    x, y = testing.separable_data(16)
    return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(params["batch_size"])


def _finished_lines(logs):
    return [line for line in logs.output if "marked as finished" in line
            or "Reraising" in line]


class LoopLogsTest(tf.test.TestCase):

    def _estimator(self, model_fn=_model_fn):
        return tpu.TPUEstimator(
            model_fn=model_fn, config=tpu.RunConfig(model_dir=self.get_temp_dir()),
            use_tpu=False, train_batch_size=8, eval_batch_size=8, predict_batch_size=8)

    def test_each_call_ends_with_its_line(self):
        est = self._estimator()
        with self.assertLogs("tensorflow", level="INFO") as logs:
            est.train(_input_fn, steps=1)
            est.evaluate(_input_fn)
            predictions = list(est.predict(_input_fn))
        self.assertLen(predictions, 16)
        self.assertEqual(
            ["INFO:tensorflow:training_loop marked as finished",
             "INFO:tensorflow:evaluation_loop marked as finished",
             "INFO:tensorflow:prediction_loop marked as finished",
             "INFO:tensorflow:prediction_loop marked as finished"], _finished_lines(logs))

    def test_a_predict_closed_early_logs_once(self):
        est = self._estimator()
        est.train(_input_fn, steps=1)
        with self.assertLogs("tensorflow", level="INFO") as logs:
            predictions = est.predict(_input_fn)
            next(predictions)
            predictions.close()
        self.assertEqual(["INFO:tensorflow:prediction_loop marked as finished"],
                         _finished_lines(logs))

    def test_an_error_is_reraised_after_the_lines(self):
        def failing_model_fn(features, labels, mode, params):
            raise ValueError("model_fn failed on purpose")

        with self.assertLogs("tensorflow", level="INFO") as logs:
            with self.assertRaisesRegex(ValueError, "on purpose"):
                self._estimator(failing_model_fn).train(_input_fn, steps=1)
        self.assertEqual(["INFO:tensorflow:training_loop marked as finished",
                          "WARNING:tensorflow:Reraising captured error"],
                         _finished_lines(logs))

    def test_subclasses_may_not_override_train(self):
        class Overriding(tpu.TPUEstimator):
            def train(self, *args, **kwargs):  # pylint: disable=arguments-differ
                return self

        class Plain(tpu.TPUEstimator):
            pass

        config = tpu.RunConfig(model_dir=self.get_temp_dir())
        with self.assertRaisesRegex(ValueError, "does override train"):
            Overriding(model_fn=_model_fn, config=config, use_tpu=False)
        Plain(model_fn=_model_fn, config=config, use_tpu=False)


if __name__ == "__main__":
    tf.test.main()
