"""bench/multi_worker.py's report: the frameworks' names, the targets, the table and
the "Multi-worker" section of docs/benchmarks.md (pure functions of the summary).
"""

import os
import shlex

SECTION = "## Multi-worker (bench/multi_worker.py)"
SECTION_BEFORE = "## Several steps per session run"

KERAS = "keras_fit"
FRAMEWORKS = ("estimator_lib_model_fn", "estimator_lib_keras", KERAS)
ESTIMATORS = ("estimator_lib_model_fn", "estimator_lib_keras")
LABELS = {
    "estimator_lib_model_fn": "estimator_lib, custom model_fn",
    "estimator_lib_keras": "estimator_lib, model_to_estimator",
    KERAS: "tf_keras Model.fit",
}
# The issue's targets: estimator_lib at least as fast as Keras, within each round.
TARGET_PER_STEP = 1.00
TARGET_END_TO_END = 1.00


def targets(summary):
    """Lines saying whether each estimator_lib framework meets the issue's targets."""
    lines = []
    for framework in ESTIMATORS:
        entry = summary.get(framework)
        if not entry or not entry["ok_runs"]:
            continue
        parts = []
        for what, value, goal in (("per step", entry["per_step_vs_keras"], TARGET_PER_STEP),
                                  ("end to end", entry["end_to_end_vs_keras"],
                                   TARGET_END_TO_END)):
            if value is None:
                parts.append(f"{what} n/a (no round where both ran)")
            else:
                parts.append(f"{what} {value:.3f}x Keras (>= {goal:.2f}: "
                             f"{'met' if value >= goal else 'MISSED'})")
        lines.append(f"{LABELS[framework]}: " + "; ".join(parts))
    return lines


def _fmt(value, spec):
    return "n/a" if value is None else format(value, spec)


def _span(entry, key, spec):
    low, high = entry[key + "_range"]
    return f"{entry[key]:{spec}} ({low:{spec}}-{high:{spec}})"


def _rounds(values):
    return " / ".join(f"{v:.2f}" for v in values) if values else "-"


def markdown_table(summary, order):
    """Medians (min-max) and, for the estimators, each round's ratio to Keras then the median."""
    rows = ["| | per-step img/s | x Keras (rounds; median) | end-to-end img/s "
            "| x Keras (rounds; median) | first step from launch (s) "
            "| cluster ready (s) | last process exits (s) | runs |",
            "|---|---|---|---|---|---|---|---|---|"]
    for framework in order:
        e = summary.get(framework)
        if not e:
            continue
        if not e["ok_runs"]:
            rows.append(f"| {LABELS[framework]} | failed | | | | | | | 0/{e['runs']} |")
            continue
        if framework == KERAS:
            per_step = end_to_end = "1 (reference)"
        else:
            per_step = (f"{_rounds(e['per_step_vs_keras_rounds'])}; "
                        f"**{_fmt(e['per_step_vs_keras'], '.2f')}**")
            end_to_end = (f"{_rounds(e['end_to_end_vs_keras_rounds'])}; "
                          f"**{_fmt(e['end_to_end_vs_keras'], '.2f')}**")
        rows.append(
            f"| {LABELS[framework]} | {_span(e, 'per_step_img_per_sec', ',.0f')} | {per_step} "
            f"| {_span(e, 'end_to_end_img_per_sec', ',.0f')} | {end_to_end} "
            f"| {_span(e, 'first_step_secs', '.2f')} | {_span(e, 'cluster_ready_secs', '.2f')} "
            f"| {_span(e, 'exited_secs', '.2f')} | {e['ok_runs']}/{e['runs']} |")
    return "\n".join(rows)


# ---------------------------------------------------------------------- docs

def command_line(argv):
    return "python bench/multi_worker.py" + (" " + shlex.join(argv) if argv else "")


def header_lines(command, machine):
    return [f"Command: `{command}`",
            f"Commit: {machine['commit']}",
            f"Date: {machine['date']}",
            f"Machine: {machine['cpus']} CPU cores; load average {machine['load_before']:.2f} "
            f"before, {machine['load_after']:.2f} after"]


SECTION_INTRO = """\
`bench/multi_worker.py` runs each framework as fresh worker processes on
127.0.0.1 (a chief and a worker, each pinned to its own core, TF_CONFIG with
free ports), interleaved, every task building
`tf.distribute.MultiWorkerMirroredStrategy()` from TF_CONFIG: the seed CNN,
the same random Fashion-MNIST-shaped images in memory on every worker (not
sharded, in both frameworks), the same global batch and steps. The Estimator's
input_fn batches per replica (global / workers), Keras gets the global batch
with auto-sharding off. Per-step img/s is the steady state from the chief's
per-step timestamps (a SessionRunHook, a Keras callback); end to end counts
from the launch of the worker processes to the exit of the last one. "x Keras"
lists each round's ratio to the same round's Keras fit, then (bold) their
median: the machine is shared, so compare only figures of one run. The
estimators use `tf.compat.v1.train.AdamOptimizer` and a default RunConfig
(multi-worker: no step-0 checkpoint, one at the end, written by the chief).
"""


def section(summary, order, args, argv, machine):
    steps = args.examples // args.batch_size
    lines = [SECTION, "", SECTION_INTRO]
    lines += [f"{line}  " for line in header_lines(command_line(argv), machine)]
    lines += ["", f"TF {summary.get(KERAS, {}).get('tf_version', '?')}; {args.workers} "
              f"workers; {args.examples:,} images, global batch {args.batch_size} "
              f"({args.batch_size // args.workers} per worker), {steps} steps; per-step "
              f"figures leave out the first {args.warm_steps}; medians (min-max) of "
              f"{args.repeats} interleaved round(s).", "",
              markdown_table(summary, order), ""]
    target_lines = targets(summary)
    if target_lines:
        lines += ["Targets (estimator_lib >= 1.0x Keras per step and end to end):", ""]
        lines += [f"- {line}" for line in target_lines]
        lines.append("")
    return "\n".join(lines)


def update_docs(path, text):
    """Replaces SECTION in `path` with `text` (created before SECTION_BEFORE if missing)."""
    old = open(path, encoding="utf-8").read() if os.path.exists(path) else "# Benchmarks\n"
    lines = old.rstrip("\n").split("\n")
    start = next((i for i, line in enumerate(lines) if line.startswith(SECTION)), None)
    if start is not None:
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")),
                   len(lines))
    else:
        start = end = next((i for i, line in enumerate(lines) if line.startswith(SECTION_BEFORE)),
                           len(lines))
    before, after = lines[:start], lines[end:]
    while before and not before[-1].strip():
        before.pop()
    new = "\n".join(before) + "\n\n" + text.rstrip("\n") + "\n"
    if after:
        new += "\n" + "\n".join(after).lstrip("\n") + "\n"
    with open(path, "w", encoding="utf-8") as f:
        f.write(new)
