"""The command palette's planner commands (ctrl+p): a Textual command provider offering what the
keys do — estimate, run, cancel, save, open a saved run, switch panes, theme, keys — each with
its key in the help text, so the palette also teaches the keys. They call the app's actions."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from textual.command import DiscoveryHit, Hit, Hits, Provider

PANES = ("workload", "targets", "run", "results", "instances")


def planner_commands(app: Any) -> list[tuple[str, str, Callable[[], Any]]]:
    """(name, help, callback) of every planner command the app takes now (its check_action: a script has no Save
    and no form, a spec no run length)."""
    actions = [
        (
            "Estimate",
            "Measure this machine (free) and predict every instance for the workload (e)",
            "estimate",
        ),
        ("Run benchmarks", "Benchmark local and the picked targets (r)", "run"),
        ("Cancel run", "Stop the run and terminate everything it started (c)", "cancel"),
        ("Save spec", "Write the editor's spec to its file (ctrl+s)", "save"),
        ("Open run", "Open a saved run from the runs folder (o)", "open_run"),
        (
            "Run length",
            "Plan a script's whole run for N steps or epochs, from the measurement made (s)",
            "length",
        ),
        ("Toggle form", "Edit the spec as a form or as YAML (f)", "toggle_form"),
        (
            "Toggle dark/light theme",
            "Switch between the dark and the light theme (ctrl+t)",
            "toggle_theme",
        ),
        ("Quit planner", "Quit (asks while a run is live or edits are unsaved) (q)", "quit"),
    ]
    commands = [
        (name, help_text, getattr(app, f"action_{action}"))
        for name, help_text, action in actions
        if app.check_action(action, ()) is not False
    ]
    for number, pane in enumerate(PANES, start=1):
        commands.append(
            (
                f"Show {pane}",
                f"Switch to the {pane.title()} pane ({number} or F{number})",
                partial(app.action_show, pane),
            )
        )
    return commands


class PlannerCommands(Provider):
    async def discover(self) -> Hits:
        for name, help_text, callback in planner_commands(self.app):
            yield DiscoveryHit(name, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, callback in planner_commands(self.app):
            score = max(matcher.match(name), matcher.match(help_text) * 0.5)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, help=help_text)
