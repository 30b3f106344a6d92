"""bench/compare.py's report: the frameworks' names, the targets, the tables, the docs.

Pure functions of the summary bench/compare.py aggregates (no process is run here):
the markdown table per device count, the lines on the issue's targets, and the
"Per-step and end-to-end" section of docs/benchmarks.md they regenerate.
"""

import os
import shlex

SECTION = "## Per-step and end-to-end"

LOOP = "tf_function_loop"
FRAMEWORKS = ("estimator_lib_keras", "estimator_lib_model_fn", "keras_fit", LOOP)
ORIGINALS = {"estimator_lib_keras": "original_keras",
             "estimator_lib_model_fn": "original_model_fn"}
LABELS = {
    "estimator_lib_keras": "estimator_lib, model_to_estimator",
    "estimator_lib_model_fn": "estimator_lib, custom model_fn",
    "keras_fit": "tf_keras Model.fit",
    LOOP: "hand-written tf.function loop",
    "original_keras": "original tf.estimator, model_to_estimator",
    "original_model_fn": "original tf.estimator, custom model_fn",
}
# The issue's targets, as ratios within one run.
TARGET_PER_STEP = 1.00
TARGET_END_TO_END = 0.95
TARGET_VS_ORIGINAL = 3.5
TARGET_FIRST_STEP_SECS = 3.0
TARGET_RSS = 1.10  # Peak resident memory, at most this times the loop's.


def targets(summary):
    """Lines saying which of the issue's targets each estimator_lib framework meets."""
    lines = []
    for devices, entries in summary.items():
        for framework in ORIGINALS:
            entry = entries.get(framework)
            if not entry or not entry["ok_runs"]:
                continue
            checks = [
                ("per step", entry["per_step_vs_loop"], TARGET_PER_STEP, "x loop", ">="),
                ("to process exit", entry["exit_vs_loop"], TARGET_END_TO_END, "x loop", ">="),
                ("to process exit", entry.get("exit_vs_original"), TARGET_VS_ORIGINAL,
                 "x original", ">="),
                ("peak RSS", entry["peak_rss_vs_loop"], TARGET_RSS, "x loop", "<="),
            ]
            parts = []
            for what, value, goal, unit, sense in checks:
                if value is None:
                    continue
                met = value >= goal if sense == ">=" else value <= goal
                parts.append(f"{what} {value:.3f}{unit} ({sense} {goal:.2f}: "
                             f"{'met' if met else 'MISSED'})")
                if unit == "x original":
                    loop_vs_original = entries.get(LOOP, {}).get("exit_vs_original")
                    if loop_vs_original:
                        parts[-1] += f", the loop's own {loop_vs_original:.3f}x"
            # Importing TensorFlow alone takes 2-4 s here, so the target (the issue's
            # loop reached its first step at 1.4 s) is read from the end of the imports.
            first = entry["first_step_after_import_secs"]
            loop_first = entries.get(LOOP, {}).get("first_step_after_import_secs")
            parts.append(f"first step {first:.2f} s after the imports "
                         f"(< {TARGET_FIRST_STEP_SECS:.0f} s: "
                         f"{'met' if first < TARGET_FIRST_STEP_SECS else 'MISSED'}; the loop's "
                         f"{_fmt(loop_first, '.2f')} s), {entry['first_step_secs']:.2f} s "
                         "from launch")
            lines.append(f"{devices} device(s), {LABELS[framework]}: " + "; ".join(parts))
    return lines


def _fmt(value, spec):
    return "n/a" if value is None else format(value, spec)


def _span(entry, key, spec):
    low, high = entry[key + "_range"]
    return f"{entry[key]:{spec}} ({low:{spec}}-{high:{spec}})"


def markdown_table(entries, order):
    """Medians (min-max over the rounds in brackets); ratios are medians of per-round ratios."""
    rows = ["| | per-step img/s | x loop | to process exit img/s | x loop | x original "
            "| first step from launch (s) | first step after imports (s) "
            "| train returns (s) | process exits (s) | peak RSS (MB) | x loop | runs |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for framework in order:
        e = entries.get(framework)
        if not e:
            continue
        if not e["ok_runs"]:
            rows.append(f"| {LABELS[framework]} | failed | | | | | | | | | | | 0/{e['runs']} |")
            continue
        rows.append(
            f"| {LABELS[framework]} | {_span(e, 'per_step_img_per_sec', ',.0f')} "
            f"| {_fmt(e['per_step_vs_loop'], '.2f')} "
            f"| {_span(e, 'end_to_end_exit_img_per_sec', ',.0f')} "
            f"| {_fmt(e['exit_vs_loop'], '.2f')} "
            f"| {_fmt(e.get('exit_vs_original'), '.2f')} "
            f"| {_span(e, 'first_step_secs', '.2f')} "
            f"| {_span(e, 'first_step_after_import_secs', '.2f')} "
            f"| {_span(e, 'returned_secs', '.2f')} | {_span(e, 'exited_secs', '.2f')} "
            f"| {_span(e, 'peak_rss_mb', ',.0f')} | {_fmt(e['peak_rss_vs_loop'], '.2f')} "
            f"| {e['ok_runs']}/{e['runs']} |")
    return "\n".join(rows)


# ---------------------------------------------------------------------- docs

def command_line(argv):
    return "python bench/compare.py " + shlex.join(argv) if argv else "python bench/compare.py"


def device_section(devices, entries, order, args, argv, machine):
    steps = args.examples // args.batch_size
    title = "1 device" if devices == 1 else (
        f"{devices} devices (MirroredStrategy over {devices} logical CPU devices)")
    target_lines = [line.split(": ", 1)[1] for line in targets({devices: entries})]
    target_names = [LABELS[f] for f in ORIGINALS if entries.get(f, {}).get("ok_runs")]
    lines = [
        f"### {title}", "", "    " + command_line(argv), "",
        f"Commit {machine['commit']}, {machine['date']}, {machine['cpus']} CPU cores (load average "
        f"{machine['load_before']:.1f} before, {machine['load_after']:.1f} after), "
        f"TF {entries.get(LOOP, {}).get('tf_version', '?')}; {args.examples:,} images, global "
        f"batch {args.batch_size}, {steps} steps, per-step figures leave out the first "
        f"{args.warm_steps}; medians (min-max) of {args.repeats} interleaved round(s), "
        "ratios taken within each round.", "",
        markdown_table(entries, order), "",
    ]
    if target_lines:
        lines.append("Targets:")
        lines.append("")
        lines.extend(f"- {name}: {line}" for name, line in zip(target_names, target_lines))
        lines.append("")
    return "\n".join(lines)


SECTION_INTRO = """\
`bench/compare.py` runs each framework in a fresh process, interleaved, on the
seed CNN, random Fashion-MNIST-shaped images in memory and the same global
batch. Per-step img/s is the steady state from timestamps taken inside each
framework (a SessionRunHook, a Keras callback, the loop itself). The
end-to-end figure counts from process launch to **process exit** (the parent
sees the child end): whatever a framework leaves running after its training
call returns (an iterator's teardown, a background thread) is inside it. The
training call's return and the first step are also given from launch, and the
first step from the end of the imports (TensorFlow's import alone takes 2-4 s
here). Peak RSS is the process's maximum resident memory up to the training
call's return. "x loop" and "x original" are ratios within a round (then the
median): the machine is shared, so compare only figures of one run. "x
original" compares each estimator with the original tf.estimator (TF 2.15) on
the same API, and Keras fit and the loop with the original model_to_estimator.
The hand-written loop and Keras fit use tf_keras' Adam; the estimators use
`tf.compat.v1.train.AdamOptimizer`, as the seed program does. Each Estimator
run uses a default RunConfig (checkpoints at step 0 and at the end, summaries
and step logging every 100 steps). No framework computes a metric while training
(Keras fit compiled with accuracy until issue 27, the tables before 2026-11-26).
`--steps_per_call=N` runs each at N steps per call (steps_per_run,
steps_per_execution, an in-graph loop); `--device_kind=gpu` on GPUs.
"""


def update_docs(path, sections):
    """Replaces the per-device sub-sections in `path`'s SECTION; keeps all else."""
    text = open(path, encoding="utf-8").read() if os.path.exists(path) else "# Benchmarks\n"
    lines = text.split("\n")
    start = next((i for i, line in enumerate(lines) if line.startswith(SECTION)), None)
    kept = {}
    if start is None:
        before, after = lines, []
    else:
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")),
                   len(lines))
        before, old, after = lines[:start], lines[start:end], lines[end:]
        current = None
        for line in old:
            if line.startswith("### "):
                current = int(line[4:].split()[0]) if line[4:].split()[0].isdigit() else None
                if current is not None:
                    kept[current] = []
            if current is not None:
                kept[current].append(line)
        kept = {k: "\n".join(v).rstrip() + "\n" for k, v in kept.items()}
    kept.update(sections)
    body = [f"{SECTION} (bench/compare.py)", "", SECTION_INTRO]
    body.extend(kept[d] for d in sorted(kept))
    while before and not before[-1].strip():
        before.pop()
    new = "\n".join(before) + "\n\n" + "\n".join(body).rstrip() + "\n"
    if after:
        new += "\n" + "\n".join(after).lstrip("\n")
    with open(path, "w", encoding="utf-8") as f:
        f.write(new.rstrip("\n") + "\n")
