"""Plan: measure targets (`planner run`), re-plan from a run journal (`planner plan`).

`Runs.run` measures every target, journaling each result the moment it arrives, then plans what was
measured. Every instance it starts is terminated before it returns, also on Ctrl-C, SIGTERM and
SIGHUP (runner/session.py); one that no terminate reached is named in the plan document
(`unterminated_instances`: id, region, expiry and the `planner reap` command) and on the exception
that stops a run (`unterminated_instances`, `run_dir`). AWS that cannot be used once the run is under
way (out of reach, credentials it refuses, an upload denied) fails the AWS targets, not the run; no
credentials at all is known before anything runs: a run that names instances is refused
(check_credentials), and `auto` benchmarks none and plans every instance (benchmarkable).
"""

from __future__ import annotations

import datetime as dt
import secrets
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from infra.aws import credentials_problem
from infra.quotas import QuotaCheck
from planner.core.candidates import LOCAL, Target
from planner.core.decide import Said, decide
from planner.core.document import (
    LeftRunning,
    PlanDocument,
    PlanOptions,
    WorkloadSummary,
)
from planner.core.plan import next_best
from planner.core.script import ScriptLength
from planner.errors import Cancelled, InputError, RunError
from planner.journal import Measured, RunJournal, result_problems
from planner.report.why import choice_words
from planner.service.bench import (
    BenchOptions,
    check_processes,
    local_batch,
    local_devices,
    make_job,
    scaled_to_spec,
)
from planner.service.predictions import Predict, measured_candidates
from planner.service.settings import (
    AwsOptions,
    RunCallbacks,
    StateFn,
    TargetChoice,
    plan_options,
    resolve_objective,
)
from runner.aws import (
    EXPIRY_GRACE_MINUTES,
    AwsRun,
    AwsTarget,
    check_settings,
    worst_case_bench_cost,
)
from runner.bench.procfs import memory_available
from runner.local import LocalTarget
from runner.session import BenchSession

if TYPE_CHECKING:  # importing the service stays cheap: `planner --help` loads it
    import threading
    from collections.abc import Callable, Sequence

    import pandas as pd

    from planner.core.decide import BenchmarkChoice, Plan
    from planner.service.account import Account
    from runner.bench.result import BenchResult
    from runner.target import Target as SessionTarget

    Backstop = Callable[[], Any]  # a cleanup the session runs on its way out
    from planner.service.describe import Workloads
    from planner.workload.spec import WorkloadSpec


def fallback_prices(
    aws_types: list[str], aws: AwsOptions, catalog: pd.DataFrame
) -> dict[str, float]:
    """The on-demand price of each type a spot launch may fall back to (--fallback on-demand); {} without one."""
    from pricing.catalog import hourly_price

    if aws.fallback != "on-demand" or aws.purchase != "spot":
        return {}
    return {t: hourly_price(catalog, t, aws.region, "on-demand") for t in aws_types}


def next_alternatives(
    aws_run: AwsRun,
    plan: Any,
    aws_types: list[str],
    aws: AwsOptions,
    catalog: pd.DataFrame,
    worst: float,
) -> dict[str, list[tuple[str, float, str]]]:
    """`--fallback next`: for each type, the plan's next-best instances of its kind (a GPU for a GPU, a CPU for a CPU:
    planner.core.plan.next_best), none already a target, of the type's architecture when an --ami is given, each with
    its price and architecture. The run's types are claimed and what --bench-budget leaves past the run's worst case
    (`worst`, as preflight counts it) is the room the switches share (AwsTarget._next_instead), so the budget check
    holds for whatever the fallback launches. {} without --fallback next."""
    from pricing.catalog import hourly_price, instance_facts

    if aws.fallback != "next":
        return {}
    aws_run.claimed, aws_run.budget_room = set(aws_types), aws.bench_budget - worst
    s = aws.settings()
    out: dict[str, list[tuple[str, float, str]]] = {}
    for t in aws_types:
        facts = instance_facts(catalog, t, s.region)
        alternatives = []
        for alt in next_best(plan, t, "cuda" if facts["gpu_count"] else "cpu", set(aws_types)):
            arch = str(instance_facts(catalog, alt, s.region)["arch"])
            if not aws.ami or arch == facts["arch"]:  # the AMI given is of the type's architecture
                alternatives.append(
                    (alt, float(hourly_price(catalog, alt, s.region, s.purchase)), arch)
                )
                aws_run.vcpus[alt] = int(instance_facts(catalog, alt, s.region)["vcpus"])
        out[t] = alternatives
    return out


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
        if target is not None:
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
    worst = sum(
        worst_case_bench_cost(max(p, fallback.get(t, 0.0)), s) for t, p in prices.items()
    )  # the fallback's, if dearer
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


def plan_from_results(
    spec: WorkloadSpec,
    results: dict[str, Measured],
    options: PlanOptions,
    catalog: pd.DataFrame | None = None,
    need_bytes: int | None = None,
) -> Plan:
    """The plan over journaled results (label -> planner.journal.Measured), priced as measured_candidates
    does, with what the measurements say."""
    candidates, said = measured_candidates(results, options, catalog, need_bytes)
    opts = [c.option(spec.total_steps) for c in candidates]
    plan = decide(opts, options.objective, options.deadline_seconds, options.time_value_per_hour)
    plan.say(said)
    return plan


def saved_options(journal: RunJournal, overrides: dict[str, Any]) -> PlanOptions:
    """A saved run's plan options with `overrides` (None: keep the saved value) applied by the flags' rules."""
    saved = journal.read_run().get("plan_options", {})
    overrides = {
        **overrides,
        "objective": resolve_objective(
            overrides.get("objective"), overrides.get("deadline_seconds")
        )
        if overrides.get("deadline_seconds")
        else overrides.get("objective"),
    }
    merged = {**saved, **{k: v for k, v in overrides.items() if v is not None}}
    resolve_objective(
        merged.get("objective"), merged.get("deadline_seconds")
    )  # the saved deadline may serve
    return PlanOptions(**{k: v for k, v in merged.items() if k in PlanOptions.__dataclass_fields__})


def saved_results(journal: RunJournal) -> dict[str, Measured]:
    """A saved run's results; InputError when it has none yet."""
    results: dict[str, Measured] = journal.read_results()
    if not results:
        raise InputError(
            f"{journal.path}: the run has no results yet",
            hint="run `planner run` to measure targets",
        )
    return results


class _Run:
    """One `planner run`: its journal, its id, and where each label was measured."""

    def __init__(
        self,
        service: Runs,
        spec: WorkloadSpec,
        spec_text: str | None,
        choice: TargetChoice,
        options: PlanOptions,
        bench: BenchOptions,
        out: Path | None,
        cb: RunCallbacks,
        cancel: threading.Event | None,
    ) -> None:
        self.service, self.spec, self.choice, self.options, self.bench, self.cb, self.cancel = (
            service,
            spec,
            choice,
            options,
            bench,
            cb,
            cancel,
        )
        self.journal = RunJournal.create(spec.name, out)
        self.journal.write_spec(spec, spec_text)
        # Unique per run whatever the directory is called: it names the run's S3 keys and instance tags.
        self.run_id = f"{dt.datetime.now(dt.timezone.utc):%Y%m%dT%H%M%SZ}-{secrets.token_hex(4)}"
        self.info: dict[str, Any] = {
            "run_id": self.run_id,
            "targets": list(choice.tokens),
            "plan_options": options.as_dict(),
            "bench": bench.__dict__,
        }
        self.fp = service.workloads.footprint(spec)
        self.info["footprint_bytes"] = (
            self.fp.total_bytes
        )  # what the real run holds: replans check it
        self.journal.write_run(self.info)
        self.where: dict[str, tuple[Target, str | None, str | None]] = {}
        self.choices: list[BenchmarkChoice] = []  # `auto`'s choice of instances
        self.instances: dict[
            str, AwsTarget
        ] = {}  # the run's AWS targets by label (--fallback next may change the type)

    def record(self, label: str, result: BenchResult) -> None:
        target, region, purchase = self.where[label]
        launched = measured_target(target, self.instances.get(label))
        if (
            launched is not target
        ):  # --fallback next launched another type: journaled under its name
            target, label = launched, launched.label()
        if (
            not target.cloud
        ):  # measured at a smaller batch when the spec's would not fit the local budget
            result = scaled_to_spec(result, self.spec.batch_size)
        measured = Measured(target, result, region, purchase)
        self.journal.write_result(label, measured)  # on disk before anything else looks at it
        if self.cb.on_result:
            self.cb.on_result(label, measured)

    def notice(self, label: str, text: str) -> None:
        """What a target's start or the session said (a launch in another zone, a retried call): in run.json's
        `notices` as it happens, then to the front (stderr without one, as the session would)."""
        if label:  # a target's (the run's own, such as a signal's, are said only: they come from a signal handler)
            self.info.setdefault("notices", []).append({"label": label, "text": text})
            self.journal.write_run(self.info)
        if self.cb.on_notice:
            self.cb.on_notice(label, text)
        else:
            sys.stderr.write(f"{label}: {text}\n" if label else f"{text}\n")

    def session(
        self, targets: list[SessionTarget], backstops: Sequence[Backstop] = ()
    ) -> BenchSession:
        return BenchSession(
            targets,
            on_state=states_as_launched(
                self.cb.on_state,
                {label: where[0] for label, where in self.where.items()},
                self.instances,
            ),
            on_result=self.record,
            on_progress=self.cb.on_progress,
            cancel=self.cancel,
            backstops=backstops,
            on_notice=self.notice,
        )

    def local_targets(self) -> list[SessionTarget]:
        targets: list[SessionTarget] = []
        batch = local_batch(self.spec, self.fp, memory_available())
        for device in local_devices() if LOCAL in self.choice.targets else []:
            label = LOCAL.label(device)
            self.where[label] = (LOCAL, None, None)
            job = make_job(
                self.spec,
                replace(self.bench, device=device, processes=1),
                self.fp,  # --processes: AWS only
                batch if batch != self.spec.batch_size else None,
            )
            targets.append(LocalTarget(job, self.journal.path / "work", label))
        return targets

    def auto(self, local_targets: list[SessionTarget], aws: AwsOptions) -> list[str]:
        """Measure here first (the predictions scale this machine's measurement), then choose the
        instances worth a paid benchmark. Returns their types."""
        self.session(local_targets).run()
        local = self.journal.read_results().get(LOCAL.label("cpu"))
        if local is None or local.result.status != "ok":
            return []
        choices = self.service.predict.auto_choices(self.spec, self.options, local, aws)
        self.choices = choices
        self.info["auto"] = [choice_words(c) for c in choices]
        self.journal.write_run(self.info)
        if self.cb.on_choices:
            self.cb.on_choices(choices)
        return [c.instance_type for c in choices if c.benchmark]

    def aws_targets(
        self,
        aws_types: list[str],
        aws: AwsOptions,
        priced: tuple[dict[str, float], dict[str, str], float],
    ) -> tuple[list[AwsTarget], list[Backstop]]:
        """(targets, backstops) for the instances of the run; with --fallback next, each with the plan's next-best
        instances of its kind (the plan of what is measured so far: every instance predicted where nothing is)."""
        prices, arches, worst = priced
        catalog = self.service.account.catalog().frame
        fallback = fallback_prices(aws_types, aws, catalog)
        aws_run = AwsRun(
            aws.settings(),
            self.run_id,
            session=self.service.account.aws_session,
            check_result=result_problems,
        )
        nexts = (
            next_alternatives(
                aws_run,
                self.service.predict.plan_of(
                    self.spec, self.options, self.journal.read_results()
                ).plan,
                aws_types,
                aws,
                catalog,
                worst,
            )
            if aws.fallback == "next"
            else {}
        )
        # CUDA where the instance has it; a custom model's code ships in the bundle (too big: InputError)
        job = aws_run.ship(make_job(self.spec, replace(self.bench, device="auto"), self.fp))
        targets = []
        for itype in aws_types:
            target = Target("aws", itype)
            self.where[target.label()] = (target, aws.region, aws.purchase)
            targets.append(
                AwsTarget(
                    aws_run,
                    itype,
                    job,
                    target.label(),
                    prices[itype],
                    arches[itype],
                    fallback_price=fallback.get(itype),
                    alternatives=nexts.get(itype, []),
                )
            )
        self.instances = {t.label: t for t in targets}
        return targets, [aws_run.terminate_run]


def interrupted(results: dict[str, Measured]) -> list[str]:
    """The targets a spot reclaim cut short (their notice, or EC2's reclaim); those with steps enough are planned."""
    return sorted(label for label, m in results.items() if m.result.interruption)


def unterminated(session: BenchSession) -> list[dict[str, Any]]:
    """What the session could not terminate, each with the command that will."""
    return [
        {
            **left,
            "reap_command": f"planner reap --region {left['region']} --run-id {left['run_id']}",
        }
        if "run_id" in left
        else dict(left)
        for left in session.unterminated
    ]


def _stopped(exc: BaseException, run: _Run, session: BenchSession | None) -> BaseException:
    """The exception that ends a stopped run, carrying what the front ends must tell."""
    left = unterminated(session) if session is not None else []
    if isinstance(exc, Cancelled) and left:
        names = ", ".join(f"{x['instance_id']} ({x['region']})" for x in left)
        return RunError(
            f"cancelled, but {len(left)} instance(s) could not be terminated: {names}",
            hint="; ".join(dict.fromkeys(x["reap_command"] for x in left)),
        )
    exc.run_dir = str(run.journal.path)  # type: ignore[attr-defined]
    exc.unterminated_instances = [LeftRunning(**x) for x in left]  # type: ignore[attr-defined]
    exc.results_count = len(run.journal.read_results())  # type: ignore[attr-defined]  # 0: nothing to plan from
    return exc


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
    fallback: dict[str, float] = field(
        default_factory=dict
    )  # type -> on-demand USD/h a spot launch may fall back to
    fallback_quotas: tuple[
        QuotaCheck, ...
    ] = ()  # the on-demand quotas that fallback would launch against
    fallback_next: bool = (
        False  # --fallback next: the plan's next-best instance of a type no zone has capacity for
    )
    next_types: dict[str, list[str]] | None = (
        None  # --fallback next of a spec: type -> the plan's next-best, as ranked now (None: at the run)
    )

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


class Runs:
    """Runs of a spec: measure targets here and on rented instances, journal, plan; a saved run re-planned."""

    def __init__(self, account: Account, workloads: Workloads, predict: Predict):
        self.account, self.workloads, self.predict = account, workloads, predict

    def run(
        self,
        spec: WorkloadSpec,
        spec_text: str | None,
        targets: TargetChoice,
        options: PlanOptions,
        bench: BenchOptions,
        out: Path | None = None,
        callbacks: RunCallbacks | None = None,
        aws: AwsOptions | None = None,
        cancel: threading.Event | None = None,
    ) -> tuple[PlanDocument, RunJournal, BenchSession | None]:
        """Measure, journal, plan: (plan document, journal, session). Every instance started is
        terminated before it returns, also on Ctrl-C, SIGTERM and SIGHUP. `auto` measures here first,
        predicts every catalog instance, and benchmarks only the candidates that could change the
        decision (planner.core.decide.select_benchmarks), within the budget.
        Raises InputError (refused before anything launches: budget, region, settings), Cancelled or
        KeyboardInterrupt carrying `run_dir`, `unterminated_instances` and `results_count`, RunError
        (cancelled with instances it could not terminate, named with the reap command)."""
        aws_types = targets.aws_types
        check_processes(spec, bench)
        aws = aws or AwsOptions(region=options.region, purchase=options.purchase)
        catalog = self.account.catalog().frame if (aws_types or targets.auto) else None
        if (
            catalog is not None
        ):  # a region the price data lacks is refused before anything is measured
            from pricing.catalog import check_region

            check_region(catalog, options.region)
        # refuse before anything is written or launched; `auto` prices again once it has chosen
        priced = preflight(aws_types, aws, catalog) if aws_types else None
        self.check_credentials(aws_types)
        run = _Run(
            self, spec, spec_text, targets, options, bench, out, callbacks or RunCallbacks(), cancel
        )
        no_credentials = self.auto_without_credentials(targets, run.cb)
        session = None
        skipped = None
        try:
            started = run.local_targets()
            if targets.auto:
                chosen, skipped = self.benchmarkable(run.auto(started, aws), no_credentials)
                chosen = self.within_quotas(
                    [t for t in chosen if t not in aws_types], aws, catalog, run.notice
                )
                aws_types += chosen
                started = []
                priced = preflight(aws_types, aws, catalog) if aws_types else None
            backstops: list[Backstop] = []
            if aws_types and priced is not None:  # priced whenever there are AWS types
                aws_targets, backstops = run.aws_targets(aws_types, aws, priced)
                started += aws_targets
            session = run.session(started, backstops)
            session.run()
        except (KeyboardInterrupt, Cancelled) as exc:
            stopped = _stopped(exc, run, session)
            if stopped is exc:
                raise
            raise stopped from exc
        results = run.journal.read_results()
        failed = sorted(label for label, m in results.items() if m.result.status == "error")
        # the plan `planner plan RUN_DIR` gives (issue 40): the measured rows, and every instance not measured predicted
        doc = self.estimate_run(run.journal.path)
        if skipped:  # auto chose instances and benchmarked none
            doc.plan.say(Said([skipped], []))
        doc = replace(
            doc,
            failed_targets=failed,
            interrupted_targets=interrupted(results),
            unterminated=[LeftRunning(**x) for x in unterminated(session)],
            bench_cost_usd=session.billed_usd() if aws_types else None,
            auto=run.choices if targets.auto else None,
        )
        run.journal.write_plan(doc)
        return doc, run.journal, session

    def check_credentials(self, aws_types: list[str]) -> None:
        """Refuse the instances named when boto3 finds no credentials here (InputError naming them and the fix),
        before anything is measured, written or launched: the run could only measure here and fail them, as the
        AWS CLI refuses at once. Credentials AWS then refuses, or an AWS out of reach, fail the AWS targets, not the
        run (a fault found while running)."""
        problem = credentials_problem(self.account.aws_session) if aws_types else None
        if problem is not None:
            raise InputError(
                f"--targets {','.join(f'aws:{t}' for t in aws_types)}: {problem.message}",
                hint=f"{problem.hint}; or measure here only: --targets local",
            )

    def auto_without_credentials(self, targets: TargetChoice, cb: RunCallbacks) -> str | None:
        """`auto` with no credentials here: said on the run's log before anything is measured (it measures here,
        predicts every instance and benchmarks none), and returned (benchmarkable's `problem`); None otherwise."""
        problem = self.account.credentials_problem() if targets.auto else None
        if problem is not None and cb.on_notice:
            cb.on_notice(
                "",
                f"auto: {problem}; it measures here, predicts every instance and benchmarks none",
            )
        return problem

    @staticmethod
    def benchmarkable(chosen: list[str], problem: str | None) -> tuple[list[str], str | None]:
        """`auto`'s chosen instances, and none when boto3 found no credentials here (`problem`, looked up once before
        the run measured anything): (the types, the plan's warning then; the plan is then of every instance,
        predicted, as `planner estimate` gives it)."""
        if problem is None or not chosen:
            return chosen, None
        return (
            [],
            f"auto chose {len(chosen)} instance(s) to benchmark ({', '.join(chosen)}) and benchmarked none: {problem}",
        )

    def within_quotas(
        self,
        chosen: list[str],
        aws: AwsOptions,
        catalog: pd.DataFrame,
        notice: Callable[[str, str], None],
    ) -> list[str]:
        """`auto`'s picks that fit their vCPU quotas (read now, with what runs in them); each one that would not is
        dropped with a notice naming the quota and the request that raises it (the run goes on without it)."""
        over = {t: q for q in self.quota_checks(chosen, aws, catalog) if q.over for t in q.types}
        for t, q in over.items():
            notice(
                f"aws-{t}",
                f"auto chose aws:{t} but did not benchmark it: {q.over_text()}; to fix: {q.raise_request()}",
            )
        return [t for t in chosen if t not in over]

    def quota_checks(
        self, aws_types: list[str], aws: AwsOptions, catalog: pd.DataFrame
    ) -> tuple[QuotaCheck, ...]:
        """The vCPU quotas launching `aws_types` counts against, each read now with what runs in it (infra.quotas);
        none without credentials here (nothing could be launched either). An instance's vCPUs are the catalog's."""
        from infra.quotas import check_quotas

        if not aws_types or self.account.credentials_problem():
            return ()
        vcpus = {str(t): int(n) for t, n in zip(catalog["instance_type"], catalog["vcpus"])}
        return tuple(
            check_quotas(
                self.account.aws_session,
                aws.region,
                {t: vcpus[t] for t in aws_types},
                aws.purchase,
                vcpus,
            )
        )

    def launch_preview(
        self,
        aws_types: list[str],
        aws: AwsOptions,
        spec: WorkloadSpec | None = None,
        options: PlanOptions | None = None,
    ) -> LaunchPreview:
        """What `planner run` would launch, each instance's price and worst-case bill, within the guards; with
        --fallback next and a `spec`, the instances the plan (`options`) ranks next for each type, as it ranks them
        before anything is measured. Raises InputError when it would be refused (over the budget, too many
        instances, a region the prices lack)."""
        from pricing.catalog import check_region

        frame = self.account.catalog().frame
        check_region(frame, aws.region)
        prices, _arches, worst = preflight(aws_types, aws, frame)
        s = aws.settings()
        quotas = self.quota_checks(aws_types, aws, frame)
        fallback = fallback_prices(aws_types, aws, frame)
        on_demand = replace(aws, purchase="on-demand", fallback=None)
        return LaunchPreview(
            aws.region,
            aws.purchase,
            aws.ami or f"the latest Deep Learning AMI ({aws.ami_type}, looked up at launch)",
            [
                (t, p, worst_case_bench_cost(max(p, fallback.get(t, 0.0)), s))
                for t, p in prices.items()
            ],
            worst,
            aws.bench_budget,
            s.max_bench_minutes,
            EXPIRY_GRACE_MINUTES,
            aws.max_instances,
            quotas,
            fallback,
            self.quota_checks(aws_types, on_demand, frame) if fallback else (),
            aws.fallback == "next",
            None
            if spec is None or aws.fallback != "next"
            else self._next_types(aws_types, aws, spec, options),
        )

    def _next_types(
        self, aws_types: list[str], aws: AwsOptions, spec: WorkloadSpec, options: PlanOptions | None
    ) -> dict[str, list[str]]:
        """--fallback next of a spec: each type's next-best of its kind in the plan made before anything is measured
        (GPUs from their specs; CPUs ranked once this machine is measured)."""
        from pricing.catalog import instance_facts

        frame = self.account.catalog().frame
        plan = self.predict.plan_of(
            spec, options or plan_options(region=aws.region, purchase=aws.purchase), {}
        ).plan
        return {
            t: next_best(
                plan,
                t,
                "cuda" if instance_facts(frame, t, aws.region)["gpu_count"] else "cpu",
                set(aws_types),
            )
            for t in aws_types
        }

    def bench_cost(self, aws_types: list[str], aws: AwsOptions) -> float:
        """The worst-case bench cost of benchmarking `aws_types`. Raises InputError when over budget."""
        return preflight(aws_types, aws, self.account.catalog().frame)[2]

    def estimate_run(
        self,
        run_dir: str | Path,
        overrides: dict[str, Any] | None = None,
        gpu: bool | None = None,
        options: PlanOptions | None = None,
        measured_only: bool = False,
        length: ScriptLength | None = None,
    ) -> PlanDocument:
        """A saved run's plan: its measured rows and every instance it did not measure predicted
        (`measured_only`: its measured rows alone), with plan options changed by `overrides` (None
        keeps the saved value) or `options` instead of the run's altogether (a front whose controls
        show every option). Nothing is written. `length` is a script run's (Scripts.estimate_run).
        Raises JournalError (naming the file and the field) when `run_dir` is not a run journal,
        InputError when it has no results yet or an option is out of range."""
        journal = RunJournal.open(run_dir)
        options = options or saved_options(journal, overrides or {})
        spec = journal.read_spec()
        if measured_only:  # its measured rows alone
            plan = plan_from_results(
                spec,
                saved_results(journal),
                options,
                need_bytes=journal.read_run().get("footprint_bytes"),
            )
            return PlanDocument(WorkloadSummary.of(spec), plan, options, str(journal.path))
        return self.predict.plan_of(
            spec, options, saved_results(journal), gpu, run_dir=journal.path
        )
