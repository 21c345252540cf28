"""The words of a bench's remarks: how steady and how long its measurement was (the runner writes them as facts)."""

from __future__ import annotations

from planner.core import remarks as r
from planner.report.remarks.base import word


@word.register
def _steps_vary(x: r.StepsVary) -> str:
    return (
        f"step times vary a lot (coefficient of variation {x.cv:.0%}): a noisy machine or uneven steps; the "
        "interval is wide"
    )


@word.register
def _mean_above_median(x: r.MeanAboveMedian) -> str:
    return (
        f"the mean is {x.skew:.0%} above the median: occasional slow steps (allocator, garbage collection, OS); "
        "the estimate uses the mean"
    )


@word.register
def _interrupted(x: r.Interrupted) -> str:
    how = "timed" if x.timed else "measured"
    return f"interrupted ({x.notice}): the {x.steps} steps {how} until then are the measurement"


@word.register
def _only_warmup(x: r.OnlyWarmup) -> str:
    return (
        f"one step took {x.seconds:.1f} s: nothing but the warm-up fitted in the bench's {x.cap:.0f} s cap, so "
        "its last step is the measurement; give more --seconds"
    )


@word.register
def _one_step(x: r.OneStep) -> str:
    return (
        f"one step measured: its interval (+-{x.half:.0%}) is this machine's own noise, measured now (the same "
        f"small op repeated varied {x.cv:.0%}); give more --seconds for a firmer estimate"
    )


@word.register
def _warmup_unsettled(x: r.WarmupUnsettled) -> str:
    return (
        f"step time never settled during warm-up ({x.steps} step{'s' if x.steps != 1 else ''}, "
        f"{x.seconds:.1f} s); the first measured steps may still be slow"
    )


@word.register
def _slow_steps(x: r.SlowSteps) -> str:
    return (
        f"slow steps: only {x.steps} step(s) measured within the bench's {x.cap:.0f} s cap (at least {x.wanted} "
        "wanted); give more --seconds for a firmer estimate"
    )


@word.register
def _interval_wide(x: r.IntervalWide) -> str:
    if x.relative is None:
        return "too few steps for an interval; give more --seconds"
    return (
        f"the mean is known to +-{x.relative:.1%} (target +-{x.target:.0%}): the time budget ran out after "
        f"{x.steps:,} steps; give more --seconds for a tighter interval"
    )


@word.register
def _allreduce_moved(x: r.AllreduceMoved) -> str:
    return (
        f"the all-reduce share was measured at a step of {x.synced_seconds * 1e3:.3g} ms, the bench at "
        f"{x.bench_seconds * 1e3:.3g} ms: the machine's speed moved"
    )


@word.register
def _never_used_gpu(x: r.NeverUsedGpu) -> str:
    return "the script never used the GPU on this GPU instance: this is a measurement of its CPU"


@word.register
def _wide_interval(x: r.WideInterval) -> str:
    return (
        f"a wide interval: the {x.steps} step(s) measured pin the step time down only to +-{x.above:.0%}; give more "
        "--seconds or a quieter machine for a tighter one"
    )
