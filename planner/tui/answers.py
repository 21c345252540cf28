"""Answers: what a plan document says, in words — the headline, "here" and "if you rent", the
paid benchmarks that would settle it, the warnings and where the prices come from. Every sentence
is the service's (planner.report.plan_answers); this widget only lays them out. Compact (the
Workload pane's side): the answers alone."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from planner.report import escape, plan_answers


class Answers(Static):
    DEFAULT_CSS = """
    Answers { height: auto; }
    """

    def __init__(self, compact: bool = False, id: str | None = None):
        super().__init__("", id=id)
        self.compact = compact
        self.doc: dict[str, Any] | None = None
        self.status = ""

    def show(self, doc: dict[str, Any] | None, status: str = "") -> None:
        """Show `doc` (None: none yet) under a status line (what is being measured, or why it is stale)."""
        self.doc, self.status = doc, status
        self.update(self._text())

    def set_status(self, status: str) -> None:
        self.status = status
        self.update(self._text())

    def _text(self) -> Text:
        lines: list[str] = []
        if self.status:
            lines.append(f"[italic]{escape(self.status)}[/]")
        doc = self.doc
        if doc is None:
            if not self.status:
                lines.append("No plan yet: open a spec (the free estimate runs at once) or a saved run (o).")
            return Text.from_markup("\n".join(lines))
        for key, markup in plan_answers(doc):
            lines.append(f"[green]{markup}[/]" if key == "recommendation" else markup)
        if self.compact:
            lines.append("[dim]4 Results: every option, the chart and what-if.[/]")
            return Text.from_markup("\n".join(lines))
        benchmarks = doc.get("benchmark") or []
        if benchmarks:
            lines.append("A paid benchmark would settle it (picked in 2 Targets; r runs them):")
            lines += [f"  {escape(c['target'])}: {escape(c.get('reason', ''))}" for c in benchmarks]
        for warning in doc.get("warnings") or []:
            lines.append(f"[yellow]warning:[/] {escape(str(warning))}")
        prices = doc.get("prices") or {}
        if prices:
            lines.append(f"[dim]Predicted rows come from a device model; prices: {escape(str(prices.get('source', '')))}, "
                         f"as of {escape(str(prices.get('as_of', '')))}.[/]")
        if doc.get("run_dir"):
            lines.append(f"[dim]run journal: {escape(doc['run_dir'])}[/]")
        return Text.from_markup("\n".join(lines))
