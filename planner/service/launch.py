"""What a launch on AWS does before and while it runs: the prices and worst case checked before anything starts
(preflight), what a dry run shows (LaunchPreview), the fallbacks (on-demand for spot, the plan's next-best of a
type no zone has capacity for) and the states said under the type a target launched."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from infra.quotas import QuotaCheck
from planner.core.candidates import Target
from planner.core.document import LeftRunning
from planner.core.plan import next_best
from planner.errors import Cancelled, InputError, RunError
from planner.service.settings import AwsOptions, RunStopped, StateFn
from runner.aws import (
    EXPIRY_GRACE_MINUTES,
    AwsRun,
    AwsTarget,
    check_settings,
    worst_case_bench_cost,
)

if TYPE_CHECKING:  # importing the service stays cheap: `planner --help` loads it
    from collections.abc import Callable

    import pandas as pd

    from planner.journal import Measured, RunJournal
    from runner.session import BenchSession

    Backstop = Callable[[], Any]  # a cleanup the session runs on its way out


def fallback_prices(
    aws_types: list[str], aws: AwsOptions, catalog: pd.DataFrame
) -> dict[str, float]:
    """The on-demand price of each type a spot launch may fall back to (--fallback on-demand); {} without one."""
    from pricing.catalog import hourly_price

    if aws.fallback != "on-demand" or aws.purchase != "spot":
        return {}
    return {t: hourly_price(catalog, t, aws.region, "on-demand") for t in aws_types}


def next_in_plan(
    plan: Any, aws_types: list[str], aws: AwsOptions, catalog: pd.DataFrame
) -> dict[str, list[tuple[str, float, str, int]]]:
    """`--fallback next`: for each type, the plan's next-best instances of its kind (a GPU for a GPU, a CPU for a CPU:
    planner.core.plan.next_best), none already a target, of the type's architecture when an --ami is given, each with
    its price, architecture and vCPUs. What a run would try, and what its dry run lists."""
    from pricing.catalog import hourly_price, instance_facts

    s = aws.settings()
    out: dict[str, list[tuple[str, float, str, int]]] = {}
    for t in aws_types:
        facts = instance_facts(catalog, t, s.region)
        out[t] = []
        for alt in next_best(plan, t, "cuda" if facts["gpu_count"] else "cpu", set(aws_types)):
            alt_facts = instance_facts(catalog, alt, s.region)
            if not aws.ami or alt_facts["arch"] == facts["arch"]:  # the AMI given is of the type's
                price = float(hourly_price(catalog, alt, s.region, s.purchase))
                out[t].append((alt, price, str(alt_facts["arch"]), int(alt_facts["vcpus"])))
    return out


def next_alternatives(
    aws_run: AwsRun,
    plan: Any,
    aws_types: list[str],
    aws: AwsOptions,
    catalog: pd.DataFrame,
    worst: float,
) -> dict[str, list[tuple[str, float, str]]]:
    """`--fallback next`: each type's alternatives (next_in_plan) as its AwsTarget takes them, (type, USD/h, arch);
    their vCPUs go to the run, whose quota check reads them before one launches. The run's types are claimed and what
    --bench-budget leaves past the run's worst case (`worst`, as preflight counts it) is the room the switches share
    (AwsTarget._next_instead), so the budget check holds for whatever the fallback launches. {} without --fallback
    next."""
    if aws.fallback != "next":
        return {}
    aws_run.claimed, aws_run.budget_room = set(aws_types), aws.bench_budget - worst
    found = next_in_plan(plan, aws_types, aws, catalog)
    aws_run.vcpus.update({alt: vcpus for alts in found.values() for alt, _, _, vcpus in alts})
    return {t: [(alt, price, arch) for alt, price, arch, _ in alts] for t, alts in found.items()}


def measured_target(target: Target, launched: AwsTarget | None) -> Target:
    """The target a result belongs to: the instance type --fallback next launched in `target`'s place, when it
    launched one."""
    if (
        launched is not None
        and launched.launched_at is not None
        and launched.instance_type != target.instance_type
    ):
        return Target("aws", launched.instance_type)
    return target


def states_as_launched(
    on_state: StateFn | None, where: dict[str, Target], instances: dict[str, AwsTarget]
) -> StateFn | None:
    """The run's `on_state`, each AWS target's state under the instance type it launched (--fallback next may have
    launched another: its states are said under that one's name, as its result is)."""
    if on_state is None:
        return None

    def said(label: str, state: str, elapsed: float, cost: float) -> None:
        target = where.get(label)
        # this machine's label is its device's (local-cpu), kept
        if target is not None and target.cloud:
            label = measured_target(target, instances.get(label)).label()
        on_state(label, state, elapsed, cost)

    return said


def preflight(
    aws_types: list[str], aws: AwsOptions, catalog: pd.DataFrame
) -> tuple[dict[str, float], dict[str, str], float]:
    """Prices, architectures and the worst-case bench cost; refuse before launching anything."""
    from pricing.catalog import hourly_price, instance_facts

    s = aws.settings()
    check_settings(s)
    if len(aws_types) > aws.max_instances:
        raise InputError(
            f"--targets: {len(aws_types)} AWS instances, more than --max-instances {aws.max_instances}",
            hint="benchmark fewer instance types at once, or raise --max-instances",
        )
    prices = {t: hourly_price(catalog, t, s.region, s.purchase) for t in aws_types}
    arches = {t: instance_facts(catalog, t, s.region)["arch"] for t in aws_types}
    fallback = fallback_prices(aws_types, aws, catalog)
    # the fallback's, if dearer
    worst = sum(worst_case_bench_cost(max(p, fallback.get(t, 0.0)), s) for t, p in prices.items())
    if worst > aws.bench_budget:
        detail = ", ".join(
            f"{t} ${p:.3f}/h"
            + (
                f", counted at its on-demand fallback's ${fallback[t]:.3f}/h"
                if fallback.get(t, 0.0) > p
                else ""
            )
            for t, p in prices.items()
        )
        raise InputError(
            f"refusing to launch: the worst-case bench cost is ${worst:.2f} ({detail}, each for up to "
            f"{s.max_bench_minutes:g} min + {EXPIRY_GRACE_MINUTES} min grace), over --bench-budget ${aws.bench_budget:.2f}",
            hint="raise --bench-budget, lower --max-bench-minutes, or benchmark fewer or cheaper instances",
        )
    return prices, arches, worst


@dataclass(frozen=True)
class LaunchPreview:
    """`planner run --dry-run`: the instances, where and how they would be bought, and the worst case."""

    region: str
    purchase: str
    ami: str
    instances: list[tuple[str, float, float]]  # (type, USD per hour, worst-case USD)
    worst_case_usd: float
    budget_usd: float
    deadman_minutes: float
    grace_minutes: int
    max_instances: int
    quotas: tuple[QuotaCheck, ...] = ()  # the EC2 vCPU quotas the launch counts against, read now
    # type -> on-demand USD/h a spot launch may fall back to
    fallback: dict[str, float] = field(default_factory=dict)
    fallback_quotas: tuple[
        QuotaCheck, ...
    ] = ()  # the on-demand quotas that fallback would launch against
    # --fallback next: the plan's next-best instance of a type no zone has capacity for
    fallback_next: bool = False
    # --fallback next of a spec: type -> the plan's next-best, as ranked now (None: at the run)
    next_types: dict[str, list[str]] | None = None

    def lines(self) -> list[str]:
        out = [
            f"would launch {len(self.instances)} instance(s) in {self.region}, {self.purchase}, AMI {self.ami}:"
        ]
        out += [
            f"  aws:{t}  ${p:.3f}/h  worst case ${w:.2f}"
            + (" (at its on-demand fallback's price)" if self.fallback.get(t, 0.0) > p else "")
            for t, p, w in self.instances
        ]
        out.append(
            f"worst case in all ${self.worst_case_usd:.2f} of the --bench-budget ${self.budget_usd:.2f}: each instance "
            f"halts itself at {self.deadman_minutes:g} min (dead-man timer) and is reaped {self.grace_minutes} min "
            f"after (expiry tag); at most {self.max_instances} at once"
        )
        out += [
            f"  aws:{t}: with no spot capacity in any zone, or reclaimed before it measured enough, it is launched "
            f"on-demand at ${p:.3f}/h (--fallback on-demand)"
            for t, p in self.fallback.items()
        ]
        if self.fallback_next and self.next_types is not None:
            out += [
                f"  aws:{t}: with no capacity in any zone, the first of "
                + (", ".join(f"aws:{n}" for n in nexts) if nexts else "none")
                + " within the budget and its vCPU quota is launched instead (--fallback next)"
                + ("" if nexts else ": the plan ranks the CPUs once this machine is measured")
                for t, nexts in self.next_types.items()
            ]
        elif self.fallback_next:
            out.append(
                "  a type no zone has capacity for: the plan's next-best instance of its kind, within the budget "
                "and its vCPU quota, is launched instead (--fallback next), ranked by the script's measurement "
                "here as the run starts"
            )
        out += [q.line() for q in self.quotas]
        out += [f"fallback: {q.line()}" for q in self.fallback_quotas]
        return out

    def quota_refusal(self) -> InputError | None:
        """Why EC2 would refuse this launch for want of vCPU quota (the first quota it would exceed), before it starts."""
        over = [q for q in self.quotas if q.over]
        if not over:
            return None
        q = over[0]
        return InputError(
            f"refusing to launch: {q.over_text()}: EC2 would refuse it (VcpuLimitExceeded)",
            hint=f"ask AWS for more: {q.raise_request()}; new accounts start at 0 for G and P; or choose "
            "another region, another instance type, or measure here only (local)",
        )


def interrupted(results: dict[str, Measured]) -> list[str]:
    """The targets a spot reclaim cut short (their notice, or EC2's reclaim); those with steps enough are planned."""
    return sorted(label for label, m in results.items() if m.result.interruption)


def unterminated(session: BenchSession) -> list[LeftRunning]:
    """What the session could not terminate, each with the command that will."""
    return [
        LeftRunning(
            **left,
            reap_command=f"planner reap --region {left['region']} --run-id {left['run_id']}",
        )
        if "run_id" in left
        else LeftRunning(**left)
        for left in session.unterminated
    ]


def stopped(
    exc: BaseException, journal: RunJournal, session: BenchSession | None
) -> RunStopped | RunError:
    """What ends a run stopped by `exc` (a Cancelled, a KeyboardInterrupt): a RunStopped carrying its journal,
    what it left running and how many results it holds; a cancel that left instances running is a RunError
    naming them and how to reap them."""
    left = unterminated(session) if session is not None else []
    if isinstance(exc, Cancelled) and left:
        names = ", ".join(
            f"{x.instance_id} ({x.region})" if x.instance_id else f"{x.label} ({x.error})"
            for x in left
        )
        reap = [x.reap_command or "planner ls, then planner reap --region REGION" for x in left]
        return RunError(
            f"cancelled, but {len(left)} instance(s) could not be terminated: {names}",
            hint="; ".join(dict.fromkeys(reap)),
        )
    return RunStopped.of(exc, str(journal.path), left, len(journal.read_results()))
