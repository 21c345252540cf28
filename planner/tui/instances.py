"""Instances pane: planner-managed instances in the plan's region (what `planner ls` shows: state,
run, age, expiry, cost so far — PlannerService.instances, cells from planner.report.instance_row),
loaded each time the pane opens; x terminates the highlighted one, l reloads. Without AWS access
the pane says why (the CLI's words) instead of staying empty."""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, DataTable, Static

from planner.errors import PlannerError
from planner.report.tables import INSTANCE_COLUMNS, instance_row
from planner.tui.typed import planner_app


class InstancesPane(Vertical):
    DEFAULT_CSS = """
    InstancesPane #instance-buttons { height: 3; }
    InstancesPane #instances-status { height: auto; padding: 0 1; }
    InstancesPane #instance-table { height: 1fr; margin-top: 1; }
    """
    BINDINGS = [Binding("x", "terminate", "Terminate"), Binding("l", "load", "Reload")]

    def __init__(self) -> None:
        super().__init__(id="instances")
        self.loaded_region: str | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="instance-buttons"):
            yield Button("Reload (l)", id="refresh")
            yield Button("Terminate (x)", id="terminate", variant="error")
        yield Static("Opening this pane lists the planner's instances.", id="instances-status")
        yield DataTable(id="instance-table", cursor_type="row")

    def on_mount(self) -> None:
        self.query_one("#instance-table", DataTable).add_columns(*INSTANCE_COLUMNS)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "refresh":
            self.action_load()
        else:
            self.action_terminate()

    def action_load(self) -> None:
        self._status(f"listing planner-managed instances in {planner_app(self).region} ...")
        self.load(planner_app(self).region)

    @work(thread=True, exclusive=True, group="instances")
    def load(self, region: str) -> None:
        try:
            rows = planner_app(self).service.account.instances(region)
        except PlannerError as exc:  # the CLI's message, where the table would be
            self.app.call_from_thread(self._status, exc.render())
            return
        self.app.call_from_thread(self._fill, rows, region)

    def _status(self, text: str) -> None:
        from rich.text import Text

        self.query_one("#instances-status", Static).update(Text(text))

    def _fill(self, rows, region: str) -> None:
        from rich.text import Text

        self.loaded_region = region
        table = self.query_one("#instance-table", DataTable)
        table.clear()
        for r in rows:
            table.add_row(*(Text.from_markup(cell) for cell in instance_row(r)), key=r.instance_id)
        billed = sum(r.cost_so_far_usd or 0.0 for r in rows)
        self._status(
            f"{len(rows)} planner-managed instance(s) in {region}"
            + (f", ${billed:.4f} so far" if rows else ": nothing is billing")
        )

    def action_terminate(self) -> None:
        table = self.query_one("#instance-table", DataTable)
        if table.row_count == 0:
            self.app.notify("no instance to terminate", severity="warning")
            return
        instance_id = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        self._terminate(planner_app(self).region, instance_id)

    @work(thread=True, exclusive=True, group="instances")
    def _terminate(self, region: str, instance_id: str) -> None:
        try:
            planner_app(self).service.account.terminate(region, [instance_id])
        except PlannerError as exc:
            self.app.call_from_thread(self.app.notify, exc.render(), severity="error")
            return
        self.app.call_from_thread(self.app.notify, f"terminated {instance_id}")
        self.app.call_from_thread(self.action_load)
