"""The seed job and its scaling table on 1..N GPUs, one command (issue 27, point 4).

Runs bench/compare.py's methodology (fresh interleaved processes; estimator_lib's
model_to_estimator and custom model_fn, tf_keras fit, the hand-written tf.function
loop; seed CNN, global batch 512, MirroredStrategy over /gpu:0..n-1 for n > 1) for
every GPU count 1..N, then writes the scaling table: per-step img/s per framework
and GPU count, the ratio to the loop, and the scaling efficiency
img/s(n) / (n x img/s(1)). Sized to finish in `--budget_secs` (default 420 s):
the number of interleaved rounds is chosen from it (at least 1, at most 3).

First it prints what it found (Python, TensorFlow version and CUDA build, GPUs);
with no importable TensorFlow or no GPU it says so in one line and exits 0, unless
`--cpu_dry_run`, which rehearses the whole run on 1..2 logical CPU devices.

    python bench/gpu_scaling.py                     # all GPUs; table in $OUT or --output_dir
    python bench/gpu_scaling.py --cpu_dry_run --budget_secs=240
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import compare  # this folder
import provenance  # this folder

_PROBE = (
    "import json, os\n"
    "os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')\n"
    "import tensorflow as tf\n"
    "gpus = tf.config.list_physical_devices('GPU')\n"
    "names = []\n"
    "for g in gpus:\n"
    "    try:\n"
    "        names.append(tf.config.experimental.get_device_details(g).get('device_name', g.name))\n"
    "    except Exception:  # pylint: disable=broad-except\n"
    "        names.append(g.name)\n"
    "print(json.dumps({'tf': tf.__version__, 'cuda': tf.test.is_built_with_cuda(),\n"
    "                  'gpus': names}))\n")

# Seconds one run takes besides its steps (TensorFlow import, GPU start, graph, data).
_RUN_OVERHEAD_SECS = {"gpu": 25.0, "cpu": 15.0}
_FRAMEWORKS = compare.FRAMEWORKS


def _parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max_gpus", type=int, default=0, help="0: every GPU found.")
    parser.add_argument("--budget_secs", type=float, default=420.0,
                        help="Wall time the runs are sized to (the issue asks under 8 min).")
    parser.add_argument("--batch_size", type=int, default=512)
    parser.add_argument("--steps", type=int, default=0,
                        help="Steps per run; 0: 200 on GPUs, 40 on the CPU dry run.")
    parser.add_argument("--output_dir", default=os.environ.get("OUT") or "/tmp/gpu_scaling")
    parser.add_argument("--cpu_dry_run", action="store_true",
                        help="No GPU needed: the same run on 1..2 logical CPU devices.")
    return parser.parse_args(argv)


def probe(python=sys.executable):
    """What this Python's TensorFlow sees, or {'error': ...} when it does not import."""
    result = subprocess.run([python, "-c", _PROBE], capture_output=True, text=True,
                            check=False, timeout=300)
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": last}
    return json.loads(result.stdout.strip().splitlines()[-1])


def plan_rounds(*, budget_secs, kind, device_counts, steps, secs_per_step):
    """Interleaved rounds (1..3) that fit the budget."""
    per_run = _RUN_OVERHEAD_SECS[kind] + steps * secs_per_step
    runs_per_round = len(_FRAMEWORKS) * len(device_counts)
    return max(1, min(3, int(budget_secs // (per_run * runs_per_round))))


def scaling_table(summary, device_counts):
    """Markdown: per framework and GPU count, img/s, x loop, scaling efficiency."""
    lines = ["| framework | devices | per-step img/s (min-max) | x loop | scaling efficiency "
             "| first step from launch (s) | process exits (s) |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for framework in _FRAMEWORKS:
        base = summary.get(device_counts[0], {}).get(framework, {}).get("per_step_img_per_sec")
        for n in device_counts:
            entry = summary.get(n, {}).get(framework)
            if not entry or not entry.get("ok_runs"):
                lines.append(f"| {compare.LABELS[framework]} | {n} | failed | | | | |")
                continue
            rate = entry["per_step_img_per_sec"]
            low, high = entry["per_step_img_per_sec_range"]
            efficiency = rate / (n * base) if base else float("nan")
            vs_loop = entry.get("per_step_vs_loop") or float("nan")
            lines.append(
                f"| {compare.LABELS[framework]} | {n} | {rate:,.0f} ({low:,.0f}-{high:,.0f}) "
                f"| {vs_loop:.2f} | {efficiency:.2f} | {entry['first_step_secs']:.2f} "
                f"| {entry['exited_secs']:.2f} |")
    return "\n".join(lines)


def main(argv=None):
    args = _parse(sys.argv[1:] if argv is None else argv)
    started = provenance.start()
    found = probe()
    print(f"gpu_scaling: python {sys.executable} ({sys.version.split()[0]})")
    if "error" in found:
        print(f"gpu_scaling: TensorFlow does not import here ({found['error']}); nothing to run.")
        return 0
    print(f"gpu_scaling: TensorFlow {found['tf']}, built with CUDA: {found['cuda']}; "
          f"{len(found['gpus'])} GPU(s): {', '.join(found['gpus']) or 'none'}")
    if not found["gpus"] and not args.cpu_dry_run:
        print("gpu_scaling: no GPU found; nothing to run (--cpu_dry_run rehearses on CPU).")
        return 0
    kind = "cpu" if args.cpu_dry_run else "gpu"
    available = 2 if kind == "cpu" else len(found["gpus"])
    top = min(available, args.max_gpus) if args.max_gpus > 0 else available
    device_counts = list(range(1, top + 1))
    steps = args.steps or (200 if kind == "gpu" else 40)
    rounds = plan_rounds(budget_secs=args.budget_secs, kind=kind, device_counts=device_counts,
                         steps=steps, secs_per_step=0.01 if kind == "gpu" else 0.1)
    warm = 10 if steps > 20 else 2
    # compare.py's logs (one per run) stay out of the output folder: it holds three files.
    compare_dir = tempfile.mkdtemp(prefix="gpu_scaling_")
    os.makedirs(args.output_dir, exist_ok=True)
    print(f"gpu_scaling: {kind} devices {device_counts}, {rounds} round(s) of "
          f"{len(_FRAMEWORKS)} frameworks, {steps} steps of batch {args.batch_size}",
          flush=True)
    compare.main([f"--device_kind={kind}", f"--devices={','.join(map(str, device_counts))}",
                  f"--repeats={rounds}", f"--batch_size={args.batch_size}",
                  f"--examples={steps * args.batch_size}", f"--warm_steps={warm}",
                  "--run_timeout=240", "--noupdate_docs", f"--output_dir={compare_dir}"])
    with open(os.path.join(compare_dir, "compare.json"), encoding="utf-8") as f:
        summary = {int(k): v for k, v in json.load(f)["summary"].items()}
    for name in ("compare.md", "compare.json"):
        shutil.copy(os.path.join(compare_dir, name), os.path.join(args.output_dir, name))
    table = scaling_table(summary, device_counts)
    loads = f"load average {started['load_before']:.1f} before, {os.getloadavg()[0]:.1f} after"
    header = (f"{provenance.line(started)}\n\nTensorFlow {found['tf']} (CUDA build: "
              f"{found['cuda']}); devices: {', '.join(found['gpus']) or 'logical CPUs'}; "
              f"{kind} x {device_counts}; seed CNN, global batch {args.batch_size}, {steps} "
              f"steps, first {warm} left out; medians (min-max) of {rounds} interleaved "
              f"round(s); {loads}; efficiency = img/s(n) / (n x img/s(1)).")
    report = f"{header}\n\n{table}\n"
    with open(os.path.join(args.output_dir, "gpu_scaling.md"), "w", encoding="utf-8") as f:
        f.write(report)
    print()
    print(report)
    print(f"gpu_scaling: wrote gpu_scaling.md, compare.md, compare.json to {args.output_dir}; "
          f"per-run logs in {compare_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
