"""The form in the app: switching to it and back without an edit changes nothing (and nothing is
unsaved); an edit changes that field's line only and goes through the CLI's validation; another
kind brings its own fields; ctrl+s saves what the editor holds."""

from __future__ import annotations

import asyncio

from textual.widgets import Input, Select, TextArea

from planner.tui.app import PlannerApp
from planner.tui.workload import WorkloadPane
from tests.tui.helpers import COMMENTED, settled, started, text_of, wait_for
from tests.tui.test_yamledit import changed_lines


def test_form_round_trip_keeps_the_yaml_and_an_edit_changes_one_line(tmp_path):
    spec = tmp_path / "commented.yaml"
    spec.write_text(COMMENTED)

    async def scenario():
        app = PlannerApp(str(spec), estimate_on_open=False)
        async with started(app, (80, 24)) as pilot:
            await settled(pilot)
            editor = app.query_one("#spec-editor", TextArea)
            workload = app.query_one(WorkloadPane)
            for _ in range(2):  # f, f and again: every widget announcing its value changes nothing
                await pilot.press("f")
                await pilot.pause(0.5)
                assert app.query_one("#spec-views").current == "spec-form"
                await pilot.press("f1", "f")
                await pilot.pause(0.3)
                assert app.query_one("#spec-views").current == "spec-editor"
            assert editor.text == COMMENTED and not workload.dirty

            await pilot.press("f")
            await pilot.pause(0.5)
            hidden = app.query_one("#f-model-hidden", Input)
            assert hidden.value == "20, 5"
            hidden.value = "32, 8"
            await wait_for(pilot, lambda: app.spec is not None and app.spec.model.hidden == [32, 8])
            assert changed_lines(COMMENTED, editor.text) == [
                "-   hidden: [20, 5]   # two layers",
                "+   hidden: [32, 8]   # two layers",
            ]
            assert workload.dirty

            hidden.value = "32, -8"  # through the one validation path: the CLI's message
            await wait_for(pilot, lambda: app.spec is None)
            assert "model.hidden[1]: must be > 0, got -8" in text_of(app, "#spec-status")
            hidden.value = "32, 8"
            await wait_for(pilot, lambda: app.spec is not None)

            app.query_one(
                "#f-train-optimizer", Select
            ).value = "sgd"  # a field the file did not have
            await wait_for(
                pilot, lambda: app.spec is not None and app.spec.train.optimizer == "sgd"
            )
            assert changed_lines(COMMENTED, editor.text)[-1] == "+   optimizer: sgd"

            await pilot.press("ctrl+s")
            await pilot.pause(0.3)
            assert spec.read_text() == editor.text and not workload.dirty

    asyncio.run(scenario())


def test_another_kind_brings_its_fields_and_validation_names_the_missing_ones(tmp_path):
    spec = tmp_path / "commented.yaml"
    spec.write_text(COMMENTED)

    async def scenario():
        app = PlannerApp(str(spec), estimate_on_open=False)
        async with started(app, (100, 40)) as pilot:
            await settled(pilot)
            await pilot.press("f")
            await pilot.pause(0.5)
            app.query_one("#f-model-kind", Select).value = "rnn"
            await wait_for(pilot, lambda: app.spec is None, timeout=30)
            await pilot.pause(0.3)
            assert app.query("#f-model-hidden_size") and not app.query("#f-model-hidden")
            assert "model.hidden_size: required field is missing" in text_of(app, "#spec-status")
            editor = app.query_one("#spec-editor", TextArea).text
            assert (
                "kind: rnn" in editor
                and "# enough for a first look" in editor
                and "hidden: [20, 5]" not in editor
            )

    asyncio.run(scenario())
