"""Time training steps: warm up until steady, then measure until the mean is known to +-2%. Design
notes: docs/reference/modules.md (runner/bench/harness.py)."""

from __future__ import annotations

import math
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from runner.bench.result import BenchResult
from runner.bench.stats import StepStats, summarize

STEADY_TOLERANCE = 0.05
WARMUP_MAX_FRACTION = 0.4  # of the budget
MIN_MEASURED_STEPS = 5  # measured past the budget (within the hard cap) when the budget buys fewer
HARD_CAP_EXTRA_SECONDS = 30.0  # the bench's measuring never runs past budget + this


INTERRUPT_FILE_ENV = "PLANNER_INTERRUPT_FILE"


class InterruptedBench(Exception):
    """The bench was told to stop (a spot interruption notice) before it had MIN_MEASURED_STEPS steps to time."""


def interruption() -> str | None:
    """The interruption notice, when one arrived (the file PLANNER_INTERRUPT_FILE names exists: its text, or a
    generic reason), else None. A stat per call: checked once a block of steps."""
    path = os.environ.get(INTERRUPT_FILE_ENV)
    if not path or not os.path.exists(path):
        return None
    try:
        with open(path) as f:
            text = f.read(400).strip()
    except OSError:
        text = ""
    return text or "an interruption notice arrived"


class StepTimer(Protocol):
    def run_block(self, n: int) -> list[float]: ...


class CpuTimer:
    def __init__(self, step: Callable[[], object], clock: Callable[[], float] = time.perf_counter):
        self.step, self.clock = step, clock

    def run_block(self, n: int) -> list[float]:
        times, last = [], self.clock()
        for _ in range(n):
            self.step()
            now = self.clock()
            times.append(now - last)
            last = now
        return times


class CudaTimer:
    def __init__(self, step: Callable[[], object], device: object):
        import torch

        self.torch, self.step, self.device = torch, step, device

    def run_block(self, n: int) -> list[float]:
        cuda = self.torch.cuda
        events = [cuda.Event(enable_timing=True) for _ in range(n + 1)]
        cuda.synchronize(self.device)
        events[0].record()
        for i in range(n):
            self.step()
            events[i + 1].record()
        cuda.synchronize(self.device)  # the only place the host waits: after the whole block
        return [events[i].elapsed_time(events[i + 1]) / 1000.0 for i in range(n)]


def timer_for(step: Callable[[], object], device: object) -> StepTimer:
    """CUDA events on a GPU (`device` a torch.device), the host clock on a CPU."""
    return CudaTimer(step, device) if getattr(device, "type", "cpu") == "cuda" else CpuTimer(step)


@dataclass
class Measurement:
    stats: StepStats
    times: list[float]
    warmup_seconds: float
    warmup_steps: int
    steady: bool
    stopped_because: str  # "converged" | "budget" | "cap" (slow steps: the hard cap ended the bench) | "interrupted"
    warnings: list[dict[str, Any]] = field(default_factory=list)
    interruption: str = ""  # the notice that stopped it ("interrupted")


def _block_size(step_seconds: float, target_seconds: float, lo: int, hi: int = 10_000) -> int:
    if step_seconds <= 0:
        return hi
    return max(lo, min(hi, int(target_seconds / step_seconds)))


def warm_up(
    timer: StepTimer, budget_seconds: float, progress: Callable[[dict], None] | None = None
) -> tuple[list[float], bool]:
    """Run windows of steps until the window median stops falling by more than 5%."""
    limit = WARMUP_MAX_FRACTION * budget_seconds
    times = timer.run_block(1)  # the first step alone: it carries lazy initialisation
    if times[0] >= limit:
        return times, False
    previous: float | None = None
    while True:
        window = _block_size(times[-1], 0.04 * budget_seconds, lo=3, hi=2000)
        block = timer.run_block(window)
        times += block
        current = statistics.median(block)
        if progress:
            progress({"event": "warmup", "seconds": sum(times), "step_seconds": current})
        if previous is not None and current >= (1 - STEADY_TOLERANCE) * previous:
            return times, True
        previous = current
        if sum(times) >= limit or interruption() is not None:
            return times, False


def measure(
    timer: StepTimer,
    budget_seconds: float = 10.0,
    target: float = 0.02,
    min_steps: int = 20,
    min_seconds: float | None = None,
    progress: Callable[[dict], None] | None = None,
    hard_cap_seconds: float | None = None,
    noise_probe: Callable[[], float] | None = None,
) -> Measurement:
    """Warm up, then time steps until the mean's 95% interval is within +-target or the budget ends;
    slow steps get at least MIN_MEASURED_STEPS within the hard cap (default budget + 30 s)."""
    cap = budget_seconds + HARD_CAP_EXTRA_SECONDS if hard_cap_seconds is None else hard_cap_seconds
    warm, steady = warm_up(timer, budget_seconds, progress)
    if (notice := interruption()) is not None:  # it came during the warm-up
        return _interrupted([], warm, steady, notice)
    warmup_seconds = sum(warm)
    remaining = max(0.0, budget_seconds - warmup_seconds)
    min_seconds = (
        min(remaining, max(1.0, 0.2 * budget_seconds)) if min_seconds is None else min_seconds
    )
    times: list[float] = []
    estimate = statistics.median(warm[-3:])
    stopped, announced = "budget", False
    while warmup_seconds + sum(times) + estimate <= cap:
        block = timer.run_block(_block_size(estimate, min(0.25, max(remaining / 20, 0.02)), lo=1))
        times += block
        estimate = statistics.median(block)
        spent = sum(times)
        slow = spent >= remaining and len(times) < MIN_MEASURED_STEPS
        if progress and (len(times) >= 2 or slow):
            event = {
                "event": "measure",
                "seconds": warmup_seconds + spent,
                "steps": len(times),
                "step_seconds": estimate,
            }
            if len(times) >= 2:
                stats = summarize(times)
                event.update(step_seconds=stats.mean, rel_ci=stats.rel_half_width)
            if slow:  # say why the bench runs past its budget, and how far it may go
                event.update(slow=True, min_steps=MIN_MEASURED_STEPS, cap_seconds=cap)
                announced = True
            progress(event)
        if (
            len(times) >= min_steps
            and spent >= min_seconds
            and len(times) >= 2
            and summarize(times).rel_half_width <= target
        ):
            stopped = "converged"
            break
        if spent >= remaining and len(times) >= MIN_MEASURED_STEPS:
            break
        if (notice := interruption()) is not None:
            return _interrupted(times, warm, steady, notice)
    else:
        stopped = "cap"
    return _result(times, warm, steady, stopped, target, cap, announced, noise_probe)


def _interrupted(times: list[float], warm: list[float], steady: bool, notice: str) -> Measurement:
    """The steps measured until an interruption notice, as the measurement; InterruptedBench when too few."""
    if len(times) < MIN_MEASURED_STEPS:
        raise InterruptedBench(
            f"interrupted ({notice}) after {len(times)} measured step(s) and {len(warm)} of "
            f"warm-up: too few to time (at least {MIN_MEASURED_STEPS})"
        )
    stats = summarize(times)
    warnings: list[dict[str, Any]] = [
        {"kind": "interrupted", "notice": notice, "steps": len(times), "timed": False}
    ]
    warnings += list(stats.warnings)
    return Measurement(
        stats=stats,
        times=times,
        warmup_seconds=sum(warm),
        warmup_steps=len(warm),
        steady=steady,
        stopped_because="interrupted",
        warnings=warnings,
        interruption=notice,
    )


# One measured step: its mean's interval is the machine's own timing noise, measured when it happens
# (`machine_noise`): ONE_STEP_Z (95%) coefficients of variation of the same small op repeated, at least
# ONE_STEP_MIN (a step is never known better than that from one sample) and at most ONE_STEP_MAX.
ONE_STEP_Z = 1.96
ONE_STEP_MIN = 0.10
ONE_STEP_MAX = 0.9  # with the run-to-run noise in quadrature, still under the estimate's x2 (MAX_USABLE_RELATIVE)


def machine_noise(repeats: int = 15) -> float:
    """How much the same work's time varies on this machine now: the coefficient of variation of a small CPU matmul
    (~2 ms) repeated, after one untimed run. A quiet machine gives a few percent; one busy CPU of two, tens."""
    import torch

    a = torch.randn(160, 160)
    b = torch.randn(160, 160)

    def work() -> None:
        for _ in range(8):
            a.mm(b)

    work()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    mean = statistics.fmean(times)
    return statistics.stdev(times) / mean if mean > 0 else 0.0


def _result(
    times: list[float],
    warm: list[float],
    steady: bool,
    stopped: str,
    target: float,
    cap: float,
    slow: bool,
    noise_probe: Callable[[], float] | None = None,
) -> Measurement:
    warmup_seconds = sum(warm)
    warnings: list[dict[str, Any]] = []
    only_warmup = not times
    if only_warmup:  # the warm-up used the whole cap: its last step is all there is
        times = warm[-1:]
        warnings.append({"kind": "only_warmup", "seconds": times[0], "cap": cap})
    stats = summarize(times)
    # one step has no spread of its own: the machine's, measured now (issue 40: never infinite)
    if len(times) == 1:
        cv = (noise_probe or machine_noise)()
        half = min(max(ONE_STEP_Z * cv, ONE_STEP_MIN), ONE_STEP_MAX)
        # the warm-up's last step, no faster than steady
        slowest = warm[-1] if warm and not only_warmup else times[0]
        stats.ci_low = times[0] * (1 - half)
        stats.ci_high = min(max(times[0] * (1 + half), slowest), times[0] * (1 + ONE_STEP_MAX))
        warnings.append({"kind": "one_step", "half": half, "cv": cv})
    if 1 < len(times) < MIN_MEASURED_STEPS and not only_warmup:
        # Too few steps for a t-interval (with 2 it spans 12.7 standard deviations). What they
        # show instead: the mean lies between the fastest step and the slowest, where the warm-up's
        # last step — not yet steady, so no faster than a steady one — counts as a slow one.
        stats.ci_low, stats.ci_high = min(times), max(max(times), warm[-1])
    warnings += list(stats.warnings)
    if not steady:
        warnings.insert(
            0, {"kind": "warmup_unsettled", "steps": len(warm), "seconds": warmup_seconds}
        )
    if stopped == "cap" or slow and len(times) < MIN_MEASURED_STEPS:
        warnings.append(
            {"kind": "slow_steps", "steps": len(times), "cap": cap, "wanted": MIN_MEASURED_STEPS}
        )
    elif stopped == "budget" and stats.rel_half_width > target:
        rel = stats.rel_half_width
        warnings.append(
            {
                "kind": "interval_wide",
                "relative": rel if math.isfinite(rel) else None,
                "target": target,
                "steps": len(times),
            }
        )
    return Measurement(
        stats=stats,
        times=times,
        warmup_seconds=warmup_seconds,
        warmup_steps=len(warm),
        steady=steady,
        stopped_because=stopped,
        warnings=warnings,
    )


def record(result: BenchResult, m: Measurement) -> None:
    """A measurement of steps at `result.batch_size` in `result` (status ok): the mean and its interval,
    the spread, the warm-up, why it stopped and what it warns of."""
    s = m.stats
    result.status, result.steps_measured = "ok", s.n
    result.step_seconds, result.step_seconds_ci_low, result.step_seconds_ci_high = (
        s.mean,
        s.ci_low,
        s.ci_high,
    )
    result.step_seconds_median, result.step_seconds_p10, result.step_seconds_p90 = (
        s.median,
        s.p10,
        s.p90,
    )
    result.step_seconds_min, result.coefficient_of_variation = min(m.times), s.cv
    result.samples_per_second = result.batch_size / s.mean
    result.warmup_seconds, result.warmup_steps = m.warmup_seconds, m.warmup_steps
    result.stopped_because = m.stopped_because
    # after what the run said before it (a precision it trains in fp32)
    result.warnings += list(m.warnings)
    result.interruption = m.interruption
