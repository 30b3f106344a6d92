"""Input stall: interval math, hand-made step stats, and slow versus fast input pipelines."""

import os

import pytest
import tensorflow as tf
from absl.testing import parameterized
from tensorflow.core.framework import step_stats_pb2

import estimator_lib as el
from estimator_lib.hooks import input_stall
from estimator_lib.hooks import throughput
from tests.estimator_lib import testing as models
from tests.estimator_lib.hooks import testing


def _step_stats(nodes):
    """StepStats with one device per entry of {device: [(name, start_us, duration_us)]}."""
    stats = step_stats_pb2.StepStats()
    for device, entries in nodes.items():
        dev = stats.dev_stats.add(device=device)
        for name, start, duration in entries:
            dev.node_stats.add(node_name=name, all_start_micros=start,
                               all_end_rel_micros=duration)
    return stats


class StallMathTest(parameterized.TestCase, tf.test.TestCase):

    @parameterized.named_parameters(
        ("empty", [], 0.0),
        ("disjoint", [(0.0, 1.0), (2.0, 2.5)], 1.5),
        ("overlapping", [(0.0, 1.0), (0.5, 2.0)], 2.0),
        ("nested_unsorted", [(1.0, 1.5), (0.0, 3.0), (4.0, 5.0)], 4.0),
    )
    def test_union_seconds(self, intervals, expected):
        self.assertAllClose(input_stall.union_seconds(intervals), expected)

    def test_input_wait_is_the_union_over_replicas(self):
        stats = _step_stats({
            "/device:CPU:0": [("IteratorGetNext", 1_000_000, 3_000), ("dense/MatMul", 1_003_000,
                                                                       9_000)],
            "/device:CPU:1": [("IteratorGetNext_1", 1_001_000, 4_000)],
        })
        names = ["IteratorGetNext", "IteratorGetNext_1"]
        self.assertAllClose(input_stall.input_wait_seconds(stats, names), 0.005)
        self.assertAllClose(input_stall.input_wait_seconds(stats, ["IteratorGetNext"]), 0.003)

    def test_fraction_and_verdict(self):
        self.assertAllClose(input_stall.stall_fraction(0.003, 0.004), 0.75)
        self.assertEqual(input_stall.stall_fraction(0.005, 0.004), 1.0)
        self.assertEqual(input_stall.verdict(0.75), input_stall.INPUT_BOUND)
        self.assertEqual(input_stall.verdict(0.2), input_stall.COMPUTE_BOUND)
        self.assertEqual(input_stall.verdict(0.2, threshold=0.1), input_stall.INPUT_BOUND)
        with self.assertRaisesRegex(ValueError, "Received: step_secs=0"):
            input_stall.stall_fraction(0.1, 0)
        with self.assertRaisesRegex(ValueError, "Received: input_wait_secs=-1"):
            input_stall.stall_fraction(-1, 1.0)

    @parameterized.named_parameters(
        ("every_n_steps", dict(every_n_steps=0), "Received: every_n_steps=0"),
        ("warm_steps", dict(warm_steps=-1), "Received: warm_steps=-1"),
        ("threshold", dict(threshold=1.5), "Received: threshold=1.5"),
    )
    def test_rejects_arguments(self, kwargs, message):
        with self.assertRaisesRegex(ValueError, message):
            el.hooks.InputStallHook(**kwargs)


class InputStallHookTest(tf.test.TestCase):

    def setUp(self):
        super().setUp()
        self.enter_context(tf.Graph().as_default())

    def test_samples_every_n_steps_after_warm_up(self):
        tf.compat.v1.train.create_global_step()
        tf.compat.v1.data.make_one_shot_iterator(tf.data.Dataset.range(4)).get_next()
        clock = testing.FakeClock()
        output_dir = self.get_temp_dir()
        hook = el.hooks.InputStallHook(every_n_steps=2, warm_steps=1, output_dir=output_dir,
                                       clock=clock)
        hook.begin()
        self.assertEqual(hook.input_ops, ("IteratorGetNext",))
        sampled = []
        for i in range(6):
            args = hook.before_run(None)
            sampled.append(args is not None)
            clock.now += 0.004
            metadata = tf.compat.v1.RunMetadata()
            metadata.step_stats.CopyFrom(_step_stats({"cpu": [("IteratorGetNext", 0, 3000)]}))
            if args is not None:
                self.assertEqual(args.options.trace_level, tf.compat.v1.RunOptions.SOFTWARE_TRACE)
                with self.assertLogs("tensorflow", level="INFO") as logs:
                    hook.after_run(None, tf.compat.v1.train.SessionRunValues(
                        results=100 + i, options=args.options, run_metadata=metadata))
                self.assertRegex(logs.output[0], r"Input stall at step 10\d: 75.0% of the step "
                                 r"waiting for input \(3 ms of 4 ms\).*: input-bound\.")
        hook.end(None)
        self.assertEqual(sampled, [False, True, False, True, False, True])
        self.assertEqual([s[0] for s in hook.samples], [101, 103, 105])
        self.assertAllClose(hook.fraction(), 0.75)
        records = throughput.read_records(os.path.join(output_dir, "throughput.jsonl"),
                                          "input_stall")
        self.assertLen(records, 3)
        self.assertEqual(records[0]["verdict"], "input-bound")
        self.assertAllClose(records[0]["compute_secs"], 0.001)
        self.assertIn("input_stall/fraction", models.event_tags(output_dir))

    def test_without_input_ops_nothing_is_traced(self):
        hook = el.hooks.InputStallHook(every_n_steps=1, warm_steps=0)
        with self.assertLogs("tensorflow", level="WARNING"):
            hook.begin()
        self.assertIsNone(hook.before_run(None))
        self.assertIsNone(hook.fraction())


def _costly(x):
    """Costly but sleep-free work on `x`: 400 chained 128x128 matmuls, summed, times 0."""
    seed = tf.random.stateless_uniform([128, 128], seed=[1, 2])
    start = seed * (1.0 + tf.reduce_mean(x))  # Depends on the batch: not folded.
    _, out = tf.while_loop(lambda i, a: i < 400,
                           lambda i, a: (i + 1, tf.tanh(tf.matmul(a, seed))), (0, start))
    return 0.0 * tf.reduce_sum(out)


def _slow_map(features, labels):
    """The input does the costly work."""
    return {"x": features["x"] + _costly(features["x"])}, labels


def _costly_model_fn(features, labels, mode):
    """The step does it: a compute-bound step, whatever the machine's load does to the
    input's thread (a bare linear step is so short that a late prefetch shows as input)."""
    spec = models.linear_model_fn(features, labels, mode)
    return spec._replace(loss=spec.loss + _costly(features["x"]))


def _input_fn(slow):
    x, y = models.separable_data(64)

    def input_fn():
        dataset = tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(8)
        if slow:
            dataset = dataset.map(_slow_map)
        return dataset.prefetch(2)

    return input_fn


@pytest.mark.timeout(180)
class InputStallTrainingTest(parameterized.TestCase, tf.test.TestCase):

    @parameterized.named_parameters(
        ("slow_input_is_input_bound", True, input_stall.INPUT_BOUND),
        ("fast_input_is_compute_bound", False, input_stall.COMPUTE_BOUND),
    )
    def test_verdict_on_two_replicas(self, slow, expected):
        model_dir = self.get_temp_dir()
        config = el.RunConfig(model_dir=model_dir, train_distribute=testing.mirrored_strategy(),
                              log_step_count_steps=4)
        stall = el.hooks.InputStallHook(every_n_steps=3, warm_steps=2, output_dir=model_dir)
        examples = el.hooks.ExamplesPerSecondHook.for_config(8, config=config, every_n_steps=4,
                                                             warm_steps=2)
        model_fn = models.linear_model_fn if slow else _costly_model_fn
        el.Estimator(model_fn, config=config).train(
            _input_fn(slow), steps=14, hooks=[stall, examples])

        self.assertLen(stall.input_ops, 2)  # One IteratorGetNext per replica.
        self.assertEqual([s[0] for s in stall.samples], [2, 5, 8, 11])
        self.assertEqual(stall.verdict(), expected, msg=f"fraction {stall.fraction():.3f}")
        self.assertContainsSubset({"examples/sec", "global_step/sec", "input_stall/fraction"},
                                  models.event_tags(model_dir))
        kinds = {r["kind"] for r in throughput.read_records(
            os.path.join(model_dir, "throughput.jsonl"))}
        self.assertEqual(kinds, {"input_stall", "examples_per_second"})


if __name__ == "__main__":
    tf.test.main()
