"""The scaling benchmark: real runs at 1 and 2 devices, and the report's arithmetic."""

import contextlib
import csv
import io
import json
import os
from unittest import mock

import pytest
import tensorflow as tf
from absl import app
from absl import flags as absl_flags
from absl.testing import flagsaver

from estimator_lib.bin import scaling_benchmark
from estimator_lib.bin.jobs import scaling_report

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


class ScalingBenchmarkTest(tf.test.TestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        if not absl_flags.FLAGS.is_parsed():
            absl_flags.FLAGS(["scaling_benchmark_test"])

    @pytest.mark.timeout(560)  # Two training processes: minutes on 2 loaded cores.
    def test_runs_each_count_in_its_own_process_and_writes_table_json_and_charts(self):
        output_dir = os.path.join(self.get_temp_dir(), "scaling")
        out = io.StringIO()
        with flagsaver.flagsaver(devices=["1", "2"], output_dir=output_dir, train_steps=3,
                                 batch_size=8, warm_steps=1, log_steps=1, eval_steps=1),\
                contextlib.redirect_stdout(out):
            scaling_benchmark.main(["scaling_benchmark"])
        printed = out.getvalue()
        self.assertIn("logical CPU devices sharing the same", printed)
        with open(os.path.join(output_dir, "scaling.csv")) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([row["devices"] for row in rows], ["1", "2"])
        self.assertEqual([row["global_batch_size"] for row in rows], ["8", "16"])  # weak
        for row in rows:
            self.assertGreater(float(row["examples_per_sec"]), 0)
        self.assertEqual(rows[1]["device_kind"], "logical CPU (shared cores)")
        with open(os.path.join(output_dir, "scaling.json")) as f:
            report = json.load(f)
        self.assertEqual(report["devices"], [1, 2])
        self.assertTrue(report["shared_cores"])
        self.assertLen(report["runs"], 2)
        self.assertTrue(all(run["ok"] for run in report["runs"]))
        self.assertEqual([run["num_devices"] for run in report["runs"]], [1, 2])
        with open(os.path.join(output_dir, "scaling.md")) as f:
            table = f.read()
        self.assertIn("| devices |", table)
        self.assertIn("sharing the same", table)
        # Provenance: when, which code (a git checkout here), the machine's load around it.
        self.assertRegex(table, r"\d{4}-\d\d-\d\d \d\d:\d\d UTC, commit [0-9a-f]{7,}.*, "
                                r"load average \d+\.\d before, \d+\.\d after\. Command: ")
        for name in scaling_report.CHART_FILES:
            with open(os.path.join(output_dir, name), "rb") as f:
                self.assertEqual(f.read(8), PNG_MAGIC, name)
        for name in ("devices_1.log", "devices_2.log"):
            self.assertTrue(os.path.isfile(os.path.join(output_dir, "runs", name)))

    def test_batch_size_scope_is_set_by_scaling(self):
        with flagsaver.flagsaver(batch_size_scope="global"):
            with self.assertRaisesRegex(app.UsageError, "--scaling"):
                scaling_benchmark.main(["scaling_benchmark"])

    def test_too_many_devices(self):
        with flagsaver.flagsaver(devices=["1", "64"]):
            with self.assertRaisesRegex(app.UsageError, "64"):
                scaling_benchmark.main(["scaling_benchmark"])


class ReportTest(tf.test.TestCase):

    def _runs(self):
        return [
            {"devices": 1, "ok": True, "examples_per_sec": 100.0, "wall_secs": 10.0,
             "train_secs": 5.0, "device_kind": "GPU", "global_batch_size": 64},
            {"devices": 2, "ok": True, "examples_per_sec": 180.0, "wall_secs": 9.0,
             "train_secs": 3.0, "device_kind": "GPU", "global_batch_size": 128},
            {"devices": 2, "ok": True, "examples_per_sec": 160.0, "wall_secs": 11.0,
             "train_secs": 4.0, "device_kind": "GPU", "global_batch_size": 128},
            {"devices": 4, "ok": False, "error": "boom", "device_kind": "GPU"},
        ]

    def test_rows_take_medians_and_scale_against_the_smallest_count(self):
        rows = scaling_report.make_rows(self._runs(), [1, 2, 4])
        self.assertEqual(rows[1]["examples_per_sec"], 170.0)
        self.assertEqual(rows[1]["ideal_examples_per_sec"], 200.0)
        self.assertAlmostEqual(rows[1]["efficiency"], 0.85)
        self.assertAlmostEqual(rows[1]["speedup"], 1.7)
        self.assertEqual(rows[1]["runs"], 2)
        self.assertIsNone(rows[2]["examples_per_sec"])
        self.assertEqual(rows[2]["error"], "boom")

    def test_markdown_csv_and_charts(self):
        rows = scaling_report.make_rows(self._runs(), [1, 2, 4])
        text = scaling_report.markdown(rows, title="T", notes=["a note"])
        # Several runs: the median, then their min-max; one run: the figure alone.
        self.assertIn("| 2 | GPU | - | 128 | 170 (160-180) | 200 | 1.70x | 85% | 3.5 (3.0-4.0) "
                      "| 10.0 (9.0-11.0) |", text)
        self.assertIn("| 1 | GPU | - | 64 | 100 | 100 | 1.00x | 100% | 5.0 | 10.0 |", text)
        self.assertIn("failed: boom", text)
        path = os.path.join(self.get_temp_dir(), "s.csv")
        scaling_report.write_csv(path, rows)
        with open(path) as f:
            self.assertLen(list(csv.DictReader(f)), 3)
        paths = scaling_report.draw_charts(self.get_temp_dir(), rows, title="T", subtitle="s")
        self.assertLen(paths, 3)

    def test_repeats_give_the_spread_and_n(self):
        runs = [{"devices": 1, "ok": True, "examples_per_sec": rate, "wall_secs": wall,
                 "train_secs": wall / 2} for rate, wall in ((90, 10), (100, 12), (120, 11))]
        row, = scaling_report.make_rows(runs, [1])
        self.assertEqual((row["examples_per_sec"], row["examples_per_sec_min"],
                          row["examples_per_sec_max"], row["runs"]), (100, 90, 120, 3))
        self.assertEqual((row["wall_secs_min"], row["wall_secs_max"]), (10, 12))
        titles = []
        import matplotlib.axes  # pylint: disable=import-outside-toplevel
        real = matplotlib.axes.Axes.set_title
        labels = []
        real_legend = matplotlib.axes.Axes.legend

        def set_title(axes, text, *args, **kwargs):
            titles.append(text)
            return real(axes, text, *args, **kwargs)

        def legend(axes, *args, **kwargs):
            labels.extend(axes.get_legend_handles_labels()[1])
            return real_legend(axes, *args, **kwargs)
        with mock.patch.object(matplotlib.axes.Axes, "set_title", set_title), \
                mock.patch.object(matplotlib.axes.Axes, "legend", legend):
            scaling_report.draw_charts(self.get_temp_dir(), [row], title="T", subtitle="s",
                                       weak_scaling=True)
        self.assertIn("measured (median of n=3 runs, bars: min-max)", labels)
        self.assertIn("N devices process N times the examples", titles[2].replace("\n", " "))


if __name__ == "__main__":
    tf.test.main()
