"""estimator_lib against Keras fit and a hand-written TF2 loop, per step and end to end.

One command runs, interleaved (A B C D A B C D ...), each run in a fresh
process so that start-up is measured honestly, on the same seed CNN, the same
in-memory Fashion-MNIST-shaped data, the same global batch and device count:

    (a) estimator_lib_keras     estimator_lib.model_to_estimator(make_cnn())
    (b) estimator_lib_model_fn  estimator_lib.Estimator with a custom model_fn
    (c) keras_fit               tf_keras Model.fit
    (d) tf_function_loop        hand-written tf.function loop (tf.GradientTape)
    and, with --original_python, (a) and (b) on the original tf.estimator.

For each it prints, as medians over `--repeats` rounds: per-step img/s (steady
state, the first `--warm_steps` steps left out, from per-step timestamps taken
inside each framework), end-to-end img/s (process launch to the training call's
return), time to the first step's end (from process launch), and the ratios of
each round's figures to the same round's hand-written loop. Writes a markdown
table and JSON to `--output_dir` and regenerates the "Per-step and end-to-end"
section of docs/benchmarks.md (one sub-section per device count; the others
are kept).

    python bench/compare.py --devices=1 --repeats=3 \
        --original_python=/tmp/tf215/bin/python
    python bench/compare.py --devices=2 --repeats=3   # MirroredStrategy, 2 CPUs
    python bench/compare.py --repeats=1 --examples=10240 --noupdate_docs  # quick
    python bench/compare.py --profile --devices=1  # estimator_lib's fixed costs

`bench/compare_run.py` is the one-run script each process executes;
`bench/session_teardown.py` isolates the cost of closing the session.
"""

import argparse
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

import provenance  # this folder
# The tables, targets and docs section (the docstring above is --help's epilog: kept).
from compare_report import FRAMEWORKS  # noqa: F401  (also bench/gpu_scaling.py's)
from compare_report import LABELS
from compare_report import LOOP
from compare_report import ORIGINALS
from compare_report import SECTION
from compare_report import command_line
from compare_report import device_section
from compare_report import markdown_table
from compare_report import targets
from compare_report import update_docs

_HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(_HERE)
RUN_SCRIPT = os.path.join(_HERE, "compare_run.py")
DOCS = os.path.join(REPO, "docs", "benchmarks.md")


def _parse(argv):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--devices", default="1",
                        help="Comma-separated device counts: 1, 2 (2 = MirroredStrategy "
                             "over 2 logical CPU devices).")
    parser.add_argument("--device_kind", default="cpu", choices=("cpu", "gpu"),
                        help="gpu: the devices are GPUs, any count (bench/gpu_scaling.py).")
    parser.add_argument("--steps_per_call", type=int, default=1,
                        help="N steps per session run (RunConfig steps_per_run), per "
                             "tf.function call (the loop) and per Keras execution "
                             "(steps_per_execution): the peers at their fastest.")
    parser.add_argument("--repeats", type=int, default=3, help="Interleaved rounds.")
    parser.add_argument("--batch_size", type=int, default=512,
                        help="Global batch: examples per step over all devices.")
    parser.add_argument("--examples", type=int, default=512 * 112,
                        help="In-memory images; steps = examples // batch_size.")
    parser.add_argument("--warm_steps", type=int, default=10,
                        help="Leading steps left out of the per-step figure.")
    parser.add_argument("--frameworks", default=",".join(FRAMEWORKS),
                        help=f"Comma-separated subset of {','.join(FRAMEWORKS)}; "
                             f"{LOOP} is always run (the ratios' reference).")
    parser.add_argument("--original_python", default=None,
                        help="A Python with TF <= 2.15 and tensorflow-estimator: also runs "
                             "the estimator frameworks on the original tf.estimator.")
    parser.add_argument("--output_dir", default=os.path.join(tempfile.gettempdir(),
                                                             "estimator_lib_compare"))
    parser.add_argument("--run_timeout", type=float, default=600,
                        help="Seconds before one run is killed and counted as failed.")
    parser.add_argument("--docs", default=DOCS, help="The markdown file to regenerate.")
    parser.add_argument("--update_docs", action=argparse.BooleanOptionalAction, default=True,
                        help="Regenerate the docs section (--noupdate_docs for quick runs).")
    parser.add_argument("--profile", action="store_true",
                        help="Instead of the comparison: run each estimator_lib framework "
                             "once with its fixed-cost phases timed, and once under cProfile "
                             "(first device count only; writes to --output_dir).")
    args = parser.parse_args([a.replace("--noupdate_docs", "--no-update_docs") for a in argv])
    args.devices = sorted({int(d) for d in args.devices.split(",") if d})
    if args.device_kind == "cpu" and not set(args.devices) <= {1, 2}:
        raise ValueError(f"`devices` must be 1 and/or 2. Received: devices={args.devices}.")
    frameworks = [f for f in args.frameworks.split(",") if f]
    unknown = sorted(set(frameworks) - set(FRAMEWORKS))
    if unknown:
        raise ValueError(f"Unknown `frameworks` {unknown}; choose from {list(FRAMEWORKS)}.")
    args.frameworks = [f for f in FRAMEWORKS if f in frameworks or f == LOOP]
    if args.repeats < 1:
        raise ValueError(f"`repeats` must be >= 1. Received: repeats={args.repeats}.")
    steps = args.examples // args.batch_size
    if args.steps_per_call < 1 or steps % args.steps_per_call or (
            args.warm_steps % args.steps_per_call):
        raise ValueError(
            f"`steps_per_call` must divide the {steps} steps and `warm_steps`. "
            f"Received: steps_per_call={args.steps_per_call}, warm_steps={args.warm_steps}.")
    if args.steps_per_call > 1 and args.original_python:
        raise ValueError("`steps_per_call` > 1 has no original to compare with (the original "
                         "RunConfig has no steps_per_run); leave out `original_python`.")
    if not 1 <= args.warm_steps < steps - 1:
        raise ValueError(
            f"`warm_steps` must be >= 1 and leave at least 2 measured steps of the {steps}. "
            f"Received: warm_steps={args.warm_steps}.")
    for devices in args.devices:
        if args.batch_size % devices:
            raise ValueError(
                f"`batch_size` must divide evenly across {devices} replicas. "
                f"Received: batch_size={args.batch_size}.")
    return args


# ------------------------------------------------------------------- one run

def _run_once(args, framework, devices, tag, scratch, *, extra_flags=(), prefix=()):
    """Starts one run in a fresh process; returns its raw result (or the failure)."""
    python = args.original_python if framework.startswith("original") else sys.executable
    result_path = os.path.join(scratch, f"{tag}.json")
    model_dir = os.path.join(scratch, f"{tag}_model_dir")
    log_path = os.path.join(args.output_dir, "logs", f"{tag}.log")
    os.makedirs(os.path.dirname(log_path), exist_ok=True)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONUNBUFFERED="1")
    if not framework.startswith("original"):
        # Every TF 2.21 run uses tf_keras. Without this, `import tensorflow` alone also
        # imports Keras 3 (and matplotlib): ~1 s that only the runs not importing
        # estimator_lib (which sets it) would pay. TF 2.15 has no tf_keras to switch to.
        env["TF_USE_LEGACY_KERAS"] = "1"
    # The repository (bench's helpers) and its src/ (estimator_lib, when not installed).
    env["PYTHONPATH"] = os.pathsep.join(
        [REPO, os.path.join(REPO, "src")] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    launch = time.time()
    command = [python, *prefix, RUN_SCRIPT, f"--framework={framework}",
               f"--devices={devices}", f"--batch_size={args.batch_size}",
               f"--examples={args.examples}", f"--launch_time={launch!r}",
               f"--model_dir={model_dir}", f"--result={result_path}",
               f"--device_kind={getattr(args, 'device_kind', 'cpu')}",
               f"--steps_per_call={getattr(args, 'steps_per_call', 1)}", *extra_flags]
    with open(log_path, "w", encoding="utf-8") as log:
        process = subprocess.Popen(command, cwd=REPO, env=env, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        try:
            returncode = process.wait(timeout=args.run_timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)  # The group this run started.
            process.wait()
            returncode = "timeout"
    exited = time.time()
    shutil.rmtree(model_dir, ignore_errors=True)
    if framework.startswith("original"):
        # The original writes ~1.4 GB per run (graph.pbtxt, events, .meta), which pushes
        # TF 2.21's libraries out of the page cache: the next run's imports stalled
        # 6-16 s on the disk. Wait for the writeback and read them back in, untimed.
        os.sync()
        subprocess.run([sys.executable, "-c", "import tensorflow, tf_keras"],
                       env=dict(env, TF_USE_LEGACY_KERAS="1"),
                       cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=False)
    if returncode != 0 or not os.path.exists(result_path):
        return {"framework": framework, "devices": devices, "ok": False,
                "error": f"exit {returncode}; see {log_path}", "log": log_path}
    with open(result_path, encoding="utf-8") as f:
        raw = json.load(f)
    raw.update(ok=True, exited=exited, log=log_path)
    return raw


def measure(raw, warm_steps):
    """Per-step, end-to-end and start-up figures of one run's raw result."""
    if not raw.get("ok"):
        return dict(raw)
    ends, launch = raw["step_ends"], raw["launch"]
    batch, steps = raw["global_batch_size"], len(raw["step_ends"])
    if steps != raw["steps_planned"]:
        return dict(raw, ok=False, error=f"{steps} steps run, {raw['steps_planned']} planned")
    measured = ends[-1] - ends[warm_steps - 1]
    per_call = raw.get("steps_per_call", 1)
    call_ends = ends[warm_steps - 1::per_call]
    return {
        "framework": raw["framework"], "devices": raw["devices"], "ok": True,
        "tf_version": raw["tf_version"], "steps": steps, "global_batch_size": batch,
        "per_step_img_per_sec": batch * (steps - warm_steps) / measured,
        "secs_per_step": measured / (steps - warm_steps),
        "end_to_end_img_per_sec": batch * steps / (raw["returned"] - launch),
        "end_to_end_exit_img_per_sec": batch * steps / (raw["exited"] - launch),
        "peak_rss_mb": raw["peak_rss_kb"] / 1024.0,
        # Per call: with N steps per call every step of a call has the call's end.
        "median_step_img_per_sec": batch * per_call / statistics.median(
            b - a for a, b in zip(call_ends, call_ends[1:])),
        "first_step_secs": ends[0] - launch,
        "returned_secs": raw["returned"] - launch,
        "exited_secs": raw["exited"] - launch,
        "import_secs": raw["imported"] - launch,
        "first_step_after_import_secs": ends[0] - raw["imported"],
        "first_step_after_data_secs": ends[0] - raw["data_ready"],
        "after_last_step_secs": raw["returned"] - ends[-1],
        "log": raw["log"],
    }


# --------------------------------------------------------------- aggregation

def summarize(records, frameworks):
    """Medians per (devices, framework), ratios taken within each round first."""
    summary = {}
    for devices in sorted({r["devices"] for r in records}):
        summary[devices] = {}
        rounds = {}
        for r in records:
            if r["devices"] == devices:
                rounds.setdefault(r["round"], {})[r["framework"]] = r
        for framework in frameworks:
            runs = [rnd[framework] for rnd in rounds.values() if framework in rnd]
            ok = [r for r in runs if r["ok"]]
            entry = {"runs": len(runs), "ok_runs": len(ok)}
            if ok:
                for key in ("per_step_img_per_sec", "median_step_img_per_sec", "secs_per_step",
                            "end_to_end_img_per_sec", "end_to_end_exit_img_per_sec",
                            "first_step_secs", "returned_secs", "exited_secs", "import_secs",
                            "first_step_after_import_secs", "first_step_after_data_secs",
                            "after_last_step_secs", "peak_rss_mb"):
                    entry[key] = statistics.median(r[key] for r in ok)
                    entry[key + "_range"] = (min(r[key] for r in ok), max(r[key] for r in ok))
                entry["tf_version"] = ok[0]["tf_version"]

            def ratios(key, reference, rounds=rounds, framework=framework):
                values = [rnd[framework][key] / rnd[reference][key] for rnd in rounds.values()
                          if rnd.get(framework, {}).get("ok") and rnd.get(reference, {}).get("ok")]
                return statistics.median(values) if values else None

            entry["per_step_vs_loop"] = ratios("per_step_img_per_sec", LOOP)
            entry["end_to_end_vs_loop"] = ratios("end_to_end_img_per_sec", LOOP)
            entry["exit_vs_loop"] = ratios("end_to_end_exit_img_per_sec", LOOP)
            entry["peak_rss_vs_loop"] = ratios("peak_rss_mb", LOOP)
            # The estimators against the original of the same API; Keras fit and
            # the loop against the original model_to_estimator (the seed program).
            original = ORIGINALS.get(framework, ORIGINALS["estimator_lib_keras"])
            if not framework.startswith("original"):
                entry["end_to_end_vs_original"] = ratios("end_to_end_img_per_sec", original)
                entry["exit_vs_original"] = ratios("end_to_end_exit_img_per_sec", original)
                entry["per_step_vs_original"] = ratios("per_step_img_per_sec", original)
            summary[devices][framework] = entry
    return summary


# ------------------------------------------------------------------- profile

def profile(args, scratch):
    """Times the Estimator's fixed-cost phases, then cProfiles one run per framework."""
    import pstats  # pylint: disable=import-outside-toplevel
    devices = args.devices[0]
    reports = []
    for framework in [f for f in args.frameworks if f in ORIGINALS]:
        tag = f"profile_phases_{framework}_{devices}dev"
        raw = _run_once(args, framework, devices, tag, scratch, extra_flags=["--phases"])
        lines = [f"## {LABELS[framework]}, {devices} device(s): phases (s from launch)"]
        if raw.get("ok"):
            launch, ends = raw["launch"], raw["step_ends"]
            lines.append(f"  imports done             {raw['imported'] - launch:8.3f}")
            lines.append(f"  data ready               {raw['data_ready'] - launch:8.3f}")
            for span in sorted(raw.get("phases", []), key=lambda s: s["start"]):
                if span["end"] - span["start"] >= 0.005:
                    lines.append(f"  {span['start'] - launch:8.3f} -> {span['end'] - launch:8.3f}"
                                 f"  ({span['end'] - span['start']:6.3f})  {span['label']}")
            lines.append(f"  first step ends          {ends[0] - launch:8.3f}")
            lines.append(f"  last step ends           {ends[-1] - launch:8.3f}")
            lines.append(f"  train() returned         {raw['returned'] - launch:8.3f}")
        else:
            lines.append(f"  failed: {raw['error']}")
        stats_path = os.path.join(args.output_dir, f"profile_{framework}_{devices}dev.prof")
        raw = _run_once(args, framework, devices, f"profile_cprofile_{framework}_{devices}dev",
                        scratch, prefix=["-m", "cProfile", "-o", stats_path])
        if raw.get("ok"):
            text_path = stats_path[:-len(".prof")] + ".txt"
            with open(text_path, "w", encoding="utf-8") as f:
                stats = pstats.Stats(stats_path, stream=f)
                stats.sort_stats("cumulative").print_stats(80)
            lines.append(f"  cProfile: {stats_path} (top 80 by cumulative time: {text_path})")
        reports.append("\n".join(lines))
    return "\n\n".join(reports)


# ---------------------------------------------------------------------- main

def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parse(argv)
    os.makedirs(args.output_dir, exist_ok=True)
    if args.profile:
        started = provenance.start()
        with tempfile.TemporaryDirectory(prefix="compare_") as scratch:
            report = provenance.line(started) + "\n\n" + profile(args, scratch)
        with open(os.path.join(args.output_dir, "profile.txt"), "w", encoding="utf-8") as f:
            f.write(report + "\n")
        print(report)
        return
    order = list(args.frameworks)
    if args.original_python:
        order += [ORIGINALS[f] for f in args.frameworks if f in ORIGINALS]
    started = provenance.start()
    machine = {"commit": started["commit"], "date": started["date"], "cpus": started["cpus"],
               "platform": platform.platform(), "load_before": started["load_before"]}
    records = []
    started = time.time()
    with tempfile.TemporaryDirectory(prefix="compare_") as scratch:
        for devices in args.devices:
            for round_index in range(args.repeats):
                for framework in order:
                    tag = f"{devices}dev_round{round_index}_{framework}"
                    record = measure(_run_once(args, framework, devices, tag, scratch),
                                     args.warm_steps)
                    record["round"] = round_index
                    records.append(record)
                    _print_run(record, round_index)
        machine["load_after"] = os.getloadavg()[0]
        machine["wall_secs"] = time.time() - started
        summary = summarize(records, order)

    tables = {d: markdown_table(summary[d], order) for d in summary}
    target_lines = targets(summary)
    print()
    for devices, table in tables.items():
        print(f"{devices} device(s), medians of {args.repeats} round(s):")
        print(table)
        print()
    for line in target_lines:
        print(line)
    print(f"\nWall time of the comparison: {machine['wall_secs']:.0f} s. "
          f"Logs and results: {args.output_dir}")
    sections = {d: device_section(d, summary[d], order, args, argv, machine) for d in summary}
    with open(os.path.join(args.output_dir, "compare.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(sections[d] for d in sorted(sections)))
    with open(os.path.join(args.output_dir, "compare.json"), "w", encoding="utf-8") as f:
        json.dump({"command": command_line(argv), "args": vars(args), "machine": machine,
                   "summary": {str(d): v for d, v in summary.items()}, "runs": records},
                  f, indent=1, sort_keys=True)
    if args.update_docs:
        update_docs(args.docs, sections)
        print(f"Regenerated '{SECTION}' in {args.docs}.")


def _print_run(record, round_index):
    name = f"{record['devices']} dev round {round_index + 1} {record['framework']:<24}"
    if not record["ok"]:
        print(f"{name} FAILED: {record['error']}", flush=True)
        return
    print(f"{name} per-step {record['per_step_img_per_sec']:8,.0f} img/s  to exit "
          f"{record['end_to_end_exit_img_per_sec']:7,.0f} img/s  first step "
          f"{record['first_step_secs']:5.2f} s  returns {record['returned_secs']:6.2f} s  "
          f"exits {record['exited_secs']:6.2f} s  peak RSS {record['peak_rss_mb']:5,.0f} MB",
          flush=True)


if __name__ == "__main__":
    main()
