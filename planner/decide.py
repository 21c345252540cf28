"""Pure: options with training-time intervals x prices -> ranked options and a recommendation.

The rule the product exists for: **a GPU is recommended over the CPU only when its speedup clears
its break-even speedup with the whole interval.** For a GPU option G and the reference CPU option C
(the best CPU option under the objective):

    speedup            = C.train_seconds / G.train_seconds        (interval: C.low/G.high .. C.high/G.low)
    break_even_speedup = G $/h / C $/h                            (with --time-value v: (G + v) / (C + v))

G beats C on cost when speedup > break-even. When the whole speedup interval is above break-even the
GPU is recommended; when the interval straddles it the verdict is "too close to call" and the CPU is
recommended: it is the lower hourly rate, so if the speedup turns out at the low end you lose least,
and you need no GPU quota. The same holds for the `fastest` objective with time intervals: a GPU
that is not faster with its whole interval is not worth its price. Options that do not fit in
memory are shown and never recommended.

Objectives: `cheapest` (billed cost, plus the value of waiting time with `time_value` $/h),
`fastest` (training time), `deadline` (cheapest among options whose whole interval finishes within
the deadline; if none can, the fastest, with a warning).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace

from planner.formats import money_text, rough_duration
from pricing.billing import instance_cost, local_cost

OBJECTIVES = ("cheapest", "fastest", "deadline")


@dataclass(frozen=True)
class Option:
    target: str  # "local", "aws:g5.xlarge"
    device: str  # "cpu" | "cuda"
    source: str  # "measured" | "predicted"
    price_per_hour: float
    billing: str = "local"  # "local" | "ec2"
    device_name: str = ""
    step_seconds: float | None = None
    train_seconds: float | None = None
    train_seconds_low: float | None = None
    train_seconds_high: float | None = None
    fits: bool = True
    note: str = ""
    instance_type: str | None = None
    region: str | None = None
    purchase: str | None = None
    gpus_used: int = 0  # GPUs the option trains on, in all (0: a CPU option)
    instances: int = 1  # instances it rents at once (several: predicted across the network, on paper)
    scaling_efficiency: float | None = None  # step on 1 GPU / (GPUs x step on them), for data-parallel options


def option_key(o: Option) -> str:
    """An option's identity: its target and device, and how many GPUs and instances it uses (one
    instance type may be offered at 1, 2, 4 and 8 of its GPUs)."""
    return f"{o.target}|{o.device}|{o.gpus_used}|{o.instances}"


def option_name(o: Option) -> str:
    """How the plan's sentences name an option: its target, and its GPUs when it uses several."""
    if o.instances > 1:
        return f"{o.instances} x {o.target} ({o.gpus_used} GPUs)"
    return f"{o.target} ({o.gpus_used} GPUs)" if o.gpus_used > 1 else o.target


@dataclass(frozen=True)
class RankedOption(Option):
    cost_usd: float | None = None
    cost_usd_low: float | None = None
    cost_usd_high: float | None = None
    objective_value: float | None = None
    speedup: float | None = None
    speedup_low: float | None = None
    speedup_high: float | None = None
    break_even_speedup: float | None = None
    rank: int | None = None

    @property
    def usable(self) -> bool:
        return self.fits and self.train_seconds is not None


@dataclass(frozen=True)
class Recommendation:
    target: str | None
    device: str | None
    verdict: str  # clear | too_close | only_option | deadline_missed | nothing_fits
    reason: str
    speedup: float | None = None
    speedup_low: float | None = None
    speedup_high: float | None = None
    break_even_speedup: float | None = None
    gpus_used: int = 0  # which of the target's options: see option_key
    instances: int = 1


@dataclass(frozen=True)
class Plan:
    objective: str
    options: list[RankedOption]
    recommendation: Recommendation
    deadline_seconds: float | None = None
    time_value_per_hour: float | None = None
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {
            "objective": self.objective, "deadline_seconds": self.deadline_seconds,
            "time_value_per_hour": self.time_value_per_hour,
            "options": [asdict(o) for o in self.options],
            "recommendation": asdict(self.recommendation), "warnings": list(self.warnings),
        }


def billed_cost(option: Option, seconds: float) -> float:
    if option.billing == "ec2":
        return instance_cost(option.price_per_hour, seconds)
    return local_cost(option.price_per_hour, seconds)


def _with_costs(o: Option, time_value: float) -> RankedOption:
    r = RankedOption(**asdict(o))
    if o.train_seconds is None:
        return r
    cost = billed_cost(o, o.train_seconds)
    low, high = billed_cost(o, o.train_seconds_low), billed_cost(o, o.train_seconds_high)
    wait = time_value / 3600.0
    return replace(r, cost_usd=cost, cost_usd_low=low + wait * o.train_seconds_low,
                   cost_usd_high=high + wait * o.train_seconds_high, objective_value=cost + wait * o.train_seconds)


def _metric(o: RankedOption, objective: str) -> tuple[float, float, float]:
    """(point, low, high) of what the objective minimizes."""
    if objective == "fastest":
        return o.train_seconds, o.train_seconds_low, o.train_seconds_high
    return o.objective_value, o.cost_usd_low, o.cost_usd_high


def _speedups(opts: list[RankedOption], ref: RankedOption | None, time_value: float) -> list[RankedOption]:
    out = []
    for o in opts:
        if ref is not None and o.device == "cuda" and o.usable:
            be = (o.price_per_hour + time_value) / (ref.price_per_hour + time_value) if ref.price_per_hour + time_value > 0 else math.inf
            o = replace(o, speedup=ref.train_seconds / o.train_seconds,
                        speedup_low=ref.train_seconds_low / o.train_seconds_high,
                        speedup_high=ref.train_seconds_high / max(o.train_seconds_low, 1e-12),
                        break_even_speedup=be)
        out.append(o)
    return out


def decide(options: list[Option], objective: str = "cheapest", deadline_seconds: float | None = None,
           time_value_per_hour: float | None = None) -> Plan:
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
    if objective == "deadline" and not deadline_seconds:
        raise ValueError("the deadline objective needs deadline_seconds")
    tv = time_value_per_hour or 0.0
    ranked = [_with_costs(o, tv) for o in options]
    usable = [o for o in ranked if o.usable]
    warnings: list[str] = []

    metric_name = "fastest" if objective == "fastest" else "cheapest"
    pool = usable
    if objective == "deadline":
        pool = [o for o in usable if o.train_seconds_high <= deadline_seconds]
    order = sorted(usable, key=lambda o: (o not in pool, _metric(o, metric_name)[0], o.target))
    cpu_pool = [o for o in pool if o.device == "cpu"]
    ref = min(cpu_pool, key=lambda o: _metric(o, objective if objective != "deadline" else "cheapest")[0], default=None)
    if ref is None:  # speedups are still worth showing against the best CPU overall
        ref = min((o for o in usable if o.device == "cpu"), key=lambda o: _metric(o, "cheapest")[0], default=None)
    ranks = {option_key(o): i + 1 for i, o in enumerate(order)}
    final = [replace(o, rank=ranks.get(option_key(o))) for o in _speedups(ranked, ref, tv)]
    final.sort(key=lambda o: (o.rank is None, o.rank or 0))
    by_key = {option_key(o): o for o in final}

    def plan(rec: Recommendation) -> Plan:
        return Plan(objective, final, rec, deadline_seconds, time_value_per_hour, warnings)

    if not usable:
        return plan(Recommendation(None, None, "nothing_fits",
                                   "no option can run this workload: none fits in memory or none was measured; "
                                   "reduce train.batch_size or the model, or add targets with more memory"))
    if objective == "deadline" and not pool:
        fastest = min(usable, key=lambda o: o.train_seconds)
        warnings.append(f"no option finishes within the deadline ({rough_duration(deadline_seconds)}) with its whole interval")
        return plan(Recommendation(fastest.target, fastest.device, "deadline_missed",
                                   f"no option meets the {rough_duration(deadline_seconds)} deadline with confidence; the fastest is "
                                   f"{option_name(fastest)} ({fastest.device}) at {rough_duration(fastest.train_seconds)} "
                                   f"({rough_duration(fastest.train_seconds_low)}-{rough_duration(fastest.train_seconds_high)})",
                                   gpus_used=fastest.gpus_used, instances=fastest.instances))
    best = by_key[option_key(order[0])]
    if len(pool) == 1:
        return plan(Recommendation(best.target, best.device, "only_option",
                                   f"{option_name(best)} ({best.device}) is the only option that "
                                   + ("meets the deadline" if objective == "deadline" else "was measured and fits")
                                   + f": about {rough_duration(best.train_seconds)} for {money_text(best.cost_usd)}",
                                   best.speedup, best.speedup_low, best.speedup_high, best.break_even_speedup,
                                   best.gpus_used, best.instances))

    ref = by_key[option_key(ref)] if ref is not None else None
    pool_keys = {option_key(o) for o in pool}
    if best.device == "cuda" and ref is not None and option_key(ref) in pool_keys:
        point, low, high = _metric(best, metric_name)
        _, ref_low, _ = _metric(ref, metric_name)
        what = "cost" if metric_name == "cheapest" else "training time"
        if high < ref_low:
            reason = (f"{option_name(best)} ({best.device_name or 'GPU'}) is {best.speedup:.1f}x faster than {option_name(ref)} "
                      f"({best.speedup_low:.1f}-{best.speedup_high:.1f}x) and its break-even speedup is "
                      f"{best.break_even_speedup:.1f}x, so it is cheaper even at the pessimistic end: "
                      f"about {rough_duration(best.train_seconds)} for {money_text(best.cost_usd)} vs "
                      f"{rough_duration(ref.train_seconds)} for {money_text(ref.cost_usd)} on the CPU")
            if metric_name == "fastest":
                reason = (f"{option_name(best)} is faster than the best CPU option {option_name(ref)} with its whole interval "
                          f"({best.speedup_low:.1f}-{best.speedup_high:.1f}x): about {rough_duration(best.train_seconds)} "
                          f"for {money_text(best.cost_usd)}")
            return plan(Recommendation(best.target, best.device, "clear", reason,
                                       best.speedup, best.speedup_low, best.speedup_high, best.break_even_speedup,
                                       best.gpus_used, best.instances))
        reason = (f"too close to call: {option_name(best)} looks better on {what} by its estimate, but its speedup "
                  f"({best.speedup_low:.1f}-{best.speedup_high:.1f}x) does not clear the break-even speedup "
                  f"({best.break_even_speedup:.1f}x) with its whole interval. Recommending the CPU option {option_name(ref)}: "
                  f"the lower hourly rate loses least if the speedup lands at its low end "
                  f"(about {rough_duration(ref.train_seconds)} for {money_text(ref.cost_usd)})")
        return plan(Recommendation(ref.target, ref.device, "too_close", reason,
                                   best.speedup, best.speedup_low, best.speedup_high, best.break_even_speedup,
                                   ref.gpus_used, ref.instances))

    gpus = [o for o in final if o.device == "cuda" and o.usable and o.speedup is not None]
    if best.device == "cuda":
        why = ("; no CPU option finishes within the deadline with its whole interval" if objective == "deadline"
               else "; no CPU option was measured to compare with")
    elif gpus:
        g = max(gpus, key=lambda o: o.speedup)
        pace = (f"{g.speedup:.1f}x faster ({g.speedup_low:.1f}-{g.speedup_high:.1f}x)" if g.speedup >= 1
                else f"slower ({g.speedup:.2f}x the CPU's speed)")
        why = (f"; the fastest GPU option {option_name(g)} is {pace} but would need {g.break_even_speedup:.1f}x to break even"
               if not math.isinf(g.break_even_speedup) else f"; the fastest GPU option {option_name(g)} is {pace}, and the CPU costs nothing per hour")
    else:
        why = ""
    lead = "cheapest" if metric_name == "cheapest" else "fastest"
    if objective == "deadline":
        lead = f"cheapest that finishes within {rough_duration(deadline_seconds)}"
    reason = f"{option_name(best)} ({best.device}) is the {lead} option: about {rough_duration(best.train_seconds)} " \
             f"({rough_duration(best.train_seconds_low)}-{rough_duration(best.train_seconds_high)}) for {money_text(best.cost_usd)}{why}"
    return plan(Recommendation(best.target, best.device, "clear", reason, gpus_used=best.gpus_used,
                               instances=best.instances))


@dataclass(frozen=True)
class BenchmarkChoice:
    target: str
    benchmark: bool
    reason: str


def select_benchmarks(plan: Plan, worst_case_cost: dict[str, float], budget: float, max_instances: int) -> list[BenchmarkChoice]:
    """Which predicted cloud options a paid benchmark could change the decision for (pure).

    Priority: the best predicted CPU instance (the reference every GPU is compared with), then the
    recommended option if it is a predicted GPU, then GPUs whose speedup interval straddles their
    break-even, then GPUs that could not be predicted at all, cheapest first; one instance per GPU
    model (a bigger instance with the same GPU trains at the same speed). Skipped: what does not
    fit, GPUs predicted to lose even at the optimistic end of their interval, CPU instances other
    than the best, and whatever the budget or --max-instances leave out.
    """
    rec = plan.recommendation
    predicted = [o for o in plan.options if o.source == "predicted"]
    cpus = [o for o in predicted if o.device == "cpu" and o.usable]
    best_cpu = min(cpus, key=lambda o: o.objective_value, default=None)
    wanted: list[tuple[RankedOption, str]] = []
    skipped: list[BenchmarkChoice] = []
    if best_cpu is not None:
        wanted.append((best_cpu, "the best predicted CPU instance: the reference each GPU is compared with"))
    seen_gpus: dict[str, str] = {}
    gpus = sorted((o for o in predicted if o.device == "cuda"), key=lambda o: (o.price_per_hour, o.target))
    for o in gpus:
        model = o.device_name.split(" (")[0]  # "A10G (1 of 4)" is an A10G
        if o.gpus_used > 1 or o.instances > 1:  # the instance's 1-GPU option is the one to measure
            skipped.append(BenchmarkChoice(o.target, False, f"data-parallel option ({option_name(o)}): predicted from "
                                                            "the device model; benchmark the instance's 1-GPU option"))
            continue
        if not o.fits:
            skipped.append(BenchmarkChoice(o.target, False, f"does not fit in GPU memory ({o.note})" if o.note else "does not fit in GPU memory"))
            continue
        if model in seen_gpus:
            skipped.append(BenchmarkChoice(o.target, False, f"same GPU ({model}) as {seen_gpus[model]}, which is cheaper"))
            continue
        if o.train_seconds is None:
            seen_gpus[model] = o.target
            wanted.append((o, f"could not be predicted ({o.note}): a benchmark settles it"))
            continue
        if o.target == rec.target:
            seen_gpus[model] = o.target
            wanted.insert(1 if best_cpu else 0, (o, "the predicted recommendation: confirm it before paying for the full run"))
            continue
        if o.speedup is None or o.break_even_speedup is None:
            continue
        if o.speedup_high < o.break_even_speedup:
            skipped.append(BenchmarkChoice(o.target, False, f"predicted too slow for its price even at best "
                                                            f"({o.speedup_high:.2f}x < break-even {o.break_even_speedup:.2f}x)"))
            continue
        seen_gpus[model] = o.target
        wanted.append((o, f"its speedup ({o.speedup_low:.2f}-{o.speedup_high:.2f}x) straddles break-even "
                          f"({o.break_even_speedup:.2f}x)" if o.speedup_low < o.break_even_speedup else
                          f"predicted to beat break-even ({o.speedup_low:.2f}x > {o.break_even_speedup:.2f}x)"))
    for o in cpus:
        if best_cpu is not None and o.target != best_cpu.target:
            skipped.append(BenchmarkChoice(o.target, False, f"CPU instance predicted no better than {best_cpu.target}"))
    chosen: list[BenchmarkChoice] = []
    spent = 0.0
    for o, reason in wanted:
        cost = worst_case_cost.get(o.target, 0.0)
        if len(chosen) >= max_instances:
            skipped.append(BenchmarkChoice(o.target, False, f"--max-instances {max_instances} reached ({reason})"))
        elif spent + cost > budget:
            skipped.append(BenchmarkChoice(o.target, False, f"over --bench-budget (worst case ${cost:.2f}; {reason})"))
        else:
            spent += cost
            chosen.append(BenchmarkChoice(o.target, True, reason))
    return chosen + skipped
