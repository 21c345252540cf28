"""A spot interruption notice (issue 43, item 4) stops the bench at the end of its current block: the steps measured
until then are the measurement, said so; too few are a failed result that names the notice. The notice is the file
PLANNER_INTERRUPT_FILE names (runner/bootstrap.sh writes it); the measuring loop runs on a fake clock."""

from __future__ import annotations

import json

import pytest

from planner.report.remarks import words
from runner.bench.harness import MIN_MEASURED_STEPS, InterruptedBench, measure
from tests.unit.test_harness import fake_timer, warm_then_steady

NOTICE = 'spot interruption notice: {"action": "terminate", "time": "2026-11-29T03:00:00Z"}'


def notice_after(tmp_path, monkeypatch, steps: int):
    """Steps of 1 ms after a warm-up; the notice file appears once `steps` steps have run."""
    flag = tmp_path / "interruption.txt"
    monkeypatch.setenv("PLANNER_INTERRUPT_FILE", str(flag))

    def durations():
        for i, d in enumerate(warm_then_steady(noise=0.02)):
            if i == steps:
                flag.write_text(NOTICE + "\n")
            yield d

    return fake_timer(durations())


def test_a_notice_mid_measurement_keeps_the_steps_measured_until_then(tmp_path, monkeypatch):
    m = measure(notice_after(tmp_path, monkeypatch, 3000), budget_seconds=30.0)
    assert m.stopped_because == "interrupted" and m.interruption == NOTICE
    assert (
        MIN_MEASURED_STEPS <= len(m.times) < 3000
    )  # stopped at the block after the notice, not at the budget
    assert m.stats.mean == pytest.approx(0.001, rel=0.2)
    assert words(m.warnings)[0].startswith(
        f"interrupted ({NOTICE}): the {len(m.times)} steps measured until then"
    )


def test_a_notice_during_the_warm_up_is_no_measurement(tmp_path, monkeypatch):
    with pytest.raises(
        InterruptedBench,
        match=r"interrupted \(spot interruption notice.*after 0 measured step\(s\)",
    ):
        measure(notice_after(tmp_path, monkeypatch, 3), budget_seconds=60.0)


def test_without_a_notice_the_bench_runs_as_before(tmp_path, monkeypatch):
    monkeypatch.setenv("PLANNER_INTERRUPT_FILE", str(tmp_path / "never-written.txt"))
    m = measure(fake_timer(warm_then_steady(noise=0.01)), budget_seconds=5.0)
    assert m.stopped_because == "converged" and m.interruption == ""


def test_the_bench_job_writes_a_result_that_says_it_was_interrupted(tmp_path, monkeypatch):
    """`python -m runner.bench` on a real (tiny) job with the notice already there: a failed result naming it (nothing
    was measured), written as any result is, so the instance uploads it."""
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    flag = tmp_path / "interruption.txt"
    flag.write_text(NOTICE)
    from planner.workload.spec import parse_spec_text

    spec = parse_spec_text(
        "name: tiny\nmodel: {kind: mlp, input_size: 4, hidden: [8], outputs: 1}\n"
        "data: {samples: 256}\ntrain: {batch_size: 32, epochs: 1}\n"
    )
    job = {"spec": spec.to_job(), "device": "cpu", "seconds": 2, "threads": 1}
    (tmp_path / "job.json").write_text(json.dumps(job))
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "runner.bench",
            str(tmp_path / "job.json"),
            str(tmp_path / "result.json"),
        ],
        cwd=ROOT,
        env={**os.environ, "PLANNER_INTERRUPT_FILE": str(flag)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads((tmp_path / "result.json").read_text())
    assert result["status"] == "error" and result["interruption"] == NOTICE
    assert "too few to time" in result["message"] and "Traceback" not in proc.stderr
