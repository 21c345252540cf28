"""Which paid benchmarks would settle a plan: the predicted instances a measurement could change the
decision for, within the budget. Pure."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from planner.core.kinds import ChoiceReason
from planner.core.plan import BenchmarkChoice, Plan, RankedOption, Recommendation, option_name
from planner.core.remarks import NoPublishedBand, Unbacked


def select_benchmarks(
    plan: Plan, worst_case_cost: dict[str, float], budget: float, max_instances: int
) -> list[BenchmarkChoice]:
    """Which predicted cloud options a paid benchmark could change the decision for (pure).

    Priority: the reference CPU when it is predicted (every GPU is compared with it), the options the rent
    answer calls too close to call (its comparison names them: a benchmark of both settles it), then the
    recommended option if it is a predicted GPU, then GPUs whose speedup interval straddles their
    break-even, then GPUs that could not be predicted at all, cheapest first; one instance per GPU
    model (a bigger instance with the same GPU trains at the same speed). Skipped: what does not
    fit, GPUs predicted to lose even at the optimistic end of their interval, CPU instances other
    than the best, and whatever the budget or --max-instances leave out. One choice per instance type,
    the first reason kept (an instance chosen is not also listed as skipped for its other options).
    """
    # the question a paid benchmark settles: which instance
    rec = plan.answers.get("rent", plan.recommendation)
    predicted = [o for o in plan.options if o.source == "predicted"]
    cpus = [o for o in predicted if o.device == "cpu" and o.usable]
    # its reference
    best_cpu = next((o for o in cpus if o.target == plan.references.get("rent")), None)
    recommended, gpus, skipped = _gpu_choices(predicted, rec)
    # each wanted instance, and why (benchmark=True): the reference, the recommended GPU, the too close to call
    wanted = [_want(best_cpu, "reference")] if best_cpu is not None else []
    wanted += [recommended] if recommended is not None else []
    close = rec.comparison
    # the answer says a benchmark of these settles it
    if close is not None and close.verdict == "too_close":
        for target in close.settle:
            o = next((o for o in predicted if o.target == target), None)
            if o is not None and all(w.target != target for w, _ in wanted):
                wanted.append(_want(o, "too_close", winner=close.winner, runner_up=close.runner_up))
    # the headline's rival: in its pick's place, here against rent could go either way (the plan's close-call line
    # names it; a trial saw it named and not benchmarked)
    head = plan.recommendation
    rival = next((o for o in predicted if o.key == head.choice_rival), None)
    pick = next((o for o in plan.options if o.key == head.choice_rival_of), None)
    if rival is not None and pick is not None and all(w.target != rival.target for w, _ in wanted):
        names = {"winner": option_name(pick), "runner_up": option_name(rival)}
        wanted.append(_want(rival, "too_close", **names))
    wanted += gpus
    for o in cpus:
        if (
            best_cpu is not None
            and o.target != best_cpu.target
            and all(w.target != o.target for w, _ in wanted)
        ):
            skipped.append(_skip(o, "cpu_no_better", other=best_cpu.target))
    chosen, left_out = _within(wanted, worst_case_cost, budget, max_instances)
    # one choice per instance: benchmarking one measures it (its data-parallel options are predicted from that)
    once: dict[str, BenchmarkChoice] = {}
    for c in chosen + skipped + left_out:
        once.setdefault(c.target, c)
    return list(once.values())


Wanted = tuple[RankedOption, BenchmarkChoice]


def _want(o: RankedOption, why: ChoiceReason, **numbers: Any) -> Wanted:
    return o, BenchmarkChoice(o.target, True, why, **numbers)


def _skip(o: RankedOption, why: ChoiceReason, **numbers: Any) -> BenchmarkChoice:
    return BenchmarkChoice(o.target, False, why, **numbers)


def _gpu_choices(
    predicted: list[RankedOption], rec: Recommendation
) -> tuple[Wanted | None, list[Wanted], list[BenchmarkChoice]]:
    """The predicted GPUs a benchmark could settle, cheapest first, one per GPU model: (the recommended one, the
    others wanted, those skipped and why)."""
    recommended: Wanted | None = None
    wanted: list[Wanted] = []
    skipped: list[BenchmarkChoice] = []
    seen_gpus: dict[str, str] = {}
    gpus = sorted(
        (o for o in predicted if o.device == "cuda"), key=lambda o: (o.price_per_hour, o.target)
    )
    for o in gpus:
        model = o.device_name.split(" (")[0]  # "A10G (1 of 4)" is an A10G
        # the instance's 1-GPU option is the one to measure
        if (o.gpus_used or 0) > 1 or o.instances > 1:
            skipped.append(_skip(o, "data_parallel", note=option_name(o)))
            continue
        if not o.fits:
            skipped.append(_skip(o, "does_not_fit", notes=o.note))
            continue
        if model in seen_gpus:
            skipped.append(_skip(o, "same_gpu", gpu=model, other=seen_gpus[model]))
            continue
        if o.train_seconds is None:
            seen_gpus[model] = o.target
            wanted.append(_want(o, "unpredicted", notes=o.note))
            continue
        if o.target == rec.target:
            seen_gpus[model] = o.target
            unbacked = any(isinstance(n, (Unbacked, NoPublishedBand)) for n in o.note)
            recommended = _want(o, "recommended", unbacked=unbacked)
            continue
        if (
            o.speedup is None
            or o.break_even_speedup is None
            or o.speedup_low is None
            or o.speedup_high is None
        ):
            continue
        numbers = {
            "speedup_low": o.speedup_low,
            "speedup_high": o.speedup_high,
            "break_even": o.break_even_speedup,
        }
        if o.speedup_high < o.break_even_speedup:
            skipped.append(_skip(o, "too_slow", **numbers))
            continue
        seen_gpus[model] = o.target
        straddles = o.speedup_low < o.break_even_speedup
        wanted.append(_want(o, "straddles" if straddles else "beats", **numbers))
    return recommended, wanted, skipped


def _within(
    wanted: list[Wanted], worst_case_cost: dict[str, float], budget: float, max_instances: int
) -> tuple[list[BenchmarkChoice], list[BenchmarkChoice]]:
    """The wanted instances the budget and --max-instances allow, in order: (chosen, left out). An instance wanted
    for two reasons is benchmarked once, for the first."""
    chosen: list[BenchmarkChoice] = []
    left_out: list[BenchmarkChoice] = []
    spent = 0.0
    first: dict[str, BenchmarkChoice] = {}
    for o, choice in wanted:
        first.setdefault(o.target, choice)
    for target, choice in first.items():
        cost = worst_case_cost.get(target, 0.0)
        if len(chosen) >= max_instances:
            left_out.append(
                replace(
                    choice,
                    benchmark=False,
                    left_out_by="max_instances",
                    max_instances=max_instances,
                )
            )
        elif spent + cost > budget:
            left_out.append(
                replace(choice, benchmark=False, left_out_by="budget", worst_case_usd=cost)
            )
        else:
            spent += cost
            chosen.append(choice)
    return chosen, left_out
