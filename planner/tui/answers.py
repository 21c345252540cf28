"""Answers: what a plan document says, in words. First the CLI's terse answer (planner.report.terse.terse_answer:
what to do in one line, then why it and not the other, the GPU's speedup against its break-even, a close call),
then the paid benchmarks that would settle it, the warnings, the notes and where the prices come from. `explain`
(x in the Results pane, as the CLI's --explain): the whole reasoning (planner.report.answers.plan_answers) in place
of the terse lines. Every sentence is the report layer's; this widget only lays them out. Compact (the Workload
pane's side): the terse answer alone."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from planner.report.answers import NO_BENCHMARK, plan_answers
from planner.report.choices import choice_reason
from planner.report.footer import warnings_line
from planner.report.remarks import words
from planner.report.terse import careful_option, said_above, terse_answer
from planner.report.text import counted, escape, wrapped

if TYPE_CHECKING:
    from planner.service import PlanDocument


class Answers(Static):
    """Set from above: `doc` (None: no plan yet) and `status` (what is being measured, or why the plan
    is stale); the text follows them."""

    DEFAULT_CSS = """
    Answers { height: auto; }
    """
    doc: reactive[PlanDocument | None] = reactive(None, always_update=True)
    status: reactive[str] = reactive("")
    explain: reactive[bool] = reactive(False)

    def __init__(self, compact: bool = False, id: str | None = None):
        super().__init__("", id=id)
        self.compact = compact

    def show(self, doc: PlanDocument | None, status: str = "") -> None:
        """Show `doc` under a status line."""
        self.doc, self.status = doc, status

    def watch_doc(self) -> None:
        self.update(self._text())

    def watch_status(self) -> None:
        self.update(self._text())

    def watch_explain(self) -> None:
        self.update(self._text())

    def on_resize(self) -> None:
        """The warnings line is cut to the widget's width: laid out again when the width is known or changes."""
        if self.doc is not None and not self.explain:
            self.update(self._text())

    def _terse_tail(self, doc: PlanDocument) -> list[str]:
        """The first warning the answer's lines did not say (said_above), in one line (none beside a Careful line:
        the box keeps its height), then what x shows: whole lines, so a short screen's box never cuts a sentence."""
        warnings = doc.plan.warnings
        # said by the answer's own lines, as the CLI's footer leaves them out
        above = said_above(doc)
        careful = careful_option(doc) is not None
        width = max(30, (self.size.width or 80) - 2)
        warned = None if careful else warnings_line(doc, width, said=above)
        lines = [warned] if warned else []
        more = [counted(len(doc.plan.notes), "note")] if doc.plan.notes else []
        # numbered only where no warnings line is: beside '3 warnings: ...' a '(4)' that counts the one said above
        # read as a contradiction (a trial)
        every = ", every warning" if warned else f", every warning ({len(warnings)})"
        lines.append(
            "[dim]x: the whole reasoning"
            + (every if len(warnings) > 1 or ((above or careful) and warnings) else "")
            + (f", {more[0]}" if more else "")
            + ", where the prices come from[/]"
        )
        return lines

    def _fit(self, lines: list[str]) -> Text:
        """Markup lines cut at the widget's width as the CLI cuts them (between words, never between a number and its
        unit: a trial read '2.8 min (2.6' / 'min start-up)' in the side panel); laid out again on a resize."""
        width = self.size.width
        # the Results pane's box is left to Rich: cut here at a width its scrollbar took, the short answer stayed a
        # line taller than the box and kept the scrollbar (the side panel keeps its own either way)
        if width <= 0 or not self.compact:
            return Text.from_markup("\n".join(lines))
        return Text("\n").join(
            part for line in lines for part in wrapped(Text.from_markup(line), width)
        )

    def _text(self) -> Text:
        lines: list[str] = []
        if self.status:
            lines.append(f"[italic]{escape(self.status)}[/]")
        doc = self.doc
        if doc is None:
            if not self.status:
                # how to open one, where the path field is (a trial typed a path into the pane: it vanished)
                lines.append(
                    "No plan yet: Tab to the path field, type a spec, a script or a run folder and press "
                    "Enter (the free estimate runs at once); or o for a saved run."
                    if self.compact
                    else "No plan yet: open a spec, a script or a run folder in 1 Workload (the free "
                    "estimate runs at once), or a saved run (o)."
                )
            return Text.from_markup("\n".join(lines))
        if self.explain and not self.compact:
            lines.append(
                "[dim]x: the short answer again; this box scrolls (wheel, or tab onto it, then ↓)[/]"
            )
            for key, markup in plan_answers(doc):
                lines.append(f"[green]{markup}[/]" if key == "recommendation" else markup)
        else:
            answer = terse_answer(doc, length_fix=False)  # the status line says `s` gives it
            lines += [f"[green]{answer[0]}[/]", *(line.strip() for line in answer[1:])]
        if self.compact:
            lines.append("[dim]4 Results: every option, the chart and what-if.[/]")
            return self._fit(lines)
        if doc.suggested_benchmarks:  # none when training here wins clearly
            lines.append("A paid benchmark would settle it (picked in 2 Targets; r runs them):")
            lines += [
                f"  {escape(c.target)}: {escape(choice_reason(c))}"
                for c in doc.suggested_benchmarks
            ]
        elif doc.benchmark and doc.trains_here_clearly:
            lines.append(
                f"{NO_BENCHMARK}."
                if self.explain
                else "No paid benchmark needed: training here wins clearly."
            )
        if not self.explain:  # the warnings in one line, the rest behind x (as the CLI's --explain)
            lines += self._terse_tail(doc)
            return self._fit(lines)
        for warning in words(doc.plan.warnings):
            lines.append(f"[yellow]warning:[/] {escape(warning)}")
        lines += [f"[dim]note: {escape(note)}[/]" for note in words(doc.plan.notes)]
        if doc.prices is not None:
            lines.append(
                f"[dim]Predicted rows come from a device model; prices: {escape(doc.prices.source)}, "
                f"as of {escape(doc.prices.as_of)}.[/]"
            )
        if doc.run_dir:
            lines.append(f"[dim]run journal: {escape(doc.run_dir)}[/]")
        return Text.from_markup("\n".join(lines))
