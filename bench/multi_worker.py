"""estimator_lib against Keras fit with 2 worker processes (MultiWorkerMirroredStrategy).

One command runs, interleaved (A B C A B C ...), each run as fresh worker
processes on 127.0.0.1 (free ports picked at launch, one TF_CONFIG each, each
process pinned to its own core), on the seed CNN, the same random in-memory
Fashion-MNIST-shaped images on every worker, the same global batch and steps:

    (a) estimator_lib_model_fn  estimator_lib.Estimator with a custom model_fn,
                                RunConfig(train_distribute=strategy)
    (b) estimator_lib_keras     estimator_lib.model_to_estimator(make_cnn())
    (c) keras_fit               tf_keras Model.fit under strategy.scope()

Every task builds `tf.distribute.MultiWorkerMirroredStrategy()` from TF_CONFIG.
The Estimator's input_fn batches per replica (global batch / workers), as the
original Estimator's contract; Keras gets the dataset batched by the global
batch with auto-sharding off, so both frameworks train on the same examples per
step. For each it prints, as medians (min-max) over `--repeats` rounds: per-step
img/s (steady state from the chief's per-step timestamps, the first
`--warm_steps` left out), end-to-end img/s (launch of the worker processes to
the exit of the last one), the first step's end from launch, and the ratios of
each round's figures to the same round's Keras fit, then their median. Writes a
markdown table and JSON to `--output_dir` and regenerates the "Multi-worker"
section of docs/benchmarks.md.

    python bench/multi_worker.py --repeats=5
    python bench/multi_worker.py --repeats=1 --examples=8192 --warm_steps=3 \\
        --noupdate_docs                                     # quick

`bench/multi_worker_run.py` is the script each worker process executes.
"""

import argparse
import datetime
import json
import os
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _HERE)  # Also when imported as bench.multi_worker (its tests).
import provenance  # noqa: E402  (this folder)

REPO = os.path.dirname(_HERE)
RUN_SCRIPT = os.path.join(_HERE, "multi_worker_run.py")
DOCS = os.path.join(REPO, "docs", "benchmarks.md")
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
# After the first task of a run fails, the others get this long to end on their own.
FAILED_TASK_GRACE_SECS = 15.0


def _parse(argv):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--workers", type=int, default=2,
                        help="Worker processes per run (the chief and workers-1 workers).")
    parser.add_argument("--repeats", type=int, default=3, help="Interleaved rounds.")
    parser.add_argument("--batch_size", type=int, default=512,
                        help="Global batch: examples per step over all workers.")
    parser.add_argument("--examples", type=int, default=512 * 56,
                        help="In-memory images; steps = examples // batch_size.")
    parser.add_argument("--warm_steps", type=int, default=10,
                        help="Leading steps left out of the per-step figure.")
    parser.add_argument("--frameworks", default=",".join(FRAMEWORKS),
                        help=f"Comma-separated subset of {','.join(FRAMEWORKS)}; "
                             f"{KERAS} is always run (the ratios' reference).")
    parser.add_argument("--output_dir", default=os.path.join(tempfile.gettempdir(),
                                                             "estimator_lib_multi_worker"))
    parser.add_argument("--run_timeout", type=float, default=300,
                        help="Seconds before a run's processes are killed and the run "
                             "counted as failed.")
    parser.add_argument("--pin", action=argparse.BooleanOptionalAction, default=True,
                        help="Pin task i to core i %% cores (--nopin: no pinning).")
    parser.add_argument("--docs", default=DOCS, help="The markdown file to regenerate.")
    parser.add_argument("--update_docs", action=argparse.BooleanOptionalAction, default=True,
                        help="Regenerate the docs section (--noupdate_docs for quick runs).")
    args = parser.parse_args([a.replace("--no", "--no-", 1) if a.startswith("--no")
                              and not a.startswith("--no-") else a for a in argv])
    frameworks = [f for f in args.frameworks.split(",") if f]
    unknown = sorted(set(frameworks) - set(FRAMEWORKS))
    if unknown:
        raise ValueError(f"Unknown `frameworks` {unknown}; choose from {list(FRAMEWORKS)}.")
    args.frameworks = [f for f in FRAMEWORKS if f in frameworks or f == KERAS]
    if args.workers < 2:
        raise ValueError(f"`workers` must be >= 2. Received: workers={args.workers}.")
    if args.repeats < 1:
        raise ValueError(f"`repeats` must be >= 1. Received: repeats={args.repeats}.")
    if args.batch_size % args.workers:
        raise ValueError(f"`batch_size` must divide evenly across {args.workers} workers. "
                         f"Received: batch_size={args.batch_size}.")
    steps = args.examples // args.batch_size
    if not 1 <= args.warm_steps < steps - 1:
        raise ValueError(
            f"`warm_steps` must be >= 1 and leave at least 2 measured steps of the {steps}. "
            f"Received: warm_steps={args.warm_steps}.")
    return args


# ------------------------------------------------------------------- one run

def free_ports(count):
    """`count` distinct free TCP ports on 127.0.0.1 (held open together while picked)."""
    sockets = []
    try:
        for _ in range(count):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def tf_configs(ports):
    """One TF_CONFIG per task: a chief, then workers, all on 127.0.0.1."""
    addresses = [f"127.0.0.1:{port}" for port in ports]
    cluster = {"chief": addresses[:1]}
    if len(addresses) > 1:
        cluster["worker"] = addresses[1:]
    tasks = [("chief", 0)] + [("worker", i) for i in range(len(addresses) - 1)]
    return [json.dumps({"cluster": cluster, "task": {"type": t, "index": i}})
            for t, i in tasks]


def _pin(core):
    return lambda: os.sched_setaffinity(0, {core})


def _run_once(args, framework, tag, scratch):
    """Starts one run's worker processes; returns the chief's raw result (or the failure)."""
    model_dir = os.path.join(scratch, f"{tag}_model_dir")
    log_dir = os.path.join(args.output_dir, "logs")
    os.makedirs(log_dir, exist_ok=True)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONUNBUFFERED="1",
               TF_USE_LEGACY_KERAS="1",  # Keras 2 for every framework (see compare.py).
               ESTIMATOR_LIB_CLUSTER_WAIT_SECS=str(int(min(args.run_timeout, 120))))
    env["PYTHONPATH"] = REPO + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    cores = sorted(os.sched_getaffinity(0))
    configs = tf_configs(free_ports(args.workers))
    results = [os.path.join(scratch, f"{tag}_task{i}.json") for i in range(args.workers)]
    logs = [os.path.join(log_dir, f"{tag}_task{i}.log") for i in range(args.workers)]
    processes, files = [], []
    launch = time.time()
    for i, config in enumerate(configs):
        command = [sys.executable, RUN_SCRIPT, f"--framework={framework}",
                   f"--batch_size={args.batch_size}", f"--examples={args.examples}",
                   f"--launch_time={launch!r}", f"--model_dir={model_dir}",
                   f"--result={results[i]}"]
        log = open(logs[i], "w", encoding="utf-8")  # pylint: disable=consider-using-with
        files.append(log)
        processes.append(subprocess.Popen(  # pylint: disable=consider-using-with
            command, cwd=REPO, env=dict(env, TF_CONFIG=config), stdout=log,
            stderr=subprocess.STDOUT, start_new_session=True,
            preexec_fn=_pin(cores[i % len(cores)]) if args.pin else None))
    codes = _wait_all(processes, launch + args.run_timeout)
    exited = time.time()
    for log in files:
        log.close()
    shutil.rmtree(model_dir, ignore_errors=True)
    if any(code != 0 for code in codes) or not os.path.exists(results[0]):
        bad = next((i for i, code in enumerate(codes) if code != 0), 0)
        return {"framework": framework, "ok": False, "log": logs[bad],
                "error": f"task {bad} {_describe(codes[bad])}; see {logs[bad]}"}
    with open(results[0], encoding="utf-8") as f:
        raw = json.load(f)
    raw.update(ok=True, exited=exited, log=logs[0], workers=args.workers)
    return raw


def _describe(code):
    return "timed out (killed)" if code == "timeout" else f"exited {code}"


def _wait_all(processes, deadline):
    """Exit codes; a run past `deadline`, or still running FAILED_TASK_GRACE_SECS after a
    task failed, has every remaining process group killed ("timeout")."""
    codes = [None] * len(processes)
    failed_at = None
    while any(code is None for code in codes):
        now = time.time()
        for i, process in enumerate(processes):
            if codes[i] is None and process.poll() is not None:
                codes[i] = process.returncode
                if codes[i] != 0 and failed_at is None:
                    failed_at = now
        late = failed_at is not None and now > failed_at + FAILED_TASK_GRACE_SECS
        if any(code is None for code in codes) and (now > deadline or late):
            for i, process in enumerate(processes):
                if codes[i] is None:
                    os.killpg(process.pid, signal.SIGKILL)  # The group this task started.
                    process.wait()
                    codes[i] = "timeout"
        time.sleep(0.01)  # Poll: the tasks end in any order.
    return codes


def measure(raw, warm_steps):
    """Per-step, end-to-end and first-step figures of one run's raw chief result."""
    if not raw.get("ok"):
        return dict(raw)
    ends, launch = raw["step_ends"], raw["launch"]
    batch, steps = raw["global_batch_size"], len(raw["step_ends"])
    if steps != raw["steps_planned"]:
        return dict(raw, ok=False, error=f"{steps} steps run, {raw['steps_planned']} planned")
    measured = ends[-1] - ends[warm_steps - 1]
    return {
        "framework": raw["framework"], "ok": True, "tf_version": raw["tf_version"],
        "workers": raw.get("workers"), "replicas": raw.get("replicas"), "steps": steps,
        "global_batch_size": batch,
        "per_step_img_per_sec": batch * (steps - warm_steps) / measured,
        "secs_per_step": measured / (steps - warm_steps),
        "end_to_end_img_per_sec": batch * steps / (raw["exited"] - launch),
        "first_step_secs": ends[0] - launch,
        "cluster_ready_secs": raw["cluster_ready"] - launch,
        "returned_secs": raw["returned"] - launch,
        "exited_secs": raw["exited"] - launch,
        "log": raw["log"],
    }


# --------------------------------------------------------------- aggregation

_FIGURES = ("per_step_img_per_sec", "secs_per_step", "end_to_end_img_per_sec",
            "first_step_secs", "cluster_ready_secs", "returned_secs", "exited_secs")


def round_ratios(records, framework, key, reference=KERAS):
    """`framework`'s figure over `reference`'s, one per round where both succeeded."""
    rounds = {}
    for r in records:
        rounds.setdefault(r["round"], {})[r["framework"]] = r
    return [rnd[framework][key] / rnd[reference][key] for _, rnd in sorted(rounds.items())
            if rnd.get(framework, {}).get("ok") and rnd.get(reference, {}).get("ok")]


def summarize(records, frameworks):
    """Medians (min-max) per framework; ratios to Keras taken within each round first."""
    summary = {}
    for framework in frameworks:
        runs = [r for r in records if r["framework"] == framework]
        ok = [r for r in runs if r["ok"]]
        entry = {"runs": len(runs), "ok_runs": len(ok)}
        if ok:
            for key in _FIGURES:
                entry[key] = statistics.median(r[key] for r in ok)
                entry[key + "_range"] = (min(r[key] for r in ok), max(r[key] for r in ok))
            entry["tf_version"] = ok[0]["tf_version"]
        for name, key in (("per_step_vs_keras", "per_step_img_per_sec"),
                          ("end_to_end_vs_keras", "end_to_end_img_per_sec")):
            values = round_ratios(records, framework, key)
            entry[name + "_rounds"] = values
            entry[name] = statistics.median(values) if values else None
        summary[framework] = entry
    return summary


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


# ---------------------------------------------------------------------- main

def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parse(argv)
    os.makedirs(args.output_dir, exist_ok=True)
    order = list(args.frameworks)
    machine = {"commit": provenance.commit(), "cpus": os.cpu_count(),
               "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
               "load_before": os.getloadavg()[0]}
    command = command_line(argv)
    print(f"{command}\ncommit {machine['commit']}, {machine['date']}, load average "
          f"{machine['load_before']:.2f}", flush=True)
    records = []
    started = time.time()
    with tempfile.TemporaryDirectory(prefix="multi_worker_") as scratch:
        for round_index in range(args.repeats):
            for framework in order:
                tag = f"round{round_index}_{framework}"
                record = measure(_run_once(args, framework, tag, scratch), args.warm_steps)
                record["round"] = round_index
                records.append(record)
                _print_run(record, round_index)
    machine["load_after"] = os.getloadavg()[0]
    machine["wall_secs"] = time.time() - started
    summary = summarize(records, order)
    text = section(summary, order, args, argv, machine)
    print("\n" + text)
    print(f"Wall time: {machine['wall_secs']:.0f} s. Logs and results: {args.output_dir}")
    with open(os.path.join(args.output_dir, "multi_worker.md"), "w", encoding="utf-8") as f:
        f.write(text)
    with open(os.path.join(args.output_dir, "multi_worker.json"), "w", encoding="utf-8") as f:
        json.dump({"command": command, "args": vars(args), "machine": machine,
                   "summary": summary, "runs": records}, f, indent=1, sort_keys=True)
    if args.update_docs:
        update_docs(args.docs, text)
        print(f"Regenerated '{SECTION}' in {args.docs}.")
    if not all(r["ok"] for r in records):
        sys.exit(1)


def _print_run(record, round_index):
    name = f"round {round_index + 1} {record['framework']:<24}"
    if not record["ok"]:
        print(f"{name} FAILED: {record['error']}", flush=True)
        return
    print(f"{name} per-step {record['per_step_img_per_sec']:8,.0f} img/s  end to end "
          f"{record['end_to_end_img_per_sec']:7,.0f} img/s  first step "
          f"{record['first_step_secs']:5.2f} s  last exit {record['exited_secs']:6.2f} s",
          flush=True)


if __name__ == "__main__":
    main()
