"""The plan document: one typed value from the decision to the screen (its one converter:
document_json.py). Design notes: docs/reference/modules.md (planner/core/document.py)."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from planner.core.decide import (
    BenchmarkChoice,
    Plan,
    RankedOption,
    Recommendation,
)
from planner.core.kinds import AnswerName, Objective, Purchase

if TYPE_CHECKING:
    from planner.core.remarks import LengthNotGiven, WhatIfLength
    from planner.workload.spec import WorkloadSpec

SCHEMA_VERSION = 6  # docs/reference/json.md: the versions
# ScriptSummary.kind: a user's training script (a spec's kind is its model's)
SCRIPT_KIND = "script"


@dataclass(frozen=True)
class PlanOptions:
    """What a user chose for a plan (flags, the TUI's what-if): the objective and its terms, the price
    of this machine, where and how AWS instances are priced."""

    objective: Objective = "cheapest"
    deadline_seconds: float | None = None
    time_value_per_hour: float | None = None
    local_price_per_hour: float = 0.0
    region: str = "us-east-1"
    purchase: Purchase = "on-demand"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class WorkloadSummary:
    """The workload a plan is for, as its title states it: a spec's (a script's is a ScriptSummary)."""

    name: str
    kind: str
    task: str | None  # a spec's task; None: a script
    samples: int | None  # None: a script (it sets its own data and batch)
    batch_size: int | None
    # a script's: its steps over the steps of a DataLoader epoch seen (None: none seen)
    epochs: int | float | None
    steps_per_epoch: int | None
    total_steps: int
    precision: str
    data_location: str | None  # a spec's; None: a script

    @classmethod
    def of(cls, spec: WorkloadSpec) -> WorkloadSummary:
        return cls(
            spec.name,
            spec.model.kind,
            spec.task,
            spec.data.samples,
            spec.batch_size,
            spec.train.epochs,
            spec.steps_per_epoch,
            spec.total_steps,
            spec.train.precision,
            spec.data.location,
        )


@dataclass(frozen=True)
class ScriptSummary(WorkloadSummary):
    """A training script's plan's workload: its own arguments and what its steps were found by, besides its length
    (it sets its own data and batch: the spec's fields are None)."""

    # its own arguments (after --), as it runs with them
    script_args: list[str] | None = None
    # what its steps were found by (optimizer | backward)
    step_boundary: str | None = None


@dataclass(frozen=True)
class PriceSource:
    source: str
    as_of: str


@dataclass(frozen=True)
class TaskChoice:
    """What the workload's SkyPilot task asks for (its `resources`: planner.core.task_resources.TaskAsks), as the plan prices it:
    the task file, its choice as written, and the catalog instances in the plan's region it allows (none: no instance
    there has it). The plan is of every instance; this is the task's own pick among them, compared with the answer."""

    source: str
    written: str
    targets: list[str]
    # none allowed: the instances with an accelerator it names at another count ('A100:8 aws:p4d.24xlarge')
    other_counts: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class LeftRunning:
    """An instance a run could not terminate, with the command that will (the reaper's)."""

    label: str
    instance_id: str | None = None
    instance_type: str | None = None
    region: str | None = None
    run_id: str | None = None
    expires_at: str | None = None
    reap_command: str | None = None
    error: str | None = None  # why it could not even be looked for


@dataclass(frozen=True)
class ManagedInstance:
    """A planner-managed instance that bills or could (`planner ls`, the TUI's Instances pane): its tags read, its
    age and its cost so far at the catalog's price (None: the catalog lacks the type)."""

    instance_id: str
    instance_type: str
    state: str
    run_id: str | None
    age_seconds: float
    expires_at: str | None
    expired: bool
    cost_so_far_usd: float | None


@dataclass(frozen=True)
class PlanDocument:
    workload: ScriptSummary | WorkloadSummary
    plan: Plan
    options: PlanOptions
    run_dir: str | None = None
    # an estimate (None: not one): the prices it used, the paid benchmarks that would settle it and the rest
    prices: PriceSource | None = None
    benchmark: list[BenchmarkChoice] | None = None
    skipped: list[BenchmarkChoice] | None = None
    # a run (None: not one): targets that failed, instances not terminated, the bench's bill, `auto`'s choice
    failed_targets: list[str] | None = None
    # spot benches cut short by a reclaim (those with steps enough: planned)
    interrupted_targets: list[str] | None = None
    unterminated: list[LeftRunning] | None = None
    bench_cost_usd: float | None = None
    auto: list[BenchmarkChoice] | None = None
    # a SkyPilot task's resources (None: not a task, or it chose none)
    task_choice: TaskChoice | None = None

    # ------------------------------------------------------------------ what the fronts ask of a plan

    @property
    def recommendation(self) -> Recommendation:
        return self.plan.recommendation

    @property
    def recommended(self) -> RankedOption | None:
        """The row the headline names."""
        return self.plan.option_of(self.plan.recommendation)

    def is_recommended(self, o: RankedOption) -> bool:
        chosen = self.recommended
        return chosen is not None and o.key == chosen.key

    def answer(self, name: AnswerName) -> Recommendation | None:
        return self.plan.answers.get(name)

    @property
    def what_if_length(self) -> WhatIfLength | None:
        """A script run's plan for a length that is not the run's own (a what-if), and both lengths; None otherwise."""
        from planner.core.remarks import WhatIfLength

        return next((n for n in self.plan.notes if isinstance(n, WhatIfLength)), None)

    @property
    def length_not_given(self) -> LengthNotGiven | None:
        """A script planned without its run's length: per PER_STEPS steps, and where the answer changes; None
        otherwise."""
        from planner.core.remarks import LengthNotGiven

        return next((w for w in self.plan.warnings if isinstance(w, LengthNotGiven)), None)

    @property
    def spans_regions(self) -> bool:
        """Priced over several regions (--region all, or a list): each instance in its cheapest, named with it."""
        from pricing.facts import is_many_regions

        return is_many_regions(self.options.region)

    @property
    def task_option(self) -> RankedOption | None:
        """The task's choice as the plan ranks it: the best usable option on an instance its resources allow (else the
        best of them, unusable); None when it chose none or no instance has it."""
        if self.task_choice is None:
            return None
        allowed = set(self.task_choice.targets)
        rows = [o for o in self.plan.options if o.target in allowed]
        return next((o for o in rows if o.usable), rows[0] if rows else None)

    @property
    def has_both_answers(self) -> bool:
        return self.plan.answers.keys() >= {"here", "rent"}

    def reference(self, name: AnswerName = "rent") -> RankedOption | None:
        """The reference CPU row a GPU row of `name`'s kind of place compares with (rule 4)."""
        return self.plan.reference(name)

    @property
    def break_even_cost(self) -> float | None:
        """Where a GPU breaks even: the objective value (cost, plus waiting at the time value) of the
        reference CPU its speedup compares with — speedup = break-even exactly when the GPU's run costs
        what the CPU's does. The rented reference, else this machine's when a GPU of its own has a
        speedup; None when no GPU row has one."""
        for name in ("rent", "here"):
            ref = self.reference(name)
            if ref is not None and any(
                o.speedup is not None and o.reference == ref.target for o in self.plan.options
            ):
                return ref.point_cost
        return None

    @property
    def trains_here_clearly(self) -> bool:
        """The headline is to train here and no paid benchmark of an instance would change it: it beats renting
        clearly (or renting is no answer); under a deadline, no rented option could meet it even at the optimistic
        end of its interval unless it meets it already, and here meets it for sure or the comparison of the two is
        clear. A document from
        before the comparison was kept says so only when renting was no answer."""
        rec = self.recommendation
        if rec.answer != "here" or rec.target is None:
            return False
        deadline = self.plan.deadline_seconds if self.plan.objective == "deadline" else None
        here = self.recommended
        if (
            deadline is not None
            and any(  # not sure to meet it: measured, it might, and then beat here
                not o.here
                and o.usable
                and (o.train_seconds_low or math.inf)
                <= deadline
                < (o.train_seconds_high or math.inf)
                and not (here is not None and _beats_for_sure(here, o))
                for o in self.plan.options
            )
        ):
            return False
        # here meets the deadline for sure, and nothing rented can
        if rec.choice_basis == "deadline":
            return True
        cmp = rec.choice_comparison
        if cmp is None:
            return not self.has_both_answers
        # a deadline nothing meets for sure: here against rent, as compared (measuring cannot meet it)
        return (cmp.verdict if rec.verdict == "deadline_missed" else rec.verdict) == "clear"

    @property
    def suggested_benchmarks(self) -> list[BenchmarkChoice]:
        """The paid benchmarks the fronts suggest (and the TUI picks): those that would settle the plan,
        none when training here wins clearly (`benchmark` still lists which would settle renting)."""
        return [] if self.trains_here_clearly else list(self.benchmark or [])

    @property
    def failed(self) -> list[RankedOption]:
        return [o for o in self.plan.options if o.failed]

    @property
    def headline_time_value_is_default(self) -> bool:
        return self.plan.time_value_per_hour is None


def _beats_for_sure(here: RankedOption, rented: RankedOption) -> bool:
    """Whether `here` is faster and cheaper than `rented` at both ends of their intervals: measuring `rented` could
    not change the answer (a trial: a paid benchmark suggested for an instance whose boot alone outlasts the 5.6 s
    training here, because its interval straddled the deadline)."""
    here_slow = here.train_seconds_high or here.train_seconds
    here_dear = here.cost_usd_high if here.cost_usd_high is not None else here.cost_usd
    rent_fast = rented.train_seconds_low or rented.train_seconds
    rent_cheap = rented.cost_usd_low if rented.cost_usd_low is not None else rented.cost_usd
    return (
        None not in (here_slow, here_dear, rent_fast, rent_cheap)
        and here_slow <= rent_fast  # type: ignore[operator]
        and here_dear <= rent_cheap  # type: ignore[operator]
    )
