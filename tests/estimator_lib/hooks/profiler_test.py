"""ProfileStepsHook: the profile and the timelines exist under model_dir and parse."""

import json
import os

import pytest
import tensorflow as tf
from absl.testing import parameterized
from tensorflow.tsl.profiler.protobuf import xplane_pb2

import estimator_lib as el
from estimator_lib.hooks import profiler
from tests.estimator_lib import testing as models


def _chrome_trace_events(path):
    with open(path, encoding="utf-8") as f:
        trace = json.load(f)
    return trace["traceEvents"]


@pytest.mark.timeout(180)
class ProfileStepsHookTest(parameterized.TestCase, tf.test.TestCase):

    def test_profile_and_its_chrome_trace(self):
        model_dir = self.get_temp_dir()
        hook = el.hooks.ProfileStepsHook(output_dir=model_dir, first_step=2, last_step=3)
        # Listed first: it asks for a trace on every step, except while the profiler runs.
        stall = el.hooks.InputStallHook(every_n_steps=1, warm_steps=0)
        el.Estimator(models.linear_model_fn, model_dir=model_dir).train(
            models.train_input_fn(), steps=6, hooks=[stall, hook])

        self.assertFalse(profiler.profiler_active())
        (xplane_path,) = profiler.profile_files(model_dir)
        space = xplane_pb2.XSpace()
        with open(xplane_path, "rb") as f:
            space.ParseFromString(f.read())
        self.assertTrue(any(plane.lines for plane in space.planes))
        timeline = os.path.join(model_dir, "timeline-2-3.json")
        self.assertEqual(hook.written, [xplane_path, timeline])
        names = {event.get("name") for event in _chrome_trace_events(timeline)}
        self.assertTrue(any("MatMul" in str(name) for name in names), msg=sorted(map(str, names)))
        self.assertEqual([s[0] for s in stall.samples], [0, 1, 4, 5])

    def test_timeline_per_step_like_the_original(self):
        model_dir = self.get_temp_dir()
        hook = el.hooks.ProfileStepsHook(output_dir=model_dir, first_step=1, last_step=2,
                                         profile=False)
        el.Estimator(models.linear_model_fn, model_dir=model_dir).train(
            models.train_input_fn(), steps=4, hooks=[hook])

        self.assertEqual(profiler.profile_files(model_dir), [])
        self.assertEqual([os.path.basename(p) for p in hook.written],
                         ["timeline-1.json", "timeline-2.json"])
        for path in hook.written:
            events = _chrome_trace_events(path)
            self.assertTrue(any(e.get("args", {}).get("name") == "IteratorGetNext"
                                for e in events))

    @parameterized.named_parameters(
        ("no_dir", dict(output_dir="", first_step=0, last_step=1), "`output_dir` must name"),
        ("negative", dict(output_dir="d", first_step=-1, last_step=1), "Received: first_step=-1"),
        ("empty_range", dict(output_dir="d", first_step=5, last_step=4),
         r"`last_step` must be an int >= first_step \(5\). Received: last_step=4"),
        ("nothing", dict(output_dir="d", first_step=0, last_step=1, profile=False,
                         timeline=False), "Nothing to capture"),
    )
    def test_rejects_arguments(self, kwargs, message):
        with self.assertRaisesRegex(ValueError, message):
            el.hooks.ProfileStepsHook(**kwargs)


if __name__ == "__main__":
    tf.test.main()
