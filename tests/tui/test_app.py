"""The TUI driven by a pilot through the whole question: open a spec and the free estimate shows
(every instance predicted, the answers, the suggested benchmarks picked with their worst-case
cost), run local, measured rows replace predicted ones, what-if re-plans — every plan shown equal
to the service's for the same measurements. Validation messages, cancel."""

from __future__ import annotations

import asyncio
import subprocess
from dataclasses import replace

import pytest
from rich.text import Text

from planner.core.candidates import Target
from planner.report.plan import shown_options
from planner.report.terse import terse_answer
from planner.service import PlannerService, plan_options
from planner.tui.app import PlannerApp
from planner.tui.messages import RunResult
from planner.tui.results import ResultsPane
from planner.tui.run import RunPane
from planner.tui.targets import TargetsPane
from tests.conftest import bench_children
from tests.tui.helpers import TINY, active_pane, started, text_of, wait_for


@pytest.fixture
def spec_file(tmp_path):
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY)
    return path


def test_opening_a_spec_shows_the_estimate_then_run_local_and_every_plan_is_the_services(
    spec_file, tmp_path
):
    async def scenario():
        app = PlannerApp(
            str(spec_file), runs_dir=tmp_path / "runs", bench_seconds=1, estimate_seconds=1
        )
        async with started(app, (120, 40)) as pilot:
            results = app.query_one(ResultsPane)
            await wait_for(
                pilot, lambda: results.doc is not None
            )  # nothing pressed: opening estimates
            await (
                pilot.pause()
            )  # the plan reaches the Workload pane's answers through the app (PlanShown)
            doc = results.doc
            sources = {o.source for o in doc.plan.options}
            assert sources == {"measured", "predicted"} and len(doc.plan.options) > 20
            assert (
                results.query_one("#options").row_count
                == len(shown_options(doc)[0])
                < len(doc.plan.options)
            )  # grouped
            answers = text_of(app, "#answers")
            assert (
                answers.splitlines()[0] == Text.from_markup(terse_answer(doc)[0]).plain
            )  # the CLI's answer, first
            assert (
                text_of(app, "#workload-answers").splitlines()[0] == answers.splitlines()[0]
            )  # beside the spec, too
            expected = PlannerService().estimate_from(
                app.workload(), plan_options(), results.results
            )
            assert doc.plan.options == expected.plan.options and doc.benchmark == expected.benchmark

            await pilot.pause(0.3)
            targets = app.query_one(TargetsPane)
            suggested = [
                c.target for c in doc.suggested_benchmarks
            ]  # none when training here wins clearly
            assert app.targets == ["local", *suggested]
            if suggested:
                assert "worst-case bench cost $" in text_of(app, "#selection")
            await pilot.press("2")
            table = targets.query_one("#catalog")
            for target in suggested:  # unpick them, keyboard only: no AWS here
                table.move_cursor(row=table.get_row_index(target))
                await pilot.press("space")
            assert app.targets == ["local"]
            await pilot.press("a")  # the suggested ones again, then local alone at once
            assert app.targets == ["local", *suggested]
            await pilot.press("u")
            assert app.targets == ["local"]

            await pilot.press("r")
            await wait_for(
                pilot, lambda: results.run_dir is not None and results.doc.run_dir, timeout=120
            )
            assert active_pane(app) == "results"
            run_dir = results.run_dir
            shown = results.doc
            assert shown == PlannerService().estimate_run(run_dir, options=plan_options())
            local = next(o for o in shown.plan.options if o.target == "local")
            assert local.source == "measured" and any(
                o.source == "predicted" for o in shown.plan.options
            )

            # what-if: re-plans from the journal at once, as the service does
            results.query_one("#local-price").value = "3.6"
            results.query_one("#objective").value = "fastest"
            await wait_for(
                pilot,
                lambda: (
                    results.doc.plan.objective == "fastest"
                    and results.doc.options.local_price_per_hour == 3.6
                ),
                timeout=20,
            )
            assert results.doc == PlannerService().estimate_run(
                run_dir, options=plan_options("fastest", local_price_per_hour=3.6)
            )

    asyncio.run(scenario())


def test_a_measured_result_replaces_its_predicted_row_as_it_arrives(spec_file, tmp_path):
    async def scenario():
        app = PlannerApp(str(spec_file), runs_dir=tmp_path / "runs", estimate_seconds=1)
        async with started(app, (120, 40)) as pilot:
            results = app.query_one(ResultsPane)
            await wait_for(pilot, lambda: results.doc is not None)
            row = next(
                o for o in results.doc.plan.options if o.source == "predicted" and o.device == "cpu"
            )
            itype = row.instance_type
            # what an instance's result looks like when it arrives: this machine's, as if measured there
            local = results.results["local-cpu"]
            arrived = replace(
                local, target=Target("aws", itype), region="us-east-1", purchase="on-demand"
            )
            app.post_message(RunResult(f"aws-{itype}", arrived))
            await wait_for(
                pilot,
                lambda: any(
                    o.target == row.target and o.source == "measured"
                    for o in results.doc.plan.options
                ),
                timeout=20,
            )
            assert [o.target for o in results.doc.plan.options].count(
                row.target
            ) == 1  # replaced, not added
            expected = PlannerService().estimate_from(
                app.workload(), plan_options(), {"local-cpu": local, f"aws-{itype}": arrived}
            )
            assert results.doc == expected

    asyncio.run(scenario())


def test_validation_messages_are_the_clis(spec_file, tmp_path):
    async def scenario():
        app = PlannerApp(str(spec_file), runs_dir=tmp_path / "runs", estimate_on_open=False)
        async with started(app, (100, 30)) as pilot:
            await wait_for(pilot, lambda: app.spec is not None)
            editor = app.query_one("#spec-editor")
            editor.text = TINY.replace("hidden: [16]", "hidden: [16, -5]")
            await wait_for(pilot, lambda: app.spec is None)
            assert "model.hidden[1]: must be > 0, got -5" in text_of(app, "#spec-status")
            await pilot.press("f3", "r")  # refuses to run (and to estimate) an invalid spec
            await pilot.pause(0.3)
            assert not app.query_one(RunPane).running and not app.query_one(ResultsPane).estimating

    asyncio.run(scenario())


def test_cancel_stops_the_run_and_leaves_nothing_running(spec_file, tmp_path):
    async def scenario():
        app = PlannerApp(
            str(spec_file), runs_dir=tmp_path / "runs", bench_seconds=60, estimate_on_open=False
        )
        async with started(app, (100, 30)) as pilot:
            await wait_for(pilot, lambda: app.spec is not None)
            await pilot.press("r")
            run = app.query_one(RunPane)
            await wait_for(pilot, lambda: "running" in str(run.query_one("#states").get_row_at(0)))
            await pilot.press("c")
            await wait_for(pilot, lambda: not run.running, timeout=60)
            assert "cancelled" in text_of(app, "#run-status")
            left = subprocess.run(
                ["pgrep", "-f", str(tmp_path / "runs")], capture_output=True, text=True
            ).stdout.split()
            assert left == []  # the bench process was terminated

    asyncio.run(scenario())


def test_r_while_the_estimate_measures_runs_once_it_is_done(spec_file, tmp_path):
    async def scenario():
        app = PlannerApp(
            str(spec_file), runs_dir=tmp_path / "runs", bench_seconds=1, estimate_seconds=2
        )
        async with started(app, (120, 40)) as pilot:
            results, run = app.query_one(ResultsPane), app.query_one(RunPane)
            await wait_for(pilot, lambda: results.estimating, timeout=30)
            app.targets = ["local"]
            await pilot.press("r")
            assert not run.running  # two benches at once would disturb each other
            await wait_for(pilot, lambda: run.running, timeout=60)
            assert (
                not results.estimating and results.doc is not None
            )  # it started once the estimate was done
            await wait_for(
                pilot,
                lambda: not run.running and results.doc is not None and results.doc.run_dir,
                timeout=120,
            )
            assert (
                tmp_path / "runs" / "plan.json"
            ).exists()  # runs_dir: the run's journal, as `planner run --out`

    asyncio.run(scenario())


def test_quitting_during_the_opening_estimate_takes_under_a_second_and_ends_its_bench(
    spec_file, tmp_path
):
    """Issue 40: q while the opening estimate measures (a 60 s budget) quits at once, with no 'App is not running'
    error, and the bench's process is ended with it, not left to finish."""
    import time

    async def scenario():
        app = PlannerApp(str(spec_file), runs_dir=tmp_path / "runs", estimate_seconds=60)
        async with started(app, (100, 30)) as pilot:
            results = app.query_one(ResultsPane)
            await wait_for(pilot, lambda: results.estimating and bench_children(), timeout=30)
            pressed.append(time.monotonic())
            await pilot.press("q")
        assert (
            app.return_code == 0
        )  # q quit it (nothing to lose: no run, no edits), not the test's teardown

    pressed: list[float] = []
    asyncio.run(
        scenario()
    )  # returns once the app's loop, and the estimate's worker thread with it, has ended
    took = time.monotonic() - pressed[0]
    assert took < 1.0
    deadline = time.monotonic() + 5
    while bench_children() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert bench_children() == []  # the session's cleanup ended the bench's process group


def test_a_file_opened_from_the_path_field_leaves_the_field_and_an_empty_one_says_what_to_type(
    spec_file, tmp_path
):
    """A trial: the path field came pre-filled with 'spec.yaml', and after Load the focus stayed in it, so the next
    key (4, a pane) was typed into the path. The field starts empty with a placeholder; opening a file leaves it."""
    from textual.widgets import Input

    async def scenario():
        app = PlannerApp(None, runs_dir=tmp_path / "runs", estimate_on_open=False)
        async with started(app, (100, 30)) as pilot:
            field = app.query_one("#spec-path", Input)
            assert field.value == "" and "spec" in field.placeholder
            field.focus()
            await pilot.press("enter")
            await pilot.pause()
            assert any("type the path" in n.message for n in app._notifications)
            field.value = str(spec_file)
            await pilot.press("enter")
            await wait_for(pilot, lambda: app.spec is not None)
            assert not field.has_focus
            await pilot.press("4")
            await pilot.pause()
            assert field.value == str(spec_file) and active_pane(app) == "results"

    asyncio.run(scenario())


def test_a_spec_typed_into_an_empty_editor_is_named_as_not_saved_with_its_lines(tmp_path):
    """A trial: a spec typed with no file open was reported as "invalid spec: spec.yaml", a file that did not
    exist; its problems had no line numbers."""
    from textual.widgets import TextArea

    async def scenario():
        app = PlannerApp(None, runs_dir=tmp_path / "runs", estimate_on_open=False)
        async with started(app, (100, 30)) as pilot:
            app.query_one("#spec-editor", TextArea).text = TINY.replace(
                "train: {batch_size: 128", "train: {batch_sise: 128"
            )
            await wait_for(pilot, lambda: "batch_sise" in text_of(app, "#spec-status"))
            status = text_of(app, "#spec-status")
            assert "the editor (not saved)" in status and "spec.yaml" not in status
            assert "line 4: train.batch_sise: unknown key" in status

    asyncio.run(scenario())


def test_an_emptied_editor_says_what_to_do_not_that_a_file_is_empty(tmp_path):
    """A trial: clearing the editor said "the editor (not saved): the file is empty", in red."""
    from textual.widgets import Static, TextArea

    async def scenario():
        app = PlannerApp(None, runs_dir=tmp_path / "runs", estimate_on_open=False)
        async with started(app, (100, 30)) as pilot:
            editor = app.query_one("#spec-editor", TextArea)
            editor.text = TINY
            await wait_for(pilot, lambda: "valid:" in text_of(app, "#spec-status"))
            editor.text = "  \n"
            await wait_for(pilot, lambda: "no spec yet" in text_of(app, "#spec-status"))
            assert "empty" not in text_of(app, "#spec-status")
            status = app.query_one("#spec-status", Static)
            assert not status.has_class("invalid") and not status.has_class("valid")

    asyncio.run(scenario())


def test_started_empty_it_says_where_to_type_a_path_and_enter_is_the_fields(tmp_path):
    """A trial typed a path into the pane before pressing Tab and saw it vanish: the empty answer says to Tab to
    the path field; there the footer does not offer the pane's 'enter Edit' (the field submits)."""
    from textual.widgets import Input

    async def scenario():
        app = PlannerApp(None, runs_dir=tmp_path / "runs", estimate_on_open=False)
        async with started(app, (100, 30)) as pilot:
            await wait_for(pilot, lambda: "No plan yet" in text_of(app, "#workload-answers"))
            assert "Tab to the path field" in text_of(app, "#workload-answers")
            pane = app.workload_pane
            assert (
                pane.check_action("edit", ()) is True
            )  # the pane focused: enter goes into the spec
            app.query_one("#spec-path", Input).focus()
            await pilot.pause()
            assert pane.check_action("edit", ()) is False

    asyncio.run(scenario())


def test_save_with_an_empty_path_writes_spec_yaml_but_never_over_one(tmp_path, monkeypatch):
    """The path field starts empty: Save writes spec.yaml and says so in the field; with a spec.yaml there already
    it refuses and asks for a path (a review: the empty field overwrote it silently)."""
    from textual.widgets import Input, TextArea

    monkeypatch.chdir(tmp_path)

    async def scenario(existing: bool):
        if existing:
            (tmp_path / "spec.yaml").write_text("mine\n")
        app = PlannerApp(None, runs_dir=tmp_path / "runs", estimate_on_open=False)
        async with started(app, (100, 30)) as pilot:
            app.query_one("#spec-editor", TextArea).text = TINY
            await pilot.pause(0.2)
            await pilot.press("ctrl+s")
            await pilot.pause(0.3)
            field = app.query_one("#spec-path", Input)
            if existing:
                assert (tmp_path / "spec.yaml").read_text() == "mine\n" and field.value == ""
                assert any("spec.yaml exists" in n.message for n in app._notifications)
            else:
                assert (tmp_path / "spec.yaml").read_text() == TINY and field.value == "spec.yaml"

    asyncio.run(scenario(existing=False))
    (tmp_path / "spec.yaml").unlink()
    asyncio.run(scenario(existing=True))


def test_escape_leaves_the_yaml_editor(spec_file, tmp_path):
    """Issue 40: Escape in the YAML editor gives the keys back to the pane (its f and e, the app's q), typing nothing."""

    async def scenario():
        app = PlannerApp(str(spec_file), runs_dir=tmp_path / "runs", estimate_on_open=False)
        async with started(app, (100, 30)) as pilot:
            await wait_for(pilot, lambda: app.spec is not None)
            editor = app.query_one("#spec-editor")
            if not editor.display or not editor.region.area:  # the form is shown: f shows the YAML
                await pilot.press("f")
            editor.focus()
            await pilot.pause()
            before = editor.text
            await pilot.press("escape")
            await pilot.pause()
            assert (
                not editor.has_focus and app.focused is app.workload_pane and editor.text == before
            )
            await pilot.press("enter")  # and back in with one key (a trial: it took Tab x5)
            await pilot.pause()
            assert editor.has_focus and editor.text == before
            await pilot.press("escape", "f")  # the form: enter goes to its first field
            await pilot.pause()
            await pilot.press("enter")
            await pilot.pause()
            assert app.focused is not None and app.focused.id not in (None, "spec-editor")
            assert app.focused in app.query_one("#spec-form").query("Input, Select")
            await pilot.press("escape", "f")
            await pilot.pause()
            path = app.query_one(
                "#spec-path"
            )  # the spec's path too: its next key is the pane's, not typed into it
            path.focus()
            await pilot.pause()
            typed = path.value
            await pilot.press("escape", "2")
            await pilot.pause()
            assert path.value == typed and not path.has_focus

    asyncio.run(scenario())
