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
import statistics
import sys
import tempfile
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _HERE)  # Also when imported as bench.multi_worker (its tests).
import provenance  # noqa: E402  (this folder)
# A run's processes (multi_worker_launch), the table, targets and docs section
# (multi_worker_report); the docstring above is --help's epilog, kept as it was.
from multi_worker_launch import free_ports  # noqa: E402,F401  (its tests use them here)
from multi_worker_launch import run_once  # noqa: E402
from multi_worker_launch import tf_configs  # noqa: E402,F401
from multi_worker_report import FRAMEWORKS  # noqa: E402
from multi_worker_report import KERAS  # noqa: E402
from multi_worker_report import SECTION  # noqa: E402
from multi_worker_report import command_line  # noqa: E402
from multi_worker_report import header_lines  # noqa: E402,F401
from multi_worker_report import markdown_table  # noqa: E402,F401
from multi_worker_report import section  # noqa: E402
from multi_worker_report import targets  # noqa: E402,F401
from multi_worker_report import update_docs  # noqa: E402

REPO = os.path.dirname(_HERE)
DOCS = os.path.join(REPO, "docs", "benchmarks.md")


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
                record = measure(run_once(args, framework, tag, scratch), args.warm_steps)
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
