"""Instances pane: planner-managed instances in the account (like `planner ls`), with terminate."""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, DataTable, Static


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
        self.query_one("#instance-table", DataTable).add_columns("instance", "type", "state", "run", "expires at")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "refresh":
            self.load()
        else:
            self.action_terminate()

    @work(thread=True, exclusive=True, group="instances")
    def load(self) -> None:
        from planner.cli import _aws_failure, _ec2
        from runner.reaper import managed_instances

        try:
            found = managed_instances(_ec2(self.app.region))
        except Exception as exc:  # noqa: BLE001 - the CLI's message, as a notification
            self.app.call_from_thread(self.app.notify, _aws_failure(exc, "listing instances").render(), severity="error")
            return
        self.app.call_from_thread(self._fill, found)

    def _fill(self, found) -> None:
        table = self.query_one("#instance-table", DataTable)
        table.clear()
        for i in found:
            tags = {t["Key"]: t["Value"] for t in i.get("Tags", [])}
            table.add_row(i["InstanceId"], i["InstanceType"], i["State"]["Name"], tags.get("planner:run-id", "-"),
                          tags.get("planner:expires-at", "-"), key=i["InstanceId"])
        self.query_one("#instances-status", Static).update(f"{len(found)} planner-managed instance(s) in {self.app.region}")

    @work(thread=True, exclusive=True, group="instances")
    def action_terminate(self) -> None:
        from planner.cli import _aws_failure, _ec2

        table = self.query_one("#instance-table", DataTable)
        if table.row_count == 0:
            return
        instance_id = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        try:
            _ec2(self.app.region).terminate_instances(InstanceIds=[instance_id])
        except Exception as exc:  # noqa: BLE001
            self.app.call_from_thread(self.app.notify, _aws_failure(exc, "terminating").render(), severity="error")
            return
        self.app.call_from_thread(self.app.notify, f"terminated {instance_id}")
        self.load()
