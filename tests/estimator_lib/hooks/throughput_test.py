"""Examples/sec over all replicas: the pure math on fake clocks, then real training."""

import os
import time
import types

import pytest
import tensorflow as tf
from absl.testing import parameterized

import estimator_lib as el
from estimator_lib.hooks import global_batch
from estimator_lib.hooks import throughput
from tests.estimator_lib import testing as models
from tests.estimator_lib.hooks import testing


class ExamplesPerSecondMathTest(parameterized.TestCase, tf.test.TestCase):

    @parameterized.named_parameters(
        ("all_steps", 16, [0.5, 0.5, 1.0], 0, 16 * 3 / 2.0),
        ("warm_up_left_out", 16, [9.0, 0.5, 0.5, 1.0], 1, 16 * 3 / 2.0),
        ("one_step", 8, [3.0, 0.25], 1, 32.0),
    )
    def test_examples_per_second(self, batch_size, step_times, warm_steps, expected):
        self.assertAllClose(
            global_batch.examples_per_second(batch_size, step_times, warm_steps), expected)

    @parameterized.named_parameters(
        ("zero_batch", dict(batch_size=0, step_times=[1.0]), "`batch_size` must be a positive"),
        ("float_batch", dict(batch_size=8.0, step_times=[1.0]), "Received: batch_size=8.0"),
        ("negative_warm", dict(batch_size=8, step_times=[1.0], warm_steps=-1),
         "`warm_steps` must be an int >= 0"),
        ("all_warm", dict(batch_size=8, step_times=[1.0, 1.0], warm_steps=2),
         "No step follows the 2 warm-up step.*Received: 2 step time"),
        ("no_time", dict(batch_size=8, step_times=[0.0]), "must take time"),
    )
    def test_examples_per_second_rejects(self, kwargs, message):
        with self.assertRaisesRegex(ValueError, message):
            global_batch.examples_per_second(**kwargs)

    def test_from_running_totals(self):
        self.assertAllClose(global_batch.examples_per_second_over(16, steps=3, seconds=2.0), 24.0)
        with self.assertRaisesRegex(ValueError, "Received: steps=0"):
            global_batch.examples_per_second_over(16, steps=0, seconds=2.0)


class GlobalBatchTest(tf.test.TestCase):

    def test_without_strategy_a_step_is_one_batch(self):
        self.assertEqual(global_batch.global_batch_size(32), 32)
        self.assertEqual(global_batch.global_batch_size(32, config=el.RunConfig()), 32)

    def test_mirrored_counts_every_replica(self):
        strategy = testing.mirrored_strategy()
        batch = global_batch.make_global_batch(8, config=el.RunConfig(train_distribute=strategy))
        self.assertEqual(batch, global_batch.GlobalBatch(8, 2, 1))
        self.assertEqual(batch.size, 16)
        self.assertEqual(str(batch), "16 = 8 per replica x 2 replica(s) x 1 worker(s)")
        self.assertEqual(global_batch.global_batch_size(8, strategy=strategy), 16)

    def test_multi_worker_replicas_are_counted_once(self):
        # MultiWorkerMirroredStrategy's num_replicas_in_sync is local devices x workers.
        strategy = types.SimpleNamespace(
            num_replicas_in_sync=8,
            extended=types.SimpleNamespace(worker_devices=["/gpu:0", "/gpu:1"]))
        batch = global_batch.make_global_batch(4, strategy=strategy)
        self.assertEqual(batch, global_batch.GlobalBatch(4, 2, 4))
        self.assertEqual(batch.size, 32)

    def test_rejects_bad_batch_and_two_strategies(self):
        with self.assertRaisesRegex(ValueError, "`per_replica_batch_size` must be a positive "
                                                "int. Received: per_replica_batch_size=0"):
            global_batch.global_batch_size(0)
        config = el.RunConfig(train_distribute=testing.mirrored_strategy())
        with self.assertRaisesRegex(ValueError, "name different strategies"):
            global_batch.make_global_batch(8, strategy=testing.mirrored_strategy(), config=config)


class TimeHistoryTest(tf.test.TestCase):

    def test_times_and_wall_times(self):
        clock = testing.FakeClock()
        hook = el.hooks.TimeHistory(clock=clock)
        hook.begin()
        testing.run_steps(hook, clock, [2.0, 1.0, 1.0], gap=0.5)
        self.assertAllClose(hook.times, [2.0, 1.0, 1.0])
        # Wall times tile the loop: the gaps between runs belong to the next step.
        self.assertAllClose(hook.wall_times, [2.0, 1.5, 1.5])
        self.assertAllClose(hook.examples_per_second(12, warm_steps=1), 12 * 2 / 3.0)

    def test_begin_starts_afresh(self):
        clock = testing.FakeClock()
        hook = el.hooks.TimeHistory(clock=clock)
        hook.begin()
        testing.run_steps(hook, clock, [1.0])
        hook.begin()
        self.assertEqual(hook.times, [])


class ExamplesPerSecondHookTest(parameterized.TestCase, tf.test.TestCase):

    def setUp(self):
        super().setUp()
        # Hooks run inside the Estimator's graph; v1 summary writers need one.
        self.enter_context(tf.Graph().as_default())

    def _hook(self, clock, **kwargs):
        kwargs.setdefault("every_n_steps", 2)
        hook = el.hooks.ExamplesPerSecondHook(16, clock=clock, **kwargs)
        hook.begin()
        return hook

    def test_current_and_average_after_warm_up(self):
        clock = testing.FakeClock()
        output_dir = self.get_temp_dir()
        tf.compat.v1.train.create_global_step()  # Records and summaries carry its value.
        hook = self._hook(clock, warm_steps=1, output_dir=output_dir)
        with self.assertLogs("tensorflow", level="INFO") as logs:
            testing.run_steps(hook, clock, [5.0, 1.0, 1.0, 0.5, 0.5],
                              results=lambda i: 10 + i)
            hook.end(None)
        records = throughput.read_records(os.path.join(output_dir, "throughput.jsonl"),
                                          "examples_per_second")
        self.assertEqual([r["global_step"] for r in records], [12, 14])
        self.assertAllClose([r["examples_per_sec"] for r in records], [16.0, 32.0])
        self.assertAllClose([r["average_examples_per_sec"] for r in records],
                            [16.0, 16 * 4 / 3.0])
        self.assertEqual(records[-1]["measured_steps"], 4)
        self.assertAllClose(records[-1]["steps_per_sec"], 2.0)
        self.assertIn("examples/sec: 32 (average 21.3333 over 4 steps after 1 warm-up; 2 "
                      "steps/sec, global batch 16)", "\n".join(logs.output))
        self.assertContainsSubset({"examples/sec", "examples/sec_average"},
                                  models.event_tags(output_dir))

    def test_every_n_secs(self):
        clock = testing.FakeClock()
        hook = self._hook(clock, every_n_steps=None, every_n_secs=2.0, records_path=os.path.join(
            self.get_temp_dir(), "secs.jsonl"))
        testing.run_steps(hook, clock, [0.5, 0.5, 0.5, 1.0, 3.0])
        records = throughput.read_records(os.path.join(self.get_temp_dir(), "secs.jsonl"))
        self.assertEqual([r["window_steps"] for r in records], [4, 1])
        self.assertAllClose([r["examples_per_sec"] for r in records], [16 * 4 / 2.5, 16 / 3.0])

    def test_end_reports_the_last_partial_window(self):
        clock = testing.FakeClock()
        path = os.path.join(self.get_temp_dir(), "end.jsonl")
        hook = self._hook(clock, every_n_steps=100, records_path=path)
        testing.run_steps(hook, clock, [1.0, 1.0, 2.0])
        self.assertFalse(os.path.exists(path))
        hook.end(None)
        (record,) = throughput.read_records(path)
        self.assertTrue(record["final"])
        self.assertAllClose(record["average_examples_per_sec"], 16 * 3 / 4.0)
        self.assertAllClose(hook.average_examples_per_second(), 12.0)

    def test_global_batch_is_explained_in_the_log(self):
        clock = testing.FakeClock()
        hook = el.hooks.ExamplesPerSecondHook(el.hooks.GlobalBatch(8, 2), every_n_steps=1,
                                              clock=clock)
        hook.begin()
        self.assertEqual(hook.batch_size, 16)
        with self.assertLogs("tensorflow", level="INFO") as logs:
            testing.run_steps(hook, clock, [0.5])
        self.assertIn("examples/sec: 32 ", logs.output[0])
        self.assertIn("global batch 16 = 8 per replica x 2 replica(s)", logs.output[0])

    @parameterized.named_parameters(
        ("no_trigger", dict(batch_size=8), "Exactly one of `every_n_steps` and `every_n_secs`"),
        ("two_triggers", dict(batch_size=8, every_n_steps=1, every_n_secs=1.0),
         "Received: every_n_steps=1, every_n_secs=1.0"),
        ("bad_batch", dict(batch_size=-8, every_n_steps=1), "Received: batch_size=-8"),
        ("bad_steps", dict(batch_size=8, every_n_steps=0), "Received: every_n_steps=0"),
        ("bad_secs", dict(batch_size=8, every_n_secs=-1.0), "Received: every_n_secs=-1.0"),
        ("bad_warm", dict(batch_size=8, every_n_steps=1, warm_steps=-2),
         "Received: warm_steps=-2"),
    )
    def test_rejects_arguments(self, kwargs, message):
        with self.assertRaisesRegex(ValueError, message):
            el.hooks.ExamplesPerSecondHook(**kwargs)


class _Observer(tf.compat.v1.train.SessionRunHook):
    """An independent witness: its own watch, and the batches the iterators hand out."""

    def begin(self):
        graph = tf.compat.v1.get_default_graph()
        self.names = [op.name + ":0" for op in graph.get_operations()
                      if op.type == "IteratorGetNext"]
        self.ends, self.consumed = [], []

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self.names)  # fetched by tensor name

    def after_run(self, run_context, run_values):
        self.ends.append(time.perf_counter())
        self.consumed.append(sum(len(batch) for batch in run_values.results))


@pytest.mark.timeout(180)
class ExamplesPerSecondTrainingTest(tf.test.TestCase):

    def test_mirrored_figure_is_examples_consumed_over_wall_time(self):
        model_dir = self.get_temp_dir()
        strategy = testing.mirrored_strategy()
        config = el.RunConfig(model_dir=model_dir, train_distribute=strategy,
                              log_step_count_steps=10)
        hook = el.hooks.ExamplesPerSecondHook.for_config(8, config=config, every_n_steps=10,
                                                         warm_steps=5)
        observer = _Observer()
        el.Estimator(models.linear_model_fn, config=config).train(
            models.train_input_fn(batch_size=8), steps=30, hooks=[hook, observer])

        self.assertEqual(hook.batch_size, 16)
        self.assertLen(observer.names, 2)  # One iterator per replica.
        self.assertEqual(set(observer.consumed), {16})
        warm = 5
        consumed = sum(observer.consumed[warm:])
        wall = observer.ends[-1] - observer.ends[warm - 1]
        self.assertEqual(hook.measured_steps, 25)
        self.assertAllClose(hook.average_examples_per_second(), consumed / wall, rtol=0.05)
        records = throughput.read_records(os.path.join(model_dir, "throughput.jsonl"))
        self.assertEqual(records[-1]["replicas"], 2)
        self.assertEqual(records[-1]["global_batch_size"], 16)
        self.assertAllClose(records[-1]["average_examples_per_sec"], consumed / wall, rtol=0.05)
        self.assertContainsSubset({"examples/sec", "global_step/sec"},
                                  models.event_tags(model_dir))


if __name__ == "__main__":
    tf.test.main()
