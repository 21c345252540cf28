"""Rules 1 to 4's measures, pure (planner/core/decide.py applies them; docs/concepts/decision-rule.md says them):
an option's costs at a time value, its point value, the order of a pool, the options that meet a deadline, the
comparison of two options (margin, band, verdict), and rule 4's reference CPU and break-even speedup."""

from __future__ import annotations

import math
from dataclasses import fields, replace

from planner.core.kinds import Verdict
from planner.core.plan import (
    Comparison,
    Option,
    RankedOption,
    billed_cost,
    hourly_rate,
    option_name,
    value_of,
)
from planner.core.ratios import noise_band, time_ratio


def with_costs(o: Option, time_value: float) -> RankedOption:
    r = RankedOption(**{f.name: getattr(o, f.name) for f in fields(Option)})
    if o.train_seconds is None:
        return r
    low = o.train_seconds_low if o.train_seconds_low is not None else o.train_seconds
    high = o.train_seconds_high if o.train_seconds_high is not None else o.train_seconds
    return replace(
        r,
        train_seconds_low=low,
        train_seconds_high=high,
        cost_usd=billed_cost(o, o.train_seconds),
        cost_usd_low=value_of(o, low, time_value),
        cost_usd_high=value_of(o, high, time_value) if math.isfinite(high) else math.inf,
        objective_value=value_of(o, o.train_seconds, time_value),
    )


def point_value(o: RankedOption, objective: str, time_value: float | None = None) -> float:
    """Rule 1's point value (at the plan's time value, or at `time_value`: the headline's)."""
    if objective == "fastest":
        return o.train_seconds  # type: ignore[return-value]
    if time_value is None:
        return o.objective_value  # type: ignore[return-value]
    return value_of(o, o.train_seconds, time_value)  # type: ignore[arg-type]


def in_order(
    pool: list[RankedOption], objective: str, time_value: float | None = None
) -> list[RankedOption]:
    """Best first by rule 1: point value, then training time, then hourly rate (then the name: a
    total order, so the same inputs give the same answer in any order)."""
    return sorted(
        pool,
        key=lambda o: (
            point_value(o, objective, time_value),
            o.train_seconds,
            hourly_rate(o),
            o.key,
        ),
    )


def eligible(
    usable: list[RankedOption], objective: str, deadline: float | None
) -> list[RankedOption]:
    if objective == "deadline":
        # its whole interval within the deadline (no usable interval: no pessimistic end to hold to it)
        return [
            o
            for o in usable
            if deadline is not None
            and o.train_seconds_high is not None
            and o.train_seconds_high <= deadline
        ]
    return usable


def compare(
    best: RankedOption, other: RankedOption, objective: str, time_value: float
) -> Comparison:
    """Rule 2 and 3 for two options, best first (by `ranked`)."""
    if objective == "fastest":
        metric, vb, vo = "training time", best.train_seconds, other.train_seconds
    else:
        metric = "cost and waiting" if time_value else "cost"
        vb, vo = (
            value_of(best, best.train_seconds, time_value),  # type: ignore[arg-type]
            value_of(other, other.train_seconds, time_value),  # type: ignore[arg-type]
        )
        if vb <= 0 and vo <= 0:  # both free: the time decides (rule 1's tie-break)
            metric, vb, vo = (
                "training time (both cost nothing)",
                best.train_seconds,
                other.train_seconds,
            )
    r, low, high = time_ratio(other, best)
    ratio = vo / vb if vb > 0 else (math.inf if vo > 0 else 1.0)  # type: ignore[operator]
    scale = ratio / r if r > 0 and math.isfinite(ratio) else 1.0
    ratio_low, ratio_high = (
        (low * scale, high * scale) if math.isfinite(ratio) else (math.inf, math.inf)
    )
    band, band_benches, band_predicted = noise_band(best, other)
    verdict: Verdict = "too_close" if ratio <= 1 + band else "clear" if ratio_low > 1 else "likely"
    settle = [option_name(o) for o in (best, other) if o.source == "predicted"]
    return Comparison(
        metric,
        option_name(best),
        option_name(other),
        vb,  # type: ignore[arg-type]
        vo,  # type: ignore[arg-type]
        ratio,
        ratio_low,
        ratio_high,
        band,
        verdict,
        settle,
        band_benches,
        band_predicted,
    )


def closest(
    best: RankedOption, others: list[RankedOption], objective: str, time_value: float
) -> Comparison:
    """The winner against the runner-up — or against the first option, in rank order, that is within
    its own band (too close to call), since that is the one a re-measurement could put first."""
    comparisons = (compare(best, other, objective, time_value) for other in others)
    return next(
        (cmp for cmp in comparisons if cmp.verdict == "too_close"),
        compare(best, others[0], objective, time_value),
    )


def reference_cpu(
    opts: list[RankedOption], here: bool, objective: str, deadline: float | None
) -> RankedOption | None:
    """Rule 4's reference: the best usable CPU of one kind of place by the objective's point value
    (meeting the deadline when one can; else the cheapest)."""
    cpus = [o for o in opts if o.usable and o.device == "cpu" and o.here == here]
    pool = eligible(cpus, objective, deadline) or cpus
    ordered = in_order(pool, "cheapest" if objective == "deadline" else objective)
    return ordered[0] if ordered else None


def break_even(gpu: Option, ref: Option, time_value: float) -> float:
    numerator, denominator = hourly_rate(gpu) + time_value, hourly_rate(ref) + time_value
    if denominator > 0:
        return numerator / denominator
    return math.inf if numerator > 0 else 1.0
