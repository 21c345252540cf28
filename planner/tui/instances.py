"""Instances pane: planner-managed instances in the account (like `planner ls`), with terminate."""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, DataTable, Static

from planner.errors import PlannerError


class InstancesPane(Vertical):
    DEFAULT_CSS = """
    InstancesPane #instance-buttons { height: 3; }
    """
    BINDINGS = [("x", "terminate", "Terminate instance")]

    def __init__(self):
        super().__init__(id="instances")

    def compose(self) -> ComposeResult:
        with Horizontal(id="instance-buttons"):
            yield Button("Refresh", id="refresh")
            yield Button("Terminate selected (x)", id="terminate", variant="error")
            yield Static("", id="instances-status")
        yield DataTable(id="instance-table", cursor_type="row")

    def on_mount(self) -> None:
        from planner.report import INSTANCE_COLUMNS

        self.query_one("#instance-table", DataTable).add_columns(*INSTANCE_COLUMNS)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "refresh":
            self.load()
        else:
            self.action_terminate()

    @work(thread=True, exclusive=True, group="instances")
    def load(self) -> None:
        try:
            rows = self.app.service.instances(self.app.region)
        except PlannerError as exc:  # the CLI's message, as a notification
            self.app.call_from_thread(self.app.notify, exc.render(), severity="error")
            return
        self.app.call_from_thread(self._fill, rows)

    def _fill(self, rows) -> None:
        from rich.text import Text

        from planner.report import instance_row

        table = self.query_one("#instance-table", DataTable)
        table.clear()
        for r in rows:
            table.add_row(*(Text.from_markup(cell) for cell in instance_row(r)), key=r["instance_id"])
        self.query_one("#instances-status", Static).update(f"{len(rows)} planner-managed instance(s) in {self.app.region}")

    @work(thread=True, exclusive=True, group="instances")
    def action_terminate(self) -> None:
        table = self.query_one("#instance-table", DataTable)
        if table.row_count == 0:
            return
        instance_id = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        try:
            self.app.service.terminate(self.app.region, [instance_id])
        except PlannerError as exc:
            self.app.call_from_thread(self.app.notify, exc.render(), severity="error")
            return
        self.app.call_from_thread(self.app.notify, f"terminated {instance_id}")
        self.load()
