"""The measuring loop on a fake clock: warm-up detection, the stop rule, and the statistics."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from planner.report.remarks import words
from runner.bench.harness import CpuTimer, measure
from runner.bench.stats import percentile, summarize, t95


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def fake_timer(durations):
    """A CpuTimer whose 'step' advances a fake clock by the next duration: the real timer code runs."""
    clock = FakeClock()
    it = iter(durations)

    def step():
        clock.now += next(it)

    return CpuTimer(step, clock=clock)


def warm_then_steady(warm_steps=50, first=0.02, steady=0.001, noise=0.0, seed=0):
    rng = random.Random(seed)
    i = 0
    while True:
        base = (
            steady + (first - steady) * math.exp(-5 * i / warm_steps) if i < warm_steps else steady
        )
        yield base * (1 + rng.gauss(0, noise)) if noise else base
        i += 1


def test_warmup_is_reported_separately_and_excluded_from_the_mean():
    m = measure(fake_timer(warm_then_steady(noise=0.01)), budget_seconds=5.0)
    assert m.steady
    assert m.warmup_steps >= 10
    assert m.warmup_seconds > m.warmup_steps * 0.001  # it carried the slow steps
    assert m.stats.mean == pytest.approx(0.001, rel=0.02)  # the slow start is not in the mean


def test_stops_as_soon_as_the_mean_is_known_to_two_percent():
    m = measure(fake_timer(warm_then_steady(noise=0.02)), budget_seconds=30.0)
    assert m.stopped_because == "converged"
    assert m.stats.rel_half_width <= 0.02
    spent = m.warmup_seconds + sum(m.times)
    assert spent < 10.0  # far inside the budget


def test_noisy_steps_stop_on_the_budget_with_a_warning():
    durations = (0.001 * (1 + 3 * random.Random(i).random() ** 8) for i in range(10**7))
    m = measure(fake_timer(durations), budget_seconds=0.5, min_steps=20)
    assert m.stopped_because == "budget"
    assert any("the time budget ran out" in w for w in words(m.warnings))


def test_drift_that_never_settles_is_flagged():
    # a step time that keeps falling ~8% per warm-up window: warm-up never ends within its cap
    def durations():
        elapsed = 0.0
        while True:
            step = 0.01 * math.exp(-elapsed)
            elapsed += step
            yield step

    m = measure(fake_timer(durations()), budget_seconds=2.0)
    assert not m.steady
    assert any("never settled" in w for w in words(m.warnings))


def test_steps_longer_than_the_budget_still_give_two_measured_steps():
    m = measure(fake_timer(iter([5.0] * 100)), budget_seconds=3.0)
    assert len(m.times) >= 2 and m.stats.mean == pytest.approx(5.0)


def test_summary_statistics():
    values = [1.0, 2.0, 3.0, 4.0, 10.0]
    s = summarize(values)
    assert s.mean == 4.0 and s.median == 3.0
    assert s.p10 == pytest.approx(1.4) and s.p90 == pytest.approx(7.6)
    half = t95(4) * statistics.stdev(values) / math.sqrt(5)
    # the mean is no faster than the fastest step measured (a time is never < 0, nor below what the steps did)
    assert (s.ci_low, s.ci_high) == pytest.approx((max(min(values), 4.0 - half), 4.0 + half))
    assert any("above the median" in w for w in words(s.warnings))
    assert any("vary a lot" in w for w in words(s.warnings))


def test_batch_means_interval_is_wider_for_correlated_steps():
    # the same values, once shuffled (independent) and once sorted into a slow drift (correlated)
    rng = random.Random(1)
    values = [1.0 + 0.1 * rng.random() for _ in range(400)]
    independent = summarize(values)
    drifting = summarize(sorted(values))
    assert drifting.mean == pytest.approx(independent.mean)
    assert drifting.rel_half_width > 3 * independent.rel_half_width


def test_percentile_matches_linear_interpolation():
    assert percentile([0.0, 10.0], 0.25) == 2.5
    assert math.isnan(percentile([], 0.5))


# ------------------------------------------------------------------- slow steps (issue 13)


def steps_of(first: float, steady: float, jitter: float = 0.02, seed: int = 1):
    rng = random.Random(seed)
    yield first
    while True:
        yield steady * (1 + rng.uniform(-jitter, jitter))


def test_slow_steps_get_a_minimum_count_past_the_budget_and_say_so():
    events = []
    m = measure(fake_timer(steps_of(5.0, 3.0)), budget_seconds=5.0, progress=events.append)
    assert len(m.times) >= 5  # the budget bought one step; the bench took five, within the cap
    assert m.warmup_seconds + sum(m.times) <= 5.0 + 30.0
    assert any(
        e.get("slow") and e.get("min_steps") == 5 and e.get("cap_seconds") == 35.0 for e in events
    )
    low, high = m.stats.ci_low, m.stats.ci_high
    assert (
        min(m.times) <= low <= m.stats.mean <= high <= 2 * m.stats.mean
    )  # a usable interval, not 10,000x


def test_steps_too_slow_for_the_minimum_stop_at_the_hard_cap_with_an_honest_interval():
    m = measure(fake_timer(steps_of(14.0, 12.0)), budget_seconds=5.0, noise_probe=lambda: 0.01)
    assert m.stopped_because == "cap" and 1 <= len(m.times) < 5
    assert m.warmup_seconds + sum(m.times) <= 35.0
    # what the steps show: up to the warm-up's last step; below, one step's floor of the machine's noise (10%)
    low = min(m.times) * (0.9 if len(m.times) == 1 else 1.0)
    assert m.stats.ci_low == pytest.approx(low) and m.stats.ci_high == pytest.approx(14.0)
    assert any("slow steps: only" in w for w in words(m.warnings))


def test_a_step_longer_than_the_cap_is_the_only_measurement_and_said_so():
    """Issue 40: one step gets a finite interval, this machine's own noise measured in the same run (a quiet probe:
    the floor; a noisy one: wider, never past x1.9)."""
    m = measure(fake_timer(steps_of(50.0, 50.0)), budget_seconds=5.0, noise_probe=lambda: 0.01)
    assert m.times == [50.0] and (m.stats.ci_low, m.stats.ci_high) == pytest.approx((45.0, 55.0))
    assert any("nothing but the warm-up fitted" in w for w in words(m.warnings))
    assert any("its interval (+-10%) is this machine's own noise" in w for w in words(m.warnings))
    noisy = measure(fake_timer(steps_of(50.0, 50.0)), budget_seconds=5.0, noise_probe=lambda: 0.2)
    assert (noisy.stats.ci_low, noisy.stats.ci_high) == pytest.approx(
        (50 * (1 - 0.392), 50 * 1.392)
    )
    wild = measure(fake_timer(steps_of(50.0, 50.0)), budget_seconds=5.0, noise_probe=lambda: 3.0)
    assert wild.stats.ci_high == pytest.approx(95.0) and math.isfinite(wild.stats.ci_high)


def test_the_machines_noise_is_measured_not_assumed():
    from runner.bench.harness import machine_noise

    cv = machine_noise()
    assert 0.0 < cv < 5.0 and math.isfinite(cv)


def test_a_busy_machine_whose_free_cpus_torchs_threads_outnumber_is_warned_of_the_threads_waiting():
    """Trial: with one of two CPUs busy, torch's two threads made a 7 ms step take 80-175 ms here."""
    import torch

    from runner.bench.machine import Busyness

    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        crowded = " ".join(words(Busyness(cpus=2, other_cpus=1.0).warnings()))
        assert (
            "other processes used 1.0 of its 2 CPUs" in crowded
            and "torch's 2 threads had about 1.0 CPUs free" in crowded
        )
        torch.set_num_threads(1)
        room = " ".join(words(Busyness(cpus=4, other_cpus=1.0).warnings()))
        assert (
            "other processes used 1.0 of its 4 CPUs" in room and "wait for each other" not in room
        )
        assert Busyness(cpus=2, other_cpus=0.2).warnings() == []
    finally:
        torch.set_num_threads(threads)
