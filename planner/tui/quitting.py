"""Every way out of the TUI: it asks first while a run is live or the spec has unsaved edits.
Design notes: docs/reference/modules.md (planner/tui/quitting.py)."""

from __future__ import annotations

import asyncio
import os
import signal
from typing import TYPE_CHECKING, Any

from planner.tui.dialogs import ConfirmQuit

if TYPE_CHECKING:  # the App this is mixed into: its methods, for the type checker
    from textual.app import App as _AppBase
else:
    _AppBase = object


class Quitting(_AppBase):
    """Mixed into the App: `quitting` is the exit code to quit with once the run in progress has ended."""

    quitting: int | None = None
    run_pane: Any  # the App's panes (planner.tui.app.PlannerApp)
    leaving: Any  # the App's threading.Event: set as it quits, it ends a measurement of this machine in progress
    workload_pane: Any
    terminal_gone = False  # SIGHUP: quit without writing to the terminal

    def route_signals(self) -> None:
        self._signals: list[int] = []
        try:
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGTERM, signal.SIGHUP):
                loop.add_signal_handler(sig, self.signal_received, sig)
                self._signals.append(sig)
        except (NotImplementedError, RuntimeError, ValueError, AttributeError):
            pass  # not the main thread, or no signals here: nothing to route

    def on_unmount(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in getattr(self, "_signals", []):
            loop.remove_signal_handler(sig)
        self._signals = []

    def signal_received(self, signum: int) -> None:
        """SIGTERM or SIGHUP: quit, ending the run in progress through its own cleanup first."""
        self.terminal_gone = self.terminal_gone or signum == signal.SIGHUP
        self.quit_after_run(128 + signum)

    def _quit(self, exit_code: int) -> None:
        self.leaving.set()  # a measurement of this machine (the opening estimate, a script) ends with the app
        if self.terminal_gone:
            os._exit(exit_code)  # everything the run started has ended; no terminal to restore
        self.exit(return_code=exit_code)

    def quit_after_run(self, exit_code: int = 0) -> None:
        run = self.run_pane
        if not run.running:
            self._quit(exit_code)
            return
        if self.quitting is not None:
            run.log_line("still terminating everything the run started, please wait")
            self.notify(
                "terminating the run's instances and processes, please wait", severity="warning"
            )
            return
        self.quitting = exit_code
        run.action_cancel()  # the worker's session terminates everything in its finally, then RunFinished quits
        self.notify("cancelling the run: terminating everything it started, then quitting ...")

    def quit_reasons(self) -> list[str]:
        reasons = []
        if self.run_pane.running:
            reasons.append(
                "A run is in progress: quitting cancels it and terminates every instance and process it started."
            )
        if self.workload_pane.dirty:
            reasons.append("The spec has unsaved edits (ctrl+s saves them).")
        return reasons

    async def action_quit(self) -> None:
        """Every quit path comes here (q, ctrl+q, the palette's Quit): ask first when it would lose something."""
        reasons = self.quit_reasons()
        if not reasons:
            self._quit(0)
            return

        def answer(quit_now: bool | None) -> None:
            if quit_now:
                self.quit_after_run(0)

        self.push_screen(ConfirmQuit(reasons), answer)
