"""Pure: options with training-time intervals x prices -> ranked options, two answers and a
headline. Design notes: docs/reference/modules.md (planner/core/decide.py)."""

from __future__ import annotations

import math
from dataclasses import replace

from planner.core.compare import (
    break_even,
    closest,
    compare,
    eligible,
    in_order,
    reference_cpu,
    with_costs,
)
from planner.core.kinds import OBJECTIVES, AnswerName, Objective, Verdict

# the plan's types, re-exported (listed in __all__): decide() returns them
from planner.core.plan import (
    HEADLINE_TIME_VALUE,
    TOO_CLOSE_MARGIN,
    BenchmarkChoice,
    Comparison,
    ErrorBasis,
    Option,
    Plan,
    RankedOption,
    Recommendation,
    _option_of,
    billed_cost,
    device_label,
    hourly_rate,
    option_name,
    value_of,
)
from planner.core.ratios import noise_band, time_ratio
from planner.core.remarks import DeadlineMissed, Remark, Said
from planner.core.settle import select_benchmarks

__all__ = [
    "BenchmarkChoice",
    "billed_cost",
    "break_even",
    "closest",
    "compare",
    "Comparison",
    "decide",
    "device_label",
    "ErrorBasis",
    "HEADLINE_TIME_VALUE",
    "hourly_rate",
    "noise_band",
    "Option",
    "option_name",
    "Plan",
    "RankedOption",
    "Recommendation",
    "reference_cpu",
    "Said",
    "select_benchmarks",
    "time_ratio",
    "TOO_CLOSE_MARGIN",
    "value_of",
]


def _with_speedups(
    opts: list[RankedOption], refs: dict[bool, RankedOption | None], tv: float
) -> list[RankedOption]:
    out = []
    for o in opts:
        ref = refs[o.here]
        if ref is not None and o.device == "cuda" and o.usable:
            speedup, low, high = time_ratio(ref, o)
            o = replace(
                o,
                speedup=speedup,
                speedup_low=low,
                speedup_high=high,
                break_even_speedup=break_even(o, ref, tv),
                reference=ref.target,
            )
        out.append(o)
    return out


# ----------------------------------------------------------------------------- the plan


def decide(
    options: list[Option],
    objective: Objective = "cheapest",
    deadline_seconds: float | None = None,
    time_value_per_hour: float | None = None,
) -> Plan:
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
    if objective == "deadline" and not deadline_seconds:
        raise ValueError("the deadline objective needs deadline_seconds")
    tv = time_value_per_hour or 0.0
    costed = [with_costs(o, tv) for o in options]
    refs = {
        here: reference_cpu(costed, here, objective, deadline_seconds) for here in (True, False)
    }
    ranked = _rank(_with_speedups(costed, refs, tv), objective, deadline_seconds)
    warnings: list[Remark] = []
    answers = {}
    places: tuple[tuple[AnswerName, bool], ...] = (("here", True), ("rent", False))
    for name, here in places:
        group = [o for o in ranked if o.here == here]
        if group:
            answers[name] = _answer(
                group, objective, deadline_seconds, tv, name, refs[here], warnings
            )
    headline_tv = time_value_per_hour if time_value_per_hour is not None else HEADLINE_TIME_VALUE
    headline = _headline(answers, ranked, objective, headline_tv, (tv, deadline_seconds))
    if headline is None:
        headline = _nothing(ranked)
    else:
        ranked = _headline_first(ranked, headline)
    references: dict[AnswerName, str] = {
        name: ref.target for name, here in places if (ref := refs[here]) is not None
    }
    return Plan(
        objective,
        ranked,
        headline,
        deadline_seconds,
        time_value_per_hour,
        list(dict.fromkeys(warnings)),
        answers,
        headline_tv,
        references,
    )


def _rank(ranked: list[RankedOption], objective: str, deadline: float | None) -> list[RankedOption]:
    """Rule 1's order: eligible options by their point value, then the others; what cannot run is unranked."""
    usable = [o for o in ranked if o.usable]
    pool = eligible(usable, objective, deadline)
    metric = "fastest" if objective == "fastest" else "cheapest"
    in_pool = {o.key for o in pool}
    rest = in_order([o for o in usable if o.key not in in_pool], metric)
    if objective == "deadline" and deadline is not None:
        # those not sure to meet it: the ones whose point meets it, then whose interval reaches it, then the sure
        # misses (a trial saw a c6i.xlarge of 3.3-5.7 min ranked over the answer's 2.2-3.1 min T4 for a 3 min one)
        rest.sort(key=lambda o: _deadline_tier(o, deadline))
    return _numbered(ranked, in_order(pool, metric) + rest)


def _deadline_tier(o: RankedOption, deadline: float) -> int:
    """0: its point time meets `deadline`; 1: only its interval's low end does; 2: it surely misses it."""
    if o.train_seconds is not None and o.train_seconds <= deadline:
        return 0
    low = o.train_seconds_low
    return 1 if low is not None and low <= deadline else 2


def _numbered(ranked: list[RankedOption], order: list[RankedOption]) -> list[RankedOption]:
    """`ranked` ranked 1, 2, ... in `order` (what it lacks is unranked), ranked rows first."""
    ranks = {o.key: i + 1 for i, o in enumerate(order)}
    return sorted(
        (replace(o, rank=ranks.get(o.key)) for o in ranked),
        key=lambda o: (o.rank is None, o.rank or 0),
    )


def _headline_first(ranked: list[RankedOption], headline: Recommendation) -> list[RankedOption]:
    """Rank 1 is the headline (it may not be the objective's first: the headline weighs waiting);
    the others keep their order."""
    top = _option_of(headline, ranked)
    if top is None or top.rank == 1:
        return ranked
    return _numbered(ranked, [top] + [o for o in ranked if o.rank is not None and o is not top])


def _nothing(group: list[RankedOption]) -> Recommendation:
    """No usable option: failed when some failed and none is too big for its memory."""
    failed = [o for o in group if o.failed]
    too_big = [o for o in group if not o.fits]
    return Recommendation(None, None, "failed" if failed and not too_big else "nothing_fits")


def _answer(
    group: list[RankedOption],
    objective: str,
    deadline: float | None,
    tv: float,
    name: AnswerName,
    ref: RankedOption | None,
    warnings: list[Remark],
) -> Recommendation:
    """The best of one group (this machine's options, or the rented ones) by rule 1-4."""
    usable = [o for o in group if o.usable]
    if not usable:
        return replace(_nothing(group), answer=name)
    pool = eligible(usable, objective, deadline)
    if objective == "deadline" and not pool:
        warnings.append(DeadlineMissed(deadline or 0.0, name == "here"))
        return _rec(_nearest_to_deadline(usable), "deadline_missed", name, ref)
    metric = "fastest" if objective == "fastest" else "cheapest"
    ordered = in_order(pool, metric)
    best = ordered[0]
    gpu = (
        best
        if best.device == "cuda"
        else next((o for o in ordered if o.device == "cuda" and o.speedup is not None), None)
    )
    if len(ordered) == 1:
        return _rec(best, "only_option", name, ref, rule_gpu=gpu)
    cmp = closest(best, ordered[1:], metric, tv)
    return _rec(best, cmp.verdict, name, ref, cmp, gpu)


def _nearest_to_deadline(usable: list[RankedOption]) -> RankedOption:
    """Nothing meets the deadline: the cheapest of the options not clearly slower than the fastest (rule 2's
    too-close band on training time, when that band is finite), so an instance 4 s faster at 300x the price within
    the noise is not the answer (a new user's trial: a 2.6 min H100 x4 at $2.40 over a 2.7 min c6i.xlarge at
    $0.0082). No comparison is attached: the answer's verdict is the missed deadline, and its words name no rival
    (the pick is the comparison's runner-up, which its close-call line would name as its own rival)."""
    fastest = min(usable, key=lambda o: (o.train_seconds, hourly_rate(o), o.key))
    near = [fastest]
    for o in usable:
        if o is not fastest:
            cmp = compare(fastest, o, "fastest", 0.0)
            if cmp.verdict == "too_close" and math.isfinite(cmp.band):
                near.append(o)
    return in_order(near, "cheapest")[0]


def _rec(
    o: RankedOption,
    verdict: Verdict,
    name: AnswerName,
    ref: RankedOption | None,
    cmp: Comparison | None = None,
    rule_gpu: RankedOption | None = None,
) -> Recommendation:
    return Recommendation(
        o.target,
        o.device,
        verdict,
        o.speedup,
        o.speedup_low,
        o.speedup_high,
        o.break_even_speedup,
        name,
        o.gpus_used,
        reference=ref.target if ref is not None else None,
        comparison=cmp,
        rule_gpu=rule_gpu.key if rule_gpu is not None else None,
    )


SEVERITY: tuple[Verdict, ...] = ("clear", "likely", "too_close")


def _swapped_by_a_rival(
    answers: dict[AnswerName, Recommendation],
    here: RankedOption,
    rent: RankedOption,
    ranked: list[RankedOption],
    objective: str,
    plan: tuple[float, float | None],
    metric: str,
    weight: float,
    name: AnswerName,
) -> tuple[AnswerName, RankedOption, RankedOption] | None:
    """(the side whose answer could change, its rival, the pick it stands for) when that rival in its place would
    put the headline on the other side or make it too close to call; None when no rival would."""
    sides: tuple[tuple[AnswerName, RankedOption], ...] = (("here", here), ("rent", rent))
    for side, pick in sides:
        for rival in _rivals(answers[side], pick, ranked, objective, plan):
            pair = [rival, rent] if side == "here" else [here, rival]
            best, other = in_order(pair, metric, weight)
            winner = "here" if best is pair[0] else "rent"
            if winner != name or compare(best, other, metric, weight).verdict == "too_close":
                return side, rival, pick
    return None


def _rivals(
    answer: Recommendation,
    pick: RankedOption,
    ranked: list[RankedOption],
    objective: str,
    plan: tuple[float, float | None],
) -> list[RankedOption]:
    """The options of `pick`'s group that measuring again could make the answer instead of it: those within the
    answer's too-close band of it (none when the answer is not too close to call)."""
    if answer.verdict != "too_close":
        return []
    tv, deadline = plan
    metric = "fastest" if objective == "fastest" else "cheapest"
    group = eligible(
        [o for o in ranked if o.usable and o.here == pick.here and o is not pick],
        objective,
        deadline,
    )
    return [
        o for o in in_order(group, metric) if compare(pick, o, metric, tv).verdict == "too_close"
    ]


def _headline(
    answers: dict[AnswerName, Recommendation],
    ranked: list[RankedOption],
    objective: str,
    tv: float,
    plan: tuple[float, float | None],
) -> Recommendation | None:
    """Here or rent, by the same rule at `tv` $/h of waiting: see the module docstring. An answer that is itself too
    close to call between two of its options could be the other one after measuring again: when that one would swap
    the headline, the headline is too close to call as well (the words name it)."""
    chosen = {name: _option_of(rec, ranked) for name, rec in answers.items()}
    live = {name: o for name, o in chosen.items() if o is not None}
    if not live:
        return None
    if len(live) == 1:
        return replace(answers[next(iter(live))], choice_basis="alone")
    here, rent = live["here"], live["rent"]
    met = {n: answers[n].verdict != "deadline_missed" for n in ("here", "rent")}
    if objective == "deadline" and met["here"] != met["rent"]:
        return replace(
            answers["rent" if met["rent"] else "here"], verdict="clear", choice_basis="deadline"
        )
    metric = "fastest" if objective == "fastest" else "cheapest"
    weight = 0.0 if metric == "fastest" else tv
    best, other = in_order([here, rent], metric, weight)
    cmp = compare(best, other, metric, weight)
    name: AnswerName = "here" if best is here else "rent"
    current = answers[name].verdict
    # here against rent is the headline's question: a close call between two instances of the answer (its own
    # comparison) is said beside it, and does not colour it (issue 40); a missed deadline does
    verdict = cmp.verdict if current in (*SEVERITY, "only_option") else current
    rival: tuple[RankedOption, RankedOption] | None = None
    if verdict in SEVERITY and verdict != "too_close":
        swap = _swapped_by_a_rival(
            answers, here, rent, ranked, objective, plan, metric, weight, name
        )
        if swap is not None:
            verdict, rival = "too_close", (swap[1], swap[2])
    return replace(
        answers[name],
        verdict=verdict,
        choice_comparison=cmp,
        choice_basis="compared",
        choice_rival=rival[0].key if rival else None,
        choice_rival_of=rival[1].key if rival else None,
    )
