"""The remarks of one option (a row of the plan): why it cannot run, what its prediction rests on, how it scales."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from planner.core.remarks.base import Remark


@dataclass(frozen=True)
class DoesNotFit(Remark):
    """The run needs ~`need_bytes` (`per_gpu`: on each GPU) where it may use `fraction` of `memory_bytes`; `where`:
    "" for a prediction, "here" or "on A10G" for a measurement that found it."""

    kind: ClassVar[str] = "does_not_fit"
    need_bytes: float
    memory_bytes: float
    fraction: float
    per_gpu: bool = False
    where: str = ""


@dataclass(frozen=True)
class BenchFailed(Remark):
    """The benchmark failed: `message` is its error, as the bench or the launcher gave it."""

    kind: ClassVar[str] = "bench_failed"
    message: str


@dataclass(frozen=True)
class GpusIdle(Remark):
    """`used` of the instance's `of` GPUs train (`script`: the script picks its device); the whole is priced."""

    kind: ClassVar[str] = "gpus_idle"
    used: int
    of: int
    script: bool = False


@dataclass(frozen=True)
class OnPaper(Remark):
    """Across `instances` instances over `gbps` Gbit/s (`efa`: EFA) at NCCL's share of line rate: predicted only."""

    kind: ClassVar[str] = "on_paper"
    instances: int
    gbps: float
    efa: bool


@dataclass(frozen=True)
class NoGpuSpec(Remark):
    """No spec for the GPU `gpu`: not predicted."""

    kind: ClassVar[str] = "no_gpu_spec"
    gpu: str


@dataclass(frozen=True)
class BatchSplit(Remark):
    """Skipped: batch `batch` does not split evenly over `gpus` GPUs."""

    kind: ClassVar[str] = "batch_split"
    batch: int
    gpus: int


@dataclass(frozen=True)
class NoBandwidth(Remark):
    """Not predicted: no sourced bandwidth between `gpus` GPUs of `instance_type` over `link` ("network": between
    instances; else the GPU link's kind, "nvlink")."""

    kind: ClassVar[str] = "no_bandwidth"
    instance_type: str
    link: str
    gpus: int = 0


@dataclass(frozen=True)
class MeasuredBusy(Remark):
    """Measured while the machine was busy (the plan's warnings say how busy)."""

    kind: ClassVar[str] = "measured_busy"


@dataclass(frozen=True)
class CpuNoBf16(Remark):
    """The CPU `cpu` has no bf16 instructions: bf16 runs through fp32 conversions."""

    kind: ClassVar[str] = "cpu_no_bf16"
    cpu: str


@dataclass(frozen=True)
class NoCpuClock(Remark):
    """No sourced clock for this processor and nothing measured here to scale."""

    kind: ClassVar[str] = "no_cpu_clock"


@dataclass(frozen=True)
class FromWorkAlone(Remark):
    """Predicted from the work alone (nothing measured here), +-`uncertainty`."""

    kind: ClassVar[str] = "from_work_alone"
    uncertainty: float


@dataclass(frozen=True)
class NoGpuFigures(Remark):
    """No published `mode` figures (fp16 tensor, fp32, ...) for the GPU `gpu`."""

    kind: ClassVar[str] = "no_gpu_figures"
    mode: str
    gpu: str


@dataclass(frozen=True)
class Unbacked(Remark):
    """No published `precision` training figure backs `gpu`: predicted from its sheet and the nearest evidence
    (`generation`), interval widened."""

    kind: ClassVar[str] = "unbacked"
    precision: str
    gpu: str
    generation: str


@dataclass(frozen=True)
class NoPublishedBand(Remark):
    """No published `precision` measurement on `generation`: the interval is widened."""

    kind: ClassVar[str] = "no_published_band"
    precision: str
    generation: str


@dataclass(frozen=True)
class Scaling(Remark):
    """`gpus` GPUs at `per_gpu_batch` each: `speedup` x one GPU's speed at `efficiency`; `verdict` "well",
    "moderately" or "poorly"; `reasons` (codes: "dispatch_bound", "exposed" with `exposed_seconds`, "small_share")."""

    kind: ClassVar[str] = "scaling"
    gpus: int
    per_gpu_batch: int
    speedup: float
    efficiency: float
    verdict: str
    reasons: tuple[str, ...] = ()
    exposed_seconds: float = 0.0


@dataclass(frozen=True)
class UsedNoGpu(Remark):
    """Measured on a GPU instance's CPU: the script did not use a GPU there."""

    kind: ClassVar[str] = "used_no_gpu"


@dataclass(frozen=True)
class NotMeasured(Remark):
    """This machine's row is not measured (`reason`): predicted from the stand-in's trace."""

    kind: ClassVar[str] = "not_measured"
    reason: str


@dataclass(frozen=True)
class NoStepTraced(Remark):
    """Not predicted: no step of the script was traced."""

    kind: ClassVar[str] = "no_step_traced"
