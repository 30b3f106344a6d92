"""bench/multi_worker.py's pure parts: TF_CONFIGs, figures, ratios, targets, table, docs.

Not timed: the benchmark itself is run by hand (docs/benchmarks.md).
"""

import json
import os

import pytest

from bench import multi_worker as mw


def _raw(framework, *, per_step_secs, exit_secs, first=3.0, steps=12, batch=256):
    launch = 1000.0
    ends = [launch + first + i * per_step_secs for i in range(steps)]
    return {"ok": True, "framework": framework, "tf_version": "2.21.0", "workers": 2,
            "replicas": 2, "global_batch_size": batch, "steps_planned": steps,
            "step_ends": ends, "launch": launch, "cluster_ready": launch + 2.0,
            "returned": ends[-1] + 0.1, "exited": launch + exit_secs, "log": "x.log"}


def _records():
    records = []
    for round_index, (est_step, keras_step, est_exit, keras_exit) in enumerate(
            [(0.1, 0.2, 10.0, 12.0), (0.1, 0.1, 12.0, 10.0), (0.05, 0.1, 9.0, 9.0)]):
        for framework, step, exit_secs in (("estimator_lib_model_fn", est_step, est_exit),
                                           ("keras_fit", keras_step, keras_exit)):
            record = mw.measure(_raw(framework, per_step_secs=step, exit_secs=exit_secs),
                                warm_steps=2)
            record["round"] = round_index
            records.append(record)
    return records


def test_tf_configs_name_a_chief_and_workers_on_localhost():
    configs = [json.loads(c) for c in mw.tf_configs([1111, 2222, 3333])]
    assert configs[0]["cluster"] == {"chief": ["127.0.0.1:1111"],
                                     "worker": ["127.0.0.1:2222", "127.0.0.1:3333"]}
    assert [c["task"] for c in configs] == [{"type": "chief", "index": 0},
                                            {"type": "worker", "index": 0},
                                            {"type": "worker", "index": 1}]
    ports = mw.free_ports(3)
    assert len(set(ports)) == 3


def test_measure_per_step_end_to_end_and_first_step():
    figures = mw.measure(_raw("keras_fit", per_step_secs=0.5, exit_secs=20.0), warm_steps=2)
    assert figures["per_step_img_per_sec"] == pytest.approx(256 / 0.5)
    assert figures["end_to_end_img_per_sec"] == pytest.approx(256 * 12 / 20.0)
    assert figures["first_step_secs"] == pytest.approx(3.0)
    assert figures["cluster_ready_secs"] == pytest.approx(2.0)
    short = dict(_raw("keras_fit", per_step_secs=0.5, exit_secs=20.0), steps_planned=13)
    assert not mw.measure(short, warm_steps=2)["ok"]
    failed = {"ok": False, "framework": "keras_fit", "error": "task 1 exited 1"}
    assert mw.measure(failed, warm_steps=2) == failed


def test_ratios_are_taken_per_round_then_the_median():
    records = _records()
    assert mw.round_ratios(records, "estimator_lib_model_fn", "per_step_img_per_sec") == \
        pytest.approx([2.0, 1.0, 2.0])
    summary = mw.summarize(records, ["estimator_lib_model_fn", "keras_fit"])
    entry = summary["estimator_lib_model_fn"]
    assert entry["per_step_vs_keras"] == pytest.approx(2.0)
    assert entry["end_to_end_vs_keras"] == pytest.approx(1.0)  # 1.2, 0.833, 1.0
    assert entry["per_step_img_per_sec_range"] == pytest.approx((2560, 5120))
    assert summary["keras_fit"]["ok_runs"] == 3


def test_a_failed_run_leaves_its_round_out_of_the_ratios():
    records = _records()
    records[1] = {"framework": "keras_fit", "ok": False, "error": "timed out", "round": 0}
    summary = mw.summarize(records, ["estimator_lib_model_fn", "keras_fit"])
    assert summary["estimator_lib_model_fn"]["per_step_vs_keras_rounds"] == \
        pytest.approx([1.0, 2.0])
    assert summary["keras_fit"]["ok_runs"] == 2
    table = mw.markdown_table(summary, ["estimator_lib_model_fn", "keras_fit"])
    assert "| 2/3 |" in table


def test_targets_and_table():
    summary = mw.summarize(_records(), ["estimator_lib_model_fn", "keras_fit"])
    lines = mw.targets(summary)
    assert lines == ["estimator_lib, custom model_fn: per step 2.000x Keras (>= 1.00: met); "
                     "end to end 1.000x Keras (>= 1.00: met)"]
    summary["estimator_lib_model_fn"]["end_to_end_vs_keras"] = 0.9
    assert "end to end 0.900x Keras (>= 1.00: MISSED)" in mw.targets(summary)[0]
    table = mw.markdown_table(summary, ["estimator_lib_model_fn", "keras_fit"])
    assert "| tf_keras Model.fit | 2,560 (1,280-2,560) | 1 (reference) |" in table
    assert "2.00 / 1.00 / 2.00; **2.00**" in table
    failed = {"estimator_lib_keras": {"runs": 1, "ok_runs": 0}}
    assert "| estimator_lib, model_to_estimator | failed |" in mw.markdown_table(
        failed, ["estimator_lib_keras"])


def test_update_docs_creates_then_replaces_only_its_section(tmp_path):
    path = os.path.join(tmp_path, "benchmarks.md")
    with open(path, "w") as f:
        f.write("# Benchmarks\n\n## Per-step\n\nA\n\n## Several steps per session run "
                "(bench/steps_per_run.py)\n\nB\n")
    mw.update_docs(path, mw.SECTION + "\n\nfirst\n")
    text = open(path).read()
    assert text.index("## Per-step") < text.index(mw.SECTION) < text.index("## Several")
    mw.update_docs(path, mw.SECTION + "\n\nsecond\n")
    text = open(path).read()
    assert "first" not in text and "second" in text and text.count(mw.SECTION) == 1
    assert "\nA\n" in text and "\nB\n" in text


def test_header_and_arguments():
    machine = {"commit": "abc1234 + uncommitted changes", "date": "2026-01-01 10:00",
               "cpus": 2, "load_before": 0.5, "load_after": 1.25}
    lines = mw.header_lines(mw.command_line(["--repeats=1"]), machine)
    assert lines[0] == "Command: `python bench/multi_worker.py --repeats=1`"
    assert "load average 0.50 before, 1.25 after" in lines[3]
    args = mw._parse(["--noupdate_docs", "--nopin", "--frameworks=estimator_lib_keras"])
    assert (args.update_docs, args.pin) == (False, False)
    assert args.frameworks == ["estimator_lib_keras", "keras_fit"]
    with pytest.raises(ValueError, match="warm_steps"):
        mw._parse(["--examples=1024", "--batch_size=512"])
    with pytest.raises(ValueError, match="workers"):
        mw._parse(["--workers=1"])
