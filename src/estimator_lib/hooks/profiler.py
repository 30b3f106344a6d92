"""ProfileStepsHook: a TensorBoard profile and a Chrome-trace timeline of global steps N..M.

Two captures, both under `output_dir` (the model_dir, so TensorBoard finds them):

- profile (default): the TensorFlow profiler (`tf.profiler.experimental.start`
  / `stop`) runs from the first step of the range to the end of the last,
  writing `plugins/profile/<run>/<host>.xplane.pb` for TensorBoard's Profile
  tab; the same trace is also converted to Chrome's trace format,
  `timeline-<first>-<last>.json` (chrome://tracing, Perfetto).
- timeline only (`profile=False`): the original ProfilerHook's files, one
  `timeline-<step>.json` per step, from `RunOptions(trace_level=FULL_TRACE)`.

A FULL_TRACE or SOFTWARE_TRACE run fails with "Another profiling session
active" while the profiler runs, so the two never overlap, and the other hooks
here (InputStallHook) ask `profiler_active()` before they trace a step.

Step s is the session.run that starts at global step s (and takes it to s+1).
"""

import glob
import os
from typing import List, Optional

import tensorflow as tf
from tensorflow.python.client import timeline as timeline_lib
from tensorflow.python.profiler import profiler_v2

from estimator_lib.hooks import throughput

try:  # The converter TensorBoard's profile plugin calls; not a public API. TF 2.19+:
    from tensorflow.python.profiler.internal import _pywrap_profiler_plugin as _converter
except ImportError:  # TF 2.16-2.18 keep the same function here (tf_internals/registry.py).
    try:
        from tensorflow.python.profiler.internal import _pywrap_profiler as _converter
    except ImportError:  # pragma: no cover
        _converter = None

logging = tf.compat.v1.logging


def profiler_active() -> bool:
    """Whether a `tf.profiler.experimental` session is running in this process."""
    return getattr(profiler_v2, "_profiler", None) is not None


def profile_files(output_dir: str) -> List[str]:
    """The `.xplane.pb` profiles TensorBoard's Profile tab would show for `output_dir`."""
    return sorted(glob.glob(os.path.join(output_dir, "plugins", "profile", "*", "*.xplane.pb")))


def converter_module() -> Optional[str]:
    """Returns the module whose `xspace_to_tools_data` converts profiles here, or None."""
    return getattr(_converter, "__name__", None)


def xplane_to_chrome_trace(xplane_paths: List[str]) -> Optional[bytes]:
    """The Chrome-trace JSON of profiles, as TensorBoard's trace viewer converts them.

    Returns None when this TensorFlow build lacks the converter.
    """
    convert = getattr(_converter, "xspace_to_tools_data", None)
    if convert is None:
        logging.warning("This TensorFlow has no profile converter; no Chrome trace written.")
        return None
    try:
        data, ok = convert(list(xplane_paths), "trace_viewer@", {})
    except (AttributeError, TypeError, RuntimeError, ValueError) as e:
        logging.warning("Could not convert the profile to a Chrome trace: %s", e)
        return None
    return data if ok and data else None


class ProfileStepsHook(tf.compat.v1.train.SessionRunHook):
    """Profiles global steps `first_step`..`last_step` (both included) into `output_dir`."""

    def __init__(self, *, output_dir: str, first_step: int, last_step: int,
                 profile: bool = True, timeline: bool = True):
        """Builds the hook.

        Args:
            output_dir: Where the files go; the Estimator's model_dir for TensorBoard.
            first_step: The first global step to capture.
            last_step: The last global step to capture (>= first_step).
            profile: Run the TensorFlow profiler over the range (TensorBoard Profile tab).
            timeline: Write Chrome-trace timelines: one converted from the profile, or
                with `profile=False`, one FULL_TRACE `timeline-<step>.json` per step.

        Raises:
            ValueError: If the range is empty or negative, `output_dir` is empty, or
                both captures are off.
        """
        if not output_dir:
            raise ValueError(
                f"`output_dir` must name a folder. Received: output_dir={output_dir!r}.")
        if isinstance(first_step, bool) or not isinstance(first_step, int) or first_step < 0:
            raise ValueError(
                f"`first_step` must be an int >= 0. Received: first_step={first_step!r}.")
        if isinstance(last_step, bool) or not isinstance(last_step, int) or last_step < first_step:
            raise ValueError(
                f"`last_step` must be an int >= first_step ({first_step}). "
                f"Received: last_step={last_step!r}.")
        if not profile and not timeline:
            raise ValueError("Nothing to capture: set `profile` or `timeline`. "
                             "Received: profile=False, timeline=False.")
        self._output_dir = os.fspath(output_dir)
        self._first, self._last = first_step, last_step
        self._profile, self._timeline = profile, timeline
        self._step_tensor = None
        self._next_step = None
        self._tracing_step = None
        self._profiling = False
        self._refused = False
        self._before_profile = set()
        self.written: List[str] = []

    def begin(self):
        """Finds the global-step read the hook follows; forgets earlier files.

        Raises:
            RuntimeError: If the graph has no global step.
        """
        self._step_tensor = throughput.global_step_read_tensor()
        if self._step_tensor is None:
            raise RuntimeError("ProfileStepsHook needs a global step in the graph; create one "
                               "with tf.compat.v1.train.get_or_create_global_step().")
        self.written = []

    def after_create_session(self, session, coord):
        """Reads the step the session starts at, and starts the profiler if it is due.

        Args:
            session: The session just created.
            coord: The session's coordinator (unused).
        """
        del coord
        self._next_step = int(session.run(self._step_tensor))
        self._start_if_due()

    def before_run(self, run_context):
        """Asks for a FULL_TRACE of the run when it is in range and timelines come from traces.

        Args:
            run_context: The `SessionRunContext` of the run.

        Returns:
            `SessionRunArgs` fetching the global step (with the trace options, or none).
        """
        self._tracing_step = None
        options = None
        if (not self._profile and self._first <= self._next_step <= self._last
                and not profiler_active()):
            options = tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.FULL_TRACE)
            self._tracing_step = self._next_step
        return tf.compat.v1.train.SessionRunArgs(self._step_tensor, options=options)

    def after_run(self, run_context, run_values):
        """Writes the run's timeline if traced; stops the profiler after `last_step`, or starts it.

        Args:
            run_context: The `SessionRunContext` of the run.
            run_values: The run's `SessionRunValues` (the global step and any trace).
        """
        if self._tracing_step is not None:
            trace = timeline_lib.Timeline(run_values.run_metadata.step_stats,
                                          graph=run_context.session.graph)
            self._write(f"timeline-{self._tracing_step}.json",
                        trace.generate_chrome_trace_format(show_memory=False))
        self._next_step = int(run_values.results) + 1
        if self._profiling and self._next_step > self._last:
            self._stop_profiler()
        else:
            self._start_if_due()

    def end(self, session):
        """Stops a profiler still running; warns when no step of the range ran.

        Args:
            session: The session about to close (unused).
        """
        if self._profiling:
            self._stop_profiler()
        if not self.written:
            logging.warning("ProfileStepsHook captured nothing: training ran no step in "
                            "%d..%d.", self._first, self._last)

    def _start_if_due(self):
        # Started between runs, never inside one: a hook that asked for a trace in
        # its before_run would otherwise meet a profiler session in the same run.
        if (self._profile and not self._profiling and not self._refused
                and self._first <= self._next_step <= self._last):
            self._start_profiler()

    def _start_profiler(self):
        if profiler_active():
            logging.warning("Another profiler session is running; steps %d..%d are not "
                            "profiled.", self._first, self._last)
            self._refused = True
            return
        self._before_profile = set(profile_files(self._output_dir))
        tf.profiler.experimental.start(self._output_dir)
        self._profiling = True
        logging.info("Profiling steps %d..%d into %s.", self._first, self._last,
                     self._output_dir)

    def _stop_profiler(self):
        tf.profiler.experimental.stop()
        self._profiling = False
        new = [p for p in profile_files(self._output_dir) if p not in self._before_profile]
        self.written.extend(new)
        logging.info("Profile written: %s", ", ".join(new) or "(no file)")
        if self._timeline and new:
            data = xplane_to_chrome_trace(new)
            if data is not None:
                self._write(f"timeline-{self._first}-{self._last}.json", data)

    def _write(self, name, data):
        path = os.path.join(self._output_dir, name)
        mode = "wb" if isinstance(data, bytes) else "w"
        with tf.io.gfile.GFile(path, mode) as f:
            f.write(data)
        self.written.append(path)
        logging.info("Chrome trace timeline written: %s", path)
