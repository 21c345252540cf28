"""The plan's typed values: an option (a measurement or a prediction, priced), the ranked option with
its costs and speedup, the comparison an answer rests on, the recommendation, the plan; what an
option bills per hour and in all. Pure. The rule that fills them is planner/core/decide.py."""

from __future__ import annotations

from dataclasses import dataclass, field

from planner.core.kinds import (
    AnswerName,
    Billing,
    ChoiceBasis,
    ChoiceLimit,
    ChoiceReason,
    Device,
    Objective,
    Purchase,
    Source,
    Verdict,
)
from planner.core.remarks import Remark, Said
from pricing.billing import billed_seconds, root_volume_usd_per_hour

# USD per hour of waiting, when the user gives none: see the module docstring
HEADLINE_TIME_VALUE = 5.0
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
    bench_predicted: bool = False  # the bench is a prediction itself: a script's run here, traced on the stand-in GPU only


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
    note: tuple[
        Remark, ...
    ] = ()  # the option's own remarks: why it cannot run, what its prediction rests on
    instance_type: str | None = None
    region: str | None = None
    purchase: Purchase | None = None
    step_seconds_low: float | None = None
    step_seconds_high: float | None = None
    # process start and exit, setup, warm-up, boot, the dataset
    one_time_seconds: float | None = None
    # part of one_time_seconds: materialising the dataset (modelled)
    data_seconds: float | None = None
    interval_note: Remark | None = None  # why there is no usable interval
    caveat: Remark | None = None  # what makes this measurement less trustworthy (a busy machine)
    gpus_used: int | None = None  # GPUs the option trains on, in all (None: a CPU option)
    # instances it rents at once (several: predicted across the network, on paper)
    instances: int = 1
    # step on 1 GPU / (GPUs x step on them), for data-parallel options
    scaling_efficiency: float | None = None
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

    def pays_off_against(self, ref: RankedOption) -> bool:
        """Rule 4 as decided: this GPU's run costs no more than the reference CPU's (billed costs, plus the waiting).
        It is `speedup >= break_even_speedup` but within a second's billing of the break-even, where the bill
        (whole seconds, a minimum) decides."""
        return (self.point_cost or 0.0) <= (ref.point_cost or 0.0)


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
    verdict: Verdict  # clear | likely | too_close
    # predicted options a paid benchmark would measure
    settle: list[str] = field(default_factory=list)
    # why the band is what it is: the benches whose run-to-run noise could swap the two (none: the margin), and
    # whether one of them is a prediction (its uncertainty, not its noise, sets the band)
    band_benches: tuple[str, ...] = ()
    band_predicted: bool = False


@dataclass(frozen=True)
class Recommendation:
    target: str | None
    device: Device | None
    verdict: Verdict
    speedup: float | None = None
    speedup_low: float | None = None
    speedup_high: float | None = None
    break_even_speedup: float | None = None
    answer: AnswerName | None = None
    gpus_used: int | None = None
    reference: str | None = None  # the reference CPU the speedup compares with
    comparison: Comparison | None = None  # the winner against the runner-up
    # the headline only: here against rent, at the headline's time value
    choice_comparison: Comparison | None = None
    # the headline only: an option within the noise of its answer's pick (`choice_rival_of`) that in its place would
    # change the headline (which is then too close to call although here against rent is not); option keys
    choice_rival: str | None = None
    choice_rival_of: str | None = None
    # rule 4's GPU (the winner, or the best GPU that lost to a CPU): its option key
    rule_gpu: str | None = None
    # the headline only: how here or rent was chosen: both compared by the rule, the one that meets the deadline,
    # or the only answer that can run (the other failed or has no option)
    choice_basis: ChoiceBasis | None = None


@dataclass(frozen=True)
class Plan:
    objective: Objective
    options: list[RankedOption]
    recommendation: Recommendation  # the headline
    deadline_seconds: float | None = None
    time_value_per_hour: float | None = None
    # caveats: what makes a row or the answer less certain
    warnings: list[Remark] = field(default_factory=list)
    answers: dict[AnswerName, Recommendation] = field(default_factory=dict)
    headline_time_value: float | None = None  # the $/h of waiting the headline used
    references: dict[AnswerName, str] = field(default_factory=dict)  # the reference CPU's target
    notes: list[Remark] = field(default_factory=list)  # how the plan was made (facts, not caveats)

    def say(self, said: Said) -> None:
        """Put what the measurements say before what the decision said."""
        self.warnings[:0] = said.warnings
        self.notes[:0] = said.notes

    def option_of(self, rec: Recommendation) -> RankedOption | None:
        """The row a recommendation names: its target on its device at its GPU count."""
        return _option_of(rec, self.options)

    def reference(self, name: AnswerName = "rent") -> RankedOption | None:
        """The reference CPU row a GPU row of `name`'s kind of place compares with (rule 4)."""
        target = self.references.get(name)
        return next(
            (o for o in self.options if o.target == target and o.device == "cpu" and o.usable),
            None,
        )


def next_best(
    plan: Plan, instance_type: str, device: str, taken: set[str], count: int = 3
) -> list[str]:
    """`--fallback next`: the instance types the plan ranks best after `instance_type` among the rented options of the
    same kind (`device`: "cuda" for a GPU instance, "cpu"), usable on one instance, none of `taken`, each once, at most
    `count` (best first)."""
    out: list[str] = []
    ranked = sorted((o for o in plan.options if o.rank is not None), key=lambda o: o.rank or 0)
    for o in ranked:
        t = o.instance_type
        if (
            o.billing != "ec2"
            or not o.usable
            or o.instances > 1
            or o.device != device
            or t is None
            or t == instance_type
            or t in taken
            or t in out
        ):
            continue
        out.append(t)
        if len(out) == count:
            break
    return out


def _option_of(rec: Recommendation, ranked: list[RankedOption]) -> RankedOption | None:
    if rec.target is None:
        return None
    return next(
        (
            o
            for o in ranked
            if o.target == rec.target
            and o.device == rec.device
            and o.gpus_used == rec.gpus_used
            and o.usable
        ),
        None,
    )


@dataclass(frozen=True)
class BenchmarkChoice:
    """Whether a paid benchmark of an instance would help settle the plan, and why (facts: their words are
    planner/report/why.py's choice_reason)."""

    target: str
    benchmark: bool
    # None: a document written before the reasons were facts (`reason` holds them)
    why: ChoiceReason | None = None
    # wanted for `why`, but over --max-instances or --bench-budget
    left_out_by: ChoiceLimit | None = None
    # not benchmarked: training here wins clearly, whatever this instance would measure
    here_wins: bool = False
    # the numbers and names the reason quotes
    # same_gpu: the cheaper instance of that GPU; cpu_no_better: the best CPU instance
    other: str = ""
    gpu: str = ""  # same_gpu: the GPU model
    winner: str = ""  # too_close: the two options the answer could not tell apart
    runner_up: str = ""
    note: str = ""  # data_parallel: the option's name (a document written before 6: the option's notes in words)
    notes: tuple[Remark, ...] = ()  # unpredicted, does_not_fit: the option's own notes
    unbacked: bool = False  # recommended: no published training figure backs the GPU
    speedup_low: float | None = None  # straddles, beats, too_slow
    speedup_high: float | None = None
    break_even: float | None = None
    worst_case_usd: float | None = None  # left out by the budget: the benchmark's worst case

    @property
    def instance_type(self) -> str:
        """The EC2 instance type it would benchmark ("aws:g5.xlarge" -> "g5.xlarge")."""
        return self.target.removeprefix("aws:")

    max_instances: int | None = None  # left out by --max-instances: its value
    reason: str = ""  # a document written before: its words


# ----------------------------------------------------------------------------- costs


def hourly_rate(o: Option) -> float:
    """What an hour of the option bills: the instance(s) and their root volumes; this machine's price."""
    if o.billing == "ec2":
        return o.price_per_hour + o.instances * root_volume_usd_per_hour()
    return o.price_per_hour


def billed_cost(option: Option, seconds: float) -> float:
    """The hourly rate over the seconds billed: EC2's per-second billing with its minimum; this machine's
    seconds as they are (pricing/billing.py)."""
    return (
        hourly_rate(option)
        * (billed_seconds(seconds) if option.billing == "ec2" else max(0.0, seconds))
        / 3600.0
    )


def value_of(o: Option, seconds: float, time_value: float) -> float:
    """Billed cost of `seconds` on `o` plus the waiting at `time_value` $/h."""
    return billed_cost(o, seconds) + time_value / 3600.0 * seconds
