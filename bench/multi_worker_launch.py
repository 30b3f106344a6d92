"""bench/multi_worker.py's runs: one run's worker processes on 127.0.0.1, launched,
waited for, and the chief's raw result read back.

Each task gets its own TF_CONFIG (a chief, then workers, on free ports) and, with
`--pin`, its own core; a run past `--run_timeout`, or still running
FAILED_TASK_GRACE_SECS after a task failed, has its process groups killed.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

from estimator_lib.launcher import cluster as launcher_cluster

_HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(_HERE)
RUN_SCRIPT = os.path.join(_HERE, "multi_worker_run.py")
# After the first task of a run fails, the others get this long to end on their own.
FAILED_TASK_GRACE_SECS = 15.0


def free_ports(count):
    """`count` distinct free TCP ports on 127.0.0.1 (the launcher's)."""
    return launcher_cluster.free_ports(count)


def tf_configs(ports):
    """One TF_CONFIG per task: a chief, then workers, all on 127.0.0.1 (the launcher's
    `--chief --workers=len(ports)-1`)."""
    roles = launcher_cluster.Roles(workers=len(ports) - 1, chief=True)
    addresses = launcher_cluster.cluster_on_ports(roles, ports)
    return [text for _, text in launcher_cluster.tf_configs(roles, addresses)]


def _pin(core):
    return lambda: os.sched_setaffinity(0, {core})


def run_once(args, framework, tag, scratch):
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
