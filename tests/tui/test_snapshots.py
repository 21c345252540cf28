"""Snapshot tests pin the layout of the screens whose content is deterministic (the spec editor and
its summary, the price catalog, an empty run and results pane, the quit confirmation). Screens
showing measured times change from run to run and are covered by the pilot tests instead.
Update after an intended change: pytest tests/tui --snapshot-update"""

from __future__ import annotations

import pytest

from planner.tui.app import ConfirmQuit, PlannerApp
from tests.conftest import ROOT

SIZE = (80, 24)


@pytest.fixture(autouse=True)
def deterministic(monkeypatch, tmp_path):
    monkeypatch.setenv("PLANNER_CACHE_DIR", str(tmp_path))  # the bundled snapshot, whatever this machine cached
    monkeypatch.chdir(ROOT)  # the spec path on screen is relative: the same in every checkout


SPEC = "examples/surface-mlp.yaml"


async def settle(pilot) -> None:
    for _ in range(100):
        if pilot.app.spec is not None:
            break
        await pilot.pause(0.1)
    await pilot.pause(0.3)


def test_workload_screen(snap_compare):
    assert snap_compare(PlannerApp(SPEC), terminal_size=SIZE, run_before=settle)


def press(key: str):
    """run_before: settle, press `key`, let the screen redraw."""
    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press(key)
        await pilot.pause(0.5)

    return run_before


def test_targets_screen(snap_compare):
    assert snap_compare(PlannerApp(SPEC), terminal_size=SIZE, run_before=press("2"))


def test_results_screen_before_a_run(snap_compare):
    assert snap_compare(PlannerApp(SPEC), terminal_size=SIZE, run_before=press("4"))


def test_run_screen_before_a_run(snap_compare):
    assert snap_compare(PlannerApp(SPEC), terminal_size=SIZE, run_before=press("3"))


def test_instances_screen(snap_compare):
    assert snap_compare(PlannerApp(SPEC), terminal_size=SIZE, run_before=press("5"))


def test_workload_form(snap_compare):
    assert snap_compare(PlannerApp(SPEC), terminal_size=SIZE, run_before=press("f"))


def test_quit_confirmation(snap_compare):
    async def confirm(pilot):
        await settle(pilot)
        pilot.app.push_screen(ConfirmQuit())
        await pilot.pause(0.3)

    assert snap_compare(PlannerApp(SPEC), terminal_size=SIZE, run_before=confirm)
