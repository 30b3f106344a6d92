"""InMemoryEvaluatorHook as the original: evaluations from the variables in memory
(nothing saved, the user's checkpoints untouched), at step 0, every N and at the end."""

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

    def test_the_users_saver_and_checkpoints_are_untouched(self):
        def model_fn(features, labels, mode):
            spec = testing.linear_model_fn(features, labels, mode)
            if mode != el.ModeKeys.TRAIN:
                return spec
            saver = tf.compat.v1.train.Saver(max_to_keep=3, sharded=True)
            return spec._replace(scaffold=tf.compat.v1.train.Scaffold(saver=saver))

        est = el.Estimator(model_fn, config=el.RunConfig(
            model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()), save_checkpoints_steps=10))
        hook = el.experimental.InMemoryEvaluatorHook(est, testing.eval_input_fn(),
                                                     every_n_iter=10)
        est.train(testing.train_input_fn(), max_steps=20, hooks=[hook])
        state = tf.train.get_checkpoint_state(est.model_dir)
        self.assertEqual([os.path.basename(p) for p in state.all_model_checkpoint_paths],
                         ["model.ckpt-0", "model.ckpt-10", "model.ckpt-20"])
        results = est.evaluate(testing.eval_input_fn(),
                               checkpoint_path=os.path.join(est.model_dir, "model.ckpt-10"))
        self.assertEqual(results["global_step"], 10)

    def test_keep_checkpoint_max_keeps_what_it_keeps_without_the_hook(self):
        listings = []
        for with_hook in (False, True):
            est = el.Estimator(testing.linear_model_fn, config=el.RunConfig(
                model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()), save_checkpoints_steps=2,
                keep_checkpoint_max=2))
            hooks = [el.experimental.InMemoryEvaluatorHook(
                est, testing.eval_input_fn(), every_n_iter=2)] if with_hook else []
            est.train(testing.train_input_fn(), max_steps=5, hooks=hooks)
            listings.append(sorted(name for name in os.listdir(est.model_dir)
                                   if name.startswith("model.ckpt")))
        self.assertEqual(listings[1], listings[0])
        self.assertIn("model.ckpt-5.index", listings[0])

    def test_results_equal_evaluate_of_the_checkpoint_at_the_same_step(self):
        est = el.Estimator(testing.linear_model_fn, config=el.RunConfig(
            model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()), save_checkpoints_steps=4,
            keep_checkpoint_max=None))
        hook = el.experimental.InMemoryEvaluatorHook(est, testing.eval_input_fn(), steps=3,
                                                     name="in_memory", every_n_iter=4)
        est.train(testing.train_input_fn(), max_steps=8, hooks=[hook])
        in_memory = el.experimental.read_eval_metrics(est.eval_dir("in_memory"))
        self.assertEqual(sorted(in_memory), [0, 4, 8])
        for step, metrics in in_memory.items():
            from_checkpoint = est.evaluate(
                testing.eval_input_fn(), steps=3,
                checkpoint_path=os.path.join(est.model_dir, f"model.ckpt-{step}"))
            self.assertEqual(from_checkpoint["global_step"], step)
            for key in ("accuracy", "loss"):
                self.assertAllClose(metrics[key], from_checkpoint[key], rtol=1e-6)
        self.assertNotAllClose(in_memory[0]["loss"], in_memory[8]["loss"])

    def test_nothing_is_written_to_the_temporary_directory(self):
        tmp = tempfile.mkdtemp(dir=self.get_temp_dir())
        model_dir = tempfile.mkdtemp(dir=self.get_temp_dir())
        est = el.Estimator(testing.linear_model_fn, model_dir=model_dir)
        hook = el.experimental.InMemoryEvaluatorHook(est, testing.eval_input_fn(),
                                                     every_n_iter=2)
        with mock.patch.object(tempfile, "tempdir", tmp), \
                mock.patch.dict(os.environ, {"TMPDIR": tmp}):
            est.train(testing.train_input_fn(), steps=5, hooks=[hook])
        self.assertEqual(os.listdir(tmp), [])
        self.assertEqual(sorted(el.experimental.read_eval_metrics(est.eval_dir())),
                         [0, 2, 4, 5])

    def test_evaluates_under_eval_distribute(self):
        strategy = tf.distribute.MirroredStrategy(["CPU:0", "CPU:1"])
        est = el.Estimator(testing.linear_model_fn, config=el.RunConfig(
            model_dir=tempfile.mkdtemp(dir=self.get_temp_dir()), eval_distribute=strategy))
        hook = el.experimental.InMemoryEvaluatorHook(est, testing.eval_input_fn(),
                                                     every_n_iter=3)
        est.train(testing.train_input_fn(), steps=3, hooks=[hook])
        in_memory = el.experimental.read_eval_metrics(est.eval_dir())
        self.assertEqual(sorted(in_memory), [0, 3])
        final = est.evaluate(testing.eval_input_fn(), name="final")
        self.assertAllClose(in_memory[3]["loss"], final["loss"], rtol=1e-6)

    def test_bad_steps_are_refused_at_construction(self):
        with self.assertRaisesRegex(ValueError, "Must specify steps > 0, given: 0"):
            el.experimental.InMemoryEvaluatorHook(_estimator(self), testing.eval_input_fn(),
                                                  steps=0)

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

    def test_something_else_than_an_estimator_is_refused_by_name(self):
        class Lookalike:
            config = el.RunConfig()

        with self.assertRaisesRegex(TypeError, "needs a tf.estimator.Estimator.*Lookalike"):
            el.experimental.InMemoryEvaluatorHook(Lookalike(), testing.eval_input_fn())

    def test_a_subclass_override_of_the_evaluate_halves_is_used(self):
        calls = []

        class Counting(el.Estimator):
            def _evaluate_run(self, *args, **kwargs):
                calls.append(kwargs["name"])
                return super()._evaluate_run(*args, **kwargs)

        est = Counting(testing.linear_model_fn,
                       config=el.RunConfig(model_dir=self.get_temp_dir()))
        hook = el.experimental.InMemoryEvaluatorHook(est, testing.eval_input_fn(),
                                                     every_n_iter=100, name="mem")
        est.train(testing.train_input_fn(), steps=1, hooks=[hook])
        self.assertEqual(calls, ["mem", "mem"])  # Before step 1, and at the end.


if __name__ == "__main__":
    tf.test.main()
