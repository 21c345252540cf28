"""Summary statistics of step times: mean with a 95% interval, percentiles, spread, warnings.
Design notes: docs/reference/modules.md (runner/bench/stats.py)."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import Any

# two-sided 95% Student-t quantiles by degrees of freedom; 1.96 beyond the table
_T95 = {
    1: 12.71,
    2: 4.303,
    3: 3.182,
    4: 2.776,
    5: 2.571,
    6: 2.447,
    7: 2.365,
    8: 2.306,
    9: 2.262,
    10: 2.228,
    12: 2.179,
    15: 2.131,
    20: 2.086,
    25: 2.060,
    30: 2.042,
    40: 2.021,
    60: 2.000,
    120: 1.980,
}
BATCHES = 20  # batch-means: number of contiguous batches
BATCH_MEANS_FROM = 2 * BATCHES


def t95(df: int) -> float:
    if df <= 0:
        return math.inf
    return next((_T95[k] for k in sorted(_T95) if df <= k), 1.96)


def percentile(sorted_values: list[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default)."""
    if not sorted_values:
        return math.nan
    pos = (len(sorted_values) - 1) * q
    lo, hi = math.floor(pos), math.ceil(pos)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def mean_half_width(values: list[float]) -> float:
    """Half-width of the 95% confidence interval of the mean (batch means when n >= 40)."""
    n = len(values)
    if n < 2:
        return math.inf
    if n >= BATCH_MEANS_FROM:
        size = n // BATCHES
        used = values[n - size * BATCHES :]  # drop the oldest remainder, keep the freshest steps
        means = [statistics.fmean(used[i * size : (i + 1) * size]) for i in range(BATCHES)]
        return t95(BATCHES - 1) * statistics.stdev(means) / math.sqrt(BATCHES)
    return t95(n - 1) * statistics.stdev(values) / math.sqrt(n)


@dataclass
class StepStats:
    n: int
    mean: float
    ci_low: float
    ci_high: float
    median: float
    p10: float
    p90: float
    stdev: float
    warnings: list[dict[str, Any]] = field(default_factory=list)

    @property
    def cv(self) -> float:
        return self.stdev / self.mean if self.mean > 0 else math.nan

    @property
    def rel_half_width(self) -> float:
        return (self.ci_high - self.mean) / self.mean if self.mean > 0 else math.inf


NOISY_CV = 0.15
SKEW_WARN = 0.05


def summarize(values: list[float]) -> StepStats:
    if not values:
        raise ValueError("no step times to summarize")
    ordered = sorted(values)
    mean = statistics.fmean(values)
    half = mean_half_width(values)
    stdev = statistics.stdev(values) if len(values) > 1 else 0.0
    # The run's mean step is no faster than the fastest step measured: with few steps the
    # t-interval's low end can fall far below anything the machine did (to zero), which no run would.
    stats = StepStats(
        n=len(values),
        mean=mean,
        ci_low=max(ordered[0], mean - half),
        ci_high=mean + half,
        median=percentile(ordered, 0.5),
        p10=percentile(ordered, 0.1),
        p90=percentile(ordered, 0.9),
        stdev=stdev,
    )
    if len(values) > 1 and stats.cv > NOISY_CV:
        stats.warnings.append({"kind": "steps_vary", "cv": stats.cv})
    if stats.median > 0 and (mean - stats.median) / stats.median > SKEW_WARN:
        stats.warnings.append(
            {"kind": "mean_above_median", "skew": (mean - stats.median) / stats.median}
        )
    return stats
