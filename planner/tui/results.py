"""The Results pane: the plan's options, measured and predicted, as a table and as a chart. Design
notes: docs/reference/modules.md (planner/tui/results.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import DataTable, Static

from planner.errors import Cancelled, PlannerError
from planner.report.plan import shown_line, shown_options
from planner.report.text import error_line, progress_text
from planner.service import ScriptLength
from planner.tui.answers import Answers
from planner.tui.chart import LEGEND, PlanChart
from planner.tui.messages import EstimateDone, PlanShown, PlanStatus, WhatIfChanged
from planner.tui.plantable import PlanTable, notes
from planner.tui.typed import planner_app
from planner.tui.whatif import WhatIf

if TYPE_CHECKING:
    from planner.service import (
        Measured,
        PlanChoice,
        PlanDocument,
        PlanOptions,
        Progress,
        Workload,
    )


class ResultsPane(Vertical):
    DEFAULT_CSS = """
    ResultsPane #answers-box { height: auto; max-height: 8; padding: 0 1; }
    ResultsPane WhatIf { margin: 1 0 0 0; }
    ResultsPane #options { max-height: 9; }
    ResultsPane #shown { height: 1; padding: 0 1; color: $text-muted; }
    ResultsPane #row-notes {
        height: 1; padding: 0 1; color: $text-muted; text-wrap: nowrap; text-overflow: ellipsis;
    }
    ResultsPane #legend { height: 1; padding: 0 1; }
    """
    BINDINGS = [
        Binding("v", "toggle_view", "Table/Chart"),
        # in ? and the palette: the footer fits 80 columns
        Binding("o", "app.open_run", "Open run", show=False),
        Binding("e", "app.estimate", "Estimate"),
        Binding("g", "toggle_rows", "Grouped/every row", show=False),
        Binding("x", "toggle_explain", "Explain"),
        Binding("w", "what_if", "What-if", show=False),  # esc leaves it for the table again
    ]

    def __init__(self) -> None:
        super().__init__(id="results")
        self.doc: PlanDocument | None = None
        self.workload: Workload | None = None  # what the plan is of (a saved spec run's: its spec)
        # a saved script run: the length it is planned for (None: its own)
        self.length: ScriptLength | None = None
        self.results: dict[str, Measured] = {}  # measurements of an estimate or a live run
        self.run_dir: str | None = None  # a finished or saved run: plans come from its journal
        self.options: PlanOptions | None = None  # the plan options of the plan shown
        self.estimating = False
        # of the newest plan asked for: an older replan that finishes later is dropped
        self._generation = 0

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="answers-box"):
            yield Answers(id="answers")
        yield WhatIf(
            planner_app(self).service.account.regions,
            planner_app(self).region,
            id="whatif",
            purchase=planner_app(self).purchase,
        )
        yield PlanTable(id="options")
        yield Static("", id="shown")
        yield Static("", id="row-notes")
        yield Static(LEGEND, id="legend")
        yield PlanChart(id="chart")

    @property
    def answers(self) -> Answers:
        return self.query_one("#answers", Answers)

    def action_toggle_view(self) -> None:
        self.toggle_class("-chart")

    def action_what_if(self) -> None:
        """`w`: into the what-if row (its first control, the objective); esc leaves it."""
        self.query_one("#objective").focus()

    def action_toggle_explain(self) -> None:
        """The terse answer, or the whole reasoning (the CLI's --explain), from its first line: the box does
        not keep the other view's scroll (the short view's last line, the warnings, would sit out of sight)."""
        self.answers.explain = not self.answers.explain
        box = self.query_one("#answers-box", VerticalScroll)
        box.scroll_home(animate=False)
        if not self.answers.explain:  # laid out again without the reasoning's scrollbar
            box.show_vertical_scrollbar = False
            box.refresh(layout=True)

    def action_toggle_rows(self) -> None:
        self.query_one(PlanTable).toggle_rows()
        self._show_count()

    def _show_count(self) -> None:
        """'14 of 64 rows shown; g for every row' (the CLI's line, with the TUI's key), or how to group again."""
        from rich.text import Text

        table = self.query_one(PlanTable)
        shown = table.shown
        if shown is not None and shown.omitted:
            text = shown_line(shown, "g for every row")
        elif (
            table.doc is not None
            and table.group_by == "none"
            and len(shown_options(table.doc)[0]) < len(table.listed)
        ):
            text = f"All {len(table.listed)} rows shown; g groups them"
        else:
            text = ""
        self.query_one("#shown", Static).update(Text(text))

    # ------------------------------------------------------------------ what the plan is of

    def plan_options(self, choice: PlanChoice | None = None) -> PlanOptions:
        """The plan options `choice` means (None: the what-if controls'). Raises InputError, ValueError."""
        return (choice or self.query_one(WhatIf).options()).resolved()

    def estimate(self, workload: Workload, seconds: float) -> bool:
        """Measure `workload` here and plan it; False, said, when it cannot start (one is measuring; the what-if
        controls hold a value out of range)."""
        if self.estimating:
            self.app.notify("an estimate is already measuring this machine", severity="warning")
            return False
        try:
            options = self.plan_options()
        except (PlannerError, ValueError) as exc:
            self.app.notify(
                exc.render() if isinstance(exc, PlannerError) else str(exc), severity="error"
            )
            return False
        self.estimating = True
        shown = self.workload
        if shown is not None and (shown.name, shown.path) != (workload.name, workload.path):
            # another workload: its answer is not shown under this one's progress (a trial read the old answer)
            self.workload, self.results, self.run_dir, self.length = None, {}, None, None
            self.show(None)
        self._status(
            f"estimating {workload.name}: measuring this machine for {seconds:g} s (free), then predicting every "
            "instance ..."
        )
        self._estimate(workload, options, seconds)
        return True

    @work(thread=True, exclusive=True, group="estimate")
    def _estimate(self, workload: Workload, options, seconds: float) -> None:
        call = self.app.call_from_thread
        measured: dict[str, Measured] = {}

        def on_progress(label: str, event: Progress) -> None:
            call(self._status, f"estimating {workload.name}: {progress_text(event)}")

        def on_result(label: str, data: Measured) -> None:
            measured[label] = data

        try:
            doc = planner_app(self).service.estimate(
                workload,
                options,
                seconds,
                on_progress=on_progress,
                on_result=on_result,
                cancel=planner_app(self).leaving,
            )
        except Cancelled:
            return  # the app is quitting: the bench's processes are ended, nothing to show
        except PlannerError as exc:
            call(self._failed, exc.render())
            return
        except Exception as exc:  # noqa: BLE001 - shown, never a crash of the UI
            call(self._failed, f"internal error: {type(exc).__name__}: {exc}")
            return
        call(self._estimated, workload, measured, doc)

    def _failed(self, error: str) -> None:
        """The estimate failed: said where the answer goes until another starts (a toast alone went, and the panes
        still read as measuring), and whole in the notification."""
        self.estimating = False
        lines = [line.strip() for line in error.splitlines() if line.strip()] or ["unknown"]
        said = lines[0]
        # '... its own error:' then a traceback: its last line, and where it was raised (a trial: the notification
        # with the file and line had gone, and the line alone did not say where)
        if said.endswith(":") and len(lines) > 1:
            below = error.strip().split("\n", 1)[1]  # the traceback under the first line
            said = f"{said} {error_line(below)}"
        self._status(f"the estimate failed: {said} (e tries again)")
        self.app.notify(error, severity="error", timeout=30)
        self.post_message(EstimateDone())

    def _estimated(
        self, workload: Workload, measured: dict[str, Measured], doc: PlanDocument
    ) -> None:
        self.estimating = False
        self._newer()  # a replan asked for while it measured is of the old results
        self.workload, self.results, self.run_dir, self.length = workload, measured, None, None
        self._status("")
        self.show(doc, fresh=True)
        self.post_message(EstimateDone())

    def run_started(self, workload: Workload) -> None:
        """A run of `workload` began: its results will replace the estimate's rows (another workload: a new plan)."""
        if workload != self.workload:
            self.workload, self.results, self.doc = workload, {}, None
            self.show(None)
        self.run_dir, self.length = None, None
        self._status(
            f"running {workload.name}: measured rows replace predicted ones as they arrive"
        )

    def run_result(self, label: str, data: Measured) -> None:
        self.results[label] = data
        self.replan()

    def run_finished(self, run_dir: str | None) -> None:
        """The run ended: planned from its journal, or (cancelled, failed) from what it measured."""
        self.run_dir = run_dir
        self._status(
            "" if run_dir else "the run ended early (see 3 Run): what it measured before is shown"
        )
        self.replan()

    def open_run(
        self, run_dir: str, workload: Workload, length: ScriptLength | None = None
    ) -> None:
        """Show a saved run (`workload`: the run's; a script's, planned for `length`) with its own plan options."""
        self.workload, self.results, self.run_dir, self.options = workload, {}, run_dir, None
        self.length = length
        self._replan(self._newer(), None, run_dir, workload, {})

    def plan_for(self, workload: Workload) -> None:
        """The plan of the measurements made, for the workload as it now is (a script given another length)."""
        self.workload = workload
        self.replan()

    def mark_stale(self, spec) -> None:
        """The editor's spec changed: say whether the plan shown is still of it."""
        if self.doc is not None and not self.estimating:
            self._status(
                "the spec is not valid: the plan shown is of the spec last estimated"
                if spec is None
                else ""
                if spec == getattr(self.workload, "spec", None)
                else "the spec changed since this plan: e estimates the edited spec"
            )

    # ------------------------------------------------------------------ planning

    def on_what_if_changed(self, message: WhatIfChanged) -> None:
        message.stop()
        try:
            options = self.plan_options(message.options)
        except PlannerError as exc:
            if not message.typed:
                self.app.notify(exc.render(), severity="error")
            return
        if options != self.options:
            self.replan(options)

    def replan(self, options=None) -> None:
        if self.workload is None or (not self.results and not self.run_dir):
            return
        try:
            options = options or self.plan_options()
        except (PlannerError, ValueError) as exc:
            self.app.notify(
                exc.render() if isinstance(exc, PlannerError) else str(exc), severity="error"
            )
            return
        self._replan(self._newer(), options, self.run_dir, self.workload, dict(self.results))

    def _newer(self) -> int:
        self._generation += 1
        return self._generation

    def _show_if_newest(self, generation: int, doc: PlanDocument) -> None:
        """Plans are computed in threads; one asked for earlier can finish later (a live result's
        replan after the finished run's): only the newest is shown, and none once the app is closing
        (a plan that finishes while the panes are being removed has nowhere to go)."""
        from textual.css.query import NoMatches

        if generation != self._generation or not self.query("#answers"):
            return
        try:
            self.show(doc)
        # the pane's widgets are fixed once composed: one missing is the app tearing them down
        except NoMatches:
            return

    @work(thread=True, exclusive=True, group="plan")
    def _replan(
        self,
        generation: int,
        options,
        run_dir: str | None,
        workload: Workload,
        results: dict[str, Measured],
    ) -> None:
        service, call = planner_app(self).service, self.app.call_from_thread
        try:
            # a saved or finished run: from its journal (a script's for `length`, if given)
            if run_dir:
                doc = service.estimate_run(run_dir, options=options, length=self.length)
            else:
                doc = service.estimate_from(workload, options, results)
        except PlannerError as exc:
            call(self.app.notify, exc.render(), severity="error")
            return
        call(self._show_if_newest, generation, doc)

    # ------------------------------------------------------------------ showing

    def show_status(self, text: str) -> None:
        """A line under the answers: what is being done, or why it failed."""
        self._status(text)

    def _status(self, text: str) -> None:
        self.answers.status = text
        self.post_message(PlanStatus(text))  # the app passes it down to the Workload pane's answers

    def show(self, doc: PlanDocument | None, fresh: bool = False) -> None:
        self.doc = doc
        self.options = doc.options if doc is not None else None
        self.answers.doc = doc
        self.query_one(PlanTable).show(doc)
        self._show_count()
        self.query_one(PlanChart).show(doc)
        if doc is not None:
            self.query_one(WhatIf).set_options(
                doc.options,
                doc.plan.headline_time_value if doc.headline_time_value_is_default else None,
            )
        self.post_message(PlanShown(doc, fresh))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        from rich.text import Text

        table = self.query_one(PlanTable)
        option = table.highlighted()
        said = notes(option, rank=not table.rank_shown) if option else ""
        self.query_one("#row-notes", Static).update(Text(said))
