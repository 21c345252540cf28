"""Progress events: the runner's JSON read into typed events where it crosses into the planner, and put into
words by the report layer alone."""

from __future__ import annotations

import pytest

from planner.core.progress import (
    Built,
    Measuring,
    OtherProgress,
    ScriptProgress,
    Sweep,
    Training,
    Warmup,
    progress_of,
)
from planner.report.text import progress_text
from planner.workload.spec import parse_spec
from runner.bench.run import run_job


def test_each_kind_the_bench_writes_is_read_typed_with_its_numbers(tiny_mlp):
    """The real bench, its events as it writes them: none falls back to an unknown kind, each keeps its numbers."""
    events: list[dict] = []
    job = {"spec": parse_spec(tiny_mlp).to_job(), "device": "cpu", "seconds": 0.3}
    assert run_job(job, events.append).status == "ok"
    read = [progress_of(e) for e in events]
    assert read and not any(isinstance(e, OtherProgress) for e in read)
    kinds = {type(e) for e in read}
    assert {Built, Warmup, Measuring} <= kinds
    measured = [e for e in read if isinstance(e, Measuring)]
    assert measured[-1].steps >= 2 and measured[-1].step_seconds and measured[-1].step_seconds > 0
    assert progress_text(measured[-1]).startswith(f"measuring: {measured[-1].steps:,} steps, ")


@pytest.mark.parametrize(
    ("raw", "kind", "text"),
    [
        ({"event": "built", "seconds": 1.2}, Built, "warming up  (1 s)"),
        ({"event": "warmup", "seconds": 3, "step_seconds": 0.012}, Warmup, "warming up: 12"),
        (
            {"event": "train", "steps": 120, "of": 4480, "seconds": 9.0},
            Training,
            "training: 120 of 4,480 steps  (9 s)",
        ),
        ({"event": "sweep"}, Sweep, "batch-size sweep"),
        (
            {"event": "script", "phase": "setup", "seconds": 4.0},
            ScriptProgress,
            "starting (imports, data, model): 4 s",
        ),
        (
            {"event": "from-a-newer-runner", "seconds": 2.0},
            OtherProgress,
            "from-a-newer-runner  (2 s)",
        ),
        # a field of the wrong type is not a crash of the progress line: the kind, by name
        ({"event": "measure", "steps": "many", "seconds": 5.0}, OtherProgress, "measure  (5 s)"),
        ({}, OtherProgress, ""),
    ],
)
def test_an_event_is_read_as_its_kind_and_worded(raw, kind, text):
    event = progress_of(raw)
    assert type(event) is kind
    assert progress_text(event).startswith(text)


def test_a_long_step_says_how_far_the_bench_goes_past_its_budget():
    event = progress_of(
        {
            "event": "measure",
            "steps": 3,
            "step_seconds": 2.5,
            "rel_ci": 0.1,
            "slow": True,
            "min_steps": 5,
            "cap_seconds": 60,
            "seconds": 8,
        }
    )
    assert progress_text(event) == (
        "measuring: 3 steps, 2.5 s/step +-10.0%; a long step: until 5 steps, at most 60 s  (8 s)"
    )
