"""The plan's options as a table: the CLI's cells (planner.report.plan_row), each row marked like
the chart (● measured, ○ predicted, ★ the headline) in the mark column. Grouped as the CLI groups
(planner.report.plan.shown_options: the rows the plan names, this machine's, the best of each GPU
model and GPU count and the best CPU), or every row. At narrow widths the columns that decide come
first — rank, target, the device in short ('A100 x8'), training time, cost, speedup, break-even —
and the rest scroll sideways; at wide ones the CLI's order. The highlighted row's notes (why it does
not fit, its caveats) show under the table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text
from textual.widgets import DataTable

from planner.report.plan import (
    MARK_COLUMN,
    PLAN_COLUMNS,
    GroupBy,
    Shown,
    device_short,
    device_text,
    plan_row,
    shown_options,
    training_time_short,
)
from planner.report.remarks import word

if TYPE_CHECKING:
    from planner.service import PlanDocument, RankedOption

ESSENTIAL = (
    MARK_COLUMN,
    "#",
    "target",
    "device",
    "training time",
    "cost",
    "speedup",
    "b-even",
    "break-even",
)
WIDE = 150  # columns at which the CLI's order fits without cutting


def column_order(width: int, rank_first: bool = True) -> list[str]:
    """The plan's columns in the order shown at `width` (every column, essentials first when narrow;
    the rank last of all when, with it, they would not fit: a rank cut at the screen's edge read 15 as 1, a trial)."""
    if width >= WIDE:
        return list(PLAN_COLUMNS)
    first = [c for c in ESSENTIAL if c in PLAN_COLUMNS and (rank_first or c != "#")]
    rest = [c for c in PLAN_COLUMNS if c not in first and c != "#"]
    return first + rest + ([] if rank_first else ["#"])


def mark(o: RankedOption, doc: PlanDocument) -> Text:
    if doc.is_recommended(o):
        return Text("★", style="bold yellow")
    return Text("●", style="green") if o.source == "measured" else Text("○", style="cyan")


def notes(o: RankedOption, rank: bool = False) -> str:
    """An option's notes as one line: its note, caveat and interval note, whichever it has; `rank`: its rank first
    (when the table's rank column is off the screen)."""
    said = (*o.note, *(x for x in (o.caveat, o.interval_note) if x is not None))
    parts = [word(x) for x in said]
    # 'A100 x8 (10%)', 'AMD EPYC'
    device = device_text(o) if o.device == "cuda" else o.device_name or o.device
    ranked = f"#{o.rank} " if rank and o.rank is not None else ""
    return f"{ranked}{o.target} ({device}): " + ("; ".join(parts) if parts else "no notes")


class PlanTable(DataTable):
    DEFAULT_CSS = """
    PlanTable { height: auto; max-height: 12; scrollbar-size-vertical: 1; }
    """

    def __init__(self, id: str | None = None):
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.doc: PlanDocument | None = None
        self.group_by: GroupBy = "gpu"
        self.listed: list[RankedOption] = []  # the options shown, in the plan's order
        self.shown: Shown | None = None
        self._order: list[str] = []

    def on_mount(self) -> None:
        self._columns(column_order(self.app.size.width))

    def _columns(self, order: list[str]) -> bool:
        if order == self._order:
            return False
        self._order = order
        self.clear(columns=True)
        for name in order:
            # its marks say more than the CLI's ✔
            self.add_column("" if name == MARK_COLUMN else name, key=name)
        return True

    def on_resize(self) -> None:
        if self._columns(column_order(self.app.size.width)) and self.doc is not None:
            self.show(self.doc)

    def _cells(self, o: RankedOption, doc: PlanDocument, narrow: bool) -> dict[str, Text]:
        """The option's cells by column: the CLI's (so the two fronts cannot disagree), short where narrow."""
        # a row that cannot run: 'failed'; its reason is under the table when the row is selected, not a cell as
        # wide as the table
        cells = dict(zip(PLAN_COLUMNS, plan_row(o, doc, note_width=0)))
        style = "bold green" if doc.is_recommended(o) else ""
        out = {name: Text.from_markup(cell, style=style) for name, cell in cells.items()}
        out[MARK_COLUMN] = mark(o, doc)  # the CLI's headline mark, plus measured or predicted
        if narrow:
            out["target"] = Text(o.target.removeprefix("aws:"), style=style)  # g5.xlarge is aws's
            # 'A100 x8'; its efficiency in the notes
            out["device"] = Text(device_short(o), style=style)
            if training_time_short(o):
                # '2.6 min (2.2-3.0)'
                out["training time"] = Text(training_time_short(o), style=style)
        return out

    def show(self, doc: PlanDocument | None) -> None:
        self.doc = doc
        row = self.cursor_row
        self.clear()
        self.listed, self.shown = [], None
        if doc is None:
            return
        self.listed, self.shown = shown_options(doc, self.group_by)
        width = self.app.size.width
        narrow = width < WIDE
        rows = [self._cells(o, doc, narrow) for o in self.listed]
        if narrow:  # the deciding columns on screen, whole: the rank goes after them when they need its room
            essential = [c for c in column_order(width) if c in ESSENTIAL]
            need = sum(
                max([cell_len(name)] + [r[name].cell_len for r in rows]) + 2 * self.cell_padding
                for name in essential
            )
            # - 1: the vertical scrollbar
            self._columns(column_order(width, rank_first=need <= width - 1))
        for cells, o in zip(rows, self.listed):
            self.add_row(
                *(cells.get(name, "") for name in self._order),
                key=f"{o.target}|{o.device}|{o.gpus_used}",
            )
        if self.row_count:
            self.move_cursor(row=min(row, self.row_count - 1))

    def toggle_rows(self) -> None:
        """Grouped rows or every row."""
        self.group_by = "none" if self.group_by == "gpu" else "gpu"
        self.show(self.doc)

    @property
    def rank_shown(self) -> bool:
        """The rank is on screen: ahead of the columns that decide, not last of all."""
        return "#" not in self._order or self._order.index("#") < len(ESSENTIAL)

    def highlighted(self) -> RankedOption | None:
        if self.doc is None or not self.row_count:
            return None
        return self.listed[self.cursor_row] if self.cursor_row < len(self.listed) else None
