"""The remarks of the decision, a spec's measurement here and a SkyPilot task."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from planner.core.remarks.base import Remark

# --- the decision and the plan ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DeadlineMissed(Remark):
    """No option of a place (`here`: this machine; else the rented ones) finishes within the deadline with its whole
    interval: its fastest is named instead."""

    kind: ClassVar[str] = "deadline_missed"
    deadline_seconds: float
    here: bool


@dataclass(frozen=True)
class KindOnly(Remark):
    """The plan holds one kind of instance, as asked (`gpu`: True: --gpu, GPU instances only; False: --cpu)."""

    kind: ClassVar[str] = "kind_only"
    gpu: bool


@dataclass(frozen=True)
class NothingPriced(Remark):
    """The price data has no instance of the kind asked for (`gpu`: True GPU, False CPU, None any) in `region` ("all":
    any) for `purchase`."""

    kind: ClassVar[str] = "nothing_priced"
    region: str
    purchase: str
    gpu: bool | None


@dataclass(frozen=True)
class AutoBenchmarkedNone(Remark):
    """`--targets auto` chose instances and benchmarked none of them: `problem` (no AWS credentials here) said why."""

    kind: ClassVar[str] = "auto_benchmarked_none"
    chosen: tuple[str, ...]
    problem: str


@dataclass(frozen=True)
class NotMeasuredHere(Remark):
    """This machine's bench stopped (`reason`: the error it raised, worded where it was raised): every row is predicted
    from the work alone."""

    kind: ClassVar[str] = "not_measured_here"
    reason: str


@dataclass(frozen=True)
class EmulatedPrecision(Remark):
    """A GPU model (`gpu`: "T4") runs the workload's `precision` emulated (bf16 without bf16 tensor cores); `instead`
    is the precision it has units for."""

    kind: ClassVar[str] = "emulated_precision"
    gpu: str
    precision: str
    instead: str


# --- a SkyPilot task --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TaskPartUnused(Remark):
    """What of a SkyPilot task (`source`) the planner does not use: `part` is "run" (commands beside the python
    command, `items`), "setup" (lines not run, `items`), "resources" (`items`: the pick as written, which does not
    narrow the plan), "cloud" (`items`: the cloud asked for), "num_nodes" (`items`: the count) or "file_mounts"."""

    kind: ClassVar[str] = "task_part_unused"
    source: str
    part: str
    items: tuple[str, ...] = ()


# --- a spec's measurement here ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScaledFromBatch(Remark):
    """Measured at batch `measured`, not the spec's `batch`: the spec's needs more than the local bench may hold
    (`budget_bytes`); the step time is scaled x`factor`."""

    kind: ClassVar[str] = "scaled_from_batch"
    measured: int
    batch: int
    budget_bytes: float
    factor: float


@dataclass(frozen=True)
class EmulatedHere(Remark):
    """This CPU has no `precision` units (`units`: the flags that would give them): measured in fp32."""

    kind: ClassVar[str] = "emulated_here"
    precision: str
    units: str
