"""Writes tests/data/tf215_multi_worker.json: what the ORIGINAL's multi-worker jobs leave.

Run by hand only, in the throw-away venv described in tests/data/README.md:

    TF_CPP_MIN_LOG_LEVEL=2 /tmp/tf215/bin/python tests/data/make_tf215_multi_worker.py

It runs tests/estimator_lib/distribute/multi_worker/program.py (the same program the
tests run here, `estimator_lib` standing for `tf.estimator`) as every task of each
layout in LAYOUTS, on free ports of 127.0.0.1, and records per layout: the files of
model_dir (event file names reduced to `events.out.tfevents.*`), each task's exit
status and the `CONFIG` line it printed (estimator.config after train_and_evaluate),
and the installed versions. Named layouts (`... make_tf215_multi_worker.py workers`)
are re-recorded into the existing file. About 2 min on 2 shared cores. Only the
original's outputs are kept.
"""

import json
import os
import runpy
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUTPUT = os.path.join(HERE, "tf215_multi_worker.json")
PROGRAM = os.path.join(ROOT, "tests", "estimator_lib", "distribute", "multi_worker",
                       "program.py")
sys.path.insert(0, ROOT)

from tests.estimator_lib.distribute.multi_worker import launch  # noqa: E402  (stdlib only)

# name: (cluster jobs with their task counts, the tasks started: the cluster's and any
# evaluator). Workers only is the layout of TensorFlow's "Multi-worker training with
# Estimator" tutorial.
LAYOUTS = {
    "workers": ({"worker": 2}, [("worker", 0), ("worker", 1)]),
    "chief_worker": ({"chief": 1, "worker": 1}, [("chief", 0), ("worker", 0)]),
    "chief_worker_evaluator": ({"chief": 1, "worker": 1},
                               [("chief", 0), ("worker", 0), ("evaluator", 0)]),
    "workers_evaluator": ({"worker": 2}, [("worker", 0), ("worker", 1), ("evaluator", 0)]),
}
DEADLINE_SECS = 300


def model_dir_files(model_dir):
    """Every file under model_dir, relative, sorted; event file names without their
    time and host."""
    files = set()
    for dirpath, _, names in os.walk(model_dir):
        for name in names:
            if name.startswith("events.out.tfevents."):
                name = "events.out.tfevents.*"
            files.add(os.path.relpath(os.path.join(dirpath, name), model_dir))
    return sorted(files)


def config_lines(out_dir, names):
    views = {}
    for name in names:
        with open(os.path.join(out_dir, name + ".log")) as f:
            for line in f:
                if line.startswith("CONFIG "):
                    views[name] = json.loads(line[len("CONFIG "):])
    return views


def cluster_of(jobs, free_port):
    return {job: [f"127.0.0.1:{free_port()}" for _ in range(count)]
            for job, count in jobs.items()}


def _record(layout):
    jobs, tasks = LAYOUTS[layout]
    with tempfile.TemporaryDirectory() as model_dir, \
            tempfile.TemporaryDirectory() as out_dir:
        procs = launch.launch(tasks, cluster_of(jobs, launch.free_port), model_dir, out_dir,
                              command=[sys.executable, os.path.abspath(__file__), "--task"])
        launch.wait_all(procs, time.time() + DEADLINE_SECS)
        return {"files": model_dir_files(model_dir),
                "returncodes": {name: proc.returncode for name, proc in procs.items()},
                "config": config_lines(out_dir, procs)}


def _run_task(model_dir, out_dir):
    """One task: program.py with the original tf.estimator as `estimator_lib`."""
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    sys.modules["estimator_lib"] = tf.estimator
    sys.argv = [PROGRAM, model_dir, out_dir]
    runpy.run_path(PROGRAM, run_name="__main__")


def installed_versions():
    """The installed TensorFlow, tensorflow-estimator and Keras (read without importing
    them: the tasks import TensorFlow, this process does not)."""
    from importlib import metadata  # pylint: disable=import-outside-toplevel

    def version(*distributions):
        for distribution in distributions:
            try:
                return metadata.version(distribution)
            except metadata.PackageNotFoundError:
                continue
        return None

    return {"tensorflow": version("tensorflow", "tensorflow-cpu"),
            "tensorflow_estimator": version("tensorflow-estimator"),
            "keras": version("keras"), "python": sys.version.split()[0]}


def main(argv):
    if argv[1:2] == ["--task"]:
        _run_task(*argv[2:4])
        return
    record = {"versions": installed_versions()}
    if argv[1:] and os.path.exists(OUTPUT):
        with open(OUTPUT) as f:  # named layouts: re-recorded, the others kept
            record = {**json.load(f), **record}
        record.pop("tensorflow_estimator", None)
    for layout in argv[1:] or LAYOUTS:
        record[layout] = _record(layout)
        print(layout, json.dumps(record[layout], indent=1), flush=True)
    with open(OUTPUT, "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv)
