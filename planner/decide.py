"""Pure: options with training-time intervals x prices -> ranked options, two answers and a headline.

The rule the product exists for: **a GPU is recommended over the CPU only when its speedup clears
its break-even speedup with the whole interval.** For a GPU option G and the reference CPU option C
of the same kind of place (a rented GPU against the best rented CPU; this machine's GPU against
this machine's CPU — like with like, so a free local CPU never makes a rented GPU's break-even
infinite):

    speedup            = C.train_seconds / G.train_seconds        (interval: C.low/G.high .. C.high/G.low)
    break_even_speedup = G $/h / C $/h                            (with --time-value v: (G + v) / (C + v))

When the whole speedup interval is above break-even the GPU is recommended; when it straddles it
the verdict is "too close to call" and the CPU is recommended (the lower hourly rate loses least
if the speedup lands at its low end, and needs no GPU quota). The same holds for `fastest` with
time intervals. Options that do not fit in memory are shown and never recommended.

Two answers, one headline. The *here* answer is the best way to train on this machine; the *if you
rent* answer the best AWS instance. The headline picks between them by what the user's time is
worth: at `--time-value` v $/h (HEADLINE_TIME_VALUE when not given, and the plan says so), renting
wins only when its cost plus v x its time, at its pessimistic end, is below training here at here's
optimistic end. So a free machine wins against a rented GPU that saves minutes, and loses against
one that saves days. Under `fastest` the faster answer wins (with its whole interval); under
`deadline` the cheapest answer that meets the deadline.

Ties go to the cheaper option: among options whose metric (cost, or time under `fastest`) is the
same within their intervals' overlap with the best one's, a CPU wins over a GPU (the GPU must win
with its whole interval), then the lowest price per hour — a deadline met by a 1-GPU instance is
never given to a 4-GPU one.

Objectives: `cheapest` (billed cost, plus the value of waiting time with `time_value` $/h),
`fastest` (training time), `deadline` (cheapest among options whose whole interval finishes within
the deadline; if none can, the fastest, with a warning).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace

from planner.formats import money_text, range_text, rough_duration
from pricing.billing import instance_cost, local_cost

OBJECTIVES = ("cheapest", "fastest", "deadline")
HEADLINE_TIME_VALUE = 5.0  # USD per hour of waiting, when the user gives none: see the module docstring


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
    train_seconds_high: float | None = None  # math.inf: no usable interval (see interval_note)
    fits: bool = True
    note: str = ""
    instance_type: str | None = None
    region: str | None = None
    purchase: str | None = None
    step_seconds_low: float | None = None
    step_seconds_high: float | None = None
    one_time_seconds: float | None = None  # process start and exit, setup, warm-up, boot, the dataset
    data_seconds: float | None = None  # part of one_time_seconds: materialising the dataset (modelled)
    interval_note: str = ""  # why there is no usable interval
    caveat: str = ""  # what makes this measurement less trustworthy (a busy machine)
    gpus_used: int | None = None  # GPUs the option trains on, in all (None: a CPU option)
    instances: int = 1  # instances it rents at once (several: predicted across the network, on paper)
    scaling_efficiency: float | None = None  # step on 1 GPU / (GPUs x step on them), for data-parallel options

    @property
    def here(self) -> bool:
        return self.billing == "local"


def option_name(o: Option) -> str:
    """How the plan's sentences name an option: its target, and its GPUs when it uses several (one
    instance type is offered at 1, 2, 4 and 8 of its GPUs, and across instances)."""
    if o.instances > 1:
        return f"{o.instances} x {o.target} ({o.gpus_used} GPUs)"
    return f"{o.target} ({o.gpus_used} GPUs)" if (o.gpus_used or 0) > 1 else o.target


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
    reference: str | None = None  # the CPU option speedup and break-even compare with
    rank: int | None = None

    @property
    def usable(self) -> bool:
        return self.fits and self.train_seconds is not None

    @property
    def key(self) -> str:
        return self.target + ":" + self.device + ":" + str(self.gpus_used or "")


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
    answer: str | None = None  # "here" | "rent"
    gpus_used: int | None = None
    choice: str = ""  # the headline only: why this answer and not the other


@dataclass(frozen=True)
class Plan:
    objective: str
    options: list[RankedOption]
    recommendation: Recommendation  # the headline
    deadline_seconds: float | None = None
    time_value_per_hour: float | None = None
    warnings: list[str] = field(default_factory=list)
    answers: dict[str, Recommendation] = field(default_factory=dict)  # "here", "rent"
    headline_time_value: float | None = None  # the $/h of waiting the headline used

    def as_dict(self) -> dict:
        return {
            "objective": self.objective, "deadline_seconds": self.deadline_seconds,
            "time_value_per_hour": self.time_value_per_hour,
            "options": [asdict(o) for o in self.options],
            "recommendation": asdict(self.recommendation),
            "answers": {k: asdict(v) for k, v in self.answers.items()},
            "headline": {"time_value_per_hour": self.headline_time_value,
                         "time_value_is_default": self.time_value_per_hour is None},
            "warnings": list(self.warnings),
        }


def billed_cost(option: Option, seconds: float) -> float:
    if option.billing == "ec2":
        return instance_cost(option.price_per_hour, seconds)
    return local_cost(option.price_per_hour, seconds)


def _with_costs(o: Option, time_value: float) -> RankedOption:
    r = RankedOption(**asdict(o))
    if o.train_seconds is None:
        return r
    wait = time_value / 3600.0
    high = o.train_seconds_high if o.train_seconds_high is not None else o.train_seconds
    return replace(r, cost_usd=billed_cost(o, o.train_seconds),
                   cost_usd_low=billed_cost(o, o.train_seconds_low) + wait * o.train_seconds_low,
                   cost_usd_high=(billed_cost(o, high) + wait * high) if math.isfinite(high) else math.inf,
                   objective_value=billed_cost(o, o.train_seconds) + wait * o.train_seconds)


def _metric(o: RankedOption, objective: str) -> tuple[float, float, float]:
    """(point, low, high) of what the objective minimizes."""
    if objective == "fastest":
        return o.train_seconds, o.train_seconds_low, o.train_seconds_high
    return o.objective_value, o.cost_usd_low, o.cost_usd_high


def pick(pool: list[RankedOption], objective: str) -> RankedOption | None:
    """The best option of `pool` under the objective; ties (intervals overlapping the best one's)
    go to a CPU (a GPU must win with its whole interval), then to the lowest price per hour."""
    if not pool:
        return None
    best = min(pool, key=lambda o: (_metric(o, objective)[0], o.price_per_hour, o.key))
    _, best_low, best_high = _metric(best, objective)
    tied = [o for o in pool if _metric(o, objective)[1] <= best_high and _metric(o, objective)[2] >= best_low]
    return min(tied, key=lambda o: (o.device == "cuda", o.price_per_hour, _metric(o, objective)[0], o.key))


def _eligible(usable: list[RankedOption], objective: str, deadline: float | None) -> list[RankedOption]:
    if objective == "deadline":
        return [o for o in usable if o.train_seconds_high <= deadline]
    return usable


def _with_speedups(opts: list[RankedOption], objective: str, deadline: float | None, tv: float) -> list[RankedOption]:
    """Speedup and break-even of every usable GPU option against the best CPU option of its own
    kind of place (rented against rented, this machine against this machine)."""
    out = []
    refs = {}
    for here in (True, False):
        cpus = [o for o in opts if o.usable and o.device == "cpu" and o.here == here]
        ref_objective = "cheapest" if objective == "deadline" else objective
        refs[here] = (pick(_eligible(cpus, objective, deadline), ref_objective)
                      or pick(cpus, "cheapest"))  # speedups are still worth showing against the best CPU overall
    for o in opts:
        ref = refs[o.here]
        if ref is not None and o.device == "cuda" and o.usable:
            denominator = ref.price_per_hour + tv
            be = (o.price_per_hour + tv) / denominator if denominator > 0 else (math.inf if o.price_per_hour + tv > 0 else 1.0)
            o = replace(o, speedup=ref.train_seconds / o.train_seconds, speedup_low=ref.train_seconds_low / o.train_seconds_high,
                        speedup_high=ref.train_seconds_high / max(o.train_seconds_low, 1e-12), break_even_speedup=be,
                        reference=ref.target)
        out.append(o)
    return out


def decide(options: list[Option], objective: str = "cheapest", deadline_seconds: float | None = None,
           time_value_per_hour: float | None = None) -> Plan:
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
    if objective == "deadline" and not deadline_seconds:
        raise ValueError("the deadline objective needs deadline_seconds")
    tv = time_value_per_hour or 0.0
    ranked = _with_speedups([_with_costs(o, tv) for o in options], objective, deadline_seconds, tv)
    ranked = _rank(ranked, objective, deadline_seconds)
    warnings: list[str] = []
    answers = {}
    for name, here in (("here", True), ("rent", False)):
        group = [o for o in ranked if o.here == here]
        if group:
            answers[name] = _answer(group, objective, deadline_seconds, warnings, name)
    headline_tv = time_value_per_hour if time_value_per_hour is not None else HEADLINE_TIME_VALUE
    headline = _headline(answers, ranked, objective, deadline_seconds, headline_tv, time_value_per_hour is None)
    if headline is None:
        headline = Recommendation(None, None, "nothing_fits",
                                  "no option can run this workload: none fits in memory or none was measured; "
                                  "reduce train.batch_size or the model, or add targets with more memory")
    else:
        ranked = _headline_first(ranked, headline)
    return Plan(objective, ranked, headline, deadline_seconds, time_value_per_hour, list(dict.fromkeys(warnings)),
                answers, headline_tv)


def _rank(ranked: list[RankedOption], objective: str, deadline: float | None) -> list[RankedOption]:
    """Rank 1 is the overall pick (ties to the cheaper); then eligible options by the objective's
    point, then the others; what cannot run is unranked."""
    usable = [o for o in ranked if o.usable]
    pool = _eligible(usable, objective, deadline)
    metric = "fastest" if objective == "fastest" else "cheapest"
    first = pick(pool, metric)
    order = sorted(usable, key=lambda o: (o is not first, o not in pool, _metric(o, metric)[0], o.key))
    ranks = {o.key: i + 1 for i, o in enumerate(order)}
    final = [replace(o, rank=ranks.get(o.key)) for o in ranked]
    return sorted(final, key=lambda o: (o.rank is None, o.rank or 0))


def _headline_first(ranked: list[RankedOption], headline: Recommendation) -> list[RankedOption]:
    """Rank 1 is the headline (it may not be the objective's first: the headline weighs waiting);
    the others keep their order."""
    top = _option_of(headline, ranked)
    if top is None or top.rank == 1:
        return ranked
    order = [top] + [o for o in ranked if o.rank is not None and o is not top]
    ranks = {o.key: i + 1 for i, o in enumerate(order)}
    return sorted((replace(o, rank=ranks.get(o.key)) for o in ranked), key=lambda o: (o.rank is None, o.rank or 0))


def _answer(group: list[RankedOption], objective: str, deadline: float | None, warnings: list[str],
            name: str) -> Recommendation:
    """The best of one group (this machine's options, or the rented ones)."""
    usable = [o for o in group if o.usable]
    where = "here" if name == "here" else "to rent"
    if not usable:
        why = "; ".join(sorted({o.note for o in group if o.note}))[:300]
        return Recommendation(None, None, "nothing_fits", f"nothing {where} can run this workload" + (f": {why}" if why else ""),
                              answer=name)
    pool = _eligible(usable, objective, deadline)
    if objective == "deadline" and not pool:
        fastest = min(usable, key=lambda o: o.train_seconds)
        warnings.append(f"no option {where} finishes within the deadline ({rough_duration(deadline)}) with its whole interval")
        return _rec(fastest, "deadline_missed",
                    f"no option {where} meets the {rough_duration(deadline)} deadline with confidence; the fastest is "
                    f"{option_name(fastest)} ({fastest.device}) at {rough_duration(fastest.train_seconds)}{_span(fastest)}", name)
    metric = "fastest" if objective == "fastest" else "cheapest"
    best = pick(pool, metric)
    if len(pool) == 1:
        return _rec(best, "only_option", f"{option_name(best)} ({best.device}) is the only option {where} that "
                    + ("meets the deadline" if objective == "deadline" else "was measured and fits")
                    + f": about {rough_duration(best.train_seconds)} for {money_text(best.cost_usd)}", name)
    # A GPU that is best by its point estimate faces its reference CPU: clear, or too close to call.
    leader = min(pool, key=lambda o: (_metric(o, metric)[0], o.price_per_hour, o.key))
    ref = next((o for o in pool if o.target == leader.reference and o.device == "cpu"), None)
    if leader.device == "cuda" and ref is not None:
        return _gpu_versus_cpu(leader, best if best.device == "cpu" else ref, metric, name)
    return _rec(best, "clear", _why_best(best, group, objective, deadline, metric), name)


def _gpu_versus_cpu(best: RankedOption, ref: RankedOption, metric: str, name: str) -> Recommendation:
    _, _, high = _metric(best, metric)
    _, ref_low, _ = _metric(ref, metric)
    if high < ref_low:
        if metric == "fastest":
            reason = (f"{option_name(best)} is faster than the best CPU option {option_name(ref)} with its whole interval "
                      f"({best.speedup_low:.1f}-{best.speedup_high:.1f}x): about {rough_duration(best.train_seconds)} "
                      f"for {money_text(best.cost_usd)}")
        else:
            reason = (f"{option_name(best)} ({best.device_name or 'GPU'}) is {best.speedup:.1f}x faster than {option_name(ref)} "
                      f"({best.speedup_low:.1f}-{best.speedup_high:.1f}x) and its break-even speedup is "
                      f"{best.break_even_speedup:.1f}x, so it is cheaper even at the pessimistic end: "
                      f"about {rough_duration(best.train_seconds)} for {money_text(best.cost_usd)} vs "
                      f"{rough_duration(ref.train_seconds)} for {money_text(ref.cost_usd)} on the CPU")
        return _rec(best, "clear", reason, name)
    what = "cost" if metric == "cheapest" else "training time"
    reason = (f"too close to call: {option_name(best)} looks better on {what} by its estimate, but its speedup "
              f"({best.speedup_low:.1f}-{best.speedup_high:.1f}x) does not clear the break-even speedup "
              f"({best.break_even_speedup:.1f}x) with its whole interval. Recommending the CPU option {option_name(ref)}: "
              f"the lower hourly rate loses least if the speedup lands at its low end "
              f"(about {rough_duration(ref.train_seconds)} for {money_text(ref.cost_usd)})")
    return Recommendation(ref.target, ref.device, "too_close", reason, best.speedup, best.speedup_low, best.speedup_high,
                          best.break_even_speedup, name, ref.gpus_used)


def _why_best(best: RankedOption, group: list[RankedOption], objective: str, deadline: float | None, metric: str) -> str:
    gpus = [o for o in group if o.device == "cuda" and o.usable and o.speedup is not None]
    if best.device == "cuda":
        why = ("; no CPU option finishes within the deadline with its whole interval" if objective == "deadline"
               else "; no CPU option to compare with")
    elif gpus:
        g = max(gpus, key=lambda o: o.speedup)
        pace = (f"{g.speedup:.1f}x faster ({g.speedup_low:.1f}-{g.speedup_high:.1f}x)" if g.speedup >= 1
                else f"slower ({g.speedup:.2f}x the CPU's speed)")
        why = (f"; the fastest GPU option {option_name(g)} is {pace} but would need {g.break_even_speedup:.1f}x to break even"
               if math.isfinite(g.break_even_speedup) else f"; the fastest GPU option {option_name(g)} is {pace}")
    else:
        why = ""
    lead = f"cheapest that finishes within {rough_duration(deadline)}" if objective == "deadline" else metric
    return (f"{option_name(best)} ({best.device}) is the {lead} option: about {rough_duration(best.train_seconds)}"
            f"{_span(best)} for {money_text(best.cost_usd)}{why}")


def _span(o: RankedOption) -> str:
    if o.train_seconds_high is None or not math.isfinite(o.train_seconds_high):
        return " (no usable interval)"
    return f" ({range_text(o.train_seconds_low, o.train_seconds_high)})"  # as the table: "2.3-3.2 min", not "2 min-3 min"


def _rec(o: RankedOption, verdict: str, reason: str, name: str) -> Recommendation:
    return Recommendation(o.target, o.device, verdict, reason, o.speedup, o.speedup_low, o.speedup_high,
                          o.break_even_speedup, name, o.gpus_used)


def _headline(answers: dict[str, Recommendation], ranked: list[RankedOption], objective: str,
              deadline: float | None, tv: float, tv_default: bool) -> Recommendation | None:
    """Here or rent: see the module docstring."""
    chosen = {name: _option_of(rec, ranked) for name, rec in answers.items()}
    live = {name: o for name, o in chosen.items() if o is not None}
    if not live:
        return None
    if len(live) == 1:
        name, only = next(iter(live.items()))
        caveat = f". Careful: {only.target} was {only.caveat}" if only.caveat else ""
        return replace(answers[name], reason=answers[name].reason + caveat)
    here, rent = live["here"], live["rent"]
    if objective == "fastest":
        rent_wins = rent.train_seconds_high < here.train_seconds_low
        why = (f"renting is faster with its whole interval ({rough_duration(rent.train_seconds)} vs {rough_duration(here.train_seconds)} here)"
               if rent_wins else f"renting is not faster with its whole interval than training here ({rough_duration(here.train_seconds)})")
    elif objective == "deadline" and (answers["here"].verdict != "deadline_missed") != (answers["rent"].verdict != "deadline_missed"):
        rent_wins = answers["rent"].verdict != "deadline_missed"
        why = "only renting meets the deadline" if rent_wins else "training here meets the deadline"
    else:
        per_second = tv / 3600.0
        here_low = billed_cost(here, here.train_seconds_low) + per_second * here.train_seconds_low
        rent_high = (billed_cost(rent, rent.train_seconds_high) + per_second * rent.train_seconds_high
                     if math.isfinite(rent.train_seconds_high) else math.inf)
        rent_wins = rent_high < here_low
        value = f"${tv:g}/h of your waiting" + (" (the default; --time-value sets yours)" if tv_default else "")
        saved = here.train_seconds - rent.train_seconds
        why = (f"it saves about {rough_duration(max(saved, 0.0))} of waiting for {money_text(rent.cost_usd)} "
               f"({rough_duration(rent.train_seconds)} rented vs {rough_duration(here.train_seconds)} here), worth it at {value}"
               if rent_wins else
               f"about {rough_duration(here.train_seconds)} for {money_text(here.cost_usd)} here; renting "
               f"({rough_duration(rent.train_seconds)}, {money_text(rent.cost_usd)}) is not clearly worth it at {value}")
    name = "rent" if rent_wins else "here"
    rec = answers[name]
    caveats = "".join(f". Careful: {o.target} was {o.caveat}" for o in (here, rent) if o.caveat)
    choice = f"{'rent' if rent_wins else 'train here'} — {why}{caveats}"
    return replace(rec, reason=f"{rec.reason}. Why {'rent' if rent_wins else 'here'}: {why}{caveats}", choice=choice)


def _option_of(rec: Recommendation, ranked: list[RankedOption]) -> RankedOption | None:
    if rec.target is None:
        return None
    return next((o for o in ranked if o.target == rec.target and o.device == rec.device
                 and o.gpus_used == rec.gpus_used and o.usable), None)


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
    rec = plan.answers.get("rent", plan.recommendation)  # the question a paid benchmark settles: which instance
    predicted = [o for o in plan.options if o.source == "predicted"]
    cpus = [o for o in predicted if o.device == "cpu" and o.usable]
    best_cpu = pick(cpus, "fastest" if plan.objective == "fastest" else "cheapest")  # the rent answer's reference
    wanted: list[tuple[RankedOption, str]] = []
    skipped: list[BenchmarkChoice] = []
    if best_cpu is not None:
        wanted.append((best_cpu, "the best predicted CPU instance: the reference each GPU is compared with"))
    seen_gpus: dict[str, str] = {}
    gpus = sorted((o for o in predicted if o.device == "cuda"), key=lambda o: (o.price_per_hour, o.target))
    for o in gpus:
        model = o.device_name.split(" (")[0]  # "A10G (1 of 4)" is an A10G
        if (o.gpus_used or 0) > 1 or o.instances > 1:  # the instance's 1-GPU option is the one to measure
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
                          f"predicted to beat break-even even at its low end ({o.speedup_low:.2f}x > {o.break_even_speedup:.2f}x)"))
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
