"""The plan's options as a table: the CLI's cells (planner.report.plan_row), each row marked like
the chart (● measured, ○ predicted, ★ the headline) in the mark column. At narrow widths the
columns that decide come first — rank, target, training time, cost, speedup, break-even — and the
rest scroll sideways; at wide ones the CLI's order. The highlighted row's notes (why it does not
fit, its caveats) show under the table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import DataTable

from planner.report.plan import MARK_COLUMN, PLAN_COLUMNS, plan_row

if TYPE_CHECKING:
    from planner.service import PlanDocument, RankedOption

ESSENTIAL = (MARK_COLUMN, "#", "target", "training time", "cost", "speedup", "b-even", "break-even")
WIDE = 150  # columns at which the CLI's order fits without cutting


def column_order(width: int) -> list[str]:
    """The plan's columns in the order shown at `width` (every column, essentials first when narrow)."""
    if width >= WIDE:
        return list(PLAN_COLUMNS)
    first = [c for c in ESSENTIAL if c in PLAN_COLUMNS]
    return first + [c for c in PLAN_COLUMNS if c not in first]


def mark(o: RankedOption, doc: PlanDocument) -> Text:
    if doc.is_recommended(o):
        return Text("★", style="bold yellow")
    return Text("●", style="green") if o.source == "measured" else Text("○", style="cyan")


def notes(o: RankedOption) -> str:
    """An option's notes as one line: its note, caveat and interval note, whichever it has."""
    parts = [text for text in (o.note, o.caveat, o.interval_note) if text]
    return f"{o.target} ({o.device_name or o.device}): " + ("; ".join(parts) if parts else "no notes")


class PlanTable(DataTable):
    DEFAULT_CSS = """
    PlanTable { height: auto; max-height: 12; scrollbar-size-vertical: 1; }
    """

    def __init__(self, id: str | None = None):
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.doc: PlanDocument | None = None
        self._order: list[str] = []

    def on_mount(self) -> None:
        self._columns(self.app.size.width)

    def _columns(self, width: int) -> bool:
        order = column_order(width)
        if order == self._order:
            return False
        self._order = order
        self.clear(columns=True)
        for name in order:
            self.add_column("" if name == MARK_COLUMN else name, key=name)  # its marks say more than the CLI's ✔
        return True

    def on_resize(self) -> None:
        if self._columns(self.app.size.width) and self.doc is not None:
            self.show(self.doc)

    def show(self, doc: PlanDocument | None) -> None:
        self.doc = doc
        row = self.cursor_row
        self.clear()
        if doc is None:
            return
        index = {name: i for i, name in enumerate(PLAN_COLUMNS)}
        for o in doc.plan.options:
            cells = plan_row(o, doc)  # the CLI's cells, so the two fronts cannot disagree
            style = "bold green" if doc.is_recommended(o) else ""
            shown = []
            for name in self._order:
                if name == MARK_COLUMN:
                    shown.append(mark(o, doc))  # the CLI's headline mark, plus measured or predicted
                elif name == "target" and self._order != list(PLAN_COLUMNS):
                    shown.append(Text(o.target.removeprefix("aws:"), style=style))  # narrow: g5.xlarge is aws's
                else:
                    cell = cells[index[name]] if index[name] < len(cells) else ""
                    shown.append(Text.from_markup(cell, style=style))
            self.add_row(*shown, key=f"{o.target}|{o.device}|{o.gpus_used}")
        if self.row_count:
            self.move_cursor(row=min(row, self.row_count - 1))

    def highlighted(self) -> RankedOption | None:
        if self.doc is None or not self.row_count:
            return None
        options = self.doc.plan.options
        return options[self.cursor_row] if self.cursor_row < len(options) else None
