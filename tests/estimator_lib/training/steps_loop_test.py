"""RunConfig(steps_per_run=N): several training steps per session run, in a bounded loop."""

import json
import os
import tempfile
import time

import numpy as np
import pytest
import tensorflow as tf
import tf_keras
from absl.testing import parameterized

import estimator_lib as el
from estimator_lib.training import steps_loop
from estimator_lib.hooks import throughput
from tests.estimator_lib import testing


def _train(model_fn=testing.linear_model_fn, *, steps_per_run, model_dir=None,
           input_fn=None, hooks=None, steps=None, max_steps=None, strategy=None, **config):
    config.setdefault("tf_random_seed", 7)
    config.setdefault("log_step_count_steps", None)
    run_config = el.RunConfig(model_dir=model_dir or tempfile.mkdtemp(), train_distribute=strategy,
                              steps_per_run=steps_per_run, **config)
    estimator = el.Estimator(model_fn, config=run_config)
    estimator.train(input_fn or testing.train_input_fn(), hooks=hooks, steps=steps,
                    max_steps=max_steps)
    return estimator


def _weights(estimator):
    return {name: estimator.get_variable_value(name)
            for name in estimator.get_variable_names()}


def _finite_input_fn(n=22, batch_size=4):
    x, y = testing.separable_data(n)

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(batch_size)

    return input_fn


class _StepRecorder(tf.compat.v1.train.SessionRunHook):
    """Records the global step the hooks read before each run."""

    def begin(self):
        self.steps = []
        self._step = tf.compat.v1.train.get_global_step()
        self._read = throughput.global_step_read_tensor()

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self._read)

    def after_run(self, run_context, run_values):
        self.steps.append(int(run_values.results))


class RunConfigTest(parameterized.TestCase, tf.test.TestCase):

    def test_default_is_one_and_replace_keeps_it_checked(self):
        config = el.RunConfig()
        self.assertEqual(config.steps_per_run, 1)
        replaced = config.replace(steps_per_run=8)
        self.assertEqual(replaced.steps_per_run, 8)
        self.assertIn("'steps_per_run': 8", repr(replaced))
        self.assertEqual(replaced.as_dict()["steps_per_run"], 8)
        with self.assertRaisesRegex(ValueError, r"Received: steps_per_run=0\."):
            config.replace(steps_per_run=0)

    def test_is_keyword_only(self):
        with self.assertRaises(TypeError):
            el.RunConfig(*([None] * 18))

    @parameterized.parameters(0, -4, 2.5, True, "4", None)
    def test_rejects_what_is_not_a_positive_int(self, value):
        with self.assertRaisesRegex(ValueError, "`steps_per_run` must be a positive int.*"
                                                f"Received: steps_per_run={value!r}"):
            el.RunConfig(steps_per_run=value)


class StepsPerRunTrainingTest(parameterized.TestCase, tf.test.TestCase):

    @parameterized.named_parameters(
        ("steps", dict(steps=10), 10),
        ("max_steps", dict(max_steps=10), 10),
        ("more_than_one_run", dict(steps=3), 3),
    )
    def test_same_weights_and_exact_last_step(self, stop, last_step):
        one = _weights(_train(steps_per_run=1, **stop))
        recorder = _StepRecorder()
        four = _weights(_train(steps_per_run=4, hooks=[recorder], **stop))
        self.assertEqual(four["global_step"], last_step)
        self.assertEqual(sorted(one), sorted(four))
        for name in one:
            self.assertAllEqual(one[name], four[name], msg=name)
        # The hooks read the step each run starts from: 0, 4, 8 for 10 steps.
        self.assertEqual(recorder.steps, list(range(0, last_step, 4)))

    def test_each_step_reads_its_own_global_step(self):
        def model_fn(features, labels, mode):
            logits = tf.compat.v1.layers.dense(features["x"], 2)
            loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
            step = tf.compat.v1.train.get_global_step()
            rate = tf.compat.v1.train.exponential_decay(0.5, step, 1, 0.7)  # Per step.
            train_op = tf.compat.v1.train.GradientDescentOptimizer(rate).minimize(
                loss, global_step=step)
            return el.EstimatorSpec(mode, loss=loss, train_op=train_op)

        one = _weights(_train(model_fn, steps_per_run=1, steps=7))
        three = _weights(_train(model_fn, steps_per_run=3, steps=7))
        for name in one:
            self.assertAllEqual(one[name], three[name], msg=name)

    def test_resumes_exactly_in_both_directions(self):
        model_dir, reference_dir = tempfile.mkdtemp(), tempfile.mkdtemp()
        for steps_per_run, stop, last_step in ((4, dict(steps=5), 5), (1, dict(max_steps=7), 7),
                                               (3, dict(steps=7), 14)):
            estimator = _train(steps_per_run=steps_per_run, model_dir=model_dir, **stop)
            self.assertEqual(estimator.get_variable_value("global_step"), last_step)
            # Each train() starts the input again: the reference resumes alike.
            reference = _train(steps_per_run=1, model_dir=reference_dir, **stop)
        for name, value in _weights(reference).items():
            self.assertAllEqual(value, estimator.get_variable_value(name), msg=name)

    def test_input_end_ends_training_with_the_true_step_in_the_checkpoint(self):
        # 22 examples in batches of 4: 6 steps, not a multiple of steps_per_run.
        model_dir = tempfile.mkdtemp()
        estimator = _train(steps_per_run=4, model_dir=model_dir, input_fn=_finite_input_fn())
        self.assertEqual(estimator.get_variable_value("global_step"), 6)
        self.assertEndsWith(estimator.latest_checkpoint(), "model.ckpt-6")
        reference = _train(steps_per_run=1, input_fn=_finite_input_fn())
        for name, value in _weights(reference).items():
            self.assertAllEqual(value, estimator.get_variable_value(name), msg=name)

    def test_checkpoints_summaries_and_logs_count_steps(self):
        model_dir = tempfile.mkdtemp()
        with self.assertLogs("tensorflow", level="INFO") as logs:
            _train(steps_per_run=4, model_dir=model_dir, steps=20, save_checkpoints_steps=8,
                   save_summary_steps=8, log_step_count_steps=8)
        state = tf.train.get_checkpoint_state(model_dir)
        self.assertEqual([int(p.rsplit("-", 1)[1]) for p in state.all_model_checkpoint_paths],
                         [0, 8, 16, 20])
        loss_steps, rate_steps = [], []
        for name in tf.io.gfile.listdir(model_dir):
            if name.startswith("events.out.tfevents"):
                for event in tf.compat.v1.train.summary_iterator(os.path.join(model_dir, name)):
                    for value in event.summary.value:
                        {"loss": loss_steps, "global_step/sec": rate_steps}.get(
                            value.tag, []).append(event.step)
        self.assertEqual(loss_steps, [4, 12, 20])
        self.assertEqual(rate_steps, [12, 20])  # Every 8 steps after the first run.
        logged = [m for m in logs.output if "loss = " in m]
        # Every 8 steps = every 2 runs; the step is the one the logged loss is from.
        self.assertLen(logged, 3)
        self.assertEqual([m.split("step = ")[1].split(" ")[0] for m in logged], ["3", "11", "19"])

    def test_summaries_inside_model_fn_are_dropped_with_one_warning(self):
        def model_fn(features, labels, mode):
            spec = testing.linear_model_fn(features, labels, mode)
            tf.compat.v1.summary.scalar("inner_loss", spec.loss)
            tf.compat.v1.summary.histogram("inner_x", features["x"])
            return spec

        model_dir = tempfile.mkdtemp()
        with self.assertLogs("tensorflow", level="WARNING") as logs:
            _train(model_fn, steps_per_run=4, model_dir=model_dir, steps=8)
        warnings = [m for m in logs.output if "steps_per_run > 1" in m]
        self.assertLen(warnings, 1)
        self.assertIn("Summaries inside model_fn are not written", warnings[0])
        self.assertIn("inner_loss", warnings[0])
        self.assertIn("inner_x", warnings[0])
        tags = testing.event_tags(model_dir)
        self.assertIn("loss", tags)
        self.assertNotIn("inner_loss", tags)

    def test_nan_loss_still_stops_training(self):
        def model_fn(features, labels, mode):
            spec = testing.linear_model_fn(features, labels, mode)
            step = tf.compat.v1.train.get_global_step()
            loss = tf.where(step >= 5, np.float32(np.nan), spec.loss)
            return spec._replace(loss=loss)

        with self.assertRaises(tf.compat.v1.train.NanLossDuringTrainingError):
            _train(model_fn, steps_per_run=4, steps=12)

    def test_a_saver_built_in_model_fn_is_rebuilt_outside_the_loop(self):
        def model_fn(features, labels, mode):
            spec = testing.linear_model_fn(features, labels, mode)
            saver = tf.compat.v1.train.Saver(max_to_keep=1, sharded=True)
            return spec._replace(scaffold=tf.compat.v1.train.Scaffold(saver=saver))

        model_dir = tempfile.mkdtemp()
        estimator = _train(model_fn, steps_per_run=4, model_dir=model_dir, steps=6)
        self.assertEndsWith(estimator.latest_checkpoint(), "model.ckpt-6")
        self.assertLen(tf.train.get_checkpoint_state(model_dir).all_model_checkpoint_paths, 1)


class ThroughputTest(tf.test.TestCase):

    @pytest.mark.timeout(180)
    def test_examples_per_second_counts_steps_not_runs(self):
        model_dir = tempfile.mkdtemp()
        config = el.RunConfig(model_dir=model_dir, steps_per_run=4)
        hook = el.hooks.ExamplesPerSecondHook.for_config(16, config=config, every_n_steps=8,
                                                         warm_steps=4)
        timer = el.hooks.TimeHistory()
        ends = []

        class Watch(tf.compat.v1.train.SessionRunHook):
            def after_run(self, run_context, run_values):
                ends.append(time.perf_counter())

        el.Estimator(testing.linear_model_fn, config=config).train(
            testing.train_input_fn(batch_size=16), steps=30, hooks=[hook, timer, Watch()])
        self.assertEqual(timer.steps, [4] * 7 + [2])
        self.assertEqual(hook.measured_steps, 26)  # The first run (4 steps) is warm-up.
        wall = ends[-1] - ends[0]
        self.assertAllClose(hook.average_examples_per_second(), 16 * 26 / wall, rtol=0.05)
        self.assertAllClose(timer.examples_per_second(16, warm_steps=4), 16 * 26 / wall,
                            rtol=0.05)
        records = throughput.read_records(os.path.join(model_dir, "throughput.jsonl"))
        self.assertEqual([r["window_steps"] for r in records], [8, 8, 8, 2])

    def test_examples_per_second_of_runs(self):
        self.assertAllClose(
            throughput.examples_per_second(10, [9.0, 1.0, 0.5], 3, steps=[4, 4, 2]), 40.0)
        with self.assertRaisesRegex(ValueError, "Received: 2 step count"):
            throughput.examples_per_second(10, [1.0], steps=[4, 4])


class RefusedTest(tf.test.TestCase):

    def test_hooks_on_loop_tensors_are_refused(self):
        def model_fn(features, labels, mode):
            spec = testing.linear_model_fn(features, labels, mode)
            hook = tf.compat.v1.train.LoggingTensorHook({"loss": spec.loss}, every_n_iter=1)
            return spec._replace(training_hooks=[hook])

        with self.assertRaisesRegex(ValueError, "LoggingTensorHook in its EstimatorSpec"
                                                r"\.training_hooks refers to .*steps_per_run=1"):
            _train(model_fn, steps_per_run=4, steps=4)

    def test_hooks_without_loop_tensors_work(self):
        def model_fn(features, labels, mode):
            spec = testing.linear_model_fn(features, labels, mode)
            return spec._replace(training_hooks=[tf.compat.v1.train.StopAtStepHook(last_step=6)])

        estimator = _train(model_fn, steps_per_run=4)
        self.assertEqual(estimator.get_variable_value("global_step"), 6)

    def test_input_fn_returning_tensors_is_refused(self):
        x, y = testing.separable_data(16)

        def input_fn():
            return {"x": tf.constant(x)}, tf.constant(y)

        with self.assertRaisesRegex(ValueError, "must return a tf.data.Dataset.*Received: "
                                                "tuple"):
            _train(steps_per_run=4, input_fn=input_fn, steps=4)

    def test_tables_made_in_the_loop_are_refused(self):
        def model_fn(features, labels, mode):
            table = tf.lookup.StaticHashTable(
                tf.lookup.KeyValueTensorInitializer([0, 1], [1, 0]), default_value=-1)
            return testing.linear_model_fn(features, table.lookup(labels), mode)

        with self.assertRaisesRegex(ValueError, "'table_initializer' collection"):
            _train(model_fn, steps_per_run=4, steps=4)

    def test_reference_variables_are_refused(self):
        tf.compat.v1.disable_resource_variables()
        try:
            with self.assertRaisesRegex(ValueError, "needs resource variables"):
                _train(steps_per_run=2, steps=2)
        finally:
            tf.compat.v1.enable_resource_variables()

    def test_strategies_but_mirrored_are_refused(self):
        with self.assertRaisesRegex(ValueError, "Received: steps_per_run=2, "
                                                "train_distribute=OneDeviceStrategy"):
            _train(steps_per_run=2, steps=2, strategy=tf.distribute.OneDeviceStrategy("CPU:0"))


@pytest.mark.timeout(180)
class MirroredTest(tf.test.TestCase):

    def test_same_weights_as_one_step_per_run(self):
        input_fn = testing.train_input_fn(batch_size=8)
        one = _train(steps_per_run=1, steps=10, input_fn=input_fn,
                     strategy=tf.distribute.MirroredStrategy(["CPU:0", "CPU:1"]))
        four = _train(steps_per_run=4, steps=10, input_fn=input_fn,
                      strategy=tf.distribute.MirroredStrategy(["CPU:0", "CPU:1"]))
        self.assertEqual(four.get_variable_value("global_step"), 10)
        for name, value in _weights(one).items():
            self.assertAllEqual(value, four.get_variable_value(name), msg=name)


def _keras_model():
    tf_keras.backend.clear_session()  # Layer names start again at `dense`.
    tf_keras.utils.set_random_seed(3)
    model = tf_keras.Sequential([
        tf_keras.layers.Dense(8, input_shape=(4,), activation="relu"),
        tf_keras.layers.Dense(2)])
    model.compile(tf_keras.optimizers.legacy.Adam(0.05),
                  tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def _keras_input_fn():
    x, y = testing.separable_data(64)

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"dense_input": x}, y)).repeat().batch(16)

    return input_fn


class KerasTest(parameterized.TestCase, tf.test.TestCase):

    def _estimator(self, model_dir, steps_per_run, checkpoint_format):
        config = el.RunConfig(model_dir=model_dir, tf_random_seed=1,
                              steps_per_run=steps_per_run)
        return el.model_to_estimator(_keras_model(), config=config,
                                     checkpoint_format=checkpoint_format)

    @parameterized.parameters("checkpoint", "saver")
    def test_same_checkpoint_and_weights_and_resume_both_ways(self, checkpoint_format):
        dirs = {n: tempfile.mkdtemp() for n in (1, 4)}
        results = {}
        for steps_per_run, model_dir in dirs.items():
            estimator = self._estimator(model_dir, steps_per_run, checkpoint_format)
            estimator.train(_keras_input_fn(), steps=6)
            results[steps_per_run] = _weights(estimator)
        self.assertEqual(sorted(results[1]), sorted(results[4]))
        for name, value in results[1].items():
            self.assertAllEqual(value, results[4][name], msg=name)
        step_key = ("global_step" if checkpoint_format == "saver"
                    else "estimator_global_step/.ATTRIBUTES/VARIABLE_VALUE")
        for steps_per_run, model_dir in dirs.items():
            estimator = self._estimator(model_dir, 5 - steps_per_run, checkpoint_format)
            estimator.train(_keras_input_fn(), steps=3)
            self.assertEqual(estimator.get_variable_value(step_key), 9)
        for name in results[1]:
            if name != "_CHECKPOINTABLE_OBJECT_GRAPH":
                self.assertAllClose(tf.train.load_variable(dirs[1], name),
                                    tf.train.load_variable(dirs[4], name), msg=name)


@pytest.mark.timeout(300)
class TrainBinaryTest(tf.test.TestCase):

    def test_steps_per_run_flag(self):
        from absl import flags as absl_flags  # pylint: disable=g-import-not-at-top
        from absl.testing import flagsaver  # pylint: disable=g-import-not-at-top

        from estimator_lib.bin.jobs import job  # pylint: disable=g-import-not-at-top
        from estimator_lib.bin import train  # pylint: disable=g-import-not-at-top
        if not absl_flags.FLAGS.is_parsed():
            absl_flags.FLAGS(["steps_loop_test"])
        model_dir = tempfile.mkdtemp()
        with flagsaver.flagsaver(model_dir=model_dir, train_steps=7, steps_per_run=3,
                                 batch_size=8, eval=False, log_steps=3, warm_steps=1):
            train.main(["train"])
        with open(os.path.join(model_dir, job.SUMMARY_FILENAME)) as f:
            summary = json.load(f)
        self.assertEqual(summary["global_step"], 7)
        self.assertEqual(summary["measured_steps"], 4)  # Runs of 3, 3, 1; the first warms up.


class LoopHelpersTest(tf.test.TestCase):

    def test_runs_between_logs_round_up(self):
        loop = steps_loop.TrainLoop(None, steps_per_run=30, step_after_run=None,
                                    last_step=None)
        self.assertEqual(loop.runs_for(100), 4)
        self.assertEqual(loop.runs_for(10), 1)
        self.assertEqual(loop.runs_for(120), 4)

    def test_no_loop_no_step_after_run(self):
        with tf.Graph().as_default():
            self.assertIsNone(steps_loop.step_after_run_tensor())


if __name__ == "__main__":
    tf.test.main()
