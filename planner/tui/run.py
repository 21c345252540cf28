"""Run pane: one row per target from the moment `r` is pressed (pending, booting, running,
done/failed, terminated), elapsed time ticking every second, cost so far, the bench's progress;
the log. A new run starts from a clean table and log; cancel terminates everything the run started.

The run itself is PlannerService.run (of the spec or the training script) in a thread worker,
bound by the app; each result is posted up (RunResult) the moment it is journaled, so the Results
pane replaces that target's predicted row at once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, DataTable, Log, Static

from planner.errors import PlannerError
from planner.report.answers import unterminated_lines
from planner.report.text import (
    interrupted_text,
    label_target,
    label_text,
    progress_text,
    seconds_text,
)
from planner.service import Cancelled, RunCallbacks
from planner.tui.messages import LaunchNotice, RunFinished, RunResult
from planner.tui.typed import planner_app

if TYPE_CHECKING:
    from planner.service import Measured, PlanDocument, Progress

Launch = Callable[[RunCallbacks, threading.Event], "PlanDocument"]

FINISHED = ("done", "failed", "terminated", "cancelled")
COLUMNS = ("target", "state", "elapsed", "cost so far", "progress")


@dataclass
class TargetRow:
    """What the pane shows of one target."""

    state: str = "pending"  # pending, running, or one of FINISHED
    elapsed: float | None = None  # seconds, once finished
    cost: float = 0.0
    progress: str = ""


class RunPane(Vertical):
    DEFAULT_CSS = """
    RunPane #run-buttons { height: 3; }
    RunPane #run-status { height: auto; padding: 0 1; }
    RunPane #states { height: auto; max-height: 12; }
    RunPane #run-log { height: 1fr; min-height: 4; }
    """
    BINDINGS = [Binding("c", "cancel", "Cancel run")]

    def __init__(self) -> None:
        super().__init__(id="run")
        self.cancel_event = threading.Event()
        self.running = False
        self.started = 0.0
        self._run_id = 0  # of the run under way: events of an earlier one are dropped
        self.rows: dict[str, TargetRow] = {}

    def compose(self) -> ComposeResult:
        with Horizontal(id="run-buttons"):
            yield Button("Run (r)", id="start", variant="primary")
            yield Button("Cancel (c)", id="cancel", variant="error", disabled=True)
        yield Static("Nothing run yet: r benchmarks local and the picked targets.", id="run-status")
        yield DataTable(id="states", cursor_type="row")
        yield Log(id="run-log")

    def on_mount(self) -> None:
        table = self.query_one("#states", DataTable)
        for name in COLUMNS:
            table.add_column(name, key=name)
        self.set_interval(1.0, self.tick)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            planner_app(self).action_run()
        elif event.button.id == "cancel":
            self.action_cancel()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel":
            return self.running  # shown in the footer only while a run is live
        return True

    def log_line(self, text: str) -> None:
        self.query_one("#run-log", Log).write_line(f"{time.strftime('%H:%M:%S')} {text}")

    # ------------------------------------------------------------------ the rows

    def _row(self, label: str) -> TargetRow:
        """The row of `label`, taking over the unfinished row of its target (local-cpu is local's)."""
        if label not in self.rows:
            table = self.query_one("#states", DataTable)
            target = label_target(label)
            if target in self.rows and target != label and self.rows[target].state not in FINISHED:
                del self.rows[target]
                table.remove_row(target)
            self.rows[label] = TargetRow()
            table.add_row(label_text(label), "pending", "0 s", "$0.0000", "", key=label)
        return self.rows[label]

    def set_state(
        self, label: str, state: str, cost: float | None = None, progress: str | None = None
    ) -> None:
        row = self._row(label)
        row.state = state
        if cost is not None:
            row.cost = cost
        if progress is not None:
            row.progress = progress
        if state in FINISHED and row.elapsed is None:
            row.elapsed = time.monotonic() - self.started
        self._draw(label)

    def _draw(self, label: str) -> None:
        row = self.rows[label]
        elapsed = row.elapsed if row.elapsed is not None else time.monotonic() - self.started
        table = self.query_one("#states", DataTable)
        values = {
            "state": row.state,
            "elapsed": seconds_text(elapsed) if elapsed >= 1 else "0 s",
            "cost so far": f"${row.cost:.4f}",
            "progress": row.progress,
        }
        for column, value in values.items():
            table.update_cell(label, column, value, update_width=True)

    def say(self, text: str) -> None:
        """The pane's status line (a run waiting for the estimate's measurement, say)."""
        self.query_one("#run-status", Static).update(Text(text))

    def set_progress(self, label: str, progress: str) -> None:
        """The bench's latest progress line; a finished row keeps its state (late events arrive)."""
        row = self._row(label)
        if row.state in FINISHED:
            return
        row.progress = progress
        if row.state == "pending":
            row.state = "running"
        self._draw(label)

    def tick(self) -> None:
        """Elapsed time of every unfinished row, once a second."""
        for label, row in self.rows.items():
            if row.elapsed is None and self.running:
                self._draw(label)

    # ------------------------------------------------------------------ a run

    def start(self, name: str, targets: list[str], launch: Launch) -> None:
        """Run `name` on `targets`: `launch(callbacks, cancel)` is the service's run of a spec or a script
        (PlannerService.run, its workload, options and journal folder bound by the app)."""
        self.running = True
        self.cancel_event.clear()
        self.started = time.monotonic()
        self._run_id += 1
        self.rows.clear()
        self.query_one("#states", DataTable).clear()
        self.query_one("#run-log", Log).clear()
        # a row each at once: the run itself takes seconds to start (import torch)
        for target in targets:
            self._row(target)
        self.query_one("#start", Button).disabled = True
        self.query_one("#cancel", Button).disabled = False
        self.query_one("#run-status", Static).update(
            Text(f"running {name} on {', '.join(targets)} ...")
        )
        self.log_line(f"run {name} on {', '.join(targets)}")
        self.refresh_bindings()
        self.run_worker_thread(launch)

    def action_cancel(self) -> None:
        if self.running and not self.cancel_event.is_set():
            self.cancel_event.set()
            self.log_line("cancelling: terminating everything this run started ...")

    @work(thread=True, exclusive=True, group="run")
    def run_worker_thread(self, launch: Launch) -> None:
        run_id, app = self._run_id, planner_app(self)

        def call(fn: Callable[..., object], *args: object) -> None:
            """`fn(*args)` on the event loop, unless another run has started since (a late event of this one)."""
            app.call_from_thread(lambda: fn(*args) if run_id == self._run_id else None)

        def on_state(label: str, state: str, elapsed: float, cost: float) -> None:
            call(self.set_state, label, state, cost)

        def on_progress(label: str, event: Progress) -> None:
            call(self.set_progress, label, progress_text(event))

        def on_notice(label: str | None, text: str) -> None:
            call(self.log_line, f"{label_text(label)}: {text}" if label else text)
            if label:
                # the Targets pane keeps each target's latest
                call(self.post_message, LaunchNotice(label, text))

        def on_result(label: str, measured: Measured) -> None:
            r = measured.result
            ok = r.status == "ok"
            text = f"{label_text(label)}: {r.status}" + (
                f" {r.step_seconds * 1e3:.2f} ms/step{interrupted_text(r)}"
                if ok and r.step_seconds
                else f" {r.message}"
            )
            call(self.log_line, text)
            call(
                self.set_state,
                label,
                "done" if ok else "failed",
                None,
                "" if ok else r.message[:60],
            )
            call(self.post_message, RunResult(label, measured))

        doc, error = None, None
        try:
            callbacks = RunCallbacks(
                on_progress=on_progress, on_result=on_result, on_state=on_state, on_notice=on_notice
            )
            doc = launch(callbacks, self.cancel_event)
        except Cancelled:
            error = "cancelled: every instance and process of the run was terminated"
        except PlannerError as exc:
            error = exc.render()
        except Exception as exc:  # noqa: BLE001 - shown, never a crash of the UI
            error = f"internal error: {type(exc).__name__}: {exc}"
        call(self.finished, doc, error)

    def finished(self, doc: PlanDocument | None, error: str | None) -> None:
        self.running = False
        for label, row in self.rows.items():
            if row.state not in FINISHED:
                self.set_state(
                    label, "cancelled" if error and error.startswith("cancelled") else "failed"
                )
        self.query_one("#start", Button).disabled = False
        self.query_one("#cancel", Button).disabled = True
        failed = (doc.failed_targets if doc is not None else None) or []
        run_dir = (doc.run_dir if doc is not None else None) or ""
        cut = [
            label
            for label in (doc.interrupted_targets if doc is not None else None) or []
            if label not in failed
        ]
        status = (
            error.splitlines()[0]
            if error
            else f"done: {run_dir}"
            + (f" ({', '.join(failed)} failed)" if failed else "")
            + (f" ({', '.join(cut)} interrupted by a spot reclaim)" if cut else "")
        )
        self.query_one("#run-status", Static).update(Text(status))
        self.log_line(error or f"done: journal {run_dir}")
        for line in unterminated_lines(doc):
            self.log_line(line)
            self.app.notify(line, severity="error", timeout=60)  # still billing: said until read
        if error:
            self.app.notify(
                error, severity="error" if not error.startswith("cancelled") else "warning"
            )
        self.refresh_bindings()
        self.post_message(RunFinished(doc, error))
