"""The plan for people: the table's cells, its title and captions, read from the typed PlanDocument, for the
CLI and the TUI alike (answers.py words the answers, terse.py the short answer, plan_csv.py the data). No rule lives here: which row is
recommended, which CPU a GPU compares with and where it breaks even are the document's answers."""

from __future__ import annotations

import math
from functools import singledispatch
from typing import TYPE_CHECKING

from planner.core.document import ScriptSummary, WorkloadSummary
from planner.core.formats import UNITS
from planner.core.plan import hourly_rate
from planner.core.shown import DEFAULT_GROUP_BY, GROUP_BY, GroupBy, Shown, shown_options  # noqa: F401 - re-exported
from planner.report.remarks import note_text
from planner.report.text import escape, range_text, seconds_text, short
from planner.report.title import plan_title

if TYPE_CHECKING:
    from rich.table import Table

    from planner.core.decide import RankedOption
    from planner.core.document import PlanDocument


MARK_COLUMN = "✔"  # the headline's row; the caption says so


PLAN_COLUMNS = (
    MARK_COLUMN,
    "#",
    "target",
    "device",
    "src",
    "step",
    "1-time",
    "training time",
    "$/h",
    "cost",
    "speedup",
    "b-even",
)


LEFT_COLUMNS = ("target", "device", "src", "training time")


# To fit a narrow terminal the plan drops columns in this order (`--wide` keeps them all); what is
# dropped is still in --json, and a line under the table says so. Numbers are never cut.
DROP_ORDER = (
    "src",
    "$/h",
    "1-time",
    "step",
    "#",
)  # never the device: with the target it names the option


NOTE_WIDTH = 38


def device_text(o: RankedOption) -> str:
    """'cpu', or the GPU's name with its count and scaling efficiency: 'L4', 'A100 x8 (85%)', 'T4 2x4 (9%)'."""
    if o.device != "cuda":
        return "cpu"
    name = o.device_name or "cuda"
    instances, gpus = o.instances or 1, o.gpus_used or 1
    count = (
        f" {instances}x{gpus // instances}" if instances > 1 else f" x{gpus}" if gpus > 1 else ""
    )
    return (
        name
        + count
        + (f" ({o.scaling_efficiency:.0%})" if o.scaling_efficiency is not None else "")
    )


def device_short(o: RankedOption) -> str:
    """device_text without the scaling efficiency or a measured GPU's vendor, for a narrow column: 'cpu',
    'L4', 'A100 x8', 'T4 2x4', 'A10G' (measured as 'NVIDIA A10G')."""
    return device_text(o).split(" (")[0].removeprefix("NVIDIA ")


def _training_time(o: RankedOption, short: bool = False) -> str:
    """'2.6 min (2.2-3.0 min)': the point and its interval; said so when there is none. `short` (a narrow
    column): the unit once when both are in it, '2.6 min (2.2-3.0)'."""
    parts = _in_interval_unit(o)  # '0.7 h (0.4-2.1 h)', not '43.5 min (0.4-2.1 h)'
    if parts is None:
        return (
            f"{seconds_text(o.train_seconds)} ({'no interval' if short else 'no usable interval'})"
        )
    point, interval, unit = parts
    return f"{point} {unit} ({interval})" if short else f"{point} {unit} ({interval} {unit})"


def training_time_short(o: RankedOption) -> str:
    """The training time cell of a narrow column (the TUI at 80 columns): '2.6 min (2.2-3.0)'."""
    return _training_time(o, short=True) if o.train_seconds is not None and o.fits else ""


def _times(value: float | None, compact: bool = False) -> str:
    """'1.37x'; `compact`: three significant digits at most ('121x', '10.3x')."""
    if value is None:
        return "-"
    if not math.isfinite(value):
        return "never"  # a break-even against a free CPU with no waiting: no speedup pays for a GPU
    return (
        f"{value:.{0 if value >= 100 else 1 if value >= 10 else 2}f}x"
        if compact
        else f"{value:.2f}x"
    )


def plan_row(
    o: RankedOption,
    doc: PlanDocument | None = None,
    note_width: int = NOTE_WIDTH,
    compact: bool = False,
) -> list[str]:
    """One option as the plan's cells (rich markup), one per PLAN_COLUMNS, for the CLI's table and
    the TUI's alike. `compact` (a narrow terminal): the device without its scaling efficiency, the
    training time's unit said once."""
    mark = "✔" if doc is not None and doc.is_recommended(o) else ""
    target = o.target + (
        f" {o.region}" if doc is not None and doc.spans_regions and o.region and not o.here else ""
    )
    head = [
        mark,
        str(o.rank) if o.rank else "-",
        escape(target),
        escape(device_short(o) if compact else device_text(o)),
        "meas." if o.source == "measured" else "pred.",
    ]
    if o.train_seconds is None or not o.fits:
        what = (
            "[red]does not fit[/]"
            if not o.fits
            else "not predicted"
            if o.source == "predicted"
            else "[red]failed[/]"
        )
        step = seconds_text(o.step_seconds) if o.step_seconds else "-"
        note = note_text(o.note)
        for said in ("does not fit", "not predicted"):  # the cell already says it
            note = note[len(said) :].lstrip(":; ") if note.startswith(said) else note
        return head + [
            step,
            "",
            f"{what}: {short(note, note_width)}" if note and note_width else what,
            "",
            "",
            "",
            "",
        ]
    return head + [
        seconds_text(o.step_seconds),
        seconds_text(o.one_time_seconds),
        _training_time(o, short=compact),
        f"{hourly_rate(o):.3f}",
        money_short(o.cost_usd),
        _times(o.speedup, compact),
        _times(o.break_even_speedup, compact),
    ]


@singledispatch
def caption_of(w: WorkloadSummary) -> str:
    """What a plan's table is of, under it: a spec's."""
    return PLAN_CAPTION


@caption_of.register(ScriptSummary)
def _script_caption(w: ScriptSummary) -> str:
    """A script's."""
    return SCRIPT_CAPTION


PLAN_CAPTION = (
    "✔ the headline. src: measured or predicted. 1-time: process start, setup, warm-up, the dataset's "
    "materialisation and, on an instance, its boot (included in training time)."
)


SCRIPT_CAPTION = (
    "✔ the headline. src: measured or predicted. 1-time: the script's start, imports and setup to its first "
    "step, warm-up, the time between its epochs over the whole run (evaluation, checkpoints) and, on an "
    "instance, its boot and requirements (included in training time)."
)


PARALLEL_CAPTION = (
    " x4 (N%): four GPUs data-parallel at N% scaling efficiency; 2x8: two instances of eight GPUs "
    "(on paper)."
)


def reference_caption(doc: PlanDocument) -> str:
    """Which CPU every GPU row's speedup and break-even compare with (rule 4 of planner.core.decide)."""
    refs, plan = doc.plan.references, doc.plan
    by = (
        "fastest"
        if plan.objective == "fastest"
        else ("cheapest (with waiting)" if plan.time_value_per_hour else "cheapest")
    )
    parts = []
    if refs.get("rent"):
        parts.append(f"a rented GPU against {refs['rent']}, the {by} rented CPU")
    if refs.get("here") and any(o.device == "cuda" and o.here for o in plan.options):
        parts.append(f"this machine's GPU against {refs['here']}")
    if not parts:
        return ""
    return (
        " speedup: the reference CPU's training time / the GPU's; b(reak)-even: the ratio of their hourly rates "
        f"(instance + disk{', + waiting' if plan.time_value_per_hour else ''}): {'; '.join(parts)}."
    )


def plan_table(
    doc: PlanDocument,
    width: int | None = None,
    wide: bool = False,
    options: list[RankedOption] | None = None,
    note_width: int | None = None,
    terse: bool = False,
    titled: bool = True,
) -> Table:
    """The plan as a rich table of `options` (default: every one, in the plan's order); at most `width`
    columns wide (dropping DROP_ORDER's columns) unless `wide`. `terse`: no title and no caption (the terse answer
    says the workload above it; --explain has the legend). `titled`: False leaves the title to the caller (--explain
    says it above the answer)."""
    # --wide: the notes (mostly) whole; --json has every one
    shape = _PlanTable(
        doc,
        doc.plan.options if options is None else options,
        note_width or (90 if wide else NOTE_WIDTH),
        terse,
        titled,
    )
    if width is None:
        return shape.build()
    shape.fit(width, wide)
    table = shape.build()
    dropped = [c for c in PLAN_COLUMNS if c not in shape.columns]
    if (dropped or shape.compact) and not terse:
        parallel = shape.compact and any((o.gpus_used or 1) > 1 for o in shape.options)
        said = [*dropped, *(["scaling efficiency"] if parallel else [])]
        table.caption = (
            f"{table.caption} Not shown at this width: {', '.join(said)} (--wide shows them)."
        )
    return table


class _PlanTable:
    """A plan table's shape: its columns, its note width and whether its cells are compact; `fit` narrows it to a
    width."""

    def __init__(
        self, doc: PlanDocument, options: list[RankedOption], notes: int, terse: bool, titled: bool
    ) -> None:
        self.doc, self.options, self.notes, self.terse, self.titled = (
            doc,
            options,
            notes,
            terse,
            titled,
        )
        self.columns = list(PLAN_COLUMNS)
        self.compact = False
        self._widest_rows: dict[tuple[int, bool], list[RankedOption]] = {}

    def build(self, rows: list[RankedOption] | None = None) -> Table:
        from rich import box
        from rich.table import Table

        doc, options = self.doc, self.options
        parallel = any((o.gpus_used or 1) > 1 for o in options)
        caption = (
            caption_of(doc.workload)
            + escape(reference_caption(doc))
            + (PARALLEL_CAPTION if parallel else "")
        )
        t = Table(
            title=None if self.terse or not self.titled else plan_title(doc),
            title_justify="left",
            box=box.SIMPLE_HEAD,
            pad_edge=False,
            collapse_padding=self.compact,
            caption=None if self.terse else caption,
            caption_justify="left",
        )
        for name in self.columns:
            t.add_column(name, no_wrap=True, justify="left" if name in LEFT_COLUMNS else "right")
        keep = [PLAN_COLUMNS.index(c) for c in self.columns]
        for o in options if rows is None else rows:
            cells = plan_row(o, doc, self.notes, self.compact)
            t.add_row(
                *(cells[i] for i in keep), style="bold green" if doc.is_recommended(o) else None
            )
        return t

    def fit(self, width: int, wide: bool) -> None:
        """Narrowed to `width`: DROP_ORDER's columns dropped (not with `wide`), then shorter cells ('A100 x8',
        '2.6 min (2.2-3.0)'), then the notes of rows that cannot run cut (failed_lines has them whole: a long reason
        never squeezes the columns, --wide's included), then none."""
        from rich.console import Console

        measure = Console(width=10_000)

        def too_wide() -> bool:
            return measure.measure(self.build(self._widest())).maximum > width

        for name in [] if wide else DROP_ORDER:  # --wide: every column, however wide
            if not too_wide():
                break
            self.columns.remove(name)
        self.compact = not wide and too_wide()
        while too_wide() and self.notes > 12:
            self.notes -= 4
        if too_wide() and not wide:
            self.notes = 0  # 'failed', 'does not fit': the reason is under the table

    def _widest(self) -> list[RankedOption]:
        """The rows with the widest cell of some column. Every column is no_wrap, so the table is as wide as its
        widest cell per column: measuring those rows alone is exact, and fast on a catalog of hundreds of instances
        (measuring every row, five times over, took seconds)."""
        from rich.text import Text

        key = (self.notes, self.compact)
        if key not in self._widest_rows:
            widest: dict[int, tuple[int, int]] = {}
            for row, o in enumerate(self.options):
                for col, cell in enumerate(plan_row(o, self.doc, self.notes, self.compact)):
                    size = Text.from_markup(cell).cell_len
                    if size > widest.get(col, (-1, 0))[0]:
                        widest[col] = (size, row)
            rows = sorted({r for _, r in widest.values()})
            self._widest_rows[key] = [self.options[r] for r in rows]
        return self._widest_rows[key]


def shown_line(shown: Shown, every: str = "--all for every row") -> str:
    """Under a grouped table: how many rows of how many, and how to see them all ('' when none is left out)."""
    return f"{len(shown.indices)} of {shown.total} rows shown; {every}" if shown.omitted else ""


def money_short(usd: float | None) -> str:
    """A cost with at least two significant figures, so two costs compare: $0, $0.0081, $0.019, $0.24, $2.8, $12,
    $1,235 ('-' when there is none)."""
    if usd is None or not math.isfinite(usd):
        return "-"
    if usd == 0:
        return "$0"
    if usd >= 100:
        return f"${usd:,.0f}"
    rounded = float(f"{usd:.2g}")  # two significant figures first: 0.00999 is $0.010, not $0.0100
    return f"${rounded:,.{max(0, 1 - math.floor(math.log10(abs(rounded))))}f}"


def _in_interval_unit(o: RankedOption) -> tuple[str, str, str] | None:
    """(point, interval, unit) of the training time, the point written in its interval's unit so the rounded point is
    inside the rounded interval: ('2.6', '2.2-3.1', 'min'); None without a point or a usable interval."""
    point, high = o.train_seconds, o.train_seconds_high
    if point is None or high is None or not math.isfinite(high):
        return None
    interval, unit = range_text(o.train_seconds_low or 0.0, high).rsplit(" ", 1)
    _, scale, _, digits = next(u for u in UNITS if u[0] == unit)
    return f"{point / scale:.{digits}f}", interval, unit


def time_interval_text(o: RankedOption) -> str:
    """'2.6 min (2.2-3.1 min)' (see _in_interval_unit); the point alone when the option has no interval."""
    parts = _in_interval_unit(o)
    low, high = o.train_seconds_low, o.train_seconds_high
    if parts is None or low is None or high is None or high <= low:
        return seconds_text(o.train_seconds) if o.train_seconds is not None else "-"
    point, interval, unit = parts
    return f"{point} {unit} ({interval} {unit})"
