"""Runs the same training job at several device counts and charts how it scales.

Each run is a fresh `python -m estimator_lib.bin.train` process (devices are
configured once per process), on GPUs when present, else on logical CPU devices
that share the same cores (so on a CPU the figures show the cost of in-sync
replicas, not a speed-up). Writes to --output_dir: scaling.md (markdown table),
scaling.csv, scaling.json, throughput.png (examples/sec against ideal linear
scaling), efficiency.png, total_time.png, and runs/ (each run's model_dir and log).

--workers=1,2 also runs the job as 2 worker processes on 127.0.0.1, each with
its own TF_CONFIG (MultiWorkerMirroredStrategy, one device each), and draws that
curve ("worker processes") next to the devices' ("devices in one process").

--scaling=weak keeps --batch_size per replica (the global batch grows with the
devices); --scaling=strong keeps it as the global batch.

    python -m estimator_lib.bin.scaling_benchmark --devices=1,2,4,8 --output_dir=DIR
    python -m estimator_lib.bin.scaling_benchmark --devices=1,2 --train_steps=200 \\
        --batch_size=256 --scaling=strong --repeats=3 --output_dir=DIR
    python -m estimator_lib.bin.scaling_benchmark --devices=1,2 --workers=1,2 --output_dir=DIR
"""

import json
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from typing import Any, Dict, List

from absl import app
from absl import flags as absl_flags

from estimator_lib.bin import cli
from estimator_lib.flags import definitions as defs

# Loaded in main, after the flags are parsed (cli.lazy_module).
tf = cli.lazy_module("tensorflow")
devices_lib = cli.lazy_module("estimator_lib.bin.jobs.devices")
job = cli.lazy_module("estimator_lib.bin.jobs.job")
scaling_report = cli.lazy_module("estimator_lib.bin.jobs.scaling_report")
provenance = cli.lazy_module("estimator_lib.bin.jobs.provenance")

PROGRAM = "estimator_lib.bin.scaling_benchmark"
TRAIN_MODULE = "estimator_lib.bin.train"
# Flags handed on, as given, to every training run.
FORWARDED_FLAGS = (
    defs.DATASET, defs.DATA_DIR, defs.MODEL, defs.WEIGHTS, defs.IMAGE_SIZE,
    defs.LEARNING_RATE, defs.BATCH_SIZE, defs.TRAIN_STEPS, defs.EPOCHS, defs.CROSS_DEVICE_OPS,
    defs.DTYPE, defs.XLA, defs.EVAL, defs.EVAL_STEPS, defs.SEED, defs.LOG_STEPS,
    defs.SAVE_SUMMARY_STEPS, defs.WARM_STEPS)
KEY_FLAGS = (defs.DEVICES, defs.WORKERS, defs.OUTPUT_DIR, defs.SCALING, defs.REPEATS,
             defs.DISTRIBUTION_STRATEGY) + FORWARDED_FLAGS
_OUR_FLAGS = {holder.name for holder in vars(defs).values()
              if isinstance(holder, absl_flags.FlagHolder)}
# A multi-worker run: how long its tasks may wait for each other to start, and how long
# the others get to end after one failed.
CLUSTER_WAIT_SECS = 120
FAILED_TASK_GRACE_SECS = 30
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _log(message: str) -> None:
    print(f"[scaling_benchmark] {message}", flush=True)


def _given(name: str) -> bool:
    """Whether flag `name` was set (on the command line, a flagfile or a flagsaver)."""
    return not absl_flags.FLAGS[name].using_default_value


def _check(counts: List[int], *, strategy: str, scope: str, gpus: int,
           workers: List[int] = ()) -> None:
    """Every count must be runnable before the first run starts."""
    if _given("batch_size_scope"):
        raise app.UsageError(
            "--batch_size_scope is set by --scaling in scaling_benchmark (weak: per_replica, "
            f"strong: global). Received: --batch_size_scope={defs.BATCH_SIZE_SCOPE.value}.")
    for count in counts:
        try:
            devices_lib.check_count(
                count, gpus=gpus,
                asked=f"--devices={','.join(map(str, counts))} asks for {count} devices,")
        except ValueError as error:
            raise app.UsageError(str(error)) from None
        if scope == "global" and defs.BATCH_SIZE.value % count:
            raise app.UsageError(
                f"--batch_size={defs.BATCH_SIZE.value} with --scaling=strong is the global "
                f"batch and must divide evenly across {count} devices (--devices="
                f"{','.join(map(str, counts))}); use a multiple of every count.")
        if count > 1 and strategy in ("one_device", "none"):
            raise app.UsageError(
                f"--distribution_strategy={strategy} runs on one device, but --devices "
                f"holds {count}; use --distribution_strategy=mirrored.")
    for count in [w for w in workers if w > 1]:
        if scope == "global" and defs.BATCH_SIZE.value % count:
            raise app.UsageError(
                f"--batch_size={defs.BATCH_SIZE.value} with --scaling=strong is the global "
                f"batch and must divide evenly across {count} worker processes (--workers="
                f"{','.join(map(str, workers))}); use a multiple of every count.")
        if strategy in ("one_device", "none"):
            raise app.UsageError(
                f"--workers={','.join(map(str, workers))} runs {count} worker processes "
                f"(MultiWorkerMirroredStrategy), but --distribution_strategy={strategy} "
                "trains on one device; use --distribution_strategy=mirrored.")
    if defs.CROSS_DEVICE_OPS.value == "nccl" and not gpus:
        raise app.UsageError("--cross_device_ops=nccl needs GPUs; this machine has none. "
                             "Use --cross_device_ops=auto, reduction_to_one or hierarchical_copy.")


def _forwarded() -> List[str]:
    args = []
    for holder in FORWARDED_FLAGS:
        if holder.value is not None:
            args.append(absl_flags.FLAGS[holder.name].serialize())
    return args


def _run_once(count: int, repeat: int, *, output_dir: str, strategy: str, scope: str,
              repeats: int) -> Dict[str, Any]:
    name = f"devices_{count}" + (f"_run{repeat + 1}" if repeats > 1 else "")
    model_dir = os.path.join(output_dir, "runs", name)
    shutil.rmtree(model_dir, ignore_errors=True)  # A fresh run, never a resumed one.
    os.makedirs(model_dir)
    log_path = os.path.join(output_dir, "runs", name + ".log")
    command = [sys.executable, "-m", TRAIN_MODULE, *_forwarded(), f"--num_devices={count}",
               f"--distribution_strategy={strategy}", f"--batch_size_scope={scope}",
               f"--model_dir={model_dir}"]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_ROOT, env.get("PYTHONPATH")) if p)
    start = time.time()
    with open(log_path, "w", encoding="utf-8") as log:
        log.write(" ".join(command) + "\n\n")
        log.flush()
        returncode = subprocess.call(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    wall = time.time() - start
    record: Dict[str, Any] = {"devices": count, "repeat": repeat, "wall_secs": wall,
                              "returncode": returncode, "log": log_path,
                              "model_dir": model_dir, "command": command}
    return _with_summary(record, model_dir, returncode == 0,
                         lambda: _last_error(log_path, returncode))


def _with_summary(record: Dict[str, Any], model_dir: str, succeeded: bool,
                  error) -> Dict[str, Any]:
    """`record` with the run's train summary (the chief's), or with `error()` if none."""
    summary_path = os.path.join(model_dir, job.SUMMARY_FILENAME)
    if succeeded and os.path.isfile(summary_path):
        with open(summary_path, encoding="utf-8") as f:
            summary = json.load(f)
        # The record's own fields (devices: the count) win over the summary's.
        record = {**summary, **record}
        record["ok"] = record.get("examples_per_sec") is not None
        if not record["ok"]:
            record["error"] = "no examples/sec measured (train_steps <= warm_steps?)"
    else:
        record.update(ok=False, error=error())
    return record


def _free_ports(count: int) -> List[int]:
    sockets = []
    try:
        for _ in range(count):
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            sockets.append(sock)
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def _tf_configs(count: int) -> List[str]:
    """One TF_CONFIG per task on 127.0.0.1: the chief, then count - 1 workers."""
    addresses = [f"127.0.0.1:{port}" for port in _free_ports(count)]
    cluster = {"chief": addresses[:1], "worker": addresses[1:]}
    tasks = [("chief", 0)] + [("worker", i) for i in range(count - 1)]
    return [json.dumps({"cluster": cluster, "task": {"type": kind, "index": index}})
            for kind, index in tasks]


def _wait_all(processes: List[subprocess.Popen]) -> List[Any]:
    """Exit codes; once a task failed, the others still running after
    FAILED_TASK_GRACE_SECS are killed (their code: "killed")."""
    codes: List[Any] = [None] * len(processes)
    failed_at = None
    while None in codes:
        for i, process in enumerate(processes):
            if codes[i] is None and process.poll() is not None:
                codes[i] = process.returncode
                if codes[i] != 0 and failed_at is None:
                    failed_at = time.time()
        if None in codes and failed_at and time.time() > failed_at + FAILED_TASK_GRACE_SECS:
            for i, process in enumerate(processes):
                if codes[i] is None:
                    os.killpg(process.pid, signal.SIGKILL)  # The group this task started.
                    process.wait()
                    codes[i] = "killed"
        time.sleep(0.05)  # Poll: the tasks end in any order.
    return codes


def _run_workers(count: int, repeat: int, *, output_dir: str, scope: str,
                 repeats: int) -> Dict[str, Any]:
    """The job as `count` worker processes (TF_CONFIG, MultiWorkerMirroredStrategy)."""
    name = f"workers_{count}" + (f"_run{repeat + 1}" if repeats > 1 else "")
    model_dir = os.path.join(output_dir, "runs", name)
    shutil.rmtree(model_dir, ignore_errors=True)  # A fresh run, never a resumed one.
    os.makedirs(model_dir)
    command = [sys.executable, "-m", TRAIN_MODULE, *_forwarded(), "--num_devices=1",
               f"--batch_size_scope={scope}", f"--model_dir={model_dir}"]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_ROOT, env.get("PYTHONPATH")) if p)
    env.setdefault("ESTIMATOR_LIB_CLUSTER_WAIT_SECS", str(CLUSTER_WAIT_SECS))
    logs = [os.path.join(output_dir, "runs", f"{name}.task{i}.log") for i in range(count)]
    processes, files = [], []
    start = time.time()
    for tf_config, log_path in zip(_tf_configs(count), logs):
        log = open(log_path, "w", encoding="utf-8")  # pylint: disable=consider-using-with
        log.write(f"TF_CONFIG='{tf_config}' " + " ".join(command) + "\n\n")
        log.flush()
        files.append(log)
        processes.append(subprocess.Popen(  # pylint: disable=consider-using-with
            command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            env=dict(env, TF_CONFIG=tf_config)))
    codes = _wait_all(processes)
    wall = time.time() - start
    for log in files:
        log.close()
    record: Dict[str, Any] = {"devices": count, "workers": count, "repeat": repeat,
                              "wall_secs": wall, "returncode": codes[0], "log": logs[0],
                              "logs": logs, "model_dir": model_dir, "command": command}
    bad = next((i for i, code in enumerate(codes) if code != 0), 0)
    if codes[bad] != 0:
        record["log"] = logs[bad]
    return _with_summary(record, model_dir, all(code == 0 for code in codes),
                         lambda: f"task {bad}: " + _last_error(logs[bad], codes[bad]))


def _last_error(log_path: str, returncode: int) -> str:
    with open(log_path, encoding="utf-8", errors="replace") as f:
        lines = [line.strip() for line in f if line.strip()]
    for line in reversed(lines):
        if "error" in line.lower():
            return line
    return f"exit code {returncode}; see {log_path}"


def _machine(gpus: int) -> Dict[str, Any]:
    names = []
    for gpu in tf.config.list_physical_devices("GPU"):
        details = tf.config.experimental.get_device_details(gpu)
        names.append(details.get("device_name", gpu.name))
    return {"cpu_cores": os.cpu_count(), "gpus": gpus, "gpu_names": names,
            "tensorflow": tf.__version__, "python": platform.python_version(),
            "host": platform.node()}


def _notes(machine: Dict, scope: str, counts: List[int]) -> List[str]:
    if machine["gpus"]:
        devices = f"GPUs: {', '.join(sorted(set(machine['gpu_names'])))}."
    else:
        devices = (f"No GPU: each device count is that many logical CPU devices sharing "
                   f"the same {machine['cpu_cores']} CPU cores. They add no hardware: a "
                   "speed-up here comes from keeping those cores busier, and the figures "
                   "show the cost of in-sync replicas, not how the job scales on GPUs.")
    scaling = ("Weak scaling: --batch_size per replica, the global batch grows with the "
               "devices." if scope == "per_replica" else
               "Strong scaling: --batch_size is the global batch, split across the devices.")
    return [devices, scaling,
            "examples/sec: ExamplesPerSecondHook, every replica counted, warm-up steps "
            "excluded; total time: the whole training process (start-up, training, "
            "evaluation); medians of the runs, (min-max) where several differ."]


def check() -> None:
    """Finds the flag mistakes that need no TensorFlow (cli.run calls it before it loads)."""
    counts = sorted(int(c) for c in defs.DEVICES.value)
    for count in counts:
        cli.check_device_count(
            count, asked=f"--devices={','.join(map(str, counts))} asks for {count} devices,")


def main(argv):
    """Runs the training job at each device count (and worker-process count); writes the report.

    Writes scaling.md, scaling.csv, scaling.json and the charts to --output_dir
    (a temporary folder when unset) and prints the table.

    Args:
        argv: The command line absl left after reading the flags; only the program
            name may remain (every option is a flag).

    Raises:
        app.UsageError: On a positional argument, or a count this machine cannot run.
        SystemExit: With the failure status when a run failed (the report written first).
    """
    cli.refuse_arguments(argv)
    counts = sorted(int(c) for c in defs.DEVICES.value)
    workers = sorted(int(w) for w in defs.WORKERS.value)
    gpus = devices_lib.count_gpus()
    scope = "per_replica" if defs.SCALING.value == "weak" else "global"
    strategy = (defs.DISTRIBUTION_STRATEGY.value
                if _given("distribution_strategy") else "mirrored")
    _check(counts, strategy=strategy, scope=scope, gpus=gpus, workers=workers)
    repeats = defs.REPEATS.value or 1
    output_dir = defs.OUTPUT_DIR.value or tempfile.mkdtemp(prefix="scaling_benchmark_")
    os.makedirs(os.path.join(output_dir, "runs"), exist_ok=True)
    machine = _machine(gpus)
    load_before = os.getloadavg()[0]
    kind = "GPU" if gpus else "logical CPU devices (shared cores)"
    multi = [w for w in workers if w > 1]
    _log(f"device counts {counts} on {kind}"
         + (f", worker-process counts {multi} (127.0.0.1)" if multi else "")
         + f"; {defs.SCALING.value} scaling; {repeats} run(s) each; writing to {output_dir}")
    if not gpus:
        _log(f"no GPU: the 'devices' are logical CPU devices sharing the same "
             f"{machine['cpu_cores']} cores; they add no hardware.")
    runs = []
    for repeat in range(repeats):
        for count in counts:
            _log(f"run {repeat + 1}/{repeats}: {count} device(s) ...")
            record = _run_once(count, repeat, output_dir=output_dir, strategy=strategy,
                               scope=scope, repeats=repeats)
            runs.append(record)
            if record["ok"]:
                _log(f"  {count} device(s): {record['examples_per_sec']:,.0f} examples/sec, "
                     f"global batch {record['global_batch_size']}, total "
                     f"{record['wall_secs']:.1f} s")
            else:
                _log(f"  {count} device(s) FAILED: {record['error']} (log: {record['log']})")
        for count in multi:
            _log(f"run {repeat + 1}/{repeats}: {count} worker processes ...")
            record = _run_workers(count, repeat, output_dir=output_dir, scope=scope,
                                  repeats=repeats)
            runs.append(record)
            if record["ok"]:
                _log(f"  {count} workers: {record['examples_per_sec']:,.0f} examples/sec "
                     f"(every worker's replicas), global batch {record['global_batch_size']}, "
                     f"total {record['wall_secs']:.1f} s")
            else:
                _log(f"  {count} workers FAILED: {record['error']} (log: {record['log']})")
    rows = scaling_report.make_rows(runs, counts, workers=multi)
    title = (f"{defs.MODEL.value} on {defs.DATASET.value}: {defs.SCALING.value} scaling "
             f"over {'GPUs' if gpus else 'logical CPU devices'}")
    notes = _notes(machine, scope, counts)
    command = " ".join(["python -m", PROGRAM] + [
        absl_flags.FLAGS[name].serialize() for name in sorted(_OUR_FLAGS) if _given(name)])
    notes.append(f"{provenance.stamp()}, TF {machine['tensorflow']}, {machine['cpu_cores']} CPU cores, "
                 f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after. "
                 f"Command: `{command.strip()}`")
    if multi:
        notes.insert(2, f"Worker processes ({', '.join(map(str, multi))}): the same job as that "
                        "many processes on 127.0.0.1, one device each, TF_CONFIG and "
                        "MultiWorkerMirroredStrategy; examples/sec counts every worker's "
                        "replicas; total time runs from the launch of the processes to the "
                        "exit of the last.")
    table = scaling_report.markdown(rows, title=title, notes=notes)
    paths = {name: os.path.join(output_dir, name)
             for name in ("scaling.md", "scaling.csv", "scaling.json")}
    with open(paths["scaling.md"], "w", encoding="utf-8") as f:
        f.write(table)
    scaling_report.write_csv(paths["scaling.csv"], rows)
    scaling_report.write_json(paths["scaling.json"], {
        "title": title, "notes": notes, "machine": machine, "scaling": defs.SCALING.value,
        "batch_size_scope": scope, "batch_size": defs.BATCH_SIZE.value,
        "distribution_strategy": strategy, "devices": counts, "workers": workers,
        "repeats": repeats,
        "device_kind": "GPU" if gpus else "CPU", "shared_cores": not gpus,
        "rows": rows, "runs": runs})
    print("\n" + table, flush=True)
    best = max((r["speedup"] for r in rows if r.get("speedup")), default=None)
    subtitle = (f"{notes[1].split(':')[0]}; " + (
        ", ".join(machine["gpu_names"][:1]) + " GPUs" if gpus else
        f"CPU 'devices' are logical and share the same {machine['cpu_cores']} cores: "
        + (f"the {best:.2f}x speed-up comes from keeping them busier, not from more "
           "hardware" if best and best > 1.05 else "they add no hardware")))
    try:
        charts = scaling_report.draw_charts(output_dir, rows, title=title, subtitle=subtitle,
                                            weak_scaling=scope == "per_replica")
    except ImportError:
        charts = []
        _log("charts not drawn: matplotlib is not installed (pip install matplotlib).")
    for path in list(paths.values()) + charts:
        _log(f"wrote {path}")
    failed = [r for r in runs if not r["ok"]]
    if failed:
        cli.fail(PROGRAM, f"{len(failed)} of {len(runs)} run(s) failed; first: "
                          f"{failed[0]['error']} (log: {failed[0]['log']})", cli.EXIT_FAILURE)


if __name__ == "__main__":
    cli.run(main, program=PROGRAM, key_flags=KEY_FLAGS, check=check)
