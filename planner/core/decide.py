"""Pure: options with training-time intervals x prices -> ranked options, two answers and a headline.

THE RULE (one rule, everywhere; check it by hand from the table):

1. Under the objective every usable option has a *point value*: its billed cost (`cheapest`; plus
   the value of waiting, time_value x training time, when `--time-value` is given), its training
   time (`fastest`), or its billed cost among the options whose whole interval finishes within the
   deadline (`deadline`). **The option with the best point value wins.** Exact ties go to the
   shorter training time, then the lower hourly rate — so an option whose point cost is lower and
   whose time is no longer is never passed over.
2. The winner is compared with the runner-up (the second-best point value): their ratio
   `runner-up / winner` is the margin it wins by. **"Too close to call"** when that ratio is within
   TOO_CLOSE_MARGIN (10%) — or, when only one of the two is scaled from a measurement of this
   machine, within that measurement's run-to-run noise, since measuring again could swap them (the
   plan states which band it used). The answer still names the better one by its estimate.
3. Beyond the band the winner is **clear** when the ratio's interval stays above 1, and **likely**
   when it does not: the answer says how sure it is (the interval of the ratio) and which paid
   benchmark would settle it.
4. "A GPU only when its speedup beats its price ratio" is rule 1 applied to a GPU and the
   *reference CPU*: the best fitting CPU of the same kind of place by the same point value (for
   renting, the best rented CPU; for this machine, its CPU), one reference for every GPU row.

       speedup            = reference time / GPU time
       break_even_speedup = (GPU $/h + v) / (CPU $/h + v)   (billed rates: instance + root volume; v = time value)

   With per-second billing, `speedup > break_even_speedup` exactly when the GPU's point cost is the
   lower, so the sentence quotes the two numbers the rule compared.

Intervals of ratios count shared error once (`ErrorBasis`): CPU instances predicted from this
machine's bench share that bench's error, which cancels in their ratio (and the CPU model's error
is counted once, not once per instance); a GPU predicted by the device model against a CPU scaled
from the bench combines the two independent errors once, in quadrature in log space — not as the
corner-to-corner ratio of two intervals.

Two answers, one headline. The *here* answer is the best way to train on this machine; the *if you
rent* answer the best AWS instance. The headline picks between them by the same rule at a value of
waiting (`--time-value`, HEADLINE_TIME_VALUE $/h when not given, and the plan says so): point cost
plus waiting, so a free machine wins against a rented GPU that saves minutes and loses against one
that saves days. Under `fastest` the faster answer wins; under `deadline` the answer that meets it
(both: the cheaper).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace

from planner.core.kinds import OBJECTIVES, AnswerName, Billing, Device, Objective, Purchase, Source, Verdict
from planner.core.formats import range_text, rough_duration, sig_duration, sig_money
from pricing.billing import billed_seconds, root_volume_usd_per_hour

HEADLINE_TIME_VALUE = 5.0  # USD per hour of waiting, when the user gives none: see the module docstring
TOO_CLOSE_MARGIN = 0.10  # rule 2: the runner-up within 10% of the winner is too close to call


@dataclass(frozen=True)
class ErrorBasis:
    """Where an option's interval comes from, so the ratio of two options counts shared error once.

    `model`: what made the estimate ("measured:local-cpu", "cpu-model", "gpu-model:ampere:fp32"):
    two estimates by the same model have correlated errors, counted once in their ratio.
    `bench`: the measurement the estimate scales ("local-cpu": this machine's bench, which every CPU
    instance is predicted from), with its relative half-widths (its interval and the run-to-run
    noise): shared by every option scaled from it, so it cancels in their ratio. `estimate`: options
    given the very same step estimate (one GPU model on two instance sizes) differ only in price:
    their model error cancels too."""

    model: str = ""
    bench: str = ""
    bench_below: float = 0.0
    bench_above: float = 0.0
    estimate: str = ""  # the same estimate on another instance ("gpu-model:L4:1x1": one L4 on g6.xlarge or g6.2xlarge)


@dataclass(frozen=True)
class Option:
    target: str  # "local", "aws:g5.xlarge"
    device: Device
    source: Source
    price_per_hour: float
    billing: Billing = "local"  # this machine, or EC2's per-second billing
    device_name: str = ""
    step_seconds: float | None = None
    train_seconds: float | None = None
    train_seconds_low: float | None = None
    train_seconds_high: float | None = None  # math.inf: no usable interval (see interval_note)
    fits: bool = True
    note: str = ""
    instance_type: str | None = None
    region: str | None = None
    purchase: Purchase | None = None
    step_seconds_low: float | None = None
    step_seconds_high: float | None = None
    one_time_seconds: float | None = None  # process start and exit, setup, warm-up, boot, the dataset
    data_seconds: float | None = None  # part of one_time_seconds: materialising the dataset (modelled)
    interval_note: str = ""  # why there is no usable interval
    caveat: str = ""  # what makes this measurement less trustworthy (a busy machine)
    gpus_used: int | None = None  # GPUs the option trains on, in all (None: a CPU option)
    instances: int = 1  # instances it rents at once (several: predicted across the network, on paper)
    scaling_efficiency: float | None = None  # step on 1 GPU / (GPUs x step on them), for data-parallel options
    basis: ErrorBasis = ErrorBasis()
    failed: bool = False  # a benchmark that failed (note: why); not "does not fit"

    @property
    def here(self) -> bool:
        return self.billing == "local"


def option_name(o: Option) -> str:
    """How the plan's sentences name an option: its target, and its GPUs when it uses several (one
    instance type is offered at 1, 2, 4 and 8 of its GPUs, and across instances)."""
    if o.instances > 1:
        return f"{o.instances} x {o.target} ({o.gpus_used} GPUs)"
    return f"{o.target} ({o.gpus_used} GPUs)" if (o.gpus_used or 0) > 1 else o.target


def device_label(o: Option) -> str:
    """'cpu', or the GPU's name ('L4', 'A100 x8')."""
    if o.device != "cuda":
        return "cpu"
    name = (o.device_name or "GPU").split(" (")[0]
    return name + (f" x{o.gpus_used}" if (o.gpus_used or 1) > 1 else "")


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
    def point_cost(self) -> float | None:
        """What the plan weighs the option's cost at: its objective value (billed cost plus waiting at the
        time value), the point its cost interval (cost_usd_low..high) surrounds; else the billed cost."""
        return self.objective_value if self.objective_value is not None else self.cost_usd

    @property
    def key(self) -> str:
        return self.target + ":" + self.device + ":" + str(self.gpus_used or "")


@dataclass(frozen=True)
class Comparison:
    """The numbers an answer rests on (rule 2 and 3): the winner against the runner-up under one
    metric. `ratio` = runner-up value / winner value (>= 1); its interval counts shared error once."""

    metric: str  # "cost" | "cost and waiting" | "training time"
    winner: str
    runner_up: str
    winner_value: float
    runner_up_value: float
    ratio: float
    ratio_low: float
    ratio_high: float
    band: float  # too close when ratio <= 1 + band
    band_reason: str  # why the band is what it is
    verdict: Verdict  # clear | likely | too_close
    settle: list[str] = field(default_factory=list)  # predicted options a paid benchmark would measure


@dataclass(frozen=True)
class Recommendation:
    target: str | None
    device: Device | None
    verdict: Verdict
    reason: str
    speedup: float | None = None
    speedup_low: float | None = None
    speedup_high: float | None = None
    break_even_speedup: float | None = None
    answer: AnswerName | None = None
    gpus_used: int | None = None
    choice: str = ""  # the headline only: why this answer and not the other
    reference: str | None = None  # the reference CPU the speedup compares with
    comparison: Comparison | None = None  # the winner against the runner-up
    choice_comparison: Comparison | None = None  # the headline only: here against rent, at the headline's time value


@dataclass(frozen=True)
class Plan:
    objective: Objective
    options: list[RankedOption]
    recommendation: Recommendation  # the headline
    deadline_seconds: float | None = None
    time_value_per_hour: float | None = None
    warnings: list[str] = field(default_factory=list)
    answers: dict[AnswerName, Recommendation] = field(default_factory=dict)
    headline_time_value: float | None = None  # the $/h of waiting the headline used
    references: dict[AnswerName, str] = field(default_factory=dict)  # the reference CPU's target

    def option_of(self, rec: Recommendation) -> RankedOption | None:
        """The row a recommendation names: its target on its device at its GPU count."""
        return _option_of(rec, self.options)


# ----------------------------------------------------------------------------- costs


def hourly_rate(o: Option) -> float:
    """What an hour of the option bills: the instance(s) and their root volumes; this machine's price."""
    if o.billing == "ec2":
        return o.price_per_hour + o.instances * root_volume_usd_per_hour()
    return o.price_per_hour


def billed_cost(option: Option, seconds: float) -> float:
    """The hourly rate over the seconds billed: EC2's per-second billing with its minimum; this machine's
    seconds as they are (pricing/billing.py)."""
    if option.billing == "ec2":
        return hourly_rate(option) * billed_seconds(seconds) / 3600.0
    return hourly_rate(option) * max(0.0, seconds) / 3600.0


def value_of(o: Option, seconds: float, time_value: float) -> float:
    """Billed cost of `seconds` on `o` plus the waiting at `time_value` $/h."""
    return billed_cost(o, seconds) + time_value / 3600.0 * seconds


def _with_costs(o: Option, time_value: float) -> RankedOption:
    r = RankedOption(**{f.name: getattr(o, f.name) for f in fields(Option)})
    if o.train_seconds is None:
        return r
    low = o.train_seconds_low if o.train_seconds_low is not None else o.train_seconds
    high = o.train_seconds_high if o.train_seconds_high is not None else o.train_seconds
    return replace(r, train_seconds_low=low, train_seconds_high=high, cost_usd=billed_cost(o, o.train_seconds),
                   cost_usd_low=value_of(o, low, time_value),
                   cost_usd_high=value_of(o, high, time_value) if math.isfinite(high) else math.inf,
                   objective_value=value_of(o, o.train_seconds, time_value))


def _point(o: RankedOption, objective: str, time_value: float | None = None) -> float:
    """Rule 1's point value (at the plan's time value, or at `time_value`: the headline's)."""
    if objective == "fastest":
        return o.train_seconds  # type: ignore[return-value]
    if time_value is None:
        return o.objective_value  # type: ignore[return-value]
    return value_of(o, o.train_seconds, time_value)  # type: ignore[arg-type]


def _order(pool: list[RankedOption], objective: str, time_value: float | None = None) -> list[RankedOption]:
    """Best first by rule 1: point value, then training time, then hourly rate (then the name: a
    total order, so the same inputs give the same answer in any order)."""
    return sorted(pool, key=lambda o: (_point(o, objective, time_value), o.train_seconds, hourly_rate(o), o.key))


def _high(o: Option) -> float:
    """The pessimistic end of an option's training time (math.inf: no usable interval)."""
    return o.train_seconds_high if o.train_seconds_high is not None else math.inf


def _eligible(usable: list[RankedOption], objective: str, deadline: float | None) -> list[RankedOption]:
    if objective == "deadline":
        return [o for o in usable if deadline is not None and _high(o) <= deadline]
    return usable


# ----------------------------------------------------------------------------- shared error


def _steps_share(o: Option) -> float:
    """The share of the training time that is steps (what a bench measures); the rest is one-time
    costs (process start, setup, an instance's boot), which the bench's error does not scale."""
    t = o.train_seconds or 0.0
    return max(t - (o.one_time_seconds or 0.0), 0.0) / t if t > 0 else 1.0


def _bench_parts(o: Option) -> tuple[float, float]:
    """(below, above): how far the bench's error moves the option's training time, relative."""
    if not o.basis.bench:
        return 0.0, 0.0
    share = _steps_share(o)
    return o.basis.bench_below * share, o.basis.bench_above * share


def _own_widths(o: Option) -> tuple[float, float]:
    """(below, above) log factors of the option's own error: its interval without the bench's part."""
    t = o.train_seconds or 0.0
    low, high = o.train_seconds_low or t, o.train_seconds_high if o.train_seconds_high is not None else t
    if t <= 0:
        return 0.0, 0.0
    bench_below, bench_above = _bench_parts(o)
    # relative widths, as planner.core.estimate combined them (in quadrature), then as log factors
    below = math.sqrt(max((1 - low / t) ** 2 - bench_below ** 2, 0.0))
    above = math.sqrt(max((high / t - 1) ** 2 - bench_above ** 2, 0.0)) if math.isfinite(high) else math.inf
    return -math.log(max(1.0 - below, 1e-9)), math.log1p(above)


def _bench_between(a: Option, b: Option) -> tuple[float, float]:
    """(down, up) relative moves of a/b that the benches' errors can cause. One bench behind both moves
    them together: only the difference of their step shares is left (an instance's boot does not
    scale with this machine's step). Different benches move independently."""
    a_below, a_above = _bench_parts(a)
    b_below, b_above = _bench_parts(b)
    if a.basis.bench and a.basis.bench == b.basis.bench:
        gap = _steps_share(a) - _steps_share(b)
        below, above = a.basis.bench_below, a.basis.bench_above
        return (abs(gap) * (below if gap > 0 else above), abs(gap) * (above if gap > 0 else below))
    return math.hypot(a_below, b_above), math.hypot(a_above, b_below)


def time_ratio(a: Option, b: Option) -> tuple[float, float, float]:
    """a's training time over b's, with the interval of that ratio: the error of a bench both scale
    cancels (but for their different step shares), one model's errors are counted once (and not at
    all between two instances given the very same estimate), independent errors add in quadrature
    (log space)."""
    r = a.train_seconds / b.train_seconds  # type: ignore[operator]
    a_below, a_above = _own_widths(a)
    b_below, b_above = _own_widths(b)
    same_model = bool(a.basis.model) and a.basis.model == b.basis.model
    same_estimate = bool(a.basis.estimate) and a.basis.estimate == b.basis.estimate
    bench_down, bench_up = _bench_between(a, b)

    def own(x: float, y: float) -> float:
        return 0.0 if same_estimate else max(x, y) if same_model else math.hypot(x, y)

    up = math.hypot(math.log1p(bench_up), own(a_above, b_below))  # a slower, b faster
    down = math.hypot(-math.log(max(1.0 - bench_down, 1e-9)), own(a_below, b_above))
    return r, r * math.exp(-down) if math.isfinite(down) else 0.0, r * math.exp(up) if math.isfinite(up) else math.inf


def noise_band(a: Option, b: Option) -> tuple[float, str]:
    """Rule 2's band for two options: the margin, or — when measuring this machine again would move
    one of them and not the other as much — that bench's run-to-run noise, whichever is wider."""
    down, up = _bench_between(a, b)
    noise = max(down, up)
    if noise <= TOO_CLOSE_MARGIN:
        return TOO_CLOSE_MARGIN, f"{TOO_CLOSE_MARGIN:.0%}, the margin"
    benches = " and ".join(dict.fromkeys(o.basis.bench for o in (a, b) if o.basis.bench))
    return noise, (f"{noise:.0%}, what the run-to-run noise of the {benches} bench moves one of the two by "
                   "against the other: measuring again could swap them")


def compare(best: RankedOption, other: RankedOption, objective: str, time_value: float) -> Comparison:
    """Rule 2 and 3 for two options, best first (by `_order`)."""
    if objective == "fastest":
        metric, vb, vo = "training time", best.train_seconds, other.train_seconds
    else:
        metric = "cost and waiting" if time_value else "cost"
        vb, vo = value_of(best, best.train_seconds, time_value), value_of(other, other.train_seconds, time_value)  # type: ignore[arg-type]
        if vb <= 0 and vo <= 0:  # both free: the time decides (rule 1's tie-break)
            metric, vb, vo = "training time (both cost nothing)", best.train_seconds, other.train_seconds
    r, low, high = time_ratio(other, best)
    ratio = vo / vb if vb > 0 else (math.inf if vo > 0 else 1.0)  # type: ignore[operator]
    scale = ratio / r if r > 0 and math.isfinite(ratio) else 1.0
    ratio_low, ratio_high = (low * scale, high * scale) if math.isfinite(ratio) else (math.inf, math.inf)
    band, band_reason = noise_band(best, other)
    verdict: Verdict = "too_close" if ratio <= 1 + band else "clear" if ratio_low > 1 else "likely"
    settle = [option_name(o) for o in (best, other) if o.source == "predicted"]
    return Comparison(metric, option_name(best), option_name(other), vb, vo, ratio, ratio_low, ratio_high,  # type: ignore[arg-type]
                      band, band_reason, verdict, settle)


def closest(best: RankedOption, others: list[RankedOption], objective: str, time_value: float) -> Comparison:
    """The winner against the runner-up — or against the first option, in rank order, that is within
    its own band (too close to call), since that is the one a re-measurement could put first."""
    runner_up = compare(best, others[0], objective, time_value)
    if runner_up.verdict == "too_close":
        return runner_up
    for other in others[1:]:
        cmp = compare(best, other, objective, time_value)
        if cmp.verdict == "too_close":
            return cmp
    return runner_up


# ----------------------------------------------------------------------------- speedups


def reference_cpu(opts: list[RankedOption], here: bool, objective: str, deadline: float | None) -> RankedOption | None:
    """Rule 4's reference: the best usable CPU of one kind of place by the objective's point value
    (meeting the deadline when one can; else the cheapest)."""
    cpus = [o for o in opts if o.usable and o.device == "cpu" and o.here == here]
    pool = _eligible(cpus, objective, deadline) or cpus
    ordered = _order(pool, "cheapest" if objective == "deadline" else objective)
    return ordered[0] if ordered else None


def break_even(gpu: Option, ref: Option, time_value: float) -> float:
    numerator, denominator = hourly_rate(gpu) + time_value, hourly_rate(ref) + time_value
    if denominator > 0:
        return numerator / denominator
    return math.inf if numerator > 0 else 1.0


def _with_speedups(opts: list[RankedOption], refs: dict[bool, RankedOption | None], tv: float) -> list[RankedOption]:
    out = []
    for o in opts:
        ref = refs[o.here]
        if ref is not None and o.device == "cuda" and o.usable:
            speedup, low, high = time_ratio(ref, o)
            o = replace(o, speedup=speedup, speedup_low=low, speedup_high=high, break_even_speedup=break_even(o, ref, tv),
                        reference=ref.target)
        out.append(o)
    return out


# ----------------------------------------------------------------------------- the plan


def decide(options: list[Option], objective: Objective = "cheapest", deadline_seconds: float | None = None,
           time_value_per_hour: float | None = None) -> Plan:
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
    if objective == "deadline" and not deadline_seconds:
        raise ValueError("the deadline objective needs deadline_seconds")
    tv = time_value_per_hour or 0.0
    costed = [_with_costs(o, tv) for o in options]
    refs = {here: reference_cpu(costed, here, objective, deadline_seconds) for here in (True, False)}
    ranked = _rank(_with_speedups(costed, refs, tv), objective, deadline_seconds)
    warnings: list[str] = []
    answers = {}
    places: tuple[tuple[AnswerName, bool], ...] = (("here", True), ("rent", False))
    for name, here in places:
        group = [o for o in ranked if o.here == here]
        if group:
            answers[name] = _answer(group, objective, deadline_seconds, tv, name, refs[here], warnings)
    headline_tv = time_value_per_hour if time_value_per_hour is not None else HEADLINE_TIME_VALUE
    headline = _headline(answers, ranked, objective, headline_tv, time_value_per_hour is None)
    if headline is None:
        headline = _nothing(ranked, "")
    else:
        ranked = _headline_first(ranked, headline)
    references: dict[AnswerName, str] = {name: ref.target for name, here in places if (ref := refs[here]) is not None}
    return Plan(objective, ranked, headline, deadline_seconds, time_value_per_hour, list(dict.fromkeys(warnings)),
                answers, headline_tv, references)


def _rank(ranked: list[RankedOption], objective: str, deadline: float | None) -> list[RankedOption]:
    """Rule 1's order: eligible options by their point value, then the others; what cannot run is unranked."""
    usable = [o for o in ranked if o.usable]
    pool = _eligible(usable, objective, deadline)
    metric = "fastest" if objective == "fastest" else "cheapest"
    in_pool = {o.key for o in pool}
    order = _order(pool, metric) + _order([o for o in usable if o.key not in in_pool], metric)
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


def _nothing(group: list[RankedOption], where: str) -> Recommendation:
    """No usable option: say what failed (and its whole reason) apart from what does not fit."""
    failed = [o for o in group if o.failed]
    too_big = [o for o in group if not o.fits]
    where_text = f" {where}" if where else ""
    if failed and not too_big:
        why = "; ".join(f"{option_name(o)} ({device_label(o)}) failed: {o.note}" for o in failed)
        return Recommendation(None, None, "failed", why)
    parts = [f"{option_name(o)} ({device_label(o)}) failed: {o.note}" for o in failed]
    parts += [f"{option_name(o)} ({device_label(o)}) does not fit: {o.note}" for o in too_big[:3]]
    if len(too_big) > 3:
        parts.append(f"{len(too_big) - 3} more do not fit")
    fix = ("; reduce train.batch_size or the model, or choose targets with more memory" if too_big
           else "; nothing was measured or predicted")
    return Recommendation(None, None, "nothing_fits",
                          f"nothing{where_text} can run this workload" + (f": {'; '.join(parts)}" if parts else "") + fix)


def _answer(group: list[RankedOption], objective: str, deadline: float | None, tv: float, name: AnswerName,
            ref: RankedOption | None, warnings: list[str]) -> Recommendation:
    """The best of one group (this machine's options, or the rented ones) by rule 1-4."""
    usable = [o for o in group if o.usable]
    where = "here" if name == "here" else "to rent"
    if not usable:
        return replace(_nothing(group, where), answer=name)
    pool = _eligible(usable, objective, deadline)
    if objective == "deadline" and not pool:
        fastest = min(usable, key=lambda o: (o.train_seconds, hourly_rate(o), o.key))
        warnings.append(f"no option {where} finishes within the deadline ({rough_duration(deadline or 0.0)}) with its whole interval")
        return _rec(fastest, "deadline_missed",
                    f"no option {where} meets the {rough_duration(deadline or 0.0)} deadline with confidence; the fastest is "
                    f"{option_name(fastest)} ({device_label(fastest)}) at {rough_duration(fastest.train_seconds or 0.0)}{_span(fastest)}",
                    name, ref)
    metric = "fastest" if objective == "fastest" else "cheapest"
    ordered = _order(pool, metric)
    best = ordered[0]
    lead = (f"cheapest option that finishes within {rough_duration(deadline or 0.0)}" if objective == "deadline"
            else "fastest option" if objective == "fastest"
            else f"cheapest option with waiting at ${tv:g}/h" if tv else "cheapest option")
    head = (f"{option_name(best)} ({device_label(best)}) is the {lead} {where}: "
            f"{sig_duration(best.train_seconds)}{_span(best)} for {sig_money(best.cost_usd)}")  # type: ignore[arg-type]
    rule = _gpu_rule(best, ordered, ref, objective, tv, deadline)
    if len(ordered) == 1:
        only = "meets the deadline" if objective == "deadline" else "can run this workload"
        return _rec(best, "only_option", f"{option_name(best)} ({device_label(best)}) is the only option {where} that "
                    f"{only}: {sig_duration(best.train_seconds)}{_span(best)} for {sig_money(best.cost_usd)}{rule}",  # type: ignore[arg-type]
                    name, ref)
    cmp = closest(best, ordered[1:], metric, tv)
    return _rec(best, cmp.verdict, f"{head}. {comparison_text(cmp, tv)}{rule}", name, ref, cmp)


def _gpu_rule(best: RankedOption, ordered: list[RankedOption], ref: RankedOption | None, objective: str, tv: float,
              deadline: float | None) -> str:
    """Rule 4's sentence, quoting the numbers it compared: the winning GPU against the reference CPU,
    or the best GPU that lost to it."""
    if ref is None:
        return ". No CPU option to compare a GPU with" if best.device == "cuda" else ""
    gpu = best if best.device == "cuda" else next((o for o in ordered if o.device == "cuda" and o.speedup is not None), None)
    if gpu is None or gpu.speedup is None or gpu.break_even_speedup is None:
        return ""
    name = option_name(gpu) if gpu is best else f"the best GPU, {option_name(gpu)} ({device_label(gpu)}),"
    speed = (f"speedup {gpu.speedup:.2f}x over the reference CPU {ref.target} ({sig_duration(ref.train_seconds)} / "  # type: ignore[arg-type]
             f"{sig_duration(gpu.train_seconds)}; {gpu.speedup_low:.2f}-{gpu.speedup_high:.2f}x over both intervals)")  # type: ignore[arg-type]
    if objective == "fastest":
        return f". {name[:1].upper() + name[1:]}: {speed}"
    if objective == "deadline" and deadline is not None and ref.train_seconds_high > deadline:  # type: ignore[operator]
        return f". {name[:1].upper() + name[1:]}: {speed}; the reference CPU does not meet the deadline"
    waiting = f" + ${tv:g}/h waiting" if tv else ""
    rates = f"(${hourly_rate(gpu):.3f}/h / ${hourly_rate(ref):.3f}/h{waiting})"
    relation = ("at least" if gpu.speedup >= gpu.break_even_speedup else "below")
    return (f". GPU rule: {name} {speed} is {relation} its break-even speedup {gpu.break_even_speedup:.2f}x {rates}"
            + (": the GPU costs less" if gpu.speedup >= gpu.break_even_speedup else ": the CPU costs less"))


def _amount(metric: str, value: float) -> str:
    return sig_duration(value) if metric.startswith("training time") else sig_money(value)


def comparison_text(cmp: Comparison, tv: float) -> str:
    """Rule 2 and 3 in words, quoting exactly the comparison's numbers."""
    what = "the time" if cmp.metric.startswith("training time") else "the cost"
    waiting = f", with waiting at ${tv:g}/h" if cmp.metric == "cost and waiting" else ""
    ratio = f"{cmp.ratio:.2f}x {what}" if math.isfinite(cmp.ratio) else f"more than {what}"
    values = f"{_amount(cmp.metric, cmp.runner_up_value)} vs {_amount(cmp.metric, cmp.winner_value)}{waiting}"
    settle = (f"a paid benchmark of {' and '.join(cmp.settle)} would settle it" if cmp.settle
              else "longer benches (--seconds) would settle it")
    if cmp.verdict == "too_close":
        return f"Too close to call: {cmp.runner_up} at {ratio} ({values}) is within {cmp.band_reason}; {settle}"
    return f"Runner-up: {cmp.runner_up} at {ratio} ({values}); {_certainty(cmp)}" + (
        f"; {settle}" if cmp.verdict == "likely" else "")


def _certainty(cmp: Comparison) -> str:
    """Rule 3 in words: how sure a comparison beyond the band is (the ratio's interval)."""
    if math.isclose(cmp.ratio_low, cmp.ratio_high, rel_tol=1e-9):
        return "clear: the same estimate, only the price differs"
    spread = (f"{cmp.ratio_low:.2f}-{cmp.ratio_high:.2f}x" if math.isfinite(cmp.ratio_high)
              else f"{cmp.ratio_low:.2f}x or more")
    return f"{'clear' if cmp.verdict == 'clear' else 'likely, not certain'}: {spread} over both intervals"


def _span(o: RankedOption) -> str:
    if o.train_seconds_high is None or not math.isfinite(o.train_seconds_high):
        return " (no usable interval)"
    return f" ({range_text(o.train_seconds_low or 0.0, o.train_seconds_high)})"  # as the table: "2.3-3.2 min", not "2 min-3 min"


def _rec(o: RankedOption, verdict: Verdict, reason: str, name: AnswerName, ref: RankedOption | None,
         cmp: Comparison | None = None) -> Recommendation:
    return Recommendation(o.target, o.device, verdict, reason, o.speedup, o.speedup_low, o.speedup_high,
                          o.break_even_speedup, name, o.gpus_used, reference=ref.target if ref is not None else None,
                          comparison=cmp)


SEVERITY: tuple[Verdict, ...] = ("clear", "likely", "too_close")


def _headline(answers: dict[AnswerName, Recommendation], ranked: list[RankedOption], objective: str,
              tv: float, tv_default: bool) -> Recommendation | None:
    """Here or rent, by the same rule at `tv` $/h of waiting: see the module docstring."""
    chosen = {name: _option_of(rec, ranked) for name, rec in answers.items()}
    live = {name: o for name, o in chosen.items() if o is not None}
    if not live:
        return None
    failed = [f"{n}: {answers[n].reason}" for n in answers if n not in live and answers[n].verdict == "failed"]
    if len(live) == 1:
        alone, only = next(iter(live.items()))
        caveat = f". Careful: {only.target} was {only.caveat}" if only.caveat else ""
        note = f". Not compared: {'; '.join(failed)}" if failed else ""
        return replace(answers[alone], reason=answers[alone].reason + caveat + note)
    here, rent = live["here"], live["rent"]
    met = {n: answers[n].verdict != "deadline_missed" for n in ("here", "rent")}
    value = f"${tv:g}/h of your waiting" + (" (the default; --time-value sets yours)" if tv_default else "")
    cmp: Comparison | None = None
    if objective == "deadline" and met["here"] != met["rent"]:
        name: AnswerName = "rent" if met["rent"] else "here"
        verdict: Verdict = "clear"
        why = "only renting meets the deadline" if met["rent"] else "training here meets the deadline"
    else:
        metric = "fastest" if objective == "fastest" else "cheapest"
        weight = 0.0 if metric == "fastest" else tv
        best, other = _order([here, rent], metric, weight)
        cmp = compare(best, other, metric, weight)
        name = "here" if best is here else "rent"
        where = {"here": "training here", "rent": f"renting {option_name(rent)}"}
        other_name = "here" if name == "rent" else "rent"
        if metric == "fastest":
            why = (f"{where[name]} takes {sig_duration(best.train_seconds)}, {where[other_name]} "  # type: ignore[arg-type]
                   f"{sig_duration(other.train_seconds)} ({cmp.ratio:.2f}x)")  # type: ignore[arg-type]
        else:
            why = (f"at {value}, {where[name]} ({sig_duration(best.train_seconds)}, {sig_money(best.cost_usd)}) "  # type: ignore[arg-type]
                   f"comes to {sig_money(cmp.winner_value)} and {where[other_name]} ({sig_duration(other.train_seconds)}, "  # type: ignore[arg-type]
                   f"{sig_money(other.cost_usd)}) to {sig_money(cmp.runner_up_value)}: {cmp.ratio:.2f}x as much")  # type: ignore[arg-type]
        why += (f"; too close to call: within {cmp.band_reason}" if cmp.verdict == "too_close"
                else f"; {_certainty(cmp)}")
        current = answers[name].verdict
        if current == "only_option":  # the answer had nothing to beat: here against rent is the comparison
            verdict = cmp.verdict
        else:
            verdict = max(current, cmp.verdict, key=SEVERITY.index) if current in SEVERITY else current
        if current == "too_close" and cmp.verdict != "too_close":
            why += f"; which instance is too close to call (see {'If you rent' if name == 'rent' else 'Here'})"
    rec = answers[name]
    caveats = "".join(f". Careful: {o.target} was {o.caveat}" for o in (here, rent) if o.caveat)
    choice = f"{'rent' if name == 'rent' else 'train here'} — {why}{caveats}"
    return replace(rec, verdict=verdict, reason=f"{rec.reason}. Why {name}: {why}{caveats}", choice=choice,
                   choice_comparison=cmp)


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

    Priority: the reference CPU when it is predicted (every GPU is compared with it), then the
    recommended option if it is a predicted GPU, then GPUs whose speedup interval straddles their
    break-even, then GPUs that could not be predicted at all, cheapest first; one instance per GPU
    model (a bigger instance with the same GPU trains at the same speed). Skipped: what does not
    fit, GPUs predicted to lose even at the optimistic end of their interval, CPU instances other
    than the best, and whatever the budget or --max-instances leave out.
    """
    rec = plan.answers.get("rent", plan.recommendation)  # the question a paid benchmark settles: which instance
    predicted = [o for o in plan.options if o.source == "predicted"]
    cpus = [o for o in predicted if o.device == "cpu" and o.usable]
    best_cpu = next((o for o in cpus if o.target == plan.references.get("rent")), None)  # the rent answer's reference
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
            unbacked = " (no published training figure backs this GPU: its prediction rests on its sheet)" if (
                "no published" in o.note) else ""
            wanted.insert(1 if best_cpu else 0, (o, "the predicted recommendation: confirm it before paying for the full run"
                                                    + unbacked))
            continue
        if o.speedup is None or o.break_even_speedup is None or o.speedup_low is None or o.speedup_high is None:
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
