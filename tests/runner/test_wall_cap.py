"""Issue 40: one step longer than the bench may run ends the bench from outside (the harness only looks at its clock
between steps), with a clear message, and `estimate` answers all the same, from the work alone. Real child processes:
a bench of a convnet whose one step takes seconds here, given a wall-clock cap shorter than that."""

from __future__ import annotations

import time

import pytest

SLOW = """name: slow-cnn
model: {kind: cnn, input_shape: [3, 256, 256], channels: [128, 128, 128, 128], outputs: 10}
data: {samples: 64, task: classification, location: device}
train: {batch_size: 16, epochs: 1, optimizer: sgd, learning_rate: 0.01, precision: fp32}
"""


@pytest.fixture
def slow_spec(tmp_path):
    path = tmp_path / "slow.yaml"
    path.write_text(SLOW)
    return path


def test_a_step_longer_than_the_wall_cap_ends_the_bench_and_estimate_answers_from_the_work(slow_spec, monkeypatch):
    import planner.service.measure as measure
    from planner.service import PlannerService, plan_options
    from tests.tui.test_app import _bench_children

    monkeypatch.setattr(measure, "BENCH_WALL_EXTRA_SECONDS", 3.0)  # the bench may run 3.5 s in all; a step takes more
    service = PlannerService()
    start = time.monotonic()
    doc = service.estimate(service.load(str(slow_spec)), plan_options(region="us-east-1"), 0.5)
    assert time.monotonic() - start < 20
    said = doc.plan.warnings[0]
    assert "stopped at the bench's wall-clock cap of 4 s with no result" in said and "predicted from the work alone" in said
    assert {o.source for o in doc.plan.options} == {"predicted"} and doc.recommendation.target
    assert _bench_children() == []  # its process group ended with it
