"""Plan: measure targets (`planner run`), re-plan from a run journal (`planner plan`). Design
notes: docs/reference/modules.md (planner/service/plan.py)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from infra.aws import credentials_problem
from infra.quotas import QuotaCheck
from planner.core.decide import decide
from planner.core.document import (
    PlanDocument,
    PlanOptions,
    WorkloadSummary,
)
from planner.core.remarks import AutoBenchmarkedNone, Said
from planner.core.script import ScriptLength
from planner.errors import Cancelled, InputError
from planner.journal import Measured, RunJournal
from planner.service.bench import (
    BenchOptions,
    check_processes,
)
from planner.service.predictions import Predict, measured_candidates
from planner.service.settings import (
    AwsOptions,
    PlanChoice,
    RunCallbacks,
    TargetChoice,
    plan_options,
    resolve_objective,
)
from planner.service.spec_run import SpecRunning
from runner.aws import (
    EXPIRY_GRACE_MINUTES,
    worst_case_bench_cost,
)
from runner.session import BenchSession

if TYPE_CHECKING:  # importing the service stays cheap: `planner --help` loads it
    import threading
    from collections.abc import Callable

    import pandas as pd

    from planner.core.decide import Plan
    from planner.service.account import Account
    from planner.service.describe import Workloads
    from planner.service.launch import Backstop
    from planner.workload.spec import WorkloadSpec

from planner.service.launch import (
    LaunchPreview,
    fallback_prices,
    interrupted,
    next_in_plan,
    preflight,
    stopped,
    unterminated,
)


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


def saved_options(journal: RunJournal, overrides: PlanChoice) -> PlanOptions:
    """A saved run's plan options with what `overrides` gives applied by the flags' rules."""
    given = overrides.given()
    if overrides.deadline_seconds:
        given["objective"] = resolve_objective(overrides.objective, overrides.deadline_seconds)
    merged = replace(journal.read_run().plan_options, **given)
    # the saved deadline may serve
    resolve_objective(merged.objective, merged.deadline_seconds)
    return merged


def saved_results(journal: RunJournal) -> dict[str, Measured]:
    """A saved run's results; InputError when it has none yet."""
    results: dict[str, Measured] = journal.read_results()
    if not results:
        raise InputError(
            f"{journal.path}: the run has no results yet",
            hint="run `planner run` to measure targets",
        )
    return results


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
        # a region the price data lacks is refused before anything is measured
        if catalog is not None:
            from pricing.catalog import check_region

            check_region(catalog, options.region)
        # refuse before anything is written or launched; `auto` prices again once it has chosen
        priced = preflight(aws_types, aws, catalog) if aws_types else None
        self.check_credentials(aws_types)
        run = SpecRunning(
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
            raise stopped(exc, run.journal, session) from exc
        doc = self._planned(run, session, skipped, bool(aws_types))
        return doc, run.journal, session

    def _planned(
        self,
        run: SpecRunning,
        session: BenchSession,
        skipped: AutoBenchmarkedNone | None,
        rented: bool,
    ) -> PlanDocument:
        """The run's plan, journaled: `planner plan RUN_DIR`'s (issue 40: the measured rows, and every instance not
        measured predicted), with what failed, was cut short, was left running and cost."""
        results = run.journal.read_results()
        failed = sorted(label for label, m in results.items() if m.result.status == "error")
        doc = self.estimate_run(run.journal.path)
        if skipped:  # auto chose instances and benchmarked none
            doc.plan.say(Said([skipped], []))
        doc = replace(
            doc,
            failed_targets=failed,
            interrupted_targets=interrupted(results),
            unterminated=unterminated(session),
            bench_cost_usd=session.billed_usd() if rented else None,
            auto=run.choices if run.choice.auto else None,
        )
        run.journal.write_plan(doc)
        return doc

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
    def benchmarkable(
        chosen: list[str], problem: str | None
    ) -> tuple[list[str], AutoBenchmarkedNone | None]:
        """`auto`'s chosen instances, and none when boto3 found no credentials here (`problem`, looked up once before
        the run measured anything): (the types, the plan's warning then; the plan is then of every instance,
        predicted, as `planner estimate` gives it)."""
        if problem is None or not chosen:
            return chosen, None
        return [], AutoBenchmarkedNone(tuple(chosen), problem)

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
        """--fallback next of a spec: each type's alternatives (launch.next_in_plan) in the plan made before anything
        is measured (GPUs from their specs; CPUs ranked once this machine is measured)."""
        plan = self.predict.plan_of(
            spec, options or plan_options(region=aws.region, purchase=aws.purchase), {}
        ).plan
        found = next_in_plan(plan, aws_types, aws, self.account.catalog().frame)
        return {t: [alt for alt, *_ in alts] for t, alts in found.items()}

    def bench_cost(self, aws_types: list[str], aws: AwsOptions) -> float:
        """The worst-case bench cost of benchmarking `aws_types`. Raises InputError when over budget."""
        return preflight(aws_types, aws, self.account.catalog().frame)[2]

    def estimate_run(
        self,
        run_dir: str | Path,
        overrides: PlanChoice | None = None,
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
        options = options or saved_options(journal, overrides or PlanChoice())
        spec = journal.read_spec()
        if measured_only:  # its measured rows alone
            plan = plan_from_results(
                spec,
                saved_results(journal),
                options,
                need_bytes=journal.read_run().footprint_bytes,
            )
            return PlanDocument(WorkloadSummary.of(spec), plan, options, str(journal.path))
        return self.predict.plan_of(
            spec, options, saved_results(journal), gpu, run_dir=journal.path
        )
