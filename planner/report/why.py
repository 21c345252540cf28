"""The decision's words, in one place: each of the plan's facts (planner/core/decide.py: a Recommendation's verdict,
its Comparison, rule 4's GPU and reference, how the headline chose) worded from the very numbers the rule compared,
so a sentence cannot say what the rule did not do, and the CLI, the TUI, the chart and the JSON say it alike."""

from __future__ import annotations

import math

from planner.core.formats import range_text, rough_duration, sig_duration, sig_money
from planner.core.kinds import AnswerName, ChoiceBasis
from planner.core.plan import (
    HEADLINE_TIME_VALUE,
    TOO_CLOSE_MARGIN,
    Comparison,
    Plan,
    RankedOption,
    Recommendation,
    device_label,
    option_name,
)
from planner.report.gpu_rule import gpu_rule_text
from planner.report.remarks import note_text, word


def answer_reason(plan: Plan, rec: Recommendation) -> str:
    """An answer's reason (here, or the best instance to rent; the headline's own when nothing can run): what it is the
    best of, its time and cost, the runner-up and how sure, rule 4's GPU against the reference CPU."""
    group = [o for o in plan.options if rec.answer is None or o.here == (rec.answer == "here")]
    where = "" if rec.answer is None else "here" if rec.answer == "here" else "to rent"
    best = plan.option_of(rec)
    if best is None or rec.verdict in ("failed", "nothing_fits"):
        return nothing_reason(
            [o for o in group if o.failed], [o for o in group if not o.fits], where
        )
    if rec.verdict == "deadline_missed":
        return deadline_missed_reason(best, group, where, plan.deadline_seconds or 0.0)
    gpu = _by_key(plan, rec.rule_gpu)
    ref = plan.reference(rec.answer) if rec.answer is not None else None
    tv = plan.time_value_per_hour or 0.0
    rule = (
        gpu_rule_text(best, gpu, ref, plan.objective, tv, plan.deadline_seconds)
        if gpu is not None
        else ""
    )
    if rec.verdict == "only_option" or rec.comparison is None:
        return only_option_reason(best, where, plan.objective) + rule
    return f"{winner_reason(best, where, plan.objective, tv, plan.deadline_seconds)}. {comparison_text(rec.comparison, tv)}{rule}"


def headline_reason(plan: Plan) -> str:
    """The headline's reason: its answer's, then why that answer and not the other (when both could run)."""
    rec = plan.recommendation
    answer = plan.answers.get(rec.answer) if rec.answer is not None else None
    if answer is None:
        return answer_reason(plan, rec)
    reason = answer_reason(plan, answer)
    if _basis(plan) == "alone":
        only = plan.option_of(rec)
        failed = {
            n: [o for o in plan.options if o.failed and o.here == (n == "here")]
            for n, a in plan.answers.items()
            if n != rec.answer and a.verdict == "failed"
        }
        return alone_reason(reason, only, failed)
    why, caveats = _choice(plan)
    return f"{reason}. Why {rec.answer}: {why}{caveats}"


def choice_text(plan: Plan) -> str:
    """Why the headline's answer and not the other ("" when only one could run)."""
    rec = plan.recommendation
    if _basis(plan) == "alone" or rec.answer is None:
        return ""
    why, caveats = _choice(plan)
    return f"{'rent' if rec.answer == 'rent' else 'train here'} — {why}{caveats}"


def _basis(plan: Plan) -> ChoiceBasis:
    """How the headline chose (a document written before plans said so: from what it holds)."""
    rec = plan.recommendation
    if rec.choice_basis is not None:
        return rec.choice_basis
    if rec.choice_comparison is not None:
        return "compared"
    live = [a for a in plan.answers.values() if plan.option_of(a) is not None]
    return "deadline" if len(live) == 2 and plan.objective == "deadline" else "alone"


def _choice(plan: Plan) -> tuple[str, str]:
    rec = plan.recommendation
    name: AnswerName = rec.answer or "here"
    if _basis(plan) == "deadline":
        pair = [
            o for n in ("here", "rent") if (a := plan.answers.get(n)) and (o := plan.option_of(a))
        ]  # type: ignore[call-overload]
        return deadline_choice_text(name), _caveats(pair)
    here = plan.option_of(plan.answers["here"])
    rent = plan.option_of(plan.answers["rent"])
    assert here is not None and rent is not None and rec.choice_comparison is not None
    best, other = (here, rent) if name == "here" else (rent, here)
    metric = "fastest" if plan.objective == "fastest" else "cheapest"
    tv = plan.headline_time_value if plan.headline_time_value is not None else HEADLINE_TIME_VALUE
    why = here_or_rent_text(
        name, best, other, rent, rec.choice_comparison, metric, tv, plan.time_value_per_hour is None
    )
    rival, pick = _by_key(plan, rec.choice_rival), _by_key(plan, rec.choice_rival_of)
    if rival is not None and pick is not None:
        why += rival_swaps_text("here" if pick.here else "rent", rival, pick)
    elif plan.answers[name].verdict == "too_close" and rec.choice_comparison.verdict != "too_close":
        # not beside the rival's sentence, which names the pair (a trial read the two run together as garbled)
        why += instance_too_close_text(name)
    return why, _caveats([here, rent])


def _caveats(pair: list[RankedOption]) -> str:
    return "".join(f". Careful: {o.target} was {word(o.caveat)}" for o in pair if o.caveat)


def _by_key(plan: Plan, key: str | None) -> RankedOption | None:
    return next((o for o in plan.options if o.key == key), None) if key else None


def amount_text(metric: str, value: float) -> str:
    return sig_duration(value) if metric.startswith("training time") else sig_money(value)


def band_text(cmp: Comparison) -> str:
    """Why rule 2's band is what it is: the margin, the run-to-run noise of a bench that could swap the two, or how far
    a prediction standing in for this machine's measurement could move them."""
    band = f"{cmp.band:.0%}"
    if not cmp.band_benches:
        if cmp.band <= TOO_CLOSE_MARGIN + 1e-9:
            return f"{band}, the margin"
        return (  # a document written before the band's reasons were facts
            f"{band}, what the run-to-run noise of a bench moves one of the two by against the other: measuring "
            "again could swap them"
        )
    benches = " and ".join(cmp.band_benches)
    if cmp.band_predicted:
        return (
            f"{band}, how far the prediction of the {benches} run (traced on the stand-in GPU, not measured) could "
            "move one of the two against the other: measuring it could swap them"
        )
    return (
        f"{band}, what the run-to-run noise of the {benches} bench moves one of the two by against the other: "
        "measuring again could swap them"
    )


def comparison_text(cmp: Comparison, tv: float) -> str:
    """Rule 2 and 3 in words, quoting exactly the comparison's numbers."""
    what = "the time" if cmp.metric.startswith("training time") else "the cost"
    waiting = f", with waiting at ${tv:g}/h" if cmp.metric == "cost and waiting" else ""
    ratio = f"{cmp.ratio:.2f}x {what}" if math.isfinite(cmp.ratio) else f"more than {what}"
    values = f"{amount_text(cmp.metric, cmp.runner_up_value)} vs {amount_text(cmp.metric, cmp.winner_value)}{waiting}"
    settle = (
        f"a paid benchmark of {' and '.join(cmp.settle)} would settle it"
        if cmp.settle
        else "longer benches (--seconds) would settle it"
    )
    if cmp.verdict == "too_close":
        return f"Too close to call: {cmp.runner_up} at {ratio} ({values}) is within {band_text(cmp)}; {settle}"
    return f"Runner-up: {cmp.runner_up} at {ratio} ({values}); {certainty_text(cmp)}" + (
        f"; {settle}" if cmp.verdict == "likely" else ""
    )


def certainty_text(cmp: Comparison) -> str:
    """Rule 3 in words: how sure a comparison beyond the band is (the ratio's interval)."""
    # the winner costs nothing (a free machine, no waiting counted)
    if not math.isfinite(cmp.ratio):
        return "clear: it costs nothing"
    if math.isclose(cmp.ratio_low, cmp.ratio_high, rel_tol=1e-9):
        return "clear: the same estimate, only the price differs"
    how = "clear" if cmp.verdict == "clear" else "likely, not certain"
    if cmp.ratio_low < 0.005:  # an interval with no usable end: 0.00x says nothing
        return (
            f"{how}: at most {cmp.ratio_high:.2f}x over both intervals (one has no usable end)"
            if math.isfinite(cmp.ratio_high)
            else f"{how}: the intervals have no usable ends to compare"
        )
    spread = (
        f"{cmp.ratio_low:.2f}-{cmp.ratio_high:.2f}x"
        if math.isfinite(cmp.ratio_high)
        else f"{cmp.ratio_low:.2f}x or more"
    )
    return f"{how}: {spread} over both intervals"


def span_text(o: RankedOption) -> str:
    if o.train_seconds_high is None or not math.isfinite(o.train_seconds_high):
        return " (no usable interval)"
    return f" ({range_text(o.train_seconds_low or 0.0, o.train_seconds_high)})"  # as the table: "2.3-3.2 min", not "2 min-3 min"


def nothing_reason(failed: list[RankedOption], too_big: list[RankedOption], where: str) -> str:
    """No usable option: what failed (its whole reason), apart from what does not fit, and the fix."""
    parts = [f"{option_name(o)} ({device_label(o)}) failed: {note_text(o.note)}" for o in failed]
    if failed and not too_big:
        return "; ".join(parts)
    parts += [
        f"{option_name(o)} ({device_label(o)}) does not fit: {note_text(o.note)}"
        for o in too_big[:3]
    ]
    if len(too_big) > 3:
        parts.append(f"{len(too_big) - 3} more do not fit")
    fix = (
        "; reduce train.batch_size or the model, or choose targets with more memory"
        if too_big
        else "; nothing was measured or predicted"
    )
    return (
        f"nothing{f' {where}' if where else ''} can run this workload"
        + (f": {'; '.join(parts)}" if parts else "")
        + fix
    )


def deadline_missed_reason(
    best: RankedOption, group: list[RankedOption], where: str, deadline: float
) -> str:
    """Nothing meets the deadline: the pick, and when it is not the fastest (the cheapest of those as fast within
    the noise), the fastest beside it (a trial: "the fastest is" named the pick, 4.4 min, over a 4.3 min one)."""
    said = (
        f"{option_name(best)} ({device_label(best)}) at {sig_duration(best.train_seconds or 0.0)}"
        f"{span_text(best)}"
    )
    timed = [o for o in group if o.usable and o.train_seconds is not None]
    fastest = min(timed, key=lambda o: o.train_seconds or 0.0, default=best)
    head = f"no option {where} meets the {rough_duration(deadline)} deadline with confidence; "
    if fastest is best or (fastest.train_seconds or 0.0) >= (best.train_seconds or 0.0):
        return head + f"the fastest is {said}"
    return head + (
        f"the pick is {said}, the cheapest of those within the noise of the fastest "
        f"({option_name(fastest)}, {sig_duration(fastest.train_seconds or 0.0)})"
    )


def result_text(o: RankedOption) -> str:
    return (
        f"{sig_duration(o.train_seconds or 0.0)}{span_text(o)} for {sig_money(o.cost_usd or 0.0)}"
    )


def only_option_reason(best: RankedOption, where: str, objective: str) -> str:
    only = "meets the deadline" if objective == "deadline" else "can run this workload"
    # "the only option here" read as "of all"
    place = "on this machine" if where == "here" else where
    return f"{option_name(best)} ({device_label(best)}) is the only option {place} that {only}: {result_text(best)}"


def winner_reason(
    best: RankedOption, where: str, objective: str, tv: float, deadline: float | None
) -> str:
    """Rule 1 in words: what the winner is the best of, and its time and cost."""
    lead = (
        f"cheapest option that finishes within {rough_duration(deadline or 0.0)}"
        if objective == "deadline"
        else "fastest option"
        if objective == "fastest"
        else f"cheapest option with waiting at ${tv:g}/h"
        if tv
        else "cheapest option"
    )
    return f"{option_name(best)} ({device_label(best)}) is the {lead} {where}: {result_text(best)}"


def alone_reason(
    reason: str, only: RankedOption | None, failed: dict[AnswerName, list[RankedOption]]
) -> str:
    """The headline when one answer alone can run the workload: its reason, its caveat, and the answer not
    compared because its benchmarks failed, by name (each failure's whole reason is its row's note: a plan
    prints it once, under the headline)."""
    caveat = (
        f". Careful: {only.target} was {word(only.caveat)}"
        if only is not None and only.caveat
        else ""
    )
    not_compared = "; ".join(
        f"{'training here' if name == 'here' else 'renting'} ("
        + ", ".join(option_name(o) for o in options)
        + " failed)"
        for name, options in failed.items()
    )
    return reason + caveat + (f". Not compared: {not_compared}" if not_compared else "")


def deadline_choice_text(name: str) -> str:
    return (
        "only renting meets the deadline" if name == "rent" else "training here meets the deadline"
    )


def here_or_rent_text(
    name: str,
    best: RankedOption,
    other: RankedOption,
    rent: RankedOption,
    cmp: Comparison,
    metric: str,
    tv: float,
    tv_default: bool,
) -> str:
    """The headline's comparison in words: the two answers' times (fastest) or their cost and waiting
    at `tv` (cheapest), the ratio the rule compared and how sure it is."""
    where = {"here": "training here", "rent": f"renting {option_name(rent)}"}
    other_name = "here" if name == "rent" else "rent"
    if metric == "fastest":
        why = (
            f"{where[name]} takes {sig_duration(best.train_seconds or 0.0)}, {where[other_name]} "
            f"{sig_duration(other.train_seconds or 0.0)} ({cmp.ratio:.2f}x)"
        )
    else:
        value = f"${tv:g}/h of your waiting" + (
            " (the default; set yours with --time-value, or waiting $/h in the TUI)"
            if tv_default
            else ""
        )
        why = (
            f"at {value}, {where[name]} ({sig_duration(best.train_seconds or 0.0)}, {sig_money(best.cost_usd or 0.0)}) "
            f"comes to {sig_money(cmp.winner_value)} and {where[other_name]} ({sig_duration(other.train_seconds or 0.0)}, "
            f"{sig_money(other.cost_usd or 0.0)}) to {sig_money(cmp.runner_up_value)}"
            + (f": {cmp.ratio:.2f}x as much" if math.isfinite(cmp.ratio) else ", against nothing")
        )
    return why + (
        f"; too close to call: within {band_text(cmp)}"
        if cmp.verdict == "too_close"
        else f"; {certainty_text(cmp)}"
    )


def instance_too_close_text(name: str) -> str:
    return (
        f"; {'which instance to rent' if name == 'rent' else 'which way to train here'} is too close to call "
        f"(see {'If you rent' if name == 'rent' else 'Here'})"
    )


def rival_swaps_text(side: str, rival: RankedOption, pick: RankedOption) -> str:
    where = "If you rent" if side == "rent" else "Here"
    return (
        f"; but too close to call: {option_name(rival)} is within the noise of {option_name(pick)} "
        f"(see {where}), and in its place here against rent could go either way"
    )
