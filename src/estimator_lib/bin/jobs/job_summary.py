"""What a training job reports: `JobSummary` (printed by `train`, written to
`model_dir/train_summary.json`) and the process's own time."""

import dataclasses
import os
from typing import Any, Dict, List, Optional

@dataclasses.dataclass(frozen=True)
class JobSummary:
    """What a job did and measured."""

    model: str
    dataset: str
    dtype: str
    xla: bool
    device_kind: str
    device_description: str
    num_devices: int
    strategy: str
    shared_cores: bool
    batch_size_scope: str
    per_replica_batch_size: int
    global_batch_size: int
    global_batch: str
    train_steps: int
    global_step: int
    measured_steps: int
    warm_steps: int
    examples_per_sec: Optional[float]
    accuracy: Optional[float]
    eval_loss: Optional[float]
    eval_split: Optional[str]
    train_secs: float
    total_secs: float
    model_dir: str
    export_path: Optional[str]
    # Worker processes of a multi-worker job (TF_CONFIG); examples_per_sec counts all.
    workers: int = 1
    task: str = "chief"
    # The global step this run started from (> 0: it resumed a model_dir).
    start_step: int = 0
    # What --on_bad_file=skip left out, by name and count ('' when nothing).
    skipped: str = ""
    # Seconds since this process started (the interpreter's start), None where the
    # system does not say (process_seconds()).
    process_secs: Optional[float] = None
    # The label classes (0: unknown), for the chance level printed beside accuracy.
    num_classes: int = 0

    def to_dict(self) -> Dict[str, Any]:
        """Returns the summary as a plain dict of its fields (for JSON)."""
        return dataclasses.asdict(self)

    def _steps(self) -> str:
        if not self.start_step:
            return f"{self.train_steps} (global step now {self.global_step})"
        return (f"{max(0, self.global_step - self.start_step)} this run, resumed from global "
                f"step {self.start_step} (--train_steps={self.train_steps}, global step now "
                f"{self.global_step})")

    def times(self) -> str:
        """Returns the one definition of the run's times: training, then the process.

        `training` is the `train()` calls' wall time; `process` runs from the
        interpreter's start to the summary (start-up, input, training, evaluation,
        export). Where the process's start cannot be read, the job's own time (from
        the job's start) is given instead, named `job`.

        Examples:
            >>> import types
            >>> JobSummary.times(types.SimpleNamespace(
            ...     train_secs=4.84, total_secs=9.0, process_secs=11.1))
            'training 4.8 s, process 11.1 s'
            >>> JobSummary.times(types.SimpleNamespace(
            ...     train_secs=4.84, total_secs=9.0, process_secs=None))
            'training 4.8 s, job 9.0 s'
        """
        if self.process_secs is None:
            return f"training {self.train_secs:.1f} s, job {self.total_secs:.1f} s"
        return f"training {self.train_secs:.1f} s, process {self.process_secs:.1f} s"

    def lines(self) -> List[str]:
        """Returns the summary the binary prints, as lines."""
        rate = (f"{self.examples_per_sec:,.1f} over all {self.num_devices} replica(s) "
                f"(ExamplesPerSecondHook: {self.measured_steps} steps after "
                f"{self.warm_steps} warm-up)" if self.examples_per_sec is not None else
                "n/a (no step ran after warm-up; model_dir may already be at "
                f"global step {self.global_step})")
        chance = (f"chance {1 / self.num_classes:.4f} for {self.num_classes} classes; "
                  if self.num_classes else "")
        accuracy = ("not evaluated" if self.accuracy is None else
                    f"{self.accuracy:.4f} ({chance}loss {self.eval_loss:.4f}, "
                    f"{self.eval_split} split)")
        data = (f"{self.dataset} (generated data, not Fashion-MNIST: --dataset=fashion_mnist "
                "reads the real one)" if self.dataset == "synthetic" else self.dataset)
        workers = (f" in each of {self.workers} worker processes (this one: {self.task})"
                   if self.workers > 1 else "")
        lines = [
            "Summary",
            f"  model          {self.model} on {data}, {self.dtype}"
            f"{', XLA' if self.xla else ''}",
            f"  devices        {self.device_description}{workers}; strategy: {self.strategy}",
            f"  global batch   {self.global_batch} (--batch_size_scope="
            f"{self.batch_size_scope})",
            f"  steps          {self._steps()}",
        ] + ([f"  skipped        {self.skipped}"] if self.skipped else []) + [
            f"  accuracy       {accuracy}",
            f"  examples/sec   {rate}",
            f"  time           {self.times()}",
            f"  model_dir      {self.model_dir}",
        ]
        if self.export_path:
            lines.append(f"  export         {self.export_path}")
        return lines


def process_seconds() -> Optional[float]:
    """Returns the seconds since this process started, or None where Linux's /proc is absent.

    Read from /proc/self/stat (the start, in clock ticks after boot) and /proc/uptime,
    so that the interpreter's own start-up and the imports count.
    """
    try:
        with open("/proc/self/stat", encoding="ascii") as f:
            started = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime", encoding="ascii") as f:
            uptime = float(f.read().split()[0])
        return max(0.0, uptime - started / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return None
