"""Durations people type, and the journal's atomic writes."""

from __future__ import annotations

import pytest

from planner.core.candidates import LOCAL
from planner.errors import InputError
from planner.journal import Measured, RunJournal
from planner.units import parse_duration
from runner.bench.result import BenchResult


@pytest.mark.parametrize(
    "text, seconds",
    [
        ("4h", 14400),
        ("90m", 5400),
        ("1h30m", 5400),
        ("2d", 172800),
        ("3600", 3600),
        ("45s", 45),
        ("1.5h", 5400),
        ("30min", 1800),
    ],
)
def test_durations(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "soon", "4x", "-1h", "0"])
def test_bad_durations(text):
    with pytest.raises(ValueError, match="4h, 90m"):
        parse_duration(text)


def test_journal_refuses_a_non_empty_directory(tmp_path):
    (tmp_path / "x").write_text("keep me")
    with pytest.raises(InputError, match="not empty"):
        RunJournal.create("w", tmp_path)


def test_results_are_written_atomically_and_read_back(tmp_path):
    j = RunJournal.create("w", tmp_path / "run")
    measured = Measured(
        LOCAL,
        BenchResult(
            status="ok",
            device="cpu",
            step_seconds=0.1,
            step_seconds_ci_low=0.09,
            step_seconds_ci_high=0.11,
        ),
    )
    path = j.write_result("local-cpu", measured)
    assert path.exists() and not list(path.parent.glob("*.tmp"))
    assert j.read_results() == {"local-cpu": measured}
