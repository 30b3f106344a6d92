"""InMemoryEvaluatorHook as the original: an evaluation before the first step, refusals."""

import json
import os
import tempfile
from unittest import mock

import tensorflow as tf

import estimator_lib as el
from tests.estimator_lib import testing


def _estimator(test, model_fn=testing.linear_model_fn):
    return el.Estimator(model_fn, model_dir=tempfile.mkdtemp(dir=test.get_temp_dir()))


class InMemoryEvaluatorHookTest(tf.test.TestCase):

    def test_evaluates_at_step_zero_every_n_iter_and_at_the_end(self):
        est = _estimator(self)
        hook = el.experimental.InMemoryEvaluatorHook(est, testing.eval_input_fn(),
                                                     every_n_iter=4)
        est.train(testing.train_input_fn(), steps=10, hooks=[hook])
        steps = sorted(el.experimental.read_eval_metrics(est.eval_dir()))
        self.assertEqual(steps, [0, 4, 8, 10])

    def _eval_scaffold_model_fn(self, **scaffold_kwargs):
        def model_fn(features, labels, mode):
            spec = testing.linear_model_fn(features, labels, mode)
            if mode == el.ModeKeys.EVAL:
                spec = spec._replace(scaffold=tf.compat.v1.train.Scaffold(**scaffold_kwargs))
            return spec
        return model_fn

    def test_a_custom_eval_saver_or_init_fn_is_refused(self):
        for kwargs, message in ((dict(saver=mock.Mock()), "custom saver"),
                                (dict(init_fn=lambda scaffold, session: None),
                                 "custom init_fn")):
            est = _estimator(self, self._eval_scaffold_model_fn(**kwargs))
            hook = el.experimental.InMemoryEvaluatorHook(est, testing.eval_input_fn())
            with self.assertRaisesRegex(ValueError, message):
                est.train(testing.train_input_fn(), steps=1, hooks=[hook])

    def test_saveables_other_than_variables_are_refused(self):
        def model_fn(features, labels, mode):
            spec = testing.linear_model_fn(features, labels, mode)
            if mode == el.ModeKeys.TRAIN:
                # A table saves itself as a SAVEABLE_OBJECT, not a variable.
                tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)
            return spec

        est = _estimator(self, model_fn)
        hook = el.experimental.InMemoryEvaluatorHook(est, testing.eval_input_fn())
        with self.assertRaisesRegex(ValueError, "saveables other than global variables"):
            est.train(testing.train_input_fn(), steps=1, hooks=[hook])

    def test_a_cluster_is_refused(self):
        tf_config = {"cluster": {"chief": ["a:1"], "worker": ["b:1"]},
                     "task": {"type": "chief", "index": 0}}
        with mock.patch.dict(os.environ, {"TF_CONFIG": json.dumps(tf_config)}):
            est = _estimator(self)
        with self.assertRaisesRegex(ValueError, "supports only single machine"):
            el.experimental.InMemoryEvaluatorHook(est, testing.eval_input_fn())


if __name__ == "__main__":
    tf.test.main()
