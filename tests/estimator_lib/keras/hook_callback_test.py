"""HookCallback: SessionRunHooks under Keras fit, and clear errors where fit cannot serve them."""

import numpy as np
import tensorflow as tf
import tf_keras
from absl.testing import parameterized

from estimator_lib.keras.hook_callback import HookCallback

_train = tf.compat.v1.train
_STEPS = 4


def _fit(hook, *, epochs=1):
    """Fits a one-layer model for `epochs` x 4 batches with `hook` as a callback."""
    tf_keras.backend.clear_session()
    x = np.random.RandomState(0).randn(16, 3).astype(np.float32)
    y = x.sum(axis=1, keepdims=True)
    model = tf_keras.Sequential([tf_keras.layers.Dense(1, input_shape=(3,))])
    model.compile(optimizer="sgd", loss="mse")
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(4).repeat()
    return model.fit(dataset, steps_per_epoch=_STEPS, epochs=epochs, verbose=0,
                     callbacks=[HookCallback(hook)])


class RecordingHook(_train.SessionRunHook):
    """Records the protocol calls it receives, like a timing hook would."""

    def __init__(self, stop_after=None):
        self.calls = []
        self.stop_after = stop_after
        self.runs = 0

    def begin(self):
        self.calls.append("begin")

    def after_create_session(self, session, coord):
        self.calls.append("after_create_session")

    def before_run(self, run_context):
        self.calls.append("before_run")
        self.original_args = run_context.original_args

    def after_run(self, run_context, run_values):
        self.calls.append("after_run")
        self.runs += 1
        self.results = run_values.results
        if self.runs == self.stop_after:
            run_context.request_stop()

    def end(self, session):
        self.calls.append("end")


class FetchingHook(_train.SessionRunHook):
    """Asks before_run for whatever `make_fetches()` builds in begin()."""

    def __init__(self, make_fetches):
        self._make_fetches = make_fetches

    def begin(self):
        self._fetches = self._make_fetches()

    def before_run(self, run_context):
        return _train.SessionRunArgs(self._fetches)

    def after_run(self, run_context, run_values):
        self.results = run_values.results


class HookCallbackTest(parameterized.TestCase, tf.test.TestCase):

    def test_calls_map_onto_fit(self):
        hook = RecordingHook()
        _fit(hook)
        self.assertEqual(
            hook.calls,
            ["begin", "after_create_session"] + ["before_run", "after_run"] * _STEPS + ["end"])
        self.assertIsNone(hook.results)

    def test_request_stop_stops_fit(self):
        hook = RecordingHook(stop_after=3)
        history = _fit(hook, epochs=3)
        self.assertEqual(hook.runs, 3)
        self.assertLen(history.history["loss"], 1)
        self.assertEqual(hook.calls[-1], "end")

    def test_eager_variables_are_fetched(self):
        counter = tf.Variable(7)
        hook = FetchingHook(lambda: {"counter": counter})
        _fit(hook)
        self.assertEqual(hook.results, {"counter": 7})

    @parameterized.named_parameters(
        ("graph_tensor", lambda: tf.constant(1.0)),
        ("global_step", lambda: tf.compat.v1.train.get_or_create_global_step()),
        ("tensor_name", lambda: "loss:0"))
    def test_graph_fetches_fail_clearly(self, make_fetches):
        with self.assertRaisesRegex(ValueError, r"FetchingHook.before_run requests fetches of "
                                                r"graph tensors.*Keras fit cannot provide"):
            _fit(FetchingHook(make_fetches))

    def test_builtin_hooks_fail_clearly(self):
        loss = tf.constant(0.0)
        with self.assertRaisesRegex(ValueError, "Keras fit"):
            _fit(_train.StopAtStepHook(num_steps=2))
        with self.assertRaisesRegex(ValueError, "Keras fit"):
            _fit(_train.LoggingTensorHook({"loss": loss}, every_n_iter=1))

    def test_session_run_fails_clearly(self):

        class SessionHook(_train.SessionRunHook):
            def after_create_session(self, session, coord):
                session.run("init")

        with self.assertRaisesRegex(ValueError, r"SessionHook called session.run\('init'\)"):
            _fit(SessionHook())

    def test_feeds_fail_clearly(self):

        class FeedingHook(_train.SessionRunHook):
            def before_run(self, run_context):
                return _train.SessionRunArgs(None, feed_dict={"x:0": 1})

        with self.assertRaisesRegex(ValueError, "FeedingHook.before_run asks to feed"):
            _fit(FeedingHook())

    def test_rejects_a_non_hook(self):
        with self.assertRaisesRegex(ValueError, "`hook` must be a .*SessionRunHook.*Received: "
                                                "int"):
            HookCallback(3)


if __name__ == "__main__":
    tf.test.main()
