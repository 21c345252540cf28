"""Plans the TUI shows besides a live estimate: a saved run (`planner tui RUN_DIR` and the `o`
picker), a plan that no longer matches the edited spec, the answers of a document with both
answers, and the chart: legible with 40 options, human units, the break-even line."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
from dataclasses import replace

from rich.text import Text
from textual.widgets import TextArea

from planner.journal import RunJournal
from planner.report.chart import COST_TICKS, TIME_TICKS, chart_options, ticks
from planner.report.remarks import words
from planner.service import PlannerService
from planner.tui.answers import Answers
from planner.tui.app import PlannerApp
from planner.tui.dialogs import OpenRun
from planner.tui.results import ResultsPane
from tests.tui.helpers import SAVED_RUN, active_pane, plan_doc, settled, started, text_of, wait_for


def saved_run(tmp_path):
    """A copy of the saved run journal, which a test may write into."""
    run_dir = tmp_path / "run"
    shutil.copytree(SAVED_RUN, run_dir)
    return run_dir


async def plan_shown(pilot) -> ResultsPane:
    """The Results pane once it shows a plan."""
    results = pilot.app.query_one(ResultsPane)
    await wait_for(pilot, lambda: results.doc is not None, timeout=30)
    return results


def test_planner_tui_run_dir_opens_the_saved_run_with_every_instance_predicted(tmp_path):
    run_dir = saved_run(tmp_path)
    plan_before = (run_dir / "plan.json").read_text()

    async def scenario():
        app = PlannerApp(str(run_dir))
        async with started(app, (120, 40)) as pilot:
            results = await plan_shown(pilot)
            assert (
                active_pane(app) == "results" and not results.estimating
            )  # nothing measured: the run's plan
            assert results.doc == PlannerService().estimate_run(run_dir)
            assert (
                app.query_one("#spec-editor", TextArea).text == (run_dir / "spec.yaml").read_text()
            )
            await settled(pilot)
            assert "the spec changed" not in text_of(
                app, "#answers"
            )  # the editor holds the run's own spec

    asyncio.run(scenario())
    assert (run_dir / "plan.json").read_text() == plan_before  # opening a run writes nothing


def test_the_picker_lists_the_runs_folder_and_opens_the_chosen_run(tmp_path):
    runs = tmp_path / "runs"
    shutil.copytree(SAVED_RUN, runs / "20251122T101500Z-surface-mlp")
    (runs / "not-a-run").mkdir()

    async def scenario():
        app = PlannerApp(None, runs_folder=runs)
        async with started(app, (80, 24)) as pilot:
            await pilot.press("f4", "o")
            await pilot.pause(0.3)
            assert isinstance(app.screen, OpenRun)
            listed = app.screen.query_one("#run-list")
            assert listed.option_count == 1  # the directory without a journal is not offered
            assert "surface-mlp" in str(listed.get_option_at_index(0).prompt)
            await pilot.press("enter")
            results = await plan_shown(pilot)
            assert results.run_dir == str(runs / "20251122T101500Z-surface-mlp")
            assert results.doc.workload.name == "surface-mlp"

    asyncio.run(scenario())


def test_a_saved_run_opened_from_elsewhere_keeps_its_runs_beside_it(tmp_path, monkeypatch):
    """`planner tui ../project/planner-runs/X`: `o` lists X's neighbours and a re-run journals there, not in the
    current folder's planner-runs/."""
    runs = tmp_path / "project" / "planner-runs"
    shutil.copytree(SAVED_RUN, runs / "20251122T101500Z-surface-mlp")
    shutil.copytree(SAVED_RUN, runs / "20251123T090000Z-surface-mlp")
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")

    async def scenario():
        app = PlannerApp(str(runs / "20251122T101500Z-surface-mlp"))
        async with started(app, (120, 40)) as pilot:
            await plan_shown(pilot)
            assert (
                app.service.journals.new_run_dir("surface-mlp", app.runs_folder).parent == runs
            )  # where `r` journals
            await pilot.press("o")
            await pilot.pause(0.3)
            assert isinstance(app.screen, OpenRun)
            assert app.screen.query_one("#run-list").option_count == 2  # both runs beside it

    asyncio.run(scenario())
    assert not (tmp_path / "here" / "planner-runs").exists()


def test_a_plan_of_another_spec_says_so(tmp_path):
    run_dir = saved_run(tmp_path)

    async def scenario():
        app = PlannerApp(str(run_dir))
        async with started(app, (120, 40)) as pilot:
            await plan_shown(pilot)
            await settled(pilot)
            editor = app.query_one("#spec-editor", TextArea)
            editor.text = editor.text.replace("epochs: 2000", "epochs: 4000")
            await wait_for(pilot, lambda: app.spec is not None and app.spec.train.epochs == 4000)
            await pilot.pause(0.2)
            assert "the spec changed since this plan: e estimates" in text_of(app, "#answers")
            editor.text = editor.text.replace("epochs: 4000", "epochs: -3")  # not valid: said too
            await wait_for(pilot, lambda: app.spec is None)
            await pilot.pause(0.2)
            assert "the spec is not valid: the plan shown is of the spec last estimated" in text_of(
                app, "#answers"
            )

    asyncio.run(scenario())


def test_the_answer_is_the_clis_terse_one_and_x_shows_the_whole_reasoning_as_explain_does():
    from planner.report.answers import answers_text, recommendation_text
    from planner.report.terse import terse_answer

    doc = plan_doc()

    async def scenario():
        app = PlannerApp(None, estimate_on_open=False)
        async with started(app, (120, 40)) as pilot:
            answers = app.query_one("#answers", Answers)
            answers.show(doc)
            await pilot.pause(0.2)
            shown = text_of(app, "#answers")
            terse = terse_answer(doc)
            assert (
                shown.splitlines()[0] == Text.from_markup(terse[0]).plain
            )  # the answer on the first line
            for markup in terse:  # the CLI's words
                assert Text.from_markup(markup.strip()).plain in shown
            assert (
                Text.from_markup(recommendation_text(doc)).plain not in shown
            )  # the long reasoning waits for x
            for benchmark in doc.benchmark:
                assert benchmark.target in shown
            # whole lines a short box cannot cut mid-sentence: the warnings in one, then what x shows
            assert shown.splitlines()[-1].startswith("x: the whole reasoning")
            assert sum("warning" in line for line in shown.splitlines()) <= 2
            assert not any(f"note: {note}" in shown for note in words(doc.plan.notes))
            app.action_show("results")
            await pilot.pause(0.2)
            await pilot.press("x")
            await pilot.pause(0.2)
            explained = text_of(app, "#answers")
            for markup in [recommendation_text(doc), *answers_text(doc)]:  # --explain's words
                assert Text.from_markup(markup.strip()).plain in explained
            for warning in words(doc.plan.warnings):  # every warning, whole
                assert " ".join(warning.split()) in " ".join(explained.split())

    # a document from a later planner (a verdict this one does not know) is refused when read, by name,
    # instead of half-rendered: tests/unit/test_plan_document.py

    asyncio.run(scenario())


def test_x_back_from_the_reasoning_scrolled_to_its_end_shows_the_short_answer_whole_at_80x24():
    """The box keeps neither the reasoning's scroll nor its scrollbar: the short answer is on screen from its first
    line to what x shows (it was laid out 2 columns narrower, one line taller than the box, its first line hidden)."""
    doc = plan_doc()

    async def scenario():
        app = PlannerApp(None, estimate_on_open=False)
        async with started(app, (80, 24)) as pilot:
            app.query_one("#answers", Answers).show(doc)
            app.action_show("results")
            await pilot.pause(0.2)
            box = app.query_one("#answers-box")
            before = box.virtual_size
            assert before.height <= box.size.height  # the short answer fits its box
            await pilot.press("x")
            await pilot.pause(0.2)
            box.scroll_end(animate=False)
            await pilot.pause(0.2)
            assert box.scroll_y > 0  # the reasoning is longer than the box
            await pilot.press("x")
            await pilot.pause(0.2)
            assert box.scroll_y == 0 and box.virtual_size == before
            shown = text_of(app, "#answers").splitlines()
            # the fixture's machine was busy: said in the answer (Careful), the warnings counted on x's line
            assert shown[-1].startswith("x: the whole reasoning, every warning (4)")
            # without the busy measurement, a warnings line says them: x's line counts none beside it (a trial
            # read '3 warnings: ...' over 'every warning (4)')
            quiet = replace(
                doc,
                plan=replace(doc.plan, options=[replace(o, caveat=None) for o in doc.plan.options]),
            )
            app.query_one("#answers", Answers).show(quiet)
            await pilot.pause(0.2)
            lines = text_of(app, "#answers").splitlines()
            assert re.match(r"\d+ warnings?: ", lines[-2]) and "every warning (" not in lines[-1], (
                lines
            )
            app.query_one("#answers", Answers).show(doc)
            await pilot.pause(0.2)
            assert any(
                line.startswith("Careful: local measured on a busy machine") for line in shown
            )
            await pilot.press("x")  # and the reasoning scrolls again
            await pilot.pause(0.2)
            box.scroll_end(animate=False)
            await pilot.pause(0.2)
            assert box.scroll_y > 0

    asyncio.run(scenario())


def test_the_table_shows_the_grouped_rows_a_gpu_with_its_speedup_on_screen_and_g_shows_every_row():
    """Issue 27: the CLI's grouping (shown_options), in the plan's order; at 120x40 a predicted GPU row and
    its speedup without scrolling; at 80x24 the device column whole, in short."""
    from planner.report.plan import shown_options
    from planner.tui.plantable import PlanTable

    doc = plan_doc()
    grouped, _ = shown_options(doc)

    async def scenario(size):
        app = PlannerApp(None, estimate_on_open=False)
        async with started(app, size) as pilot:
            await pilot.press("4")
            results = app.query_one(ResultsPane)
            results.show(doc)
            await pilot.pause(0.3)
            table = results.query_one(PlanTable)
            assert table.row_count == len(grouped) < len(doc.plan.options)
            labels = [str(c.label) for c in table.ordered_columns]
            assert [
                table.get_row_at(i)[labels.index("target")].plain for i in range(table.row_count)
            ] == [o.target.removeprefix("aws:") for o in grouped]  # the plan's order
            assert (
                text_of(app, "#shown")
                == f"{len(grouped)} of {len(doc.plan.options)} rows shown; g for every row"
            )
            first_gpu = next(
                i for i, o in enumerate(grouped) if o.device == "cuda" and o.source == "predicted"
            )
            assert (
                first_gpu < table.scrollable_content_region.height - 1
            )  # on screen: below the header, unscrolled
            cells = dict(zip(labels, table.get_row_at(first_gpu)))
            assert cells["speedup"].plain.endswith("x") and cells["device"].plain == "T4"
            x = 0
            for column in (
                table.ordered_columns
            ):  # every deciding column whole on screen, the device among them
                if str(column.label) in ("device", "speedup", "b-even"):
                    assert (
                        x + column.get_render_width(table) <= table.scrollable_content_region.width
                    )
                x += column.get_render_width(table)
            await pilot.press("g")
            await pilot.pause(0.2)
            assert table.row_count == len(doc.plan.options) and "g groups them" in text_of(
                app, "#shown"
            )
            await pilot.press("g")
            await pilot.pause(0.2)
            assert table.row_count == len(grouped)

    asyncio.run(scenario((120, 40)))
    asyncio.run(scenario((80, 24)))


def test_a_rank_without_room_goes_last_of_all_and_the_highlighted_rows_line_says_it():
    """A trial at 80x24: the rank, moved after the deciding columns, was cut at the screen's edge and read 15 as 1.
    Without room it goes last of all (scrolled to, whole) and the line under the table names the row's rank."""
    from planner.report.plan import shown_options
    from planner.tui.plantable import ESSENTIAL, PlanTable

    doc = plan_doc()
    grouped, _ = shown_options(doc)

    async def scenario():
        app = PlannerApp(None, estimate_on_open=False)
        async with started(app, (60, 24)) as pilot:
            await pilot.press("4")
            results = app.query_one(ResultsPane)
            results.show(doc)
            await pilot.pause(0.3)
            table = results.query_one(PlanTable)
            labels = [str(c.label) for c in table.ordered_columns]
            assert labels[-1] == "#" and "#" not in labels[: len(ESSENTIAL)], labels
            assert not table.rank_shown
            table.focus()
            table.move_cursor(row=len(grouped) - 1)
            await pilot.pause(0.2)
            last = grouped[-1]
            assert text_of(app, "#row-notes").startswith(f"#{last.rank} {last.target} ("), text_of(
                app, "#row-notes"
            )

    asyncio.run(scenario())


def test_a_failed_row_says_failed_in_its_cell_and_its_reason_under_the_table():
    """A failed target's reason (a whole AWS error) in the training time cell made the column as wide as the
    table and pushed step, 1-time and $/h off the screen: the cell says 'failed', the line under the table why."""
    from planner.core.document_json import from_json
    from planner.tui.plantable import PlanTable
    from tests.unit.test_plan_document import DOCUMENTS

    doc = from_json(json.loads((DOCUMENTS / "replan-run-with-aws.json").read_text()))
    failed = next(o for o in doc.plan.options if o.train_seconds is None)

    async def scenario():
        app = PlannerApp(None, estimate_on_open=False)
        async with started(app, (120, 40)) as pilot:
            await pilot.press("4")
            results = app.query_one(ResultsPane)
            results.show(doc)
            await pilot.pause(0.3)
            table = results.query_one(PlanTable)
            await pilot.press("g")  # every row
            await pilot.pause(0.2)
            labels = [str(c.label) for c in table.ordered_columns]
            row = next(
                i
                for i in range(table.row_count)
                if table.get_row_at(i)[labels.index("target")].plain
                == failed.target.removeprefix("aws:")
                and table.get_row_at(i)[labels.index("device")].plain == "T4"
            )
            assert table.get_row_at(row)[labels.index("training time")].plain == "failed"
            assert (
                "$/h" in labels
                and sum(c.get_render_width(table) for c in table.ordered_columns) <= 120
            )
            table.focus()
            table.move_cursor(row=row)
            await pilot.pause(0.2)
            assert "InsufficientInstanceCapacity" in text_of(app, "#row-notes")

    asyncio.run(scenario())


def test_the_chart_draws_the_top_options_and_the_chosen_one_of_forty():
    """The rows the table shows (its numbers are the table's #: from a new user's trial, it drew ranks 5, 7 and 9,
    rows of no grouped table), the best first; the chosen one and the best GPU however they rank."""
    from planner.report.plan import shown_options

    doc = plan_doc()
    assert len(doc.plan.options) == 40
    shown = chart_options(doc, top=10)
    grouped = shown_options(doc)[0]
    best_gpu = next(o for o in doc.plan.options if o.device == "cuda")
    assert shown[: min(10, len(grouped))] == grouped[:10] and len(shown) <= 12
    assert best_gpu in shown  # the break-even line is about GPUs: the best one is always drawn
    last = doc.plan.options[29]  # a recommendation ranked 30th is drawn too
    moved = replace(
        doc,
        plan=replace(
            doc.plan,
            recommendation=replace(
                doc.recommendation, target=last.target, device=last.device, gpus_used=last.gpus_used
            ),
        ),
    )
    assert last in chart_options(moved, top=10) and len(chart_options(moved, top=10)) <= 12


def test_the_break_even_line_is_the_reference_cpus_cost():
    doc = plan_doc()
    gpu = next(o for o in doc.plan.options if o.device == "cuda" and o.speedup)
    ref = next(
        o
        for o in doc.plan.options
        if o.device == "cpu"
        and o.train_seconds
        and abs(o.train_seconds - gpu.speedup * gpu.train_seconds) < 1e-6 * o.train_seconds
    )
    assert doc.break_even_cost == ref.cost_usd
    cpus_only = replace(
        doc, plan=replace(doc.plan, options=[o for o in doc.plan.options if o.device == "cpu"])
    )
    assert cpus_only.break_even_cost is None  # no GPU: no line


def test_axes_read_in_human_units():
    import math

    positions, labels = ticks(TIME_TICKS, math.log10(50), math.log10(4 * 3600), most=8)
    assert (
        labels[0] == "1 min"
        and labels[-1] in ("2 h", "1 h")
        and all(u in " ".join(labels) for u in ("min", "h"))
    )
    positions, labels = ticks(COST_TICKS, -2.5, 0.5, most=5)
    assert labels == ["$0.01", "$0.1", "$1"]


def test_the_chart_renders_markers_units_and_the_break_even_line():
    doc = plan_doc()

    async def scenario():
        app = PlannerApp(None)
        async with started(app, (120, 40)) as pilot:
            results = app.query_one(ResultsPane)
            await pilot.press("4")
            results.show(doc)
            await pilot.pause(0.5)
            chart = results.query_one("#chart")
            lines = "\n".join(
                segment.text
                for strip in chart.render_lines(chart.region.reset_offset)
                for segment in strip
            )
            for mark in ("★", "○", "$", "min"):
                assert mark in lines, mark
            assert "break-even" in text_of(app, "#legend")

    asyncio.run(scenario())


def test_what_if_fields_are_read_by_the_clis_rules(tmp_path):
    run_dir = saved_run(tmp_path)

    async def scenario():
        app = PlannerApp(str(run_dir))
        async with started(app, (120, 40)) as pilot:
            results = await plan_shown(pilot)
            before = results.doc
            await pilot.pause(0.5)
            local_price = results.query_one("#local-price")
            local_price.focus()
            await pilot.pause(0.1)
            await pilot.press("minus", "1")
            await pilot.pause(0.1)
            # marked as it is typed, before Enter refuses it
            assert local_price.has_class("-invalid")
            await pilot.press("enter")
            await pilot.pause(0.3)
            said = [n.message for n in app._notifications]
            assert any(
                m.startswith("local $/h: must be a number between 0 and 10,000") for m in said
            ), said
            assert results.doc == before  # nothing re-planned with a refused value
            deadline = results.query_one("#deadline")
            deadline.value, local_price.value = "90m", ""
            await pilot.pause(0.1)
            assert not local_price.has_class("-invalid") and not deadline.has_class("-invalid")
            deadline.focus()
            await pilot.press("enter")
            await wait_for(
                pilot, lambda: results.doc.plan.objective == "deadline", timeout=30
            )  # a deadline alone: the service's rule
            assert results.doc.plan.deadline_seconds == 5400
            assert (
                results.query_one("#objective").value == "deadline"
            )  # the controls show the plan's options
            waiting = results.query_one("#time-value")
            waiting.value = "0"  # waiting costs nothing: a value, not the default's placeholder
            waiting.focus()
            await pilot.press("enter")
            await wait_for(pilot, lambda: results.doc.plan.time_value_per_hour == 0.0, timeout=30)
            await pilot.pause(0.3)
            assert waiting.value == "0"  # shown as applied, not blanked back to "default 5"
            # the deadline cleared: the objective it chose goes with it (a trial was left with "deadline" and no
            # deadline, which refused every plan and every estimate)
            deadline.value = ""
            deadline.focus()
            await pilot.press("enter")
            await wait_for(pilot, lambda: results.doc.plan.objective == "cheapest", timeout=30)
            assert results.query_one("#objective").value == "cheapest"

    asyncio.run(scenario())


def test_a_typed_what_if_value_re_plans_once_the_field_rests_and_a_half_typed_one_waits(tmp_path):
    """A new user's trial typed a deadline and waited: nothing changed until Enter. A value the field takes now
    re-plans once typing rests; one it does not take (a lone '-') waits, marked, and once typing rests a warning
    says what is wrong and that the plan is unchanged (a later trial: 'abc' turned red and nothing was said)."""
    run_dir = saved_run(tmp_path)

    async def scenario():
        app = PlannerApp(str(run_dir))
        async with started(app, (120, 40)) as pilot:
            results = await plan_shown(pilot)
            await pilot.pause(
                1.5
            )  # the opened run's values settled in the fields: no re-plan from them
            before = results.doc
            local_price = results.query_one("#local-price")
            local_price.focus()
            await pilot.press("minus")
            await pilot.pause(1.5)
            assert local_price.has_class("-invalid") and results.doc is before
            assert not [n for n in app._notifications if n.severity == "error"]
            said = [n.message for n in app._notifications if n.severity == "warning"]
            assert [m for m in said if m.startswith("local $/h: ") and "plan is unchanged" in m], (
                said
            )
            await pilot.press("backspace")
            deadline = results.query_one("#deadline")
            deadline.focus()
            await pilot.press("1")  # a bare number: a duration still being typed, not 1 s
            await pilot.pause(1.5)
            assert deadline.value == "1" and results.doc is before
            await pilot.press("0", "m")  # no Enter, the field not left
            await wait_for(pilot, lambda: results.doc.plan.deadline_seconds == 600, timeout=30)
            assert results.doc.plan.objective == "deadline" and app.focused is deadline
            await pilot.press("backspace", "backspace", "backspace", "9", "0", "m")
            await wait_for(pilot, lambda: results.doc.plan.deadline_seconds == 5400, timeout=30)
            await pilot.pause(0.5)
            assert (
                deadline.value == "90m"
            )  # as typed: the plan's 1h30m does not rewrite it under the cursor

    asyncio.run(scenario())


class SlowFirstPlan(PlannerService):
    """The real service; its first `estimate_from` (a live result's replan) takes 2 s longer, as a
    loaded machine can make it, so that it finishes after the finished run's plan."""

    def __init__(self):
        super().__init__()
        self.slowed = False

    def estimate_from(self, *args, **kwargs):
        if not self.slowed:
            self.slowed = True
            import time

            time.sleep(2.0)
        return super().estimate_from(*args, **kwargs)


def test_a_replan_that_finishes_late_never_replaces_a_newer_plan():

    async def scenario():
        app = PlannerApp(None, service=SlowFirstPlan(), estimate_on_open=False)
        async with started(app, (120, 40)) as pilot:
            results = app.query_one(ResultsPane)
            from planner.service import SavedSpecRun, SpecWorkload

            saved = app.service.journals.saved(SAVED_RUN)
            assert isinstance(saved, SavedSpecRun)
            results.run_started(SpecWorkload(saved.spec))
            results.run_result(
                "local-cpu", RunJournal.open(SAVED_RUN).read_results()["local-cpu"]
            )  # slow
            await pilot.pause(0.2)
            results.run_finished(str(SAVED_RUN))  # planned from the journal: newer, and done first
            await wait_for(
                pilot, lambda: results.doc is not None and results.doc.run_dir, timeout=30
            )
            await pilot.pause(3.0)  # the slow, older replan has finished meanwhile
            assert app.service.slowed and results.doc.run_dir == str(SAVED_RUN)
            assert results.doc == PlannerService().estimate_run(SAVED_RUN)

    asyncio.run(scenario())


def test_the_footer_wraps_between_its_flags_never_inside_one():
    """A new user's trial at 80 columns: '--verbose' ended one line and '1 note' began the next."""
    from dataclasses import replace

    from planner.core.remarks import Worded
    from planner.core.shown import Shown
    from planner.report.footer import terse_footer

    doc = plan_doc()  # with a note: '--verbose 1 note' is the last flag; the warnings line follows
    doc = replace(doc, plan=replace(doc.plan, notes=[Worded("a note")]))
    assert doc.plan.warnings
    for width in (40, 50, 80, 200):
        lines = terse_footer(doc, Shown((0, 1), 40), ["cost"], width)[:-1]
        flags = [item.strip(", ") for line in lines for item in line.split(", ")]
        assert all(f.startswith("--") for f in flags) and flags[-1].startswith("--verbose"), lines
        assert all(len(line) <= width for line in lines), lines
    assert len(terse_footer(doc, Shown((0, 1), 40), ["cost"], 200)) == 2


def test_the_targets_picks_follow_a_replan_until_the_user_changes_them():
    """A trial: after a what-if the answer said 'picked in 2 Targets' while the picks were the first estimate's
    (or none), so r ran this machine alone. A re-plan picks its own suggestions while the picks are still the last
    suggestion's; picks changed by hand stay."""
    from dataclasses import replace

    from planner.tui.targets import TargetsPane

    doc = plan_doc()
    first = [c.target for c in doc.suggested_benchmarks]
    assert first  # the fixture suggests one
    other = replace(
        doc,
        benchmark=[replace(doc.benchmark[0], target="aws:g5.xlarge"), *doc.benchmark],
    )

    async def scenario():
        app = PlannerApp(None, estimate_on_open=False)
        async with started(app, (120, 40)) as pilot:
            targets = app.query_one(TargetsPane)
            targets.show_plan(doc, fresh=True)
            assert targets.selected == first
            targets.show_plan(other, fresh=False)  # a what-if: followed
            assert targets.selected == [c.target for c in other.suggested_benchmarks]
            targets.selected = ["aws:c7i.large"]  # changed by hand
            targets.show_plan(doc, fresh=False)
            assert targets.selected == ["aws:c7i.large"]
            await pilot.pause(0.1)

    asyncio.run(scenario())


def test_the_picker_lists_a_spec_run_its_spec_no_longer_loads_and_opening_it_says_why(tmp_path):
    """A run journaled by an older schema (or edited) is listed by its spec.json's name, as before the saved runs
    were typed (a review: it vanished from the list); opening it says its spec.json does not load."""
    import json

    from planner.service import PlannerService

    run = tmp_path / "runs" / "20251122T101500Z-surface-mlp"
    shutil.copytree(SAVED_RUN, run)
    spec = json.loads((run / "spec.json").read_text())
    spec["train"]["bogus_field"] = 1
    (run / "spec.json").write_text(json.dumps(spec))
    (run / "spec.yaml").unlink(missing_ok=True)
    listed = PlannerService().journals.saved_runs(tmp_path / "runs")
    assert [r.name for r in listed] == ["surface-mlp"]

    async def scenario():
        app = PlannerApp(None, runs_folder=tmp_path / "runs", estimate_on_open=False)
        async with started(app, (120, 40)) as pilot:
            await wait_for(pilot, lambda: app.panes_mounted, timeout=30)
            app.open_run(str(run))
            await pilot.pause(0.3)
            said = [n.message for n in app._notifications]
            assert any(m.endswith("spec.json") for m in said), said
            assert app.results.run_dir is None  # nothing of it opened

    asyncio.run(scenario())


def test_a_run_whose_run_json_is_damaged_is_refused_before_anything_of_it_is_shown(tmp_path):
    """A trial: a run whose run.json was a directory took the title and the Workload pane, its error said, the
    previous workload's plan left under its name. Now the journal is read whole before anything changes."""
    run = tmp_path / "runs" / "20251122T101500Z-surface-mlp"
    shutil.copytree(SAVED_RUN, run)
    (run / "run.json").unlink()
    (run / "run.json").mkdir()

    async def scenario():
        app = PlannerApp(None, runs_folder=tmp_path / "runs", estimate_on_open=False)
        async with started(app, (120, 40)) as pilot:
            await wait_for(pilot, lambda: app.panes_mounted, timeout=30)
            title = app.sub_title
            app.open_run(str(run))
            await wait_for(pilot, lambda: app._notifications, timeout=10)
            said = [n.message for n in app._notifications]
            assert any("run.json" in m and "not a regular file" in m for m in said), said
            assert app.results.run_dir is None and app.sub_title == title  # nothing of it opened

    asyncio.run(scenario())
