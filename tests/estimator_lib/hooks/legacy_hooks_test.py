"""Legacy SessionRunHooks work unchanged beside the throughput hooks, on 1 and 2 devices.

They subclass tf.compat.v1.train.SessionRunHook (or our alias of it), read the
global step through `run_context.session`, fetch tensors by name, ask to stop.
"""

import pytest
import tensorflow as tf
from absl.testing import parameterized

import estimator_lib as el
from tests.estimator_lib import testing as models
from tests.estimator_lib.hooks import testing

LOSS_NAME = "sparse_softmax_cross_entropy_loss/value:0"  # Replica 0's, under a strategy.


class LegacyHook(tf.compat.v1.train.SessionRunHook):
    """Written for TF1: names, run_context.session, request_stop."""

    def __init__(self, stop_after):
        self._stop_after = stop_after

    def begin(self):
        self._global_step = tf.compat.v1.train.get_global_step()
        self.steps, self.losses, self.batch_sizes = [], [], []
        self.final_step = None

    def after_create_session(self, session, coord):
        self.initial_step = session.run(self._global_step)

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(
            {"loss": LOSS_NAME, "features": "IteratorGetNext:0"})

    def after_run(self, run_context, run_values):
        self.losses.append(run_values.results["loss"])
        self.batch_sizes.append(len(run_values.results["features"]))
        self.steps.append(run_context.session.run(self._global_step))
        if len(self.steps) >= self._stop_after:
            run_context.request_stop()

    def end(self, session):
        self.final_step = session.run(self._global_step)


class AliasHook(el.SessionRunHook):
    """Subclasses the tf.estimator name of the protocol; uses only begin/end."""

    def begin(self):
        self.began = True

    def end(self, session):
        self.ended = True


@pytest.mark.timeout(180)
class LegacyHooksTest(parameterized.TestCase, tf.test.TestCase):

    @parameterized.named_parameters(("one_device", 1), ("two_replicas", 2))
    def test_legacy_hooks_beside_throughput_hooks(self, replicas):
        self.assertIs(el.SessionRunHook, tf.compat.v1.train.SessionRunHook)
        strategy = testing.mirrored_strategy() if replicas == 2 else None
        config = el.RunConfig(model_dir=self.get_temp_dir(), train_distribute=strategy)
        legacy, alias = LegacyHook(stop_after=6), AliasHook()
        examples = el.hooks.ExamplesPerSecondHook.for_config(8, config=config, every_n_steps=2,
                                                             warm_steps=1)
        stall = el.hooks.InputStallHook(every_n_steps=1, warm_steps=0)
        el.Estimator(models.linear_model_fn, config=config).train(
            models.train_input_fn(batch_size=8), steps=100,
            hooks=[legacy, examples, stall, alias])

        self.assertEqual(legacy.initial_step, 0)
        self.assertEqual(legacy.steps, [1, 2, 3, 4, 5, 6])
        self.assertEqual(legacy.final_step, 6)
        self.assertEqual(legacy.batch_sizes, [8] * 6)  # Replica 0's per-replica batch.
        self.assertTrue(all(loss > 0 for loss in legacy.losses))
        self.assertTrue(alias.began and alias.ended)
        self.assertEqual(examples.batch_size, 8 * replicas)
        self.assertEqual(examples.measured_steps, 5)
        self.assertLen(stall.samples, 6)


if __name__ == "__main__":
    tf.test.main()
