"""The data-parallel bench (runner/bench/distributed.py): its arithmetic, and real gloo runs on this CPU."""

from __future__ import annotations

import pytest

from runner.bench.distributed import fit_fabric


def test_the_fabric_fit_recovers_latency_and_bandwidth():
    latency, bus, ranks = 300e-6, 0.8e9, 2
    points = [(b, latency + 2 * (ranks - 1) / ranks * b / bus) for b in (1024, 2**20, 2**22, 2**24)]
    got_latency, got_bus = fit_fabric(points, ranks)
    assert got_latency == pytest.approx(latency, rel=1e-6) and got_bus == pytest.approx(bus, rel=1e-6)
    flat = fit_fabric([(1024, 1e-3), (2**20, 1e-3)], 4)  # no slope: bandwidth unbounded, never negative
    assert flat[1] == float("inf") and flat[0] >= 0
