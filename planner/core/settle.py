"""Which paid benchmarks would settle a plan: the predicted instances a measurement could change the
decision for, within the budget. Pure."""

from __future__ import annotations

from planner.core.plan import BenchmarkChoice, Plan, RankedOption, option_name


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
    rec = plan.answers.get(
        "rent", plan.recommendation
    )  # the question a paid benchmark settles: which instance
    predicted = [o for o in plan.options if o.source == "predicted"]
    cpus = [o for o in predicted if o.device == "cpu" and o.usable]
    best_cpu = next(
        (o for o in cpus if o.target == plan.references.get("rent")), None
    )  # the rent answer's reference
    wanted: list[tuple[RankedOption, str]] = []
    skipped: list[BenchmarkChoice] = []
    if best_cpu is not None:
        wanted.append(
            (best_cpu, "the best predicted CPU instance: the reference each GPU is compared with")
        )
    close = rec.comparison
    if (
        close is not None and close.verdict == "too_close"
    ):  # the answer says a benchmark of these settles it
        for target in close.settle:
            o = next((o for o in predicted if o.target == target), None)
            if o is not None and all(w.target != target for w, _ in wanted):
                wanted.append(
                    (
                        o,
                        f"too close to call between {close.winner} and {close.runner_up}: measuring "
                        "them would settle it",
                    )
                )
    seen_gpus: dict[str, str] = {}
    gpus = sorted(
        (o for o in predicted if o.device == "cuda"), key=lambda o: (o.price_per_hour, o.target)
    )
    for o in gpus:
        model = o.device_name.split(" (")[0]  # "A10G (1 of 4)" is an A10G
        if (
            o.gpus_used or 0
        ) > 1 or o.instances > 1:  # the instance's 1-GPU option is the one to measure
            skipped.append(
                BenchmarkChoice(
                    o.target,
                    False,
                    f"data-parallel option ({option_name(o)}): predicted from "
                    "the device model; benchmark the instance's 1-GPU option",
                )
            )
            continue
        if not o.fits:
            skipped.append(
                BenchmarkChoice(
                    o.target,
                    False,
                    f"does not fit in GPU memory ({o.note})"
                    if o.note
                    else "does not fit in GPU memory",
                )
            )
            continue
        if model in seen_gpus:
            skipped.append(
                BenchmarkChoice(
                    o.target, False, f"same GPU ({model}) as {seen_gpus[model]}, which is cheaper"
                )
            )
            continue
        if o.train_seconds is None:
            seen_gpus[model] = o.target
            wanted.append((o, f"could not be predicted ({o.note}): a benchmark settles it"))
            continue
        if o.target == rec.target:
            seen_gpus[model] = o.target
            unbacked = (
                " (no published training figure backs this GPU: its prediction rests on its sheet)"
                if ("no published" in o.note)
                else ""
            )
            wanted.insert(
                1 if best_cpu else 0,
                (
                    o,
                    "the predicted recommendation: confirm it before paying for the full run"
                    + unbacked,
                ),
            )
            continue
        if (
            o.speedup is None
            or o.break_even_speedup is None
            or o.speedup_low is None
            or o.speedup_high is None
        ):
            continue
        if o.speedup_high < o.break_even_speedup:
            skipped.append(
                BenchmarkChoice(
                    o.target,
                    False,
                    f"predicted too slow for its price even at best "
                    f"({o.speedup_high:.2f}x < break-even {o.break_even_speedup:.2f}x)",
                )
            )
            continue
        seen_gpus[model] = o.target
        wanted.append(
            (
                o,
                f"its speedup ({o.speedup_low:.2f}-{o.speedup_high:.2f}x) straddles break-even "
                f"({o.break_even_speedup:.2f}x)"
                if o.speedup_low < o.break_even_speedup
                else f"predicted to beat break-even even at its low end ({o.speedup_low:.2f}x > {o.break_even_speedup:.2f}x)",
            )
        )
    for o in cpus:
        if (
            best_cpu is not None
            and o.target != best_cpu.target
            and all(w.target != o.target for w, _ in wanted)
        ):
            skipped.append(
                BenchmarkChoice(
                    o.target, False, f"CPU instance predicted no better than {best_cpu.target}"
                )
            )
    chosen: list[BenchmarkChoice] = []
    spent = 0.0
    first: dict[str, tuple[RankedOption, str]] = {}
    for (
        o,
        reason,
    ) in wanted:  # an instance wanted for two reasons is benchmarked once, for the first
        first.setdefault(o.target, (o, reason))
    for o, reason in first.values():
        cost = worst_case_cost.get(o.target, 0.0)
        if len(chosen) >= max_instances:
            skipped.append(
                BenchmarkChoice(
                    o.target, False, f"--max-instances {max_instances} reached ({reason})"
                )
            )
        elif spent + cost > budget:
            skipped.append(
                BenchmarkChoice(
                    o.target, False, f"over --bench-budget (worst case ${cost:.2f}; {reason})"
                )
            )
        else:
            spent += cost
            chosen.append(BenchmarkChoice(o.target, True, reason))
    # one choice per instance: benchmarking one measures it (its data-parallel options are predicted from that)
    once: dict[str, BenchmarkChoice] = {}
    for c in chosen + skipped:
        once.setdefault(c.target, c)
    return list(once.values())
