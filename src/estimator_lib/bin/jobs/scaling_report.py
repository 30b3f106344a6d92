"""The scaling benchmark's results: rows from runs, and the table, CSV, JSON and charts.

Pure functions over plain records. A run is one training process at one device
count (`examples_per_sec` from its ExamplesPerSecondHook, over all replicas);
a row is the median of a count's successful runs, with the speed-up over the
smallest count, the ideal linear figure and the scaling efficiency. Runs with
`workers` > 1 (one device in each of that many worker processes) make a second
series, "worker processes", scaled against the same base as the devices'.
"""

import csv
import json
import logging
import os
import statistics
import textwrap
from typing import Any, Dict, List, Optional, Sequence

COLUMNS = (
    ("devices", "devices"),
    ("device_kind", "device kind"),
    ("per_replica_batch_size", "batch per replica"),
    ("global_batch_size", "global batch"),
    ("examples_per_sec", "examples/sec (all replicas)"),
    ("ideal_examples_per_sec", "ideal linear"),
    ("speedup", "speed-up"),
    ("efficiency", "scaling efficiency"),
    ("train_secs", "train time (s)"),
    ("wall_secs", "total time (s)"),
    ("accuracy", "accuracy"),
    ("runs", "runs"),
)
CHART_FILES = ("throughput.png", "efficiency.png", "total_time.png")
DEVICES_SERIES = "devices in one process"
WORKERS_SERIES = "worker processes"


def _median(runs: Sequence[Dict], key: str) -> Optional[float]:
    values = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(values) if values else None


def _spread(runs: Sequence[Dict], key: str) -> Dict[str, Optional[float]]:
    values = [r[key] for r in runs if r.get(key) is not None]
    return {f"{key}_min": min(values) if values else None,
            f"{key}_max": max(values) if values else None}


def make_rows(runs: Sequence[Dict[str, Any]], counts: Sequence[int],
              workers: Sequence[int] = ()) -> List[Dict[str, Any]]:
    """Makes one row per device count, then per worker count > 1: medians and scaling figures.

    The base is the smallest device count with a measured examples/sec (else the
    smallest worker count): ideal linear scaling is its examples/sec x replicas /
    its replicas; efficiency is measured over ideal. A worker row's `devices` is
    its replicas in all (one per worker process).

    Args:
        runs: The runs' records (one per run and device count).
        counts: The device counts, in order.
        workers: The worker counts of multi-worker runs.

    Returns:
        A list of row dicts.
    """
    rows = []
    keys = [(DEVICES_SERIES, count) for count in counts] + [
        (WORKERS_SERIES, count) for count in workers if count > 1]
    for series, count in keys:
        mine = [r for r in runs if r["devices"] == count
                and ((r.get("workers") or 1) > 1) == (series == WORKERS_SERIES)]
        done = [r for r in mine if r.get("ok")]
        failed = [r for r in mine if not r.get("ok")]
        first = done[0] if done else {}
        rows.append({
            "series": series,
            "workers": count if series == WORKERS_SERIES else 1,
            "devices": count,
            "device_kind": _kind(first.get("device_kind"), count, series),
            "per_replica_batch_size": first.get("per_replica_batch_size"),
            "global_batch_size": first.get("global_batch_size"),
            "examples_per_sec": _median(done, "examples_per_sec"),
            "train_secs": _median(done, "train_secs"),
            "wall_secs": _median(done, "wall_secs"),
            "accuracy": _median(done, "accuracy"),
            "runs": len(done),
            **_spread(done, "examples_per_sec"), **_spread(done, "wall_secs"),
            **_spread(done, "train_secs"),
            "failed": len(failed),
            "error": failed[-1].get("error") if failed else None,
        })
    base = next((r for r in rows if r["examples_per_sec"]), None)
    for row in rows:
        rate = row["examples_per_sec"]
        if base is None or rate is None:
            row.update(ideal_examples_per_sec=None, speedup=None, efficiency=None)
            continue
        ideal = base["examples_per_sec"] * row["devices"] / base["devices"]
        row.update(ideal_examples_per_sec=ideal,
                   speedup=rate / base["examples_per_sec"], efficiency=rate / ideal)
    return rows


def _kind(kind: Optional[str], count: int, series: str = DEVICES_SERIES) -> Optional[str]:
    if series == WORKERS_SERIES:
        return f"{kind} per worker process" if kind else None
    if kind == "CPU" and count > 1:
        return "logical CPU (shared cores)"
    return kind


def _cell(key: str, value) -> str:
    if value is None:
        return "-"
    if key == "efficiency":
        return f"{value:.0%}"
    if key == "speedup":
        return f"{value:.2f}x"
    if key in ("examples_per_sec", "ideal_examples_per_sec"):
        return f"{value:,.0f}"
    if key in ("train_secs", "wall_secs"):
        return f"{value:.1f}"
    if key == "accuracy":
        return f"{value:.4f}"
    return str(value)


_SPREAD_KEYS = ("examples_per_sec", "train_secs", "wall_secs")


def _cell_of(key: str, row: Dict) -> str:
    """`_cell`, with the runs' min-max after the median where several runs differ."""
    text = _cell(key, row.get(key))
    low, high = row.get(f"{key}_min"), row.get(f"{key}_max")
    if key in _SPREAD_KEYS and (row.get("runs") or 0) > 1 and low is not None and low != high:
        text += f" ({_cell(key, low)}-{_cell(key, high)})"
    return text


def _columns(rows: Sequence[Dict]):
    """COLUMNS, led by the series and worker count when a row is a multi-worker one."""
    if any(r.get("series") == WORKERS_SERIES for r in rows):
        return (("series", "series"), ("workers", "worker processes")) + COLUMNS
    return COLUMNS


def _where(row: Dict) -> str:
    if row.get("series") == WORKERS_SERIES:
        return f"{row['workers']} worker processes"
    return f"{row['devices']} device(s)"


def markdown(rows: Sequence[Dict], *, title: str, notes: Sequence[str]) -> str:
    """Writes the table as markdown, with a title and notes above it; with several runs,
    the measured columns give the median and (min-max).

    Args:
        rows: The rows of `make_rows`.
        title: The report's title.
        notes: Lines printed above the table.

    Returns:
        The markdown text.
    """
    columns = _columns(rows)
    lines = [f"### {title}", ""]
    lines += [f"{note}  " for note in notes]
    lines += ["", "| " + " | ".join(label for _, label in columns) + " |",
              "| " + " | ".join("---:" if key not in ("device_kind", "series") else "---"
                                for key, _ in columns) + " |"]
    for row in rows:
        lines.append("| " + " | ".join(_cell_of(key, row) for key, _ in columns) + " |")
    failed = [r for r in rows if r.get("failed")]
    for row in failed:
        lines.append(f"\n{row['failed']} run(s) at {_where(row)} failed: {row['error']}")
    return "\n".join(lines) + "\n"


def write_csv(path: str, rows: Sequence[Dict]) -> None:
    """Writes the rows as CSV: series, workers, the table's columns, failures.

    Args:
        path: The file to write (replaced).
        rows: The rows `make_rows` returned.
    """
    keys = ["series", "workers"] + [key for key, _ in COLUMNS] + ["failed", "error"]
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: ("" if row.get(k) is None else row.get(k)) for k in keys})


def write_json(path: str, report: Dict[str, Any]) -> None:
    """Writes `report` as indented JSON, keys sorted.

    Args:
        path: The file to write (replaced).
        report: A JSON-serialisable dict.
    """
    with open(path, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=2, sort_keys=True)


def draw_charts(output_dir: str, rows: Sequence[Dict], *, title: str,
                subtitle: str, weak_scaling: Optional[bool] = None) -> List[str]:
    """Writes the PNG charts (matplotlib, Agg backend); returns their paths.

    With several runs per count, bars show their spread (min-max) around the
    median and the legends say n. `weak_scaling`: total_time.png says that N
    devices process N times the examples (weak) or the same examples (strong).

    Args:
        output_dir: Where the PNG files are written.
        rows: The rows of `make_rows`.
        title: The report's title.
        subtitle: The charts' subtitle.
        weak_scaling: Whether N devices processed N times the examples; None if unknown.

    Raises:
        ImportError: If matplotlib is not installed.
    """
    import matplotlib  # pylint: disable=import-outside-toplevel  (optional dependency)
    matplotlib.use("Agg")
    logging.getLogger("matplotlib").setLevel(logging.WARNING)  # absl's INFO is too chatty.
    from matplotlib import pyplot  # pylint: disable=import-outside-toplevel

    done = [r for r in rows if r["examples_per_sec"] is not None]
    counts = [r["devices"] for r in done]
    multi = any(r.get("series") == WORKERS_SERIES for r in done)
    ticks = [f"{r['workers']} workers" if r.get("series") == WORKERS_SERIES else
             (f"{r['devices']} dev" if multi else str(r["devices"])) for r in done]
    paths = []
    runs = sorted({r.get("runs") or 1 for r in done})
    repeated = runs[-1] > 1 if runs else False
    n = f"n={runs[0]}" if len(runs) == 1 else f"n={runs[0]}-{runs[-1]}"
    median = f"median of {n} runs, bars: min-max" if repeated else "one run"

    def spread(key, medians):
        if not repeated:
            return None
        low = [m - (r.get(f"{key}_min") if r.get(f"{key}_min") is not None else m)
               for r, m in zip(done, medians)]
        high = [(r.get(f"{key}_max") if r.get(f"{key}_max") is not None else m) - m
                for r, m in zip(done, medians)]
        return [low, high]

    def figure(name, ylabel, draw, note=None):
        """Draws one figure of the report and saves it.

        Args:
            name: The file name the figure is saved under.
            ylabel: The y axis' label.
            draw: Draws the curves on the axes it is given.
            note: A line added under the subtitle, or None.
        """
        fig, axes = pyplot.subplots(figsize=(7, 4.6), dpi=110)
        draw(axes)
        axes.set_xlabel("replicas: devices, or worker processes (1 device each)" if multi
                        else "devices")
        axes.set_ylabel(ylabel)
        axes.grid(True, alpha=0.3)
        fig.suptitle(title, fontsize=11)
        lines = [subtitle] + ([note] if note else [])
        axes.set_title("\n".join(textwrap.fill(line, 110) for line in lines), fontsize=8,
                       color="dimgray")
        fig.tight_layout()
        path = os.path.join(output_dir, name)
        fig.savefig(path)
        pyplot.close(fig)
        paths.append(path)

    def throughput(axes):
        measured = [r["examples_per_sec"] for r in done]
        ideal = sorted({(r["devices"], r["ideal_examples_per_sec"]) for r in done})
        axes.plot([x for x, _ in ideal], [y for _, y in ideal], "--", color="gray",
                  label="ideal linear scaling")
        series = [(DEVICES_SERIES, "o-", "tab:blue"), (WORKERS_SERIES, "s-", "tab:red")]
        for name, style, color in series:
            picked = [(r, m) for r, m in zip(done, measured)
                      if (r.get("series") or DEVICES_SERIES) == name]
            if not picked:
                continue
            xs = [r["devices"] for r, _ in picked]
            ys = [m for _, m in picked]
            label = f"{name} ({median})" if multi else f"measured ({median})"
            axes.plot(xs, ys, style, color=color, label=label)
            if repeated:
                bars = spread("examples_per_sec", measured)
                keep = [i for i, r in enumerate(done) if (r.get("series") or DEVICES_SERIES)
                        == name]
                axes.errorbar(xs, ys, yerr=[[bars[0][i] for i in keep],
                                            [bars[1][i] for i in keep]],
                              fmt="none", ecolor=color, capsize=4)
            for x, y in zip(xs, ys):
                axes.annotate(f"{y:,.0f}", (x, y), textcoords="offset points",
                              xytext=(8, 7 if name == DEVICES_SERIES else -12),
                              ha="center", fontsize=8, color=color)
        axes.set_xticks(sorted(set(counts)))
        axes.set_ylim(bottom=0, top=max([1] + measured + [r["ideal_examples_per_sec"]
                                                         for r in done] + [
            r.get("examples_per_sec_max") or 0 for r in done]) * 1.15)
        axes.legend(loc="upper left")

    def efficiency(axes):
        values = [100 * r["efficiency"] for r in done]
        axes.bar(range(len(counts)), values, color="tab:green", width=0.5)
        axes.axhline(100, linestyle="--", color="gray", label="ideal (100%)")
        for i, value in enumerate(values):
            axes.annotate(f"{value:.0f}%", (i, value), textcoords="offset points",
                          xytext=(0, 4), ha="center", fontsize=8)
        axes.set_xticks(range(len(counts)), ticks)
        axes.set_ylim(0, max([110] + [v + 10 for v in values]))
        axes.legend(loc="upper right")

    def total_time(axes):
        width = 0.38
        positions = list(range(len(counts)))
        wall = [r["wall_secs"] or 0 for r in done]
        train = [r["train_secs"] or 0 for r in done]
        axes.bar([p - width / 2 for p in positions], wall, width, color="tab:orange",
                 yerr=spread("wall_secs", wall), capsize=4,
                 label=f"total (process: start-up, training, evaluation; {median})")
        axes.bar([p + width / 2 for p in positions], train, width, color="tab:purple",
                 yerr=spread("train_secs", train), capsize=4, label="training only")
        for p, value in zip(positions, wall):
            axes.annotate(f"{value:.1f} s", (p - width / 2, value), textcoords="offset points",
                          xytext=(14 if repeated else 0, 3), ha="center", fontsize=8)
        axes.set_xticks(positions, ticks)
        axes.set_ylim(0, max([1] + wall + [r.get("wall_secs_max") or 0 for r in done]) * 1.3)
        axes.legend(loc="upper left", fontsize=8)

    figure(CHART_FILES[0], "examples/sec (all replicas)", throughput)
    figure(CHART_FILES[1], "scaling efficiency (% of ideal)", efficiency)
    work = None
    if weak_scaling is not None:
        work = ("Weak scaling: N devices process N times the examples (the global batch "
                "grows with N), so equal times mean linear scaling." if weak_scaling else
                "Strong scaling: every count processes the same examples (one global batch "
                "split N ways).")
    figure(CHART_FILES[2], "seconds", total_time, note=work)
    return paths
