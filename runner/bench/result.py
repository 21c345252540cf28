"""The bench's result: one flat JSON object, written by the bench and read by the planner.

SHIPPED TO THE INSTANCE: standard library only. `status` is "ok", "does_not_fit" (out of memory
is a result, not a crash), "invalid" (the job asks for something this machine or torch cannot do:
a precision, a device, a custom model that fails to import) or "error" (the bench failed at run
time); `message` says why.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

SCHEMA_VERSION = (
    2  # 2: warnings are facts {"kind", ...} (planner.core.remarks), where 1 wrote words
)


@dataclass
class BenchResult:
    status: str
    device: str  # "cpu" | "cuda"
    device_name: str = ""
    message: str = ""
    workload: str = ""
    torch_version: str = ""
    threads: int = 0
    precision: str = "fp32"
    batch_size: int = 0
    steps_per_epoch: int = 0
    steps_measured: int = 0
    step_seconds: float | None = None  # the mean: it is what extrapolates
    step_seconds_ci_low: float | None = None
    step_seconds_ci_high: float | None = None
    step_seconds_median: float | None = None
    step_seconds_p10: float | None = None
    step_seconds_p90: float | None = None
    coefficient_of_variation: float | None = None
    samples_per_second: float | None = None
    peak_memory_bytes: int | None = None
    peak_memory_kind: str = ""  # "cuda_max_allocated" | "process_peak_rss"
    warmup_seconds: float | None = None
    warmup_steps: int = 0
    setup_seconds: float | None = None
    # process creation -> torch imported, bench starting (Linux)
    process_start_seconds: float | None = None
    # local runs: the whole process, spawn to exit, timed by the parent
    process_seconds: float | None = None
    # local runs: result written -> process exited (interpreter shutdown)
    exit_seconds: float | None = None
    step_seconds_min: float | None = None  # the fastest measured step: the run's mean is no faster
    data_pool_samples: int = 0  # the bench's data: a bounded pool of batches (runner/bench/data.py)
    data_pool_bytes: int = 0
    # time to build the pool (its rate models the whole dataset's)
    data_pool_seconds: float | None = None
    dataset_bytes: int = 0  # the whole dataset, as the real run holds it
    load_average: float | None = None  # 1-minute load average when the bench started
    cpus: int = 0
    steal_percent: float | None = None  # CPU time the hypervisor stole while the bench measured
    # CPUs' worth of time other processes used while the bench measured
    other_cpus: float | None = None
    machine_busy: bool = False  # load or steal made this measurement unreliable (see warnings)
    memory_available_bytes: int | None = None  # free memory on the device when the bench started
    # set by the planner when it scaled a smaller batch's step
    measured_batch_size: int | None = None
    stopped_because: str = ""
    # a spot interruption notice (or EC2's reclaim) that cut the bench short: its reason
    interruption: str = ""
    # facts {"kind", ...} the planner words (planner.core.remarks); an older bench's words
    warnings: list[str | dict[str, Any]] = field(default_factory=list)
    sweep: list[dict[str, Any]] = field(default_factory=list)
    # `mode: train`: mean step of each 1/20th of the run
    step_seconds_windows: list[float] = field(default_factory=list)
    # data-parallel runs (`processes` > 1, torchrun + DistributedDataParallel; batch_size is the global batch)
    processes: int = 1
    backend: str = ""  # "nccl" | "gloo"
    step_seconds_no_sync: float | None = None  # the same step without the all-reduce (DDP no_sync)
    # coefficient of variation of those steps (ranks wait for the slowest)
    step_cv_no_sync: float | None = None
    allreduce_share: float | None = None  # exposed all-reduce: 1 - no_sync step / step
    # one all_reduce of the gradients' bytes, none of it hidden
    allreduce_seconds: float | None = None
    gradient_bytes: int | None = None
    # the all-reduce probe: points, latency, bus bandwidth
    fabric: dict[str, Any] = field(default_factory=dict)
    # a user's training script: its whole timeline (runner/script.py's result)
    script: dict[str, Any] | None = None
    hostname: str = ""
    started_at: str = ""
    wall_seconds: float | None = None
    schema_version: int = SCHEMA_VERSION

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BenchResult:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def write(self, path: str | Path) -> None:
        tmp = Path(str(path) + ".tmp")
        tmp.write_text(json.dumps(finite_json(self.to_dict()), indent=2, allow_nan=False) + "\n")
        tmp.replace(path)  # atomic: a reader never sees half a result

    @classmethod
    def read(cls, path: str | Path) -> BenchResult:
        return cls.from_dict(json.loads(Path(path).read_text()))


def finite_json(value: Any) -> Any:
    """`value` with every NaN or infinite float replaced by None: strict JSON (json.dumps with
    allow_nan=False), which every parser accepts. An unbounded interval end reads back as None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_json(v) for v in value]
    return value
