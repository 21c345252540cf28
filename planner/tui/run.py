"""Run pane: live state per target (pending, booting, running, done/failed, terminated), elapsed
time and cost so far, the log; cancel terminates everything the run started."""

from __future__ import annotations

import threading
import time

from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, DataTable, Log, Static

from planner.errors import PlannerError
from planner.tui.messages import RunFinished


class RunPane(Vertical):
    DEFAULT_CSS = """
    RunPane #run-buttons { height: 3; }
    RunPane #states { height: auto; max-height: 12; }
    RunPane #run-log { height: 1fr; }
    """

    def __init__(self):
        super().__init__(id="run")
        self.cancel_event = threading.Event()
        self.running = False

    def compose(self) -> ComposeResult:
        with Horizontal(id="run-buttons"):
            yield Button("Run (r)", id="start", variant="primary")
            yield Button("Cancel (c)", id="cancel", variant="error", disabled=True)
            yield Static("", id="run-status")
        yield DataTable(id="states", cursor_type="none")
        yield Log(id="run-log")

    def on_mount(self) -> None:
        self.query_one("#states", DataTable).add_columns("target", "state", "elapsed", "cost so far")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            self.start()
        elif event.button.id == "cancel":
            self.cancel()

    def log_line(self, text: str) -> None:
        self.query_one("#run-log", Log).write_line(f"{time.strftime('%H:%M:%S')} {text}")

    def set_state(self, label: str, state: str, elapsed: float = 0.0, cost: float = 0.0) -> None:
        table = self.query_one("#states", DataTable)
        row = (label, state, f"{elapsed:.0f} s", f"${cost:.4f}")
        if label in table.rows:
            for column, value in zip(table.ordered_columns, row):
                table.update_cell(label, column.key, value)
        else:
            table.add_row(*row, key=label)

    def start(self) -> None:
        app = self.app
        if self.running:
            app.notify("a run is already in progress", severity="warning")
            return
        if app.spec is None:
            app.notify("the spec is not valid yet: see the Workload tab", severity="error")
            return
        self.running = True
        self.cancel_event.clear()
        self.query_one("#states", DataTable).clear()
        self.query_one("#start", Button).disabled = True
        self.query_one("#cancel", Button).disabled = False
        self.query_one("#run-status", Static).update(f"running {', '.join(app.targets)} ...")
        self.log_line(f"run {app.spec.name} on {', '.join(app.targets)}")
        self.run_worker_thread(app.spec, app.spec_text, list(app.targets))

    def cancel(self) -> None:
        if self.running:
            self.cancel_event.set()
            self.log_line("cancelling: terminating everything this run started ...")

    @work(thread=True, exclusive=True, group="run")
    def run_worker_thread(self, spec, spec_text: str, targets: list[str]) -> None:
        from planner.service import AwsOptions, BenchOptions, Cancelled, PlanOptions, RunCallbacks, parse_targets

        app = self.app
        call = app.call_from_thread
        options = PlanOptions(region=app.region, purchase=app.purchase)
        aws = AwsOptions(region=app.region, purchase=app.purchase, ami=app.ami, poll_seconds=1.0)
        started = time.monotonic()

        def on_state(label, state, elapsed, cost):
            call(self.set_state, label, state, elapsed, cost)

        def on_progress(label, event):
            if event.get("event") in ("measure", "warmup"):
                call(self.set_state, label, f"running ({event['event']})", time.monotonic() - started, 0.0)

        def on_notice(label, text):
            call(self.log_line, f"{label}: {text}" if label else text)

        def on_result(label, data):
            text = f"{label}: {data.get('status')}" + (f" {data['step_seconds'] * 1e3:.2f} ms/step" if data.get("step_seconds") else
                                                        f" {data.get('message', '')}")
            call(self.log_line, text)

        doc, error = None, None
        try:
            callbacks = RunCallbacks(on_progress=on_progress, on_result=on_result, on_state=on_state, on_notice=on_notice)
            doc, _journal, _session = app.service.run(spec, spec_text, parse_targets(",".join(targets)), options,
                                                      BenchOptions(seconds=app.bench_seconds), app.runs_dir, callbacks,
                                                      aws, cancel=self.cancel_event)
        except Cancelled:
            error = "cancelled: every instance and process of the run was terminated"
        except PlannerError as exc:
            error = exc.render()
        except Exception as exc:  # noqa: BLE001 - shown, never a crash of the UI
            error = f"internal error: {type(exc).__name__}: {exc}"
        call(self.finished, doc, error)

    def finished(self, doc, error) -> None:
        self.running = False
        self.query_one("#start", Button).disabled = False
        self.query_one("#cancel", Button).disabled = True
        self.query_one("#run-status", Static).update(error.splitlines()[0] if error else "done")
        self.log_line(error or f"done: journal {doc['run_dir']}")
        if error:
            self.app.notify(error, severity="error" if not error.startswith("cancelled") else "warning")
        self.post_message(RunFinished(doc, error))
