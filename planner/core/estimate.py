"""Pure: a bench result + the spec's step count -> full training time with a low/high interval.
Design notes: docs/reference/modules.md (planner/core/estimate.py)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from planner.core.remarks import NoUsableInterval, WideInterval

# python + import torch when a bench did not measure it (not Linux): 1.1-2.0 s here
PROCESS_START_SECONDS = 2.0
CLOUD_BOOT_SECONDS = 150.0  # EC2 launch -> user-data -> torch importable on a Deep Learning AMI; a constant until measured
# interpreter shutdown with torch loaded, when not measured (AWS): 0.32 s here
PROCESS_EXIT_SECONDS = 0.3
RUN_TO_RUN_NOISE = 0.15  # relative: see the module docstring


MAX_USABLE_RELATIVE = 1.0  # an interval wider than x2 either side of its point is kept (never infinite) and said to be wide


@dataclass(frozen=True)
class StepMeasurement:
    """What the estimate needs from a bench result (plain numbers)."""

    step_seconds: float
    step_seconds_ci_low: float
    step_seconds_ci_high: float
    setup_seconds: float = 0.0
    warmup_seconds: float = 0.0
    warmup_steps: int = 0
    process_start_seconds: float | None = None  # measured by the bench; None: PROCESS_START_SECONDS
    # measured by a local bench's parent; None: PROCESS_EXIT_SECONDS
    exit_seconds: float | None = None
    # modelled: materialising the whole dataset once (the bench held a pool)
    data_seconds: float = 0.0
    steps_measured: int = 0  # 0: not a measurement (a prediction)

    @classmethod
    def from_result(cls, r: Any) -> StepMeasurement:
        """From a bench result (runner.bench.result.BenchResult, status ok)."""
        # unbounded, as JSON keeps it
        high = r.step_seconds_ci_high if r.step_seconds_ci_high is not None else math.inf
        low = r.step_seconds_ci_low if r.step_seconds_ci_low is not None else r.step_seconds
        return cls(
            r.step_seconds,
            low,
            high,
            r.setup_seconds or 0.0,
            r.warmup_seconds or 0.0,
            r.warmup_steps or 0,
            r.process_start_seconds,
            r.exit_seconds,
            dataset_seconds(r),
            r.steps_measured or 0,
        )


def dataset_seconds(r: Any) -> float:
    """The whole dataset's one-time materialisation, at the rate the bench built its pool: the
    bench holds a bounded pool of batches (runner/bench/data.py), the real run holds every sample.
    Results from before the pool (no pool figures) held the whole dataset in their setup: 0."""
    pool, total, seconds = (
        getattr(r, "data_pool_bytes", 0),
        getattr(r, "dataset_bytes", 0),
        getattr(r, "data_pool_seconds", None),
    )
    if not pool or not total or not seconds or total <= pool:
        return 0.0
    return float((total - pool) * seconds / pool)


@dataclass(frozen=True)
class TrainingEstimate:
    seconds: float
    low: float
    high: float  # math.inf when the measurement gave no usable interval (see `usable`)
    one_time_seconds: float
    data_seconds: float = 0.0  # part of one_time_seconds: the dataset's materialisation (modelled)
    usable: bool = True
    note: NoUsableInterval | WideInterval | None = None  # why the interval is wide, or not usable


def one_time_seconds(m: StepMeasurement, cloud: bool = False) -> float:
    warmup_excess = max(0.0, m.warmup_seconds - m.warmup_steps * m.step_seconds)
    start = PROCESS_START_SECONDS if m.process_start_seconds is None else m.process_start_seconds
    exit_ = PROCESS_EXIT_SECONDS if m.exit_seconds is None else m.exit_seconds
    return (
        start
        + exit_
        + m.setup_seconds
        + m.data_seconds
        + warmup_excess
        + (CLOUD_BOOT_SECONDS if cloud else 0.0)
    )


def relative_half_widths(
    m: StepMeasurement, noise: float = RUN_TO_RUN_NOISE
) -> tuple[float, float]:
    """(below, above) the mean, relative: the bench's interval of the mean (which need not be
    symmetric: its low end never goes below the fastest step) and the run-to-run noise, in quadrature."""
    mean = m.step_seconds
    if mean <= 0:
        return noise, noise
    below = max(mean - m.step_seconds_ci_low, 0.0) / mean
    above = max(m.step_seconds_ci_high - mean, 0.0) / mean
    return math.hypot(below, noise), math.hypot(above, noise)


def estimate_training(
    m: StepMeasurement, total_steps: int, cloud: bool = False, noise: float = RUN_TO_RUN_NOISE
) -> TrainingEstimate:
    if m.step_seconds <= 0 or total_steps < 0:
        raise ValueError("a step time must be positive and the step count non-negative")
    fixed = one_time_seconds(m, cloud)
    below, above = relative_half_widths(m, noise)
    steps_time = total_steps * m.step_seconds
    # a measurement's interval is kept however wide (issue 40: never infinite), and said when wider than x2; only a
    # measurement with no upper end at all has none; a prediction's is the model's own error band
    usable = math.isfinite(above)
    note: NoUsableInterval | WideInterval | None = (
        NoUsableInterval(m.steps_measured, None)
        if not usable
        else WideInterval(m.steps_measured, above)
        if m.steps_measured and above > MAX_USABLE_RELATIVE
        else None
    )
    return TrainingEstimate(
        seconds=fixed + steps_time,
        low=fixed * (1 - noise) + steps_time * max(0.0, 1 - below),
        high=fixed * (1 + noise) + steps_time * (1 + above) if usable else math.inf,
        one_time_seconds=fixed,
        data_seconds=m.data_seconds,
        usable=usable,
        note=note,
    )
