"""The Textual app: five panes over PlannerService — Workload, Targets, Run, Results, Instances.

Keyboard first: 1-5 (or F1-F5, also inside a text field) switch panes, r (or ctrl+r) runs, c cancels,
ctrl+s saves the spec, ctrl+t toggles the light/dark theme, q quits (asking first, and terminating
everything, when a run is in progress).
Work runs in Textual thread workers; errors appear as notifications with the CLI's text.

Signals: a run's session works in a thread, which has no signal handler, so the app routes them.
SIGTERM and SIGHUP (a closed terminal) cancel a run in progress and quit once its cleanup has
terminated everything it started (the same path as `q` + yes); another signal meanwhile is only
told ("terminating ..., please wait"). The exit code is then 128 + the signal's number. After
SIGHUP the terminal is gone: the process ends without restoring it (Textual's teardown would wait
forever on writes to it).
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Header, Label, TabbedContent, TabPane

from planner.service import PlannerService
from planner.tui.instances import InstancesPane
from planner.tui.messages import RunFinished, SpecChanged, TargetsChanged
from planner.tui.results import ResultsPane
from planner.tui.run import RunPane
from planner.tui.targets import TargetsPane
from planner.tui.workload import WorkloadPane


class ConfirmQuit(ModalScreen[bool]):
    BINDINGS = [("y", "answer(True)", "Yes"), ("n,escape", "answer(False)", "No")]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("A run is in progress. Quit and terminate every instance and process it started?")
            with Horizontal():
                yield Button("Yes, terminate and quit (y)", id="yes", variant="error")
                yield Button("No (n)", id="no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)


class PlannerApp(App):
    TITLE = "cloud-planner"
    CSS_PATH = "app.tcss"
    AUTO_FOCUS = "Tabs"  # not a text field: the single-key bindings work from the start
    BINDINGS = [
        Binding("ctrl+r", "run", "Run", show=False, priority=True),  # also from inside the editor
        *[Binding(f"f{i}", f"show('{name}')", name.title(), show=False, priority=True)
          for i, name in enumerate(("workload", "targets", "run", "results", "instances"), start=1)],
        Binding("1", "show('workload')", "Workload"),
        Binding("2", "show('targets')", "Targets"),
        Binding("3", "show('run')", "Run"),
        Binding("4", "show('results')", "Results"),
        Binding("5", "show('instances')", "Instances"),
        Binding("r", "run", "Run"),
        Binding("c", "cancel", "Cancel"),
        Binding("ctrl+s", "save", "Save spec"),
        Binding("f", "toggle_form", "Form/YAML"),
        Binding("ctrl+t", "toggle_theme", "Theme"),
        Binding("q", "quit_app", "Quit"),
    ]

    def __init__(self, spec_path: str | None = None, service: PlannerService | None = None,
                 runs_dir: Path | None = None, bench_seconds: float = 10.0, region: str = "us-east-1",
                 ami: str | None = None):
        super().__init__()
        self.ami = ami
        self.service = service or PlannerService()
        self.spec_path, self.runs_dir, self.bench_seconds = spec_path, runs_dir, bench_seconds
        self.region, self.purchase = region, "on-demand"
        self.spec = None
        self.spec_text = ""
        self.targets: list[str] = ["local"]
        self.quitting: int | None = None  # the exit code to quit with once the run in progress has ended
        self.terminal_gone = False  # SIGHUP: quit without writing to the terminal
        self._signals: list[int] = []

    def on_mount(self) -> None:
        try:
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGTERM, signal.SIGHUP):
                loop.add_signal_handler(sig, self.signal_received, sig)
                self._signals.append(sig)
        except (NotImplementedError, RuntimeError, ValueError, AttributeError):
            pass  # not the main thread, or no signals here: nothing to route

    def on_unmount(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in self._signals:
            loop.remove_signal_handler(sig)
        self._signals.clear()

    def signal_received(self, signum: int) -> None:
        """SIGTERM or SIGHUP: quit, ending the run in progress through its own cleanup first."""
        self.terminal_gone = self.terminal_gone or signum == signal.SIGHUP
        self.quit_after_run(128 + signum)

    def _quit(self, exit_code: int) -> None:
        if self.terminal_gone:
            os._exit(exit_code)  # everything the run started has ended; no terminal to restore
        self.exit(return_code=exit_code)

    def quit_after_run(self, exit_code: int = 0) -> None:
        run = self.query_one(RunPane)
        if not run.running:
            self._quit(exit_code)
            return
        if self.quitting is not None:
            run.log_line("still terminating everything the run started, please wait")
            self.notify("terminating the run's instances and processes, please wait", severity="warning")
            return
        self.quitting = exit_code
        run.cancel()  # the worker's session terminates everything in its finally, then RunFinished quits

    def compose(self) -> ComposeResult:
        yield Header()
        with TabbedContent(initial="tab-workload"):
            with TabPane("1 Workload", id="tab-workload"):
                yield WorkloadPane(self.spec_path)
            with TabPane("2 Targets", id="tab-targets"):
                yield TargetsPane()
            with TabPane("3 Run", id="tab-run"):
                yield RunPane()
            with TabPane("4 Results", id="tab-results"):
                yield ResultsPane()
            with TabPane("5 Instances", id="tab-instances"):
                yield InstancesPane()
        yield Footer()

    FOCUS_ON_SHOW = {"targets": "#catalog", "run": "#states", "results": "#options", "instances": "#instance-table"}

    def action_show(self, pane: str) -> None:
        self.query_one(TabbedContent).active = f"tab-{pane}"
        if pane in self.FOCUS_ON_SHOW:  # a table: arrows and the single-key bindings work at once
            self.query_one(self.FOCUS_ON_SHOW[pane]).focus()

    def on_spec_changed(self, message: SpecChanged) -> None:
        self.spec, self.spec_text = message.spec, message.text

    def on_targets_changed(self, message: TargetsChanged) -> None:
        self.targets = message.targets

    def on_run_finished(self, message: RunFinished) -> None:
        if self.quitting is not None:
            self._quit(self.quitting)
            return
        if message.doc is not None:
            self.query_one(ResultsPane).show(message.doc)
            self.action_show("results")

    def action_run(self) -> None:
        self.action_show("run")
        self.query_one(RunPane).start()

    def action_cancel(self) -> None:
        self.query_one(RunPane).cancel()

    async def action_toggle_form(self) -> None:
        self.action_show("workload")
        await self.query_one(WorkloadPane).toggle_view()

    def action_save(self) -> None:
        self.query_one("#save").press()

    def action_toggle_theme(self) -> None:
        self.theme = "textual-light" if self.theme == "textual-dark" else "textual-dark"

    def action_quit_app(self) -> None:
        run = self.query_one(RunPane)
        if not run.running:
            self.exit()
            return

        def answer(quit_now: bool | None) -> None:
            if quit_now:
                self.quit_after_run(0)  # the run's finally terminates everything; then the app exits

        self.push_screen(ConfirmQuit(), answer)
