"""Snapshot tests pin every pane at 80x24 and 120x40 with a plan shown, so predicted rows, the
answers, the picked benchmarks and the chart appear without AWS. The plan is a fixed document
(tests/tui/fixtures/surface-mlp-plan.json: PlannerService.estimate_run over a saved run), not a
live measurement, so the screens are the same on every machine and in every checkout.
Update after an intended change: pytest tests/tui/test_snapshots.py --snapshot-update"""

from __future__ import annotations

import pytest

from planner.tui.app import PlannerApp
from planner.tui.dialogs import ConfirmQuit
from tests.conftest import ROOT
from tests.tui.helpers import FIXTURES, plan_doc, wait_for

SIZES = {"80x24": (80, 24), "120x40": (120, 40)}
SPEC = "examples/surface-mlp.yaml"


@pytest.fixture(autouse=True)
def deterministic(monkeypatch, tmp_path):
    monkeypatch.setenv(
        "PLANNER_CACHE_DIR", str(tmp_path)
    )  # the bundled price snapshot, whatever this machine cached
    monkeypatch.chdir(ROOT)  # the spec path on screen is relative: the same in every checkout
    for key in (
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_PROFILE",
        "AWS_ENDPOINT_URL",
    ):
        monkeypatch.delenv(
            key, raising=False
        )  # the Instances pane says "no credentials" on every machine
    for key, value in {
        "AWS_CONFIG_FILE": str(tmp_path / "none"),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none"),
        "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(key, value)


def app() -> PlannerApp:
    return PlannerApp(
        SPEC, runs_folder=FIXTURES.relative_to(ROOT), estimate_on_open=False
    )  # relative: any checkout


def shown(*keys: str, settle=None):
    """run_before: the spec validated, the fixed plan shown (as a fresh estimate), then `keys`."""

    async def run_before(pilot) -> None:
        await wait_for(pilot, lambda: pilot.app.spec is not None, timeout=30)
        pilot.app.query_one("ResultsPane").show(plan_doc(), fresh=True)
        await pilot.pause(0.5)
        for key in keys:
            await pilot.press(key)
            await pilot.pause(0.3)
        if settle:
            await wait_for(pilot, lambda: settle(pilot.app), timeout=30)
        await pilot.pause(0.5)

    return run_before


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(
    "pane, keys", [("workload", ()), ("targets", ("2",)), ("run", ("3",)), ("results", ("4",))]
)
def test_pane_with_the_plan_shown(snap_compare, pane, keys, size):
    def quotas_said(app) -> bool:  # the picks' quota state is read in a worker: wait for it
        targets = app.query_one("TargetsPane")
        return not targets.quotas_read or bool(targets.quotas)

    assert snap_compare(
        app(), terminal_size=SIZES[size], run_before=shown(*keys, settle=quotas_said)
    )


@pytest.mark.parametrize("size", SIZES)
def test_instances_pane_without_aws_access(snap_compare, size):
    def loaded(app) -> bool:
        return "listing planner-managed" not in str(app.query_one("#instances-status").render())

    assert snap_compare(app(), terminal_size=SIZES[size], run_before=shown("5", settle=loaded))


def test_the_chart_on_a_short_screen(snap_compare):
    assert snap_compare(app(), terminal_size=SIZES["80x24"], run_before=shown("4", "v"))


def test_the_form(snap_compare):
    assert snap_compare(app(), terminal_size=SIZES["80x24"], run_before=shown("f"))


def test_quit_confirmation(snap_compare):
    async def confirm(pilot):
        await shown()(pilot)
        pilot.app.push_screen(
            ConfirmQuit(
                [
                    "A run is in progress: quitting cancels it and terminates every instance "
                    "and process it started.",
                    "The spec has unsaved edits (ctrl+s saves them).",
                ]
            )
        )
        await pilot.pause(0.3)

    assert snap_compare(app(), terminal_size=SIZES["80x24"], run_before=confirm)


def test_open_run_picker(snap_compare):
    assert snap_compare(app(), terminal_size=SIZES["80x24"], run_before=shown("o"))
