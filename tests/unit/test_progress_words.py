"""A script's progress line as the TUI's Run row and the CLI show it."""

from __future__ import annotations

from planner.core.progress import ScriptProgress
from planner.report.text import script_progress_text


def test_a_measurement_under_way_shows_tenths_of_its_first_seconds():
    """A trial read 'measuring: 227 steps at 2.15 ms, 0/5 s' as nothing measured yet."""
    event = ScriptProgress(
        phase="measuring", steps=227, step_seconds=0.00215, measured_seconds=0.49, budget_seconds=5
    )
    assert script_progress_text(event) == "measuring: 227 steps at 2.15 ms, 0.5/5 s"
    later = event.model_copy(update={"measured_seconds": 12.4, "budget_seconds": 30})
    assert script_progress_text(later).endswith(", 12/30 s")
