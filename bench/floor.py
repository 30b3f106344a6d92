"""estimator_lib's per-step overhead over the bare graph it runs (issue 27; not a test).

The floor is the same train op, in the same graph and session, on the same input
iterator, run from a plain Python loop: `session.make_callable(train_op)` called once
per step (no hooks, no checkpoints, no summaries, no MonitoredSession). The two take
turns inside one `Estimator.train()` call: a hook (`_FloorHook`) lets estimator_lib
run `--block` steps as it always does (default RunConfig: loss logged, step counter
and summaries every 100 steps, checkpoints at start and end), then runs `--block`
steps of the floor itself from its `after_run`, and again, `--rounds` times. A third
loop, `floor+fetches`, runs a callable that fetches what estimator_lib's step fetches
besides the train op (the loss and the global step), to price the fetch structure.
Two more price what a program can observe: `tf_classes` runs the step through
TensorFlow's own `tf.compat.v1.train.MonitoredSession` with fresh instances of the
hook classes estimator_lib plans (TensorFlow's StopAtStepHook, NanTensorHook,
LoggingTensorHook, StepCounterHook, SummarySaverHook and CheckpointSaverHook, at
the same cadences, writing to a scratch folder) over the same session, and so
through estimator_lib's repeated-run path, as the training loop does (`should_stop()`,
then `run([train_op, loss])`); `tf_classes+Session.run` does the same
with `tf.compat.v1.Session.run` itself underneath. Of estimator_lib's code, only that
repeated-run path runs in `tf_classes`' steps, and none in the other's: what
`tf_classes` costs over the floor is the floor of any library that keeps those
classes, which a program sees (the hook plan's types, `run_context.session`, each
hook's state and results).

Where estimator_lib's µs go: each planned hook's `before_run` and `after_run` are
timed (per hook class, µs a step, estimator_lib's blocks only); the rest of the
overhead is the session's own (the MonitoredSession, its run wrappers and the fetch
structure) and the summary ops every 100 steps.

Models: `cnn` the seed CNN (custom model_fn, batch 512, 1 or 2 devices), `resnet` a
small ResNet (3 stages of 1 basic block, 16/32/64 filters, 32x32x3, batch 64), and
the canned `dnn` and `linear` (bench/canned.py's census-style columns, batch 256);
`tiny`, bench/steps_per_run.py's MLP (batch 32), prices the per-step fixed cost alone
(their setups: bench/floor_models.py). Each model's model_dir and scratch folders are
removed when its measurement ends.

    python bench/floor.py --models=dnn,linear,cnn,resnet --devices=1,2 --rounds=5
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

import floor_models  # this folder
import provenance  # this folder

_FLOOR_LOOPS = 4  # floor, floor+fetches, tf_classes, tf_classes+Session.run


def _parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="dnn,linear,cnn,resnet")
    parser.add_argument("--devices", default="1", help="comma list; 2 applies to cnn only")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--block", type=int, default=100,
                        help="steps per turn (a multiple of 100 keeps the 100-step "
                             "cadences at their rate)")
    parser.add_argument("--heavy_block", type=int, default=20,
                        help="steps per turn for cnn and resnet")
    parser.add_argument("--warm", type=int, default=50, help="estimator steps left out first")
    return parser.parse_args(argv)


def _set_devices(tf, devices):
    if devices > 1:
        tf.config.set_logical_device_configuration(
            tf.config.list_physical_devices("CPU")[0],
            [tf.config.LogicalDeviceConfiguration()] * devices)


class _Timed:
    """Per hook class: seconds in before_run/after_run while `on`."""

    def __init__(self):
        self.on = False
        self.seconds = {}

    def wrap(self, hook):
        name = type(hook).__name__
        for method in ("before_run", "after_run"):
            original = getattr(hook, method)

            def timed(*args, _original=original, _key=f"{name}.{method}"):
                if not self.on:
                    return _original(*args)
                start = time.perf_counter()
                try:
                    return _original(*args)
                finally:
                    self.seconds[_key] = self.seconds.get(_key, 0.0) + (
                        time.perf_counter() - start)
            setattr(hook, method, timed)
        return hook


def _install_hook_timer(timed, floor_hook):
    """Wraps the planned hooks of the next training sessions (this process only)."""
    from estimator_lib.training import session as session_lib  # pylint: disable=import-outside-toplevel
    original = session_lib.training_session

    def training_session(job, **kwargs):
        kwargs["hooks"] = [h if h is floor_hook else timed.wrap(h) for h in kwargs["hooks"]]
        return original(job, **kwargs)

    session_lib.training_session = training_session
    return lambda: setattr(session_lib, "training_session", original)


def _plain_runs(session):
    """`session` seen through a SessionInterface whose `run` is `tf.compat.v1.Session.run`
    itself (not the instance's repeated-run path)."""
    from tensorflow.python.client import session as session_lib  # pylint: disable=import-outside-toplevel

    class PlainRuns(session_lib.SessionInterface):
        graph = property(lambda self: session.graph)
        sess_str = property(lambda self: session.sess_str)

        def run(self, *args, **kwargs):
            return type(session).run(session, *args, **kwargs)

        def __getattr__(self, name):
            return getattr(session, name)

    return PlainRuns()


def _tf_classes_session(tf, session, *, train_op, loss, step, cadence, saver, summary_op,
                        plain_runs, scratch):
    """TensorFlow's MonitoredSession over `session` with the planned hook classes, writing
    into the new folder `scratch`."""

    class Existing(tf.compat.v1.train.SessionCreator):
        def create_session(self):
            return _plain_runs(session) if plain_runs else session

    train = tf.compat.v1.train
    hooks = [train.StopAtStepHook(last_step=10**12), train.NanTensorHook(loss),
             train.LoggingTensorHook({"loss": loss, "step": step}, every_n_iter=cadence),
             train.StepCounterHook(every_n_steps=cadence, output_dir=scratch),
             train.CheckpointSaverHook(scratch, save_secs=600, saver=saver)]
    if summary_op is not None:
        hooks.append(train.SummarySaverHook(save_steps=cadence, output_dir=scratch,
                                             summary_op=summary_op))
    return train.MonitoredSession(session_creator=Existing(), hooks=hooks)


def _train_loop_step(monitored, fetches):
    """One step of `Estimator.train`'s loop (`while not session.should_stop():
    session.run([train_op, loss])`) on `monitored`."""

    def step():
        if not monitored.should_stop():
            monitored.run(fetches)
    return step


def _make_floor_hook(tf, *, block, rounds, warm, timed, cadence, scratch):

    class FloorHook(tf.compat.v1.train.SessionRunHook):
        """Alternates estimator_lib's steps with the floor's, `block` steps each."""

        def __init__(self):
            self.per_step = {"estimator_lib": [], "floor": [], "floor+fetches": [],
                             "tf_classes": [], "tf_classes+Session.run": []}
            # The same in the process's CPU time (all threads): steadier on a loaded machine.
            self.cpu_per_step = {name: [] for name in self.per_step}
            self.steps_timed = 0
            self._session = None
            self._loops = None
            self._count = 0
            self._mark = None
            self._cpu_mark = None
            self._saver = self._summary_op = None

        def begin(self):
            # While the graph is open: what the TensorFlow-classes loops' hooks need.
            from tensorflow.python.training import training_util  # pylint: disable=import-outside-toplevel
            training_util._get_or_create_global_step_read()  # pylint: disable=protected-access
            self._saver = tf.compat.v1.train.Saver()
            self._summary_op = tf.compat.v1.summary.merge_all()

        def after_create_session(self, session, coord):
            self._session = session

        def before_run(self, run_context):
            if self._loops is None:
                fetches = run_context.original_args.fetches
                train_op, loss = fetches[0], fetches[1]
                step = tf.compat.v1.train.get_global_step()
                self._loops = {
                    "floor": self._session.make_callable(train_op),
                    "floor+fetches": self._session.make_callable([train_op, loss, step]),
                }
                for name, plain in (("tf_classes", False), ("tf_classes+Session.run", True)):
                    monitored = _tf_classes_session(
                        tf, self._session, train_op=train_op, loss=loss, step=step,
                        cadence=cadence, saver=self._saver, summary_op=self._summary_op,
                        plain_runs=plain, scratch=os.path.join(scratch, name))
                    self._loops[name] = _train_loop_step(monitored, [train_op, loss])
            return None

        def after_run(self, run_context, run_values):
            self._count += 1
            if self._count < warm:
                return
            now, cpu_now = time.perf_counter(), time.process_time()
            if self._count == warm:
                for loop in self._loops.values():
                    loop()  # Its first call prunes and optimises the graph: not a step.
                self._mark, self._cpu_mark = time.perf_counter(), time.process_time()
                timed.on = True
                return
            if (self._count - warm) % block:
                return
            self.per_step["estimator_lib"].append((now - self._mark) / block)
            self.cpu_per_step["estimator_lib"].append((cpu_now - self._cpu_mark) / block)
            self.steps_timed += block
            timed.on = False
            for name, loop in self._loops.items():
                start, cpu_start = time.perf_counter(), time.process_time()
                for _ in range(block):
                    loop()
                self.per_step[name].append((time.perf_counter() - start) / block)
                self.cpu_per_step[name].append((time.process_time() - cpu_start) / block)
            if len(self.per_step["estimator_lib"]) >= rounds:
                run_context.request_stop()
            timed.on = True
            self._mark, self._cpu_mark = time.perf_counter(), time.process_time()

    return FloorHook()


def measure(model, devices, args):
    """One train() call alternating estimator_lib and the floor; a result dict."""
    import estimator_lib as el  # pylint: disable=import-outside-toplevel
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    cls, kwargs, input_fn, label = floor_models.setup(tf, el, model, devices)
    strategy = (tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(devices)])
                if devices > 1 else None)
    # Each turn of estimator_lib's is followed by one of each floor loop, all advancing
    # the global step: the 100-step cadences (summaries, loss log, step counter) are
    # scaled so that they still come once every 100 of estimator_lib's own steps.
    cadence = 100 * (1 + _FLOOR_LOOPS)
    work = tempfile.mkdtemp(prefix="floor_")  # model_dir and the scratch folders; removed
    config = el.RunConfig(model_dir=os.path.join(work, "model"), tf_random_seed=0,
                          train_distribute=strategy, save_summary_steps=cadence,
                          log_step_count_steps=cadence)
    timed = _Timed()
    block = args.heavy_block if model in ("cnn", "resnet") else args.block
    hook = _make_floor_hook(tf, block=block, rounds=args.rounds, warm=args.warm,
                            timed=timed, cadence=cadence, scratch=work)
    restore = _install_hook_timer(timed, hook)
    try:
        cls(config=config, **kwargs).train(input_fn, steps=10**9, hooks=[hook])
    finally:
        restore()
        shutil.rmtree(work, ignore_errors=True)
    hooks_us = {key: seconds / hook.steps_timed * 1e6 for key, seconds in timed.seconds.items()}
    return {"model": model, "devices": devices, "label": label, "block": block,
            "per_step": hook.per_step, "cpu_per_step": hook.cpu_per_step, "hooks_us": hooks_us}


def _span(values, scale=1e6):
    values = [v * scale for v in values]
    return statistics.median(values), min(values), max(values)


_OVER_FLOOR = ("floor+fetches", "tf_classes", "tf_classes+Session.run")


def _table(results, key, unit):
    """One table of `results[key]` (per_step or cpu_per_step): the floor, estimator_lib,
    its overhead, and each other loop's overhead over the floor, per round."""
    lines = [f"| model | devices | floor {unit} | estimator_lib {unit} | overhead (µs) | "
             "overhead (%) | " + " | ".join(f"{name} over floor (µs)" for name in _OVER_FLOOR)
             + " |", "|---|---:|---:|---:|---:|---:|" + "---:|" * len(_OVER_FLOOR)]
    for r in results:
        loops = r[key]
        est, floor = loops["estimator_lib"], loops["floor"]
        over = [e - f for e, f in zip(est, floor)]
        pct = [100 * (e - f) / f for e, f in zip(est, floor)]
        cells = [f"{m:,.0f} ({lo:,.0f}-{hi:,.0f})" for m, lo, hi in
                 (_span(floor), _span(est), _span(over))]
        pm, plo, phi = _span(pct, 1)
        for name in _OVER_FLOOR:
            m, lo, hi = _span([x - f for x, f in zip(loops[name], floor)])
            cells.append(f"{m:+,.0f} ({lo:,.0f}-{hi:,.0f})")
        lines.append(f"| {r['label']} | {r['devices']} | {cells[0]} | {cells[1]} | {cells[2]} "
                     f"| {pm:.1f} ({plo:.1f}-{phi:.1f}) | " + " | ".join(cells[3:]) + " |")
    return lines


def report(results):
    lines = _table(results, "per_step", "(µs/step)")
    lines += ["", "The same in CPU time (the process's, all threads; µs a step):", ""]
    lines += _table(results, "cpu_per_step", "CPU")
    lines.append("")
    lines.append("Hooks' before_run + after_run, µs a step (estimator_lib's blocks):")
    lines.append("")
    for r in results:
        parts = sorted(r["hooks_us"].items(), key=lambda kv: -kv[1])
        total = sum(v for _, v in parts)
        lines.append(f"- {r['label']}, {r['devices']} device(s): total {total:.0f} µs; "
                     + ", ".join(f"{k} {v:.1f}" for k, v in parts if v >= 0.5))
    return "\n".join(lines)


def main(argv=None):
    args = _parse(argv)
    started = provenance.start()
    devices = sorted({int(d) for d in args.devices.split(",")})
    import estimator_lib  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
    import tensorflow as tf  # noqa: E402  # pylint: disable=import-outside-toplevel
    tf.get_logger().setLevel("ERROR")
    _set_devices(tf, max(devices))
    results = []
    for model in args.models.split(","):
        for n in devices:
            if n > 1 and model != "cnn":
                continue
            results.append(measure(model, n, args))
            print(f"done {model} x{n}", file=sys.stderr, flush=True)
    print(provenance.line(started) + f"; TF {tf.__version__}; {args.rounds} rounds of "
          f"{args.block} steps (cnn, resnet: {args.heavy_block}) each side, after "
          f"{args.warm} warm-up steps; medians (min-max) over rounds, overhead taken "
          "within each round")
    print()
    print(report(results))


if __name__ == "__main__":
    main()
