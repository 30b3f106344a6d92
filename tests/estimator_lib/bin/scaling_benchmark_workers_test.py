"""scaling_benchmark --workers: a real 2-worker run on 127.0.0.1, the flag's checks, the rows."""

import json
import os
import subprocess
import sys
from unittest import mock

import pytest
from absl import app
from absl import flags as absl_flags
from absl.testing import flagsaver

from estimator_lib.bin import scaling_benchmark
from estimator_lib.bin.jobs import devices as devices_lib
from estimator_lib.bin.jobs import job
from estimator_lib.bin.jobs import scaling_report
from estimator_lib.distribute import job_shape
from estimator_lib.flags import definitions as defs

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))


# Generous: on 2 loaded cores, two worker processes and a chief take minutes to meet.
def _benchmark(*flags, timeout=500):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", ESTIMATOR_LIB_CLUSTER_WAIT_SECS="240",
               PYTHONPATH=_ROOT)
    return subprocess.run([sys.executable, "-m", "estimator_lib.bin.scaling_benchmark", *flags],
                          capture_output=True, text=True, env=env, cwd=_ROOT, timeout=timeout,
                          check=False)


@pytest.mark.timeout(560)
def test_two_worker_processes_are_a_second_series_counting_both_workers(tmp_path):
    output_dir = str(tmp_path / "scaling")
    result = _benchmark("--devices=1", "--workers=1,2", "--train_steps=3", "--batch_size=8",
                        "--warm_steps=1", "--log_steps=1", "--eval_steps=1",
                        f"--output_dir={output_dir}")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    with open(os.path.join(output_dir, "scaling.json")) as f:
        report = json.load(f)
    assert report["workers"] == [1, 2]
    rows = {row["series"]: row for row in report["rows"]}
    assert set(rows) == {scaling_report.DEVICES_SERIES, scaling_report.WORKERS_SERIES}
    multi = rows[scaling_report.WORKERS_SERIES]
    assert (multi["workers"], multi["devices"], multi["runs"]) == (2, 2, 1)
    # Weak scaling: 8 per replica, one replica in each of the two workers.
    assert (multi["per_replica_batch_size"], multi["global_batch_size"]) == (8, 16)
    assert multi["examples_per_sec"] > 0 and multi["speedup"] is not None
    run = next(r for r in report["runs"] if r.get("workers") == 2)
    assert run["ok"] and run["strategy"] == devices_lib.MULTI_WORKER and run["task"] == "chief"
    # The other worker trained the same steps and counted every replica's examples too.
    with open(os.path.join(run["model_dir"], job.summary_filename("worker0"))) as f:
        worker = json.load(f)
    assert (worker["workers"], worker["global_batch_size"], worker["train_steps"]) == (2, 16, 3)
    assert worker["examples_per_sec"] > 0
    assert worker["accuracy"] is None  # The chief evaluates.
    assert len(run["logs"]) == 2 and all(os.path.isfile(p) for p in run["logs"])
    with open(os.path.join(output_dir, "scaling.md")) as f:
        table = f.read()
    assert "| worker processes | 2 | 2 |" in table
    assert "| devices in one process | 1 | 1 |" in table
    with open(os.path.join(output_dir, "throughput.png"), "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"


@pytest.mark.timeout(300)
def test_a_bad_workers_value_is_one_line_naming_it():
    result = _benchmark("--workers=1,two")
    assert result.returncode != 0
    lines = [line for line in result.stderr.splitlines() if "--workers" in line]
    assert len(lines) == 1, result.stderr
    assert "Received: --workers=1,two" in lines[0] and "e.g. --workers=1,2" in lines[0]


class TestChecks:

    @classmethod
    def setup_class(cls):
        if not absl_flags.FLAGS.is_parsed():
            absl_flags.FLAGS(["scaling_benchmark_workers_test"])

    @pytest.mark.parametrize("values, message", [
        (["0"], "positive worker-process counts"), (["1", "x"], "Received: --workers=1,x"),
        (["2", "2"], "lists a count twice"), ([], "at least one count")])
    def test_validator(self, values, message):
        with pytest.raises(absl_flags.ValidationError, match=message):
            defs._check_workers(values)  # pylint: disable=protected-access
        assert defs._check_workers(["1", "2", "4"])  # pylint: disable=protected-access

    def test_strong_scaling_batch_must_divide_across_workers(self):
        with flagsaver.flagsaver(workers=["1", "3"], scaling="strong", batch_size=8):
            with pytest.raises(app.UsageError, match="3 worker processes"):
                scaling_benchmark.main(["scaling_benchmark"])

    def test_one_device_strategies_refuse_workers(self):
        with flagsaver.flagsaver(devices=["1"], workers=["2"], distribution_strategy="none"):
            with pytest.raises(app.UsageError, match="--distribution_strategy=none"):
                scaling_benchmark.main(["scaling_benchmark"])


def test_tf_config_with_several_tasks_is_a_multi_worker_job():
    cluster = {"chief": ["127.0.0.1:1"], "worker": ["127.0.0.1:2", "127.0.0.1:3"]}
    with mock.patch.dict(os.environ, {"TF_CONFIG": json.dumps(
            {"cluster": cluster, "task": {"type": "worker", "index": 0}})}):
        assert job_shape.training_tasks_in_tf_config() == 3
    with mock.patch.dict(os.environ, {"TF_CONFIG": ""}):
        assert job_shape.training_tasks_in_tf_config() == 1
    with pytest.raises(ValueError, match="--distribution_strategy=one_device"):
        devices_lib.check_multi_worker("one_device", 1, gpus=0, workers=2)
    with pytest.raises(ValueError, match="one CPU replica per worker"):
        devices_lib.check_multi_worker("auto", 2, gpus=0, workers=2)
    devices_lib.check_multi_worker("auto", 1, gpus=0, workers=2)


def test_rows_put_worker_runs_in_their_own_series():
    runs = [{"devices": 1, "ok": True, "examples_per_sec": 100.0, "device_kind": "CPU"},
            {"devices": 2, "ok": True, "examples_per_sec": 150.0, "device_kind": "CPU"},
            {"devices": 2, "workers": 2, "ok": True, "examples_per_sec": 190.0,
             "device_kind": "CPU"},
            {"devices": 4, "workers": 4, "ok": False, "error": "boom"}]
    rows = scaling_report.make_rows(runs, [1, 2], workers=[2, 4])
    assert [(r["series"], r["devices"], r["examples_per_sec"]) for r in rows] == [
        ("devices in one process", 1, 100.0), ("devices in one process", 2, 150.0),
        ("worker processes", 2, 190.0), ("worker processes", 4, None)]
    assert rows[2]["speedup"] == pytest.approx(1.9)
    assert rows[2]["device_kind"] == "CPU per worker process"
    text = scaling_report.markdown(rows, title="T", notes=[])
    assert "| series | worker processes | devices |" in text
    assert "1 run(s) at 4 worker processes failed: boom" in text
    assert "| series |" not in scaling_report.markdown(rows[:2], title="T", notes=[])
