"""The terse answer (issue 40), in the field's shape: the title line, the answer in two or three lines (what to do,
its time and interval, its cost, the one reason); what goes under the table is report/footer.py's."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from planner.core.document import PlanOptions, ScriptSummary
from planner.core.plan import hourly_rate, option_name
from planner.core.ratios import time_ratio
from planner.core.remarks import (
    BusyWhileMeasured,
    DeadlineMissed,
    EmulatedPrecision,
    LengthNotGiven,
    NoGpuRows,
    PredictedHere,
)
from planner.core.script.length import own_length
from planner.report.remarks import word
from planner.report.remarks.script import length_changes
from planner.report.text import escape, seconds_text
from planner.report.why import band_text, headline_reason

if TYPE_CHECKING:
    from planner.core.decide import RankedOption
    from planner.core.document import PlanDocument
    from planner.core.plan import Comparison, Recommendation

from planner.report.answers import VERDICT_TITLES
from planner.report.gpu_line import gpu_line
from planner.report.plan import _times, device_short, money_short, time_interval_text
from planner.report.title import given_duration, workload_what

# the table's rows by default on a terminal: with the answer above it, 80x24 holds it all
TERSE_ROWS = 12


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
}


def _deadline_tag(o: RankedOption, deadline: float | None) -> str:
    """Why an answer is not sure to meet the deadline: its point within it and its interval past it (it may miss),
    or its point past it too (it misses; the fastest there is)."""
    if deadline is None:
        return ""
    due = given_duration(deadline)
    if (
        o.train_seconds is not None
        and o.train_seconds <= deadline
        and o.train_seconds_high is not None
    ):
        return f" — may miss the {due} deadline (up to {seconds_text(o.train_seconds_high)})"
    return f" — misses the {due} deadline; no option is sure to meet it"


def answer_line(doc: PlanDocument) -> str:
    """The answer in one line (markup): what to do, its time and interval, its cost, how sure."""
    rec, o = doc.recommendation, doc.recommended
    if o is None:
        reason = " ".join(headline_reason(doc.plan).split())
        return f"[bold red]{escape(VERDICT_TITLES[rec.verdict])}[/]: {escape(reason)}"  # whole: each failure's fix
    rate = "" if o.here else f" at ${hourly_rate(o):.3g}/h"
    tag = (
        _deadline_tag(o, doc.plan.deadline_seconds)
        if rec.verdict == "deadline_missed"
        else VERDICT_TAGS.get(rec.verdict, "")
    )
    return (
        f"[bold]{escape(_what(o, doc) + _once_changed(doc, o))}: {time_interval_text(o)}, "
        f"{money_short(o.cost_usd)}{rate}[/]{escape(tag)}."
    )


def _once_changed(doc: PlanDocument, o: RankedOption) -> str:
    """A CPU option of a script that stops on a CPU as written (before its first step here): what it needs first
    (a trial: 'Train here: 25.0 s' for a script that crashes here, the condition a line below)."""
    stops = any(isinstance(w, PredictedHere) and w.stops for w in doc.plan.warnings)
    return " once the script's device lines allow a CPU" if stops and o.device == "cpu" else ""


def _other_answer(doc: PlanDocument) -> Recommendation | None:
    """The answer the headline is not (here when it rents, rent when it trains here), or None."""
    return doc.answer("rent" if doc.recommendation.answer == "here" else "here")


def _other_option(doc: PlanDocument) -> RankedOption | None:
    """The option of _other_answer, or None."""
    other = _other_answer(doc)
    return doc.plan.option_of(other) if other is not None else None


def _here_or_rent_line(doc: PlanDocument) -> str:
    """Why this answer and not the other (here or rent): the other's time and cost, and how much more it comes to."""
    cmp = doc.recommendation.choice_comparison
    other = _other_option(doc) if doc.has_both_answers else None
    if other is None:
        return ""
    what = (
        _what(other, doc)
        .replace("Train here", "Training here")
        .replace("Rent ", "Renting ")
        .replace(" (cpu)", "")
    ) + _at_this_length(doc, other)
    what += _once_changed(doc, other)
    facts = (
        f"{seconds_text(other.train_seconds)}{_boot_share(other)}, {money_short(other.cost_usd)}"
    )
    missed = _other_answer(doc)
    by_deadline = _deadline_words(other, doc.plan.deadline_seconds)
    if doc.recommendation.choice_basis == "deadline":
        # the answer met the deadline and the other is not sure to: no comparison, the deadline decided
        return f"  {escape(what)}: {facts} — {by_deadline}."
    if cmp is None:
        return ""
    if cmp.metric == "training time":
        how = f"{_times(cmp.ratio, True)} slower" if math.isfinite(cmp.ratio) else "slower"
    elif cmp.winner_value <= 0:
        how = "training here costs nothing"  # its dollars are beside it already
    elif cmp.verdict != "too_close" and _slower_and_dearer(other, doc.recommended):
        how = "slower, dearer"  # whatever the waiting is worth: no ratio to weigh
    else:
        how = f"{_times(cmp.ratio, True)} {_compared(cmp)}"
    close = f" (within {band_text(cmp)})" if cmp.verdict == "too_close" else ""
    # neither sure to meet the deadline: the other's miss said too, not only the answer's
    also = f"; {by_deadline}" if missed is not None and missed.verdict == "deadline_missed" else ""
    return f"  {escape(what)}: {facts} — {how}{escape(close)}{also}."


def _at_this_length(doc: PlanDocument, other: RankedOption) -> str:
    """' at 1,000 steps' for a rent in a plan without its length whose crossover rents another instance above it (a
    trial read 'rent aws:c7i.xlarge above' and 'Renting aws:c6i.xlarge' as a contradiction)."""
    given = next((w for w in doc.plan.warnings if isinstance(w, LengthNotGiven)), None)
    if other.here or given is None:
        return ""
    rents = {after for _, _, after in given.crossovers if after not in ("local", "none")}
    return f" at {given.per_steps:,} steps" if rents - {other.target} else ""


def _deadline_words(o: RankedOption, deadline: float | None) -> str:
    """How an option stands against the deadline it is not sure to meet: it misses it, it may (its point within,
    its interval past), or it has no interval to hold to it. '' with no deadline."""
    if deadline is None:
        return ""
    due = given_duration(deadline)
    if o.train_seconds is None or o.train_seconds > deadline:
        return f"misses the {due} deadline"
    if o.train_seconds_high is None:
        return f"no interval to hold to the {due} deadline"
    return f"may miss the {due} deadline (up to {seconds_text(o.train_seconds_high)})"


def _rival_line(doc: PlanDocument) -> str:
    """A close call inside one answer that would swap here and rent: why the headline is too close to call although
    here against rent is not."""
    rec = doc.recommendation
    by_key = {o.key: option_name(o) for o in doc.plan.options}
    if not rec.choice_rival:
        return ""
    rival, pick = (by_key.get(k or "", k or "") for k in (rec.choice_rival, rec.choice_rival_of))
    # in its place the headline flips or only becomes too close to call: either way it could go (a trial read
    # 'would change this answer' where renting still won)
    return (
        f"  Close call: {escape(rival)} is within the noise of {escape(pick)}; in its place, here against rent "
        "could go either way."
    )


def _close_instances_line(doc: PlanDocument) -> str:
    """The answer's own instance a close call (rule 2 inside one kind of place): said apart, so it does not colour
    the rent-or-not answer. Nothing when the rival line names that pair already (a trial read two close calls)."""
    rec = doc.recommendation
    answer = doc.answer(rec.answer) if rec.answer else None  # type: ignore[arg-type]
    cmp = answer.comparison if answer is not None else None
    if cmp is None or cmp.verdict != "too_close":
        return ""
    chosen = doc.plan.option_of(answer) if answer is not None else None
    rival = next((o for o in doc.plan.options if o.key == rec.choice_rival), None)
    if (
        chosen is not None
        and rival is not None
        and rec.choice_rival_of == chosen.key
        and option_name(rival) == cmp.runner_up
    ):
        return ""
    what = _compared(cmp)
    band = f"{cmp.band:.0%}"  # why that band: in --explain
    return (
        f"  Close call: {escape(cmp.runner_up)} at {_times(cmp.ratio, True)} {what}, within {band}."
    )


def _slower_and_dearer(other: RankedOption, chosen: RankedOption | None) -> bool:
    """`other` is surely slower (its time over the answer's at both ends of their intervals) and bills more than the
    answer (a trial read '$0 ... $0.0079 — 29.1x the cost': the ratio counted the waiting, the dollars did not)."""
    if chosen is None or None in (other.train_seconds, other.cost_usd, chosen.train_seconds):
        return False
    return time_ratio(other, chosen)[1] > 1 and (other.cost_usd or 0) > (chosen.cost_usd or 0)


def _compared(cmp: Comparison) -> str:
    """What a ratio is of: the cost beside it is billed dollars, so a ratio that counts the waiting says so (a trial:
    '$0 ... $0.0079 — 29.1x the cost')."""
    if cmp.metric.startswith("training time"):
        return "the time"
    return "the cost with waiting" if cmp.metric == "cost and waiting" else "the cost"


def _boot_share(o: RankedOption) -> str:
    """' (2.5 min of it boot)' when an instance's one-time start (its boot, setup) is most of its training time: why
    every GPU of a short run takes the same minutes."""
    once, total = o.one_time_seconds, o.train_seconds
    if o.here or not once or not total or once < total / 2:
        return ""
    return f" ({seconds_text(once)} start-up)"


def length_line(doc: PlanDocument, fix: bool = True) -> str:
    """A script planned without its length: said whole under the answer, since the answer may change with it.
    `fix`: with the CLI's flags that give it (the TUI says its own key: only how the answer moves)."""
    if not fix:
        moves = length_changes(doc.length_not_given) if doc.length_not_given else ""
        return f"  {escape(moves[:1].upper() + moves[1:])}." if moves else ""
    said = word(doc.length_not_given) if doc.length_not_given else ""
    script = doc.workload if isinstance(doc.workload, ScriptSummary) else None
    # a trial: the script's own --epochs 20 was on the title, not suggested; another, its --max_iters 5000 beside an
    # answer per 1,000 steps (what a steps flag counts is the script's)
    own = own_length((script.script_args or []) if said and script is not None else [])
    if own is not None:
        given_as, flag, n = own
        said += (
            f"; its own {flag} {n}? "
            + ("then" if given_as == "--epochs" else "if it counts optimizer steps,")
            + f" give the planner {given_as} {n} too, before --"
        )
    return f"  [yellow]{escape(said[:1].upper() + said[1:])}[/]" if said else ""


def terse_answer(
    doc: PlanDocument, careful: bool = True, length_fix: bool = True, detail: bool = False
) -> list[str]:
    """The answer and its reasons (markup lines): see the section's comment. `careful`: with the line on a busy
    measurement (--explain's reasoning says it instead); `length_fix`: length_line's `fix`; `detail` (--explain):
    why every GPU takes one step, when it does (gpu_line)."""
    lines = [
        answer_line(doc),
        length_line(doc, length_fix),
        _here_or_rent_line(doc),
        _rival_line(doc),
        gpu_line(doc, detail),
        _close_instances_line(doc),
        _emulated_line(doc),
        _careful_line(doc) if careful else "",
    ]
    return [line for line in lines if line]


def careful_option(doc: PlanDocument) -> RankedOption | None:
    """The measurement made while the machine was busy that the answer rests on (the headline's option, the other
    answer's, or the one a CPU instance of them is scaled from), or None."""
    busy = {o.basis.bench or o.target: o for o in doc.plan.options if o.caveat is not None}
    if not busy:
        return None
    named = [o for o in (doc.recommended, _other_option(doc)) if o is not None]
    hit = next((busy[o.basis.bench] for o in named if o.basis.bench in busy), None)
    return hit or next((o for o in named if o.caveat is not None), None)


def said_above(doc: PlanDocument) -> list[object]:
    """The plan's warnings the terse answer says in a line of its own (its Careful line: the busy measurements; its
    No GPU planned line: why no GPU), which the one-line warnings under it leave out (not said twice)."""
    warnings = doc.plan.warnings
    said: list[object] = []
    if careful_option(doc) is not None:
        said += [w for w in warnings if isinstance(w, BusyWhileMeasured)]
    if gpu_line(doc).startswith("  No GPU planned"):
        said += [w for w in warnings if isinstance(w, NoGpuRows)]
    # 'misses the 5 s deadline' said by the answer or the other's line (a trial: said twice)
    if "deadline" in answer_line(doc) + _here_or_rent_line(doc):
        said += [w for w in warnings if isinstance(w, DeadlineMissed)]
    return said


def _careful_line(doc: PlanDocument) -> str:
    """careful_option's, said beside the answer (a new user's trial: a step measured 6x slow on a busy machine moved
    the answer, its warning behind --verbose)."""
    hit = careful_option(doc)
    if hit is None:
        return ""
    return f"  [yellow]Careful[/]: {escape(hit.target)} measured on a busy machine; measure again when quiet."


def _emulated_line(doc: PlanDocument) -> str:
    """The recommended GPU runs the precision emulated (bf16 on a T4 or V100): said beside the answer, not only
    behind --verbose, since the answer rests on it."""
    rec = doc.recommended
    said = next((n for n in rec.note if isinstance(n, EmulatedPrecision)), None) if rec else None
    return f"  [yellow]Caveat[/]: {escape(word(said))}." if said else ""


def terse_title(doc: PlanDocument) -> str:
    """Line 1: the workload and the question. 'surface-mlp: 2,000 steps of batch 40,000; cheapest (here vs rent: $5/h
    waiting)', the default weighing only those two; 'cheapest, waiting at $5/h' when given."""
    plan = doc.plan
    what = workload_what(doc, terse=True)
    question = (
        f"cheapest within {given_duration(plan.deadline_seconds)}"
        if plan.objective == "deadline"
        else plan.objective
    )
    if (
        plan.objective == "fastest" and plan.deadline_seconds
    ):  # kept, and said to be unused (a trial: dropped unsaid)
        question += f" (the {given_duration(plan.deadline_seconds)} deadline is not used: fastest ignores it)"
    if (
        plan.headline_time_value is not None
        and doc.has_both_answers
        and plan.objective != "fastest"
    ):
        # the default weighs only here against rent; given, it ranks every option too (a trial read the two as
        # one: `--time-value 5` answered otherwise than the default's "waiting at $5/h")
        question += (
            f" (here vs rent: ${plan.headline_time_value:g}/h waiting)"
            if doc.headline_time_value_is_default
            else f", waiting at ${plan.headline_time_value:g}/h"
        )
    if doc.spans_regions:
        question += "; each instance in its cheapest region" + (
            "" if doc.options.region == "all" else f" of {doc.options.region.replace(',', ', ')}"
        )
    elif doc.options.region != PlanOptions().region:
        question += f"; {doc.options.region}"  # the default region goes unsaid
    if doc.options.purchase == "spot":
        question += "; spot prices"
    return escape(f"{what}; {question}")
