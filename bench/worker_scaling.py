"""Examples/sec of 1, 2 and 4 worker processes against 1 process, on one machine.

For the seed CNN (estimator_lib.Estimator with bench/compare_run.py's model_fn) and a
canned estimator (DNNClassifier on the 784 pixels), it runs:

- 1 process: the Estimator without a strategy and without TF_CONFIG (the baseline);
- N worker processes (N in --workers, default 1, 2, 4): a chief and N-1 workers on
  127.0.0.1, each with its TF_CONFIG (the launcher's), every task building
  MultiWorkerMirroredStrategy (bench/multi_worker_launch.py starts them).

The per-worker batch is fixed (--per_worker_batch): N processes take a global batch N
times larger, and the figure is the global examples per second (steady state, from the
chief's per-step timestamps, the first --warm_steps left out), beside the same over
the whole run (launch to the last process's exit). It prints the machine's core count
beside them, and what the figures do and do not show:

    python bench/worker_scaling.py                     # about 5-10 minutes on 2 cores
    python bench/worker_scaling.py --workers=1,2 --steps=12 --warm_steps=3   # quick

`bench/multi_worker_run.py` is what each process runs.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _HERE)  # Also when imported as bench.worker_scaling.
from multi_worker import measure  # noqa: E402
from multi_worker_launch import REPO  # noqa: E402
from multi_worker_launch import RUN_SCRIPT  # noqa: E402
from multi_worker_launch import run_once  # noqa: E402

FRAMEWORKS = {"estimator_lib_model_fn": "seed CNN (custom model_fn)",
              "estimator_lib_canned": "DNNClassifier (canned)"}

CAVEATS = """\
What these figures show: how fast estimator_lib trains as N processes on THIS machine,
each process a MultiWorkerMirroredStrategy task exchanging gradients over gRPC on
127.0.0.1, against one process without a strategy: the cost of the multi-worker
machinery (all-reduce per step, the chief's coordination) when processes share cores.
What they do not show: scaling across machines. N processes here share {cores} cores,
memory bandwidth and caches, so with N > cores (or N = cores beside the OS) the
processes compete for the same hardware and examples/sec can fall as N rises; on N
machines each process would have its own. Nor do they show network cost: loopback
all-reduce is far cheaper than a real network's. A load average above the core count
means other work ran beside the benchmark: its figures then vary run to run by a factor
of 2 or more. Read them as overhead and correctness of the distributed path, not as a
cluster's speed-up."""


def _parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", default="1,2,4",
                        help="Comma-separated worker-process counts.")
    parser.add_argument("--frameworks", default=",".join(FRAMEWORKS))
    parser.add_argument("--per_worker_batch", type=int, default=128)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--warm_steps", type=int, default=5)
    parser.add_argument("--run_timeout", type=float, default=600)
    parser.add_argument("--pin", action="store_true",
                        help="Pin each process to its own core (round robin).")
    parser.add_argument("--output_dir", default=os.path.join(tempfile.gettempdir(),
                                                             "worker_scaling"))
    args = parser.parse_args(argv)
    args.workers_list = [int(n) for n in args.workers.split(",")]
    args.frameworks = args.frameworks.split(",")
    return args


def _run_local(args, framework, scratch):
    """One process, no strategy, no TF_CONFIG; the raw result as run_once gives it."""
    result = os.path.join(scratch, f"{framework}_local.json")
    log = os.path.join(args.output_dir, "logs", f"{framework}_local.log")
    os.makedirs(os.path.dirname(log), exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "TF_CONFIG"}
    env.update(TF_CPP_MIN_LOG_LEVEL="2", TF_USE_LEGACY_KERAS="1")
    env["PYTHONPATH"] = REPO + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    batch = args.per_worker_batch
    launch = time.time()
    with open(log, "w", encoding="utf-8") as out:
        code = subprocess.run(
            [sys.executable, RUN_SCRIPT, f"--framework={framework}", f"--batch_size={batch}",
             f"--examples={batch * args.steps}", f"--launch_time={launch!r}", "--local",
             f"--model_dir={os.path.join(scratch, framework + '_local_model')}",
             f"--result={result}"], cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT,
            timeout=args.run_timeout, check=False).returncode
    if code != 0 or not os.path.exists(result):
        return {"framework": framework, "ok": False, "error": f"exited {code}; see {log}"}
    with open(result, encoding="utf-8") as f:
        raw = json.load(f)
    return dict(raw, ok=True, exited=time.time(), log=log, workers=0)


def main(argv=None):
    args = _parse(argv)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    print(f"machine: {os.cpu_count()} logical CPUs, {cores} usable by this process, load "
          f"average {os.getloadavg()[0]:.1f} (other work shares them); per-worker batch "
          f"{args.per_worker_batch}, {args.steps} steps ({args.warm_steps} warm-up left out)",
          flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for framework in args.frameworks:
            baseline = measure(_run_local(args, framework, scratch), args.warm_steps)
            rows.append(("1 process, no strategy", framework, baseline))
            for n in args.workers_list:
                run_args = argparse.Namespace(
                    workers=n, batch_size=args.per_worker_batch * n,
                    examples=args.per_worker_batch * n * args.steps, pin=args.pin,
                    run_timeout=args.run_timeout, output_dir=args.output_dir)
                record = measure(run_once(run_args, framework, f"{framework}_{n}w", scratch),
                                 args.warm_steps)
                rows.append((f"{n} worker process{'es' if n > 1 else ''}", framework, record))
    print()
    print("| model | processes | global batch | examples/sec (steady) | vs 1 process | "
          "examples/sec (launch to exit) |")
    print("|---|---|---|---|---|---|")
    base = {}
    for label, framework, record in rows:
        name = FRAMEWORKS.get(framework, framework)
        if not record.get("ok"):
            print(f"| {name} | {label} | - | failed: {record.get('error')} | | |")
            continue
        rate = record["per_step_img_per_sec"]
        base.setdefault(framework, rate)
        print(f"| {name} | {label} | {record['global_batch_size']} | {rate:,.0f} | "
              f"{rate / base[framework]:.2f}x | {record['end_to_end_img_per_sec']:,.0f} |")
    print()
    print(CAVEATS.format(cores=cores))
    os.makedirs(args.output_dir, exist_ok=True)
    with open(os.path.join(args.output_dir, "worker_scaling.json"), "w",
              encoding="utf-8") as f:
        json.dump({"cores": cores, "cpu_count": os.cpu_count(),
                   "rows": [{"label": l, "framework": fw, **r} for l, fw, r in rows]}, f,
                  indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
