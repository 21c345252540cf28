"""A script's measurements planned at other lengths: the rows measured on rented instances for a number of steps, and
the lengths at which the headline's pick changes (what a plan without the run's length names)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from planner.core.candidates import measured_candidate
from planner.core.decide import decide
from planner.core.script import (
    LENGTHS,
    PER_STEPS,
    Crossover,
    ScriptRun,
    estimate_script,
    measured_script_candidate,
    script_candidates,
)
from planner.service.predictions import hardware, measured_region

if TYPE_CHECKING:
    from planner.core.candidates import Candidate
    from planner.core.document import PlanOptions
    from planner.journal import Measured

PriceOf = Callable[
    [str, "PlanOptions", "str | None"], float
]  # (instance type, options, region) -> $/h


def measured_rows(
    results: dict[str, Measured],
    runs: dict[str, ScriptRun],
    options: PlanOptions,
    price_of: PriceOf,
    steps: int,
    epochs: int | None,
) -> list[Candidate]:
    """The rows measured on rented instances, each target's timeline (`runs`, by label) extrapolated to a run of
    `steps` (or `epochs`); a target with no timeline (its bench's own result) as it was measured."""
    rows = []
    for label, m in sorted(results.items()):
        if not m.target.cloud:
            continue
        region = measured_region(options, m.region)
        price = price_of(m.target.instance_type or "", options, region)
        if label in runs:
            there = estimate_script(runs[label], steps, epochs)
            setup = float((m.result.script or {}).get("requirements_seconds") or 0.0)
            rows.append(
                measured_script_candidate(
                    m.target, runs[label], there, price, replace(options, region=region), setup
                )
            )
        else:
            rows.append(measured_candidate(m.target, m.result, price, region, options.purchase))
    return rows


def length_crossovers(
    catalog: Any,
    run: ScriptRun,
    options: PlanOptions,
    gpu: bool | None = None,
    measured: Callable[[int], list[Candidate]] | None = None,
) -> list[Crossover]:
    """The run lengths (steps) at which the headline's pick changes, from LENGTHS and bisection between them: a
    script measured without its length still answers at every length (no measurement is repeated). `catalog`: the
    price catalog's frame; `measured`: the rows measured on rented instances, for a number of steps (they stand in
    for those instances' predictions)."""
    from pricing.catalog import instances

    facts = instances(catalog, region=options.region, gpu=gpu, purchase=options.purchase)
    facts_of = hardware()
    done = {c.target for c in measured(PER_STEPS)} if measured else set()
    facts = [f for f in facts if f"aws:{f.instance_type}" not in done]

    def pick(steps: int) -> str:
        est = estimate_script(run, steps, None)
        rows = [
            *script_candidates(
                run, est, facts, options.purchase, facts_of, options.local_price_per_hour
            ),
            *(measured(steps) if measured else []),
        ]
        plan = decide(
            [c.option(steps) for c in rows],
            options.objective,
            options.deadline_seconds,
            options.time_value_per_hour,
        )
        return plan.recommendation.target or "none"

    picks = [(n, pick(n)) for n in LENGTHS]
    out = []
    for (lo, a), (hi, b) in zip(picks, picks[1:]):
        if a == b:
            continue
        while hi - lo > max(1, lo // 50):  # to 2%
            mid = (lo + hi) // 2
            if pick(mid) == a:
                lo = mid
            else:
                hi = mid
        out.append(Crossover(hi, a, b))
    return out
