"""The plan for people: the table's cells, its title and captions, the headline and the two answers —
all read from the typed PlanDocument, for the CLI and the TUI alike. No rule lives here: which row is
recommended, which CPU a GPU compares with and where it breaks even are the document's answers."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from planner.core.document import SCRIPT_KIND
from planner.core.formats import UNITS
from planner.core.plan import billed_cost, hourly_rate, option_name
from planner.core.script import LENGTH_NOT_GIVEN
from planner.core.shown import DEFAULT_GROUP_BY, GROUP_BY, GroupBy, Shown, shown_options  # noqa: F401 - re-exported
from planner.report.text import escape, range_text, seconds_text, short
from planner.report.why import (
    answer_reason,
    choice_reason,
    choice_text,
    headline_reason,
    task_choice_text,
)

if TYPE_CHECKING:
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
        note = o.note
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


def given_duration(seconds: float | None) -> str:
    """A duration the user gave (--deadline 1h), said as given: '1 h', '90 min'; else as the table says it."""
    for unit, scale in (("d", 86400.0), ("h", 3600.0), ("min", 60.0), ("s", 1.0)):
        if seconds and seconds >= scale and abs(seconds / scale - round(seconds / scale)) < 1e-9:
            return f"{round(seconds / scale)} {unit}"
    return seconds_text(seconds)


def plan_title(doc: PlanDocument) -> str:
    w, plan = doc.workload, doc.plan
    objective = (
        plan.objective
        if plan.objective != "deadline"
        else f"cheapest within {given_duration(plan.deadline_seconds)}"
    )
    rule = ""
    if plan.headline_time_value is not None and doc.has_both_answers:
        rule = f"; here vs rent at ${plan.headline_time_value:g}/h of waiting" + (
            " (default)" if doc.headline_time_value_is_default else ""
        )
    if (
        w.kind == SCRIPT_KIND
    ):  # the script sets its own batch; its epochs when a DataLoader epoch was seen
        epochs = f" ({_epochs_of(w.total_steps, w.steps_per_epoch)})" if w.steps_per_epoch else ""
        return escape(
            " ".join([w.name, *(w.script_args or [])])
            + f": {w.total_steps:,} optimizer steps{epochs}, as the script "
            f"runs them; objective: {objective}{rule}"
        )
    return escape(
        f"{w.name}: {w.total_steps:,} steps ({w.epochs:,} epochs x {w.steps_per_epoch:,}), "
        f"batch {w.batch_size:,}; objective: {objective}{rule}"
    )


def _epochs_of(steps: int, per_epoch: int) -> str:
    """A script's steps in epochs, as exact as the arithmetic: '40 epochs x 128', '319.5 epochs of 313 steps'."""
    epochs = steps / per_epoch
    if steps % per_epoch == 0:
        return f"{steps // per_epoch:,} epoch{'' if steps == per_epoch else 's'} x {per_epoch:,}"
    return (
        f"{epochs:,.1f} epochs of {per_epoch:,} steps"
        if epochs >= 1
        else f"{epochs:.2g} of an epoch of {per_epoch:,} steps"
    )


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
    by = "fastest" if plan.objective == "fastest" else "cheapest"
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
):
    """The plan as a rich table of `options` (default: every one, in the plan's order); at most `width`
    columns wide (dropping DROP_ORDER's columns) unless `wide`. `terse`: no title and no caption (the terse answer
    says the workload above it; --explain has the legend)."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    columns = list(PLAN_COLUMNS)
    notes: int = note_width or (
        90 if wide else NOTE_WIDTH
    )  # --wide: the notes (mostly) whole; --json has every one
    compact = False
    options = doc.plan.options if options is None else options

    def build(rows: list | None = None) -> Table:
        parallel = any((o.gpus_used or 1) > 1 for o in options)
        caption = (
            (SCRIPT_CAPTION if doc.workload.kind == SCRIPT_KIND else PLAN_CAPTION)
            + escape(reference_caption(doc))
            + (PARALLEL_CAPTION if parallel else "")
        )
        t = Table(
            title=None if terse else plan_title(doc),
            title_justify="left",
            box=box.SIMPLE_HEAD,
            pad_edge=False,
            collapse_padding=compact,
            caption=None if terse else caption,
            caption_justify="left",
        )
        for name in columns:
            t.add_column(name, no_wrap=True, justify="left" if name in LEFT_COLUMNS else "right")
        keep = [PLAN_COLUMNS.index(c) for c in columns]
        for o in options if rows is None else rows:
            cells = plan_row(o, doc, notes, compact)
            t.add_row(
                *(cells[i] for i in keep), style="bold green" if doc.is_recommended(o) else None
            )
        return t

    if wide or width is None:
        return build()
    measure = Console(width=10_000)
    widest_rows: dict[tuple[int, bool], list] = {}  # by note width and compactness

    def too_wide() -> bool:
        """Whether the table is wider than `width`. Every column is no_wrap, so the table is as wide as
        its widest cell per column: measuring those rows alone is exact, and fast on a catalog of
        hundreds of instances (measuring every row, five times over, took seconds)."""
        from rich.text import Text

        key = (notes, compact)
        if key not in widest_rows:
            widest: dict[int, tuple[int, int]] = {}
            for row, o in enumerate(options):
                for col, cell in enumerate(plan_row(o, doc, notes, compact)):
                    size = Text.from_markup(cell).cell_len
                    if size > widest.get(col, (-1, 0))[0]:
                        widest[col] = (size, row)
            widest_rows[key] = [options[r] for r in sorted({r for _, r in widest.values()})]
        return measure.measure(build(widest_rows[key])).maximum > width

    for name in DROP_ORDER:
        if not too_wide():
            break
        columns.remove(name)
    compact = too_wide()  # then shorter cells: 'A100 x8', '2.6 min (2.2-3.0)'
    while (
        too_wide() and notes > 12
    ):  # then the notes of rows that cannot run (failed_lines has them whole)
        notes -= 4
    if too_wide():
        notes = 0  # 'failed', 'does not fit': the reason is under the table
    table = build()
    dropped = [c for c in PLAN_COLUMNS if c not in columns]
    if (dropped or compact) and not terse:
        said = [
            *dropped,
            *(
                ["scaling efficiency"]
                if compact and any((o.gpus_used or 1) > 1 for o in options)
                else []
            ),
        ]
        table.caption = (
            f"{table.caption} Not shown at this width: {', '.join(said)} (--wide shows them)."
        )
    return table


def shown_line(shown: Shown, every: str = "--all for every row") -> str:
    """Under a grouped table: how many rows of how many, and how to see them all ('' when none is left out)."""
    return f"Shown {len(shown.indices)} of {shown.total} options; {every}" if shown.omitted else ""


VERDICT_TITLES = {
    "clear": "Recommendation",
    "only_option": "Recommendation",
    "likely": "Recommendation (likely)",
    "too_close": "Too close to call",
    "deadline_missed": "Deadline cannot be met",
    "nothing_fits": "No option can run this workload",
    "failed": "No benchmark succeeded",
}


def headline_label(doc: PlanDocument) -> str:
    """The headline's first words, plain: 'Recommendation: local (cpu)', 'Too close to call: ...'."""
    rec = doc.recommendation
    option = doc.recommended
    device = (
        device_text(option) if option is not None else rec.device
    )  # "L4", "A100 x8 (85%)": as in the table
    target = f": {rec.target} ({device})" if rec.target else ""
    return VERDICT_TITLES[rec.verdict] + target


def recommendation_text(doc: PlanDocument, prefix: str = "") -> str:
    """The headline: the verdict, where, and why (here or rent, when the plan has both answers)."""
    why = choice_text(doc.plan) or headline_reason(doc.plan)
    why = (
        why if why.startswith(("aws:", "local")) else why[:1].upper() + why[1:]
    )  # a target keeps its case
    return f"{prefix}[bold]{escape(headline_label(doc))}.[/] {escape(why)}."


def answers_text(doc: PlanDocument) -> list[str]:
    """The two answers under the headline: training here, and the best instance to rent."""
    if not doc.has_both_answers or any(
        rec.verdict == "failed" for rec in doc.plan.answers.values()
    ):
        return []  # one answer is the headline itself (a failed one is in the headline's "not compared" and failed_lines)
    return [
        f"  [bold]{label}:[/] {escape(answer_reason(doc.plan, rec))}."
        for key, label in (("here", "Here"), ("rent", "If you rent"))
        if (rec := doc.answer(key)) is not None  # type: ignore[arg-type]
    ]


def failed_lines(doc: PlanDocument) -> list[str]:
    """Each failed benchmark with its whole reason (the table's cell is cut to fit): the headline of a
    plan where some targets failed and others did not names only the latter."""
    if doc.recommendation.verdict == "failed":
        return []  # the headline is the failures, whole
    return [
        f"  [red]Failed:[/] {escape(o.target)} ({escape(device_text(o))}): {escape(' '.join(o.note.split()))}"
        for o in doc.failed
    ]


def plan_answers(doc: PlanDocument) -> list[tuple[str, str]]:
    """(key, markup) of what a plan answers, as the CLI prints it: the headline ("recommendation"),
    the failed benchmarks ("failed") and the "here" and "rent" answers."""
    out = [("recommendation", recommendation_text(doc))]
    out += [("failed", line) for line in failed_lines(doc)]
    keys = [key for key in ("here", "rent") if doc.answer(key) is not None]  # type: ignore[arg-type]
    return (
        out
        + [(key, line.strip()) for key, line in zip(keys, answers_text(doc))]
        + [("task", line.strip()) for line in task_choice_lines(doc)]
    )


def unterminated_lines(doc: PlanDocument | None) -> list[str]:
    """What a run could not terminate, each a plain sentence with the command that will — `planner
    run`'s words, for the TUI's run pane too."""
    return [x.line() for x in (doc.unterminated or [])] if doc is not None else []


NO_BENCHMARK = "No paid benchmark needed: training here wins clearly, and measuring an instance would not change that"


def predicted_footer(
    doc: PlanDocument, spec: str, script_args: list[str] | None = None, explain: bool = True
) -> list[str]:
    """Under a plan with predicted rows (plain lines): where they come from, and the paid benchmarks that
    would settle it, with the command that runs them. Not `explain` (the terse default): that command alone."""
    measured_here = any(
        o.target == "local" and o.source == "measured" and o.train_seconds for o in doc.plan.options
    )
    cpus = (
        "this machine's step scaled by processor, +-40%"
        if measured_here
        else "nothing was measured here, so from the work alone (a roofline), +-60%"
    )
    prices = doc.prices
    lines = [
        f"\nPredicted rows come from the device model (GPUs: fitted to published training measurements, "
        f"interval from its error there; CPU instances: {cpus}); "
        + (f"prices: {prices.source}, as of {prices.as_of}." if prices else "prices: as listed.")
    ]
    benchmark = doc.suggested_benchmarks
    if benchmark:
        lines.append("A paid benchmark would settle:")
        lines += [f"  {c.target}: {choice_reason(c)}" for c in benchmark]
        after = f" -- {' '.join(script_args)}" if script_args else ""
        commands = [
            f"planner run {spec} --targets local,{','.join(ts)} --region {region}{after}"
            for region, ts in benchmark_regions(doc, benchmark).items()
        ]  # a run launches in one region
        if not explain:
            return [f"A paid benchmark would settle it: {' ; '.join(commands)}"]
        lines += [
            f"  -> {command}"
            + (
                ""
                if doc.workload.kind == SCRIPT_KIND or doc.spans_regions
                else "   (or --targets auto)"
            )
            for command in commands
        ]
    elif not explain:
        return []
    elif doc.benchmark and doc.trains_here_clearly:
        lines.append(
            f'{NO_BENCHMARK} (should you rent anyway, --json lists the ones that would settle which: "benchmark").'
        )
    lines.append(
        f"Not worth benchmarking: {len(doc.skipped or [])} instance(s) (see --json for each reason)."
    )
    return lines


def benchmark_regions(doc: PlanDocument, benchmark: list) -> dict[str, list[str]]:
    """The suggested benchmarks' targets by the region each is planned in (the plan's region, unless it spans several:
    then each instance's cheapest)."""
    if not doc.spans_regions:
        return {doc.options.region: [c.target for c in benchmark]}
    where = {o.target: o.region for o in doc.plan.options if o.region}
    out: dict[str, list[str]] = {}
    for c in benchmark:
        out.setdefault(where.get(c.target) or "us-east-1", []).append(c.target)
    return out


def task_choice_lines(doc: PlanDocument) -> list[str]:
    """A SkyPilot task's own pick (its resources), priced against the answer to renting (else the headline): a line
    under the answers, for both fronts."""
    if doc.task_choice is None:
        return []

    rent = doc.answer("rent")
    answer = (
        doc.plan.option_of(rent) if rent is not None and doc.has_both_answers else doc.recommended
    )
    name = "the answer to renting" if rent is not None and doc.has_both_answers else "the headline"
    text = task_choice_text(
        doc.task_choice.source,
        doc.task_choice.written,
        doc.task_option,
        len(doc.task_choice.targets),
        answer,
        doc.options.region,
        name,
    )
    return [f"  [bold]Your task:[/] {escape(text)}."]


# ----------------------------------------------------------------------------- the terse answer (issue 40)
#
# The default of `estimate`, `run` and `plan`: line 1 the workload and the question, then the answer (what to do,
# its time with its interval and cost, how sure), the one reason here or rent, the one reason GPU or not; the
# grouped table; one line of warnings. `--explain` prints the reasoning whole (plan_answers, the captions, the
# footer); `--verbose` every warning and note. Every number is read from the document's typed facts.

TERSE_ROWS = (
    12  # the table's rows by default on a terminal: with the answer above it, 80x24 holds it all
)


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


def _what(o: RankedOption, doc: PlanDocument | None = None) -> str:
    """What the answer says to do with an option: 'Train here', 'Train here on its GPU (RTX 4090)',
    'Rent aws:g4dn.xlarge (T4)' ('... in us-east-2' when the plan spans regions)."""
    if o.here:
        return "Train here" + (f" on its GPU ({device_short(o)})" if o.device == "cuda" else "")
    where = f" in {o.region}" if doc is not None and doc.spans_regions and o.region else ""
    return f"Rent {option_name(o)} ({device_short(o)}){where}"


VERDICT_TAGS = {
    "clear": "",
    "only_option": "",
    "likely": " — likely, not certain",
    "too_close": " — too close to call",
    "deadline_missed": " — the deadline is not met for sure",
}


def answer_line(doc: PlanDocument) -> str:
    """The answer in one line (markup): what to do, its time and interval, its cost, how sure."""
    rec, o = doc.recommendation, doc.recommended
    if o is None:
        reason = " ".join(headline_reason(doc.plan).split())
        return f"[bold red]{escape(VERDICT_TITLES[rec.verdict])}[/]: {escape(reason)}"  # whole: each failure's fix
    rate = "" if o.here else f" at ${hourly_rate(o):.3g}/h"
    return (
        f"[bold]{escape(_what(o, doc))}: {time_interval_text(o)}, {money_short(o.cost_usd)}{rate}[/]"
        f"{VERDICT_TAGS.get(rec.verdict, '')}."
    )


def _here_or_rent_line(doc: PlanDocument) -> str:
    """Why this answer and not the other (here or rent): the other's time and cost, and how much more it comes to."""
    rec, cmp = doc.recommendation, doc.recommendation.choice_comparison
    if cmp is None or not doc.has_both_answers:
        return ""
    other_name = "rent" if rec.answer == "here" else "here"
    other_rec = doc.answer(other_name)  # type: ignore[arg-type]
    other = doc.plan.option_of(other_rec) if other_rec is not None else None
    if other is None:
        return ""
    what = (
        _what(other, doc)
        .replace("Train here", "Training here")
        .replace("Rent ", "Renting ")
        .replace(" (cpu)", "")
    )
    facts = (
        f"{seconds_text(other.train_seconds)}{_boot_share(other)}, {money_short(other.cost_usd)}"
    )
    if cmp.metric == "training time":
        how = f"{_times(cmp.ratio, True)} slower" if math.isfinite(cmp.ratio) else "slower"
    elif cmp.winner_value <= 0:
        how = f"{money_short(cmp.runner_up_value)} where training here costs nothing"
    else:
        how = f"{_times(cmp.ratio, True)} the cost"  # with the waiting the title names
    close = f" (within {cmp.band_reason})" if cmp.verdict == "too_close" else ""
    return f"  {escape(what)}: {facts} — {how}{escape(close)}."


def _rival_line(doc: PlanDocument) -> str:
    """A close call inside one answer that would swap here and rent: why the headline is too close to call although
    here against rent is not."""
    rec = doc.recommendation
    by_key = {o.key: option_name(o) for o in doc.plan.options}
    if not rec.choice_rival:
        return ""
    rival, pick = (by_key.get(k or "", k or "") for k in (rec.choice_rival, rec.choice_rival_of))
    return f"  Close call: {escape(rival)} is within the noise of {escape(pick)} and in its place would change this answer."


def _gpu_line(doc: PlanDocument) -> str:
    """Rule 4 in one line, for renting (this machine's GPU when nothing is rented): the GPU that pays off, or the best
    one and the break-even it misses."""
    place = "rent" if doc.answer("rent") is not None else "here"
    answer = doc.answer(place)  # type: ignore[arg-type]
    chosen = doc.plan.option_of(answer) if answer is not None else None
    gpus = [
        o
        for o in doc.plan.options
        if o.here == (place == "here")
        and o.device == "cuda"
        and o.usable
        and o.speedup is not None
        and o.break_even_speedup is not None
    ]
    if not gpus or chosen is None:
        return ""
    gpu = chosen if chosen.device == "cuda" and chosen.speedup is not None else gpus[0]
    ref = gpu.reference or "the reference CPU"
    speed = f"{gpu.speedup:.2f}x the speed of {ref}"
    be = gpu.break_even_speedup or 0.0
    if doc.plan.objective == "fastest":
        return f"  Fastest GPU: {escape(device_short(gpu))} at {escape(speed)}."
    if gpu is chosen:
        return f"  The {escape(device_short(gpu))} pays off: {escape(speed)}, break-even {_times(be, True)}."
    needs = (
        f"needs {_times(be, True)}" if math.isfinite(be) else "no speedup pays against a free CPU"
    )
    return f"  No GPU pays off: best is {escape(device_short(gpu))} at {escape(speed)}, {needs}."


def _close_instances_line(doc: PlanDocument) -> str:
    """The answer's own instance a close call (rule 2 inside one kind of place): said apart, so it does not colour
    the rent-or-not answer."""
    rec = doc.recommendation
    answer = doc.answer(rec.answer) if rec.answer else None  # type: ignore[arg-type]
    cmp = answer.comparison if answer is not None else None
    if cmp is None or cmp.verdict != "too_close":
        return ""
    what = "the time" if cmp.metric.startswith("training time") else "the cost"
    band = cmp.band_reason.split(",")[
        0
    ]  # "10%, the margin" -> "10%"; the noise band's reason whole is in --explain
    return f"  Close call: {escape(cmp.runner_up)} at {_times(cmp.ratio, True)} {what}, within {escape(band)}."


def _boot_share(o: RankedOption) -> str:
    """' (2.5 min of it boot)' when an instance's one-time start (its boot, setup) is most of its training time: why
    every GPU of a short run takes the same minutes."""
    once, total = o.one_time_seconds, o.train_seconds
    if o.here or not once or not total or once < total / 2:
        return ""
    return f" ({seconds_text(once)} start-up)"


def length_line(doc: PlanDocument) -> str:
    """A script planned without its length: said whole under the answer, since the answer may change with it."""
    said = next((w for w in doc.plan.warnings if w.startswith(LENGTH_NOT_GIVEN)), "")
    return f"  [yellow]{escape(said[:1].upper() + said[1:])}[/]" if said else ""


def terse_answer(doc: PlanDocument) -> list[str]:
    """The answer and its reasons (markup lines): see the section's comment."""
    lines = [
        answer_line(doc),
        length_line(doc),
        _here_or_rent_line(doc),
        _rival_line(doc),
        _gpu_line(doc),
        _close_instances_line(doc),
    ]
    return [line for line in lines if line]


def terse_title(doc: PlanDocument) -> str:
    """Line 1: the workload and the question. 'surface-mlp: 2,000 steps of batch 40,000; cheapest, waiting at $5/h
    (default)'."""
    w, plan = doc.workload, doc.plan
    if w.kind == SCRIPT_KIND:
        what = " ".join([w.name, *(w.script_args or [])]) + f": {w.total_steps:,} optimizer steps"
    else:
        what = f"{w.name}: {w.total_steps:,} steps of batch {w.batch_size:,}"
    question = (
        f"cheapest within {given_duration(plan.deadline_seconds)}"
        if plan.objective == "deadline"
        else plan.objective
    )
    if (
        plan.headline_time_value is not None
        and doc.has_both_answers
        and plan.objective != "fastest"
    ):
        question += f", waiting at ${plan.headline_time_value:g}/h" + (
            " (default)" if doc.headline_time_value_is_default else ""
        )
    if doc.spans_regions:
        question += "; each instance in its cheapest region" + (
            "" if doc.options.region == "all" else f" of {doc.options.region.replace(',', ', ')}"
        )
    return escape(f"{what}; {question}")


def terse_footer(
    doc: PlanDocument, shown: Shown, dropped: list[str], width: int, verbose: bool = False
) -> list[str]:
    """Under the table: how many rows of how many and the flags that show more; the warnings in one line (none when
    `verbose`: they follow whole)."""
    more = (
        [f"--all every row ({len(shown.indices)} of {shown.total} shown)"] if shown.omitted else []
    )
    if dropped:
        more.append("--wide every column")
    more.append("--explain why")
    lines = [", ".join(more)]
    warnings = [
        w for w in doc.plan.warnings if not w.startswith(LENGTH_NOT_GIVEN)
    ]  # that one is under the answer
    if warnings and not verbose:
        first = " ".join(warnings[0].split())
        count = f"{len(warnings)} warnings" if len(warnings) > 1 else "warning"
        tail = " (--verbose: all)" if len(warnings) > 1 else ""
        room = max(20, width - len(count) - len(tail) - 4)
        lines.append(f"[yellow]{count}[/]: {short(first, room)}{tail}")
    return lines


# ----------------------------------------------------------------------------- the plan as data (issue 40)

PLAN_CSV_COLUMNS = (
    "rank",
    "recommended",
    "target",
    "instance_type",
    "region",
    "purchase",
    "device",
    "device_name",
    "gpus",
    "instances",
    "source",
    "step_s",
    "step_low_s",
    "step_high_s",
    "one_time_s",
    "train_s",
    "train_low_s",
    "train_high_s",
    "usd_per_hour",
    "cost_usd",
    "cost_low_usd",
    "cost_high_usd",
    "speedup",
    "speedup_low",
    "speedup_high",
    "break_even_speedup",
    "reference",
    "scaling_efficiency",
    "fits",
    "failed",
    "note",
)


def _number(value: float | int | None) -> str:
    """A CSV number: repr-exact, empty when there is none (or no finite value)."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return ""
    return repr(value) if isinstance(value, float) else str(value)


def plan_csv_rows(doc: PlanDocument) -> list[list[str]]:
    """Every option of the plan (not the grouped view), in its order, as numbers in SI units (seconds, USD per hour
    and USD, ratios) and plain words; empty where an option has no such value. A spreadsheet or pandas reads them as
    numbers (issue 40: never display text)."""
    out = []
    for o in doc.plan.options:
        cost_low = cost_high = None
        if o.train_seconds_low is not None and o.train_seconds_high is not None and o.usable:
            cost_low = billed_cost(o, o.train_seconds_low)
            cost_high = (
                billed_cost(o, o.train_seconds_high)
                if math.isfinite(o.train_seconds_high)
                else None
            )
        out.append(
            [
                _number(o.rank),
                "true" if doc.is_recommended(o) else "false",
                o.target,
                o.instance_type or "",
                o.region or "",
                o.purchase or "",
                o.device,
                o.device_name or "",
                _number(o.gpus_used or 0),
                _number(o.instances),
                o.source,
                _number(o.step_seconds),
                _number(o.step_seconds_low),
                _number(o.step_seconds_high),
                _number(o.one_time_seconds),
                _number(o.train_seconds),
                _number(o.train_seconds_low),
                _number(o.train_seconds_high),
                _number(hourly_rate(o)),
                _number(o.cost_usd),
                _number(cost_low),
                _number(cost_high),
                _number(o.speedup),
                _number(o.speedup_low),
                _number(o.speedup_high),
                _number(o.break_even_speedup),
                o.reference or "",
                _number(o.scaling_efficiency),
                "true" if o.fits else "false",
                "true" if o.failed else "false",
                " ".join(o.note.split()),
            ]
        )
    return out
