"""The TUI driven by a pilot: load a spec, validation messages, run the local target on a tiny
workload, results equal `planner plan` on the same run directory, cancel."""

from __future__ import annotations

import asyncio
import json
import subprocess

import pytest

from planner.service import replan
from planner.tui.app import PlannerApp
from planner.tui.results import ResultsPane
from planner.tui.run import RunPane

TINY = ("name: tui-tiny\nmodel: {kind: mlp, input_size: 4, hidden: [16], outputs: 1}\n"
        "data: {samples: 1024}\ntrain: {batch_size: 128, epochs: 20}\n")


async def wait_for(pilot, condition, timeout: float = 120.0) -> None:
    waited = 0.0
    while not condition():
        await pilot.pause(0.2)
        waited += 0.2
        if waited > timeout:
            raise AssertionError("condition never became true")


@pytest.fixture
def spec_file(tmp_path):
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY)
    return path


def test_load_validate_run_and_results_equal_planner_plan(spec_file, tmp_path):
    async def scenario():
        app = PlannerApp(str(spec_file), runs_dir=tmp_path / "run", bench_seconds=1)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: app.spec is not None)
            status = str(app.query_one("#spec-status").render())
            assert "valid: tui-tiny" in status
            summary = str(app.query_one("#spec-summary").render())
            assert "parameters        97" in summary  # 4*16+16 + 16+1

            await pilot.press("r")  # run, keyboard only
            await wait_for(pilot, lambda: app.query_one(ResultsPane).doc is not None)
            results = app.query_one(ResultsPane)
            assert app.query_one("TabbedContent").active == "tab-results"
            assert results.query_one("#options").row_count >= 1
            shown = str(results.query_one("#recommendation").render())
            expected, _ = replan(results.run_dir, {})
            assert expected["recommendation"] == results.doc["recommendation"]
            assert expected["recommendation"]["target"] in shown
            assert json.loads((tmp_path / "run" / "plan.json").read_text())["recommendation"] == results.doc["recommendation"]

            # what-if: a local price and the fastest objective re-plan from the journal, as `planner plan` does
            results.query_one("#local-price").value = "3.6"
            results.query_one("#objective").value = "fastest"
            await pilot.pause(0.5)
            expected, _ = replan(results.run_dir, {"objective": "fastest", "local_price_per_hour": 3.6})
            assert results.doc["objective"] == "fastest"
            assert results.doc["options"] == expected["options"]

    asyncio.run(scenario())


def test_validation_messages_are_the_clis(spec_file, tmp_path):
    async def scenario():
        app = PlannerApp(str(spec_file), runs_dir=tmp_path / "run")
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: app.spec is not None)
            editor = app.query_one("#spec-editor")
            editor.text = TINY.replace("hidden: [16]", "hidden: [16, -5]")
            await wait_for(pilot, lambda: app.spec is None)
            status = str(app.query_one("#spec-status").render())
            assert "model.hidden[1]: must be > 0, got -5" in status
            await pilot.press("r")  # refuses to run an invalid spec
            await pilot.pause(0.3)
            assert not app.query_one(RunPane).running

    asyncio.run(scenario())


def test_cancel_stops_the_run(spec_file, tmp_path):
    async def scenario():
        app = PlannerApp(str(spec_file), runs_dir=tmp_path / "run", bench_seconds=60)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: app.spec is not None)
            await pilot.press("r")
            run = app.query_one(RunPane)
            await wait_for(pilot, lambda: run.running)
            await pilot.pause(2.0)
            await pilot.press("c")
            await wait_for(pilot, lambda: not run.running, timeout=60)
            assert "cancelled" in str(run.query_one("#run-status").render())
            assert app.query_one(ResultsPane).doc is None
            job = str(tmp_path / "run" / "work")
            left = subprocess.run(["pgrep", "-f", job], capture_output=True, text=True).stdout.split()
            assert left == []  # the bench process was terminated

    asyncio.run(scenario())


def test_the_form_edits_the_spec_through_the_same_validation(spec_file, tmp_path):
    async def scenario():
        app = PlannerApp(str(spec_file), runs_dir=tmp_path / "run")
        async with app.run_test(size=(100, 40)) as pilot:
            await wait_for(pilot, lambda: app.spec is not None)
            await pilot.press("f")
            await pilot.pause(0.3)
            assert app.query_one("#spec-views").current == "spec-form"
            hidden = app.query_one("#f-model-hidden")
            assert hidden.value == "16"
            hidden.value = "16, -5"
            await wait_for(pilot, lambda: app.spec is None)
            assert "model.hidden[1]: must be > 0, got -5" in str(app.query_one("#spec-status").render())
            hidden.value = "32, 8"
            await wait_for(pilot, lambda: app.spec is not None and app.spec.model.hidden == [32, 8])
            app.query_one("#f-model-kind").value = "rnn"  # another kind: its own fields
            await pilot.pause(0.5)
            assert app.query_one("#f-model-hidden_size") is not None
            await wait_for(pilot, lambda: app.spec is None)  # rnn needs seq_len etc.: named by the CLI's messages
            assert "model.hidden_size: required field is missing" in str(app.query_one("#spec-status").render())

    asyncio.run(scenario())
