"""The hook plan: which hooks a training run has, in which order, chief and worker."""

import tempfile

import tensorflow as tf

import estimator_lib as el
from estimator_lib.training import checkpoints
from estimator_lib.training import hook_plan


class _Hook(tf.compat.v1.train.SessionRunHook):

    def __init__(self, name):
        self.name = name


class HookPlanTest(tf.test.TestCase):

    def _plan(self, config=None, **kwargs):
        with tf.Graph().as_default():
            step = tf.compat.v1.train.get_or_create_global_step()
            loss = tf.constant(1.0)
            spec = el.EstimatorSpec(
                el.ModeKeys.TRAIN, loss=loss, train_op=tf.no_op(),
                training_hooks=[_Hook("model_fn training hook")],
                training_chief_hooks=[_Hook("model_fn chief hook")])
            arguments = dict(input_hooks=[_Hook("input")], user_hooks=[_Hook("user")],
                             steps=None, max_steps=10, saving_listeners=[])
            arguments.update(kwargs)
            config = config or el.RunConfig(model_dir=tempfile.mkdtemp())
            return hook_plan.plan(config=config, spec=spec, step=step, **arguments)

    @staticmethod
    def _names(hooks):
        return [getattr(h, "name", type(h).__name__) for h in hooks]

    def test_original_order_on_the_chief_and_on_a_worker(self):
        plan = self._plan()
        worker = ["input", "user", "StopAtStepHook", "NanTensorHook", "LoggingTensorHook",
                  "model_fn training hook"]
        self.assertEqual(self._names(plan.worker), worker)
        self.assertEqual(
            self._names(plan.chief),
            ["EstimatorCheckpointSaverHook", "model_fn chief hook", "StepCounterHook",
             "SummarySaverHook"] + worker)
        self.assertEqual(plan.for_task(writes=False), list(plan.worker))
        self.assertEqual(plan.for_task(writes=True), list(plan.chief))

    def test_cadences_off_leave_their_hooks_out(self):
        config = el.RunConfig(model_dir=tempfile.mkdtemp(), save_checkpoints_steps=None,
                              save_checkpoints_secs=None, save_summary_steps=0,
                              log_step_count_steps=None)
        plan = self._plan(config, steps=None, max_steps=None)
        self.assertEqual(self._names(plan.chief),
                         ["model_fn chief hook", "input", "user", "NanTensorHook",
                          "model_fn training hook"])

    def test_a_callers_saver_hook_replaces_the_default_and_gets_the_listeners(self):
        model_dir = tempfile.mkdtemp()
        listener = tf.compat.v1.train.CheckpointSaverListener()
        own = tf.compat.v1.train.CheckpointSaverHook(model_dir, save_steps=5)
        plan = self._plan(el.RunConfig(model_dir=model_dir), user_hooks=[own],
                          saving_listeners=[listener])
        savers = [h for h in plan.chief if isinstance(
            h, (tf.compat.v1.train.CheckpointSaverHook,
                checkpoints.EstimatorCheckpointSaverHook))]
        self.assertEqual(savers, [own])
        self.assertIs(plan.listeners_hook, own)
        # plan() is pure: the listeners are attached by its caller.
        self.assertNotIn(listener, own._listeners)  # pylint: disable=protected-access
        hook_plan.attach_saving_listeners(plan, [listener])
        self.assertIn(listener, own._listeners)  # pylint: disable=protected-access

    def test_listeners_without_a_saver_hook_are_refused(self):
        config = el.RunConfig(model_dir=tempfile.mkdtemp(), save_checkpoints_steps=None,
                              save_checkpoints_secs=None)
        with self.assertRaisesRegex(ValueError, "There should be a CheckpointSaverHook"):
            self._plan(config, saving_listeners=[tf.compat.v1.train.CheckpointSaverListener()])

    def test_describe_names_every_hook(self):
        self.assertEqual(
            self._plan().describe(),
            "chief: [EstimatorCheckpointSaverHook, _Hook, StepCounterHook, SummarySaverHook, "
            "_Hook, _Hook, StopAtStepHook, NanTensorHook, LoggingTensorHook, _Hook]; "
            "worker: [_Hook, _Hook, StopAtStepHook, NanTensorHook, LoggingTensorHook, _Hook]")


if __name__ == "__main__":
    tf.test.main()
