"""Keys and focus: pane switching from every pane and from inside every field, Esc closes the key
help, every quit path (q, ctrl+q, the palette) asks when a run is live or edits are unsaved and
quits at once otherwise, the palette finds the planner's commands, the footer shows the keys of the
pane in focus."""

from __future__ import annotations

import asyncio

import pytest
from textual.widgets import Input, Select, TextArea

from planner.tui.app import PlannerApp
from planner.tui.commands import PANES
from planner.tui.dialogs import ConfirmQuit
from planner.tui.run import RunPane
from tests.conftest import ROOT
from tests.tui.helpers import TINY, active_pane, settled, started, wait_for, without_aws_credentials

SPEC = str(ROOT / "examples" / "surface-mlp.yaml")


def inside(widget, container) -> bool:
    return container in widget.ancestors_with_self


def footer_keys(app) -> list[str]:
    return [f"{key.key_display} {key.description}" for key in app.query("FooterKey")]


def test_panes_switch_from_every_pane_and_from_inside_every_field():
    async def scenario():
        app = PlannerApp(SPEC, estimate_on_open=False)
        async with started(app, (80, 24)) as pilot:
            await settled(pilot)
            await pilot.press("f")  # the form's fields too
            await pilot.pause(0.3)
            for number, pane in enumerate(
                PANES, start=1
            ):  # from each pane, by its digit and its F-key
                for key in (str(number), f"f{number}"):
                    await pilot.press("1" if pane != "workload" else "2")
                    await pilot.press(key)
                    await pilot.pause(0.1)
                    assert active_pane(app) == pane, (key, app.focused)
                    assert app.focused is not None and inside(
                        app.focused, app.query_one(f"#tab-{pane}")
                    )
            fields = {}  # one field of each kind in each pane: the editor, the form's inputs and selects, the filters
            for widget in app.query("Input, Select, TextArea"):
                home = next(p for p in PANES if inside(widget, app.query_one(f"#tab-{p}")))
                fields.setdefault((home, type(widget).__name__, widget.parent.id), widget)
            assert len(fields) >= 7
            for (home, _kind, _parent), field in fields.items():
                await pilot.press(f"f{PANES.index(home) + 1}")
                if field.id == "spec-editor":
                    await pilot.press("f")  # the editor is the other view of the form
                await pilot.pause(0.05)
                field.focus()
                await pilot.pause(0.05)
                assert app.focused is field
                other = "results" if home != "results" else "targets"
                await pilot.press(f"f{PANES.index(other) + 1}")
                await pilot.pause(0.1)
                assert active_pane(app) == other, field

    asyncio.run(scenario())


def test_digits_type_into_a_text_field_and_switch_panes_elsewhere():
    async def scenario():
        app = PlannerApp(SPEC, estimate_on_open=False)
        async with started(app, (80, 24)) as pilot:
            await settled(pilot)
            await pilot.press("4")
            deadline = app.query_one("#deadline", Input)
            deadline.focus()
            await pilot.press("4", "h", "q", "r")
            assert (
                deadline.value == "4hqr" and active_pane(app) == "results"
            )  # typed, not run nor quit
            assert app.return_code is None and not app.query_one(RunPane).running

    asyncio.run(scenario())


def test_escape_leaves_a_what_if_field_and_the_panes_keys_work_again():
    """A new user pressed esc in the deadline field, then x: it typed 'x' into the field. esc leaves it for the plan's
    table; x then shows the whole reasoning."""
    from planner.tui.results import ResultsPane

    async def scenario():
        app = PlannerApp(SPEC, estimate_on_open=False)
        async with started(app, (80, 24)) as pilot:
            await settled(pilot)
            await pilot.press("4")
            deadline = app.query_one("#deadline", Input)
            deadline.focus()
            await pilot.pause(0.1)
            # the footer says how out: the field takes every other key (a trial saw a blank footer)
            shown = {b.binding.key for b in app.active_bindings.values() if b.binding.show}
            assert shown == {"escape"}, shown
            await pilot.press("escape")
            await pilot.pause(0.1)
            assert app.focused is not deadline and app.focused.id == "options"
            await pilot.press("x")
            await pilot.pause(0.1)
            assert deadline.value == "" and app.query_one(ResultsPane).answers.explain

    asyncio.run(scenario())


def test_escape_closes_the_key_help_from_any_pane():
    async def scenario():
        app = PlannerApp(SPEC, estimate_on_open=False)
        async with started(app, (120, 40)) as pilot:
            await settled(pilot)
            for pane in ("1", "3", "4"):
                await pilot.press(pane, "question_mark")
                await pilot.pause(0.2)
                assert app.screen.query("HelpPanel")
                await pilot.press("escape")
                await pilot.pause(0.2)
                assert not app.screen.query("HelpPanel")

    asyncio.run(scenario())


async def _palette(pilot, query: str) -> list[str]:
    await pilot.press("ctrl+p")
    await pilot.pause(0.3)
    await pilot.press(*query)
    await pilot.pause(0.6)
    found = [
        str(option.prompt).split("\n")[0]
        for option in pilot.app.screen.query_one("CommandList")._options
    ]
    return found


@pytest.mark.parametrize(
    "query, command",
    [
        ("run", "Run benchmarks"),
        ("cancel", "Cancel run"),
        ("save", "Save spec"),
        ("estimate", "Estimate"),
        ("open", "Open run"),
        ("theme", "Toggle dark/light theme"),
    ],
)
def test_the_palette_finds_the_planners_commands(query, command):
    async def scenario():
        app = PlannerApp(SPEC, estimate_on_open=False)
        async with started(app, (120, 40)) as pilot:
            await settled(pilot)
            assert command in await _palette(pilot, query)

    asyncio.run(scenario())


def test_the_palettes_theme_command_switches_the_theme():
    async def scenario():
        app = PlannerApp(SPEC, estimate_on_open=False)
        async with started(app, (120, 40)) as pilot:
            await settled(pilot)
            before = app.theme
            await _palette(pilot, "dark/light")
            await pilot.press("enter")
            await pilot.pause(0.3)
            assert app.theme != before

    asyncio.run(scenario())


@pytest.mark.parametrize("how", ["q", "ctrl+q", "palette"])
def test_every_quit_path_asks_while_edits_are_unsaved(how, tmp_path):
    spec = tmp_path / "tiny.yaml"
    spec.write_text(TINY)

    async def quit_by(pilot) -> None:
        if how == "palette":
            await _palette(pilot, "quit")
            await pilot.press("enter")
        else:
            await pilot.press(how)
        await pilot.pause(0.3)

    async def scenario():
        app = PlannerApp(str(spec), estimate_on_open=False)
        async with started(app, (80, 24)) as pilot:
            await settled(pilot)
            app.query_one("#spec-editor", TextArea).text = TINY.replace("epochs: 20", "epochs: 30")
            await pilot.pause(0.2)
            await quit_by(pilot)
            assert isinstance(app.screen, ConfirmQuit)
            assert "unsaved edits" in str(app.screen.query_one("#quit-reasons").render())
            await pilot.press("n")
            await pilot.pause(0.2)
            assert app.return_code is None and not isinstance(app.screen, ConfirmQuit)
            await pilot.press("ctrl+s")  # saved: nothing is lost any more, so it quits at once
            await pilot.pause(0.2)
            assert "epochs: 30" in spec.read_text()
            await quit_by(pilot)
            assert app.return_code == 0

    asyncio.run(scenario())


def test_quitting_during_a_run_asks_then_cancels_it_and_quits(tmp_path):
    spec = tmp_path / "tiny.yaml"
    spec.write_text(TINY)

    async def scenario():
        app = PlannerApp(
            str(spec), runs_dir=tmp_path / "runs", bench_seconds=60, estimate_on_open=False
        )
        async with started(app, (80, 24)) as pilot:
            await settled(pilot)
            await pilot.press("r")
            run = app.query_one(RunPane)
            await pilot.press("ctrl+q")
            await pilot.pause(0.3)
            assert isinstance(app.screen, ConfirmQuit)
            assert "run is in progress" in str(app.screen.query_one("#quit-reasons").render())
            await pilot.press("y")
            await wait_for(pilot, lambda: app.return_code is not None, timeout=60)
            assert not run.running

    asyncio.run(scenario())


def test_a_clean_app_quits_at_once():
    async def scenario():
        app = PlannerApp(SPEC, estimate_on_open=False)
        async with started(app, (80, 24)) as pilot:
            await settled(pilot)
            await pilot.press("q")
            await pilot.pause(0.2)
            assert app.return_code == 0

    asyncio.run(scenario())


def test_the_footer_shows_the_keys_of_the_pane_in_focus_and_quit_fits_at_80_columns():
    async def scenario():
        app = PlannerApp(SPEC, estimate_on_open=False)
        async with started(app, (80, 24)) as pilot:
            await settled(pilot)
            expected = {
                "1": "f Form/YAML",
                "2": "space Pick",
                "4": "v Table/Chart",
                "5": "x Terminate",
            }
            for pane, key in expected.items():
                await pilot.press(pane)
                await pilot.pause(0.3)
                shown = footer_keys(app)
                assert key in shown, shown
                quit_key = next(k for k in app.query("FooterKey") if k.description == "Quit")
                assert quit_key.region.right <= 80 and quit_key.region.width > 0
            await pilot.press("3")
            await pilot.pause(0.3)
            assert not any("Cancel" in k for k in footer_keys(app))  # nothing to cancel yet

    asyncio.run(scenario())


def test_selects_and_inputs_keep_their_labels_at_80_columns():
    async def scenario():
        app = PlannerApp(SPEC, estimate_on_open=False)
        async with started(app, (80, 24)) as pilot:
            await settled(pilot)
            for pane in ("2", "4"):
                await pilot.press(pane)
                await pilot.pause(0.3)
                for widget in app.screen.query(
                    "#filters Select, #filters Input, WhatIf Select, WhatIf Input"
                ):
                    if not widget.region.area:
                        continue
                    label = widget.parent.query_one("Label")
                    assert (
                        label.region.area and label.region.right <= widget.region.x
                    )  # a label left of it, on screen
                    assert (
                        widget.region.right <= 80 and widget.region.height == 1
                    )  # one line: nothing wraps
                    if isinstance(widget, Select):
                        assert widget.region.width >= len(str(widget.value)) + 3

    asyncio.run(scenario())


def test_a_run_that_rents_asks_first_and_no_launches_nothing(tmp_path, monkeypatch):
    """A stray r with instances picked (the suggested benchmarks are picked by default) is one key from a bill: the
    TUI asks first, showing what it would launch, its price and worst case, as `planner run` asks "Proceed?"."""
    from planner.tui.dialogs import ConfirmLaunch

    without_aws_credentials(monkeypatch, tmp_path)
    monkeypatch.setenv(
        "AWS_ACCESS_KEY_ID", "testing"
    )  # credentials found (never used: nothing launches)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    spec = tmp_path / "tiny.yaml"
    spec.write_text(TINY)

    async def scenario():
        app = PlannerApp(
            str(spec), runs_dir=tmp_path / "runs", bench_seconds=1, estimate_on_open=False
        )
        async with started(app, (100, 30)) as pilot:
            await settled(pilot)
            app.targets = ["local", "aws:g4dn.xlarge"]
            await pilot.press("r")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmLaunch))
            asked = str(app.screen.query_one("#launch-lines").render())
            assert "aws:g4dn.xlarge  $0.526/h  worst case" in asked and "Launch them?" in asked
            await pilot.press("n")
            await pilot.pause(0.3)
            assert not isinstance(app.screen, ConfirmLaunch) and not app.query_one(RunPane).running
            assert not (tmp_path / "runs").exists()  # not even a journal

    asyncio.run(scenario())


def test_the_palette_offers_only_what_the_workloads_kind_takes(tmp_path):
    """A script is planned as it is: the palette offers no 'Save spec' nor 'Toggle form' for it (they are the spec
    editor's), and for a spec no 'Run length' (a spec's run is its train.epochs); the keys' check says the same."""
    from planner.tui.commands import planner_commands

    script = tmp_path / "train.py"
    script.write_text("print('hello')\n")

    async def scenario():
        for path, offered, not_offered in (
            (SPEC, {"Save spec", "Toggle form"}, {"Run length"}),
            (str(script), {"Run length"}, {"Save spec", "Toggle form"}),
        ):
            app = PlannerApp(path, estimate_on_open=False)
            async with started(app, (120, 40)) as pilot:
                await wait_for(pilot, lambda app=app: app.panes_mounted, timeout=30)
                names = {name for name, _, _ in planner_commands(app)}
                assert offered <= names and not (not_offered & names), (path, names)
                assert app.check_action("save", ()) is ("Save spec" in offered)

    asyncio.run(scenario())
