"""The remarks the bench and the launcher write (as {"kind", ...} dicts: runner/bench, runner/script_job.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from planner.core.remarks.base import Remark

# --- a bench's measurement (the runner writes these as {"kind", ...}: runner/bench) -------------------------------------


@dataclass(frozen=True)
class StepsVary(Remark):
    """Step times vary a lot: coefficient of variation `cv`."""

    kind: ClassVar[str] = "steps_vary"
    cv: float


@dataclass(frozen=True)
class MeanAboveMedian(Remark):
    """The mean is `skew` above the median: occasional slow steps."""

    kind: ClassVar[str] = "mean_above_median"
    skew: float


@dataclass(frozen=True)
class Interrupted(Remark):
    """A spot notice (`notice`) cut the measurement short: its `steps` (`timed`: a script's) are the measurement."""

    kind: ClassVar[str] = "interrupted"
    notice: str
    steps: int
    timed: bool = False


@dataclass(frozen=True)
class OnlyWarmup(Remark):
    """One step took `seconds`: nothing but the warm-up fitted in the bench's `cap`; its last step is the measurement."""

    kind: ClassVar[str] = "only_warmup"
    seconds: float
    cap: float


@dataclass(frozen=True)
class OneStep(Remark):
    """One step measured: its interval (+-`half`) is the machine's own noise, measured now (`cv`)."""

    kind: ClassVar[str] = "one_step"
    half: float
    cv: float


@dataclass(frozen=True)
class WarmupUnsettled(Remark):
    """The step time never settled during the warm-up (`steps`, `seconds`)."""

    kind: ClassVar[str] = "warmup_unsettled"
    steps: int
    seconds: float


@dataclass(frozen=True)
class SlowSteps(Remark):
    """Only `steps` measured within the bench's `cap` (at least `wanted` wanted)."""

    kind: ClassVar[str] = "slow_steps"
    steps: int
    cap: float
    wanted: int


@dataclass(frozen=True)
class IntervalWide(Remark):
    """The time budget ran out after `steps` with the mean known to +-`relative` (None: no interval), `target` wanted."""

    kind: ClassVar[str] = "interval_wide"
    relative: float | None
    target: float
    steps: int


@dataclass(frozen=True)
class AllreduceMoved(Remark):
    """The all-reduce share was measured at a step of `synced_seconds`, the bench at `bench_seconds`."""

    kind: ClassVar[str] = "allreduce_moved"
    synced_seconds: float
    bench_seconds: float


@dataclass(frozen=True)
class NeverUsedGpu(Remark):
    """The script never used the GPU on a GPU instance: a measurement of its CPU."""

    kind: ClassVar[str] = "never_used_gpu"


@dataclass(frozen=True)
class WideInterval(Remark):
    """The `steps` measured pin the step time down only to +-`above` (wider than x2 either side): the interval is kept,
    wide."""

    kind: ClassVar[str] = "wide_interval"
    steps: int
    above: float
