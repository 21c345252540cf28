"""Predict before renting: `planner estimate` (measure here, predict every catalog instance, say
which paid benchmarks would settle the answer), `--targets auto`'s choice, and `planner calibrate`.
The predictions themselves are the pure core's (planner/core/candidates.py and predicted.py, planner/core/predict/); this module
brings them the catalog, the GPU specs and the calibration."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from planner.core.candidates import (
    LOCAL,
    Candidate,
    measured_candidate,
    measurement_said,
)
from planner.core.decide import (
    BenchmarkChoice,
    Plan,
    RankedOption,
    decide,
    select_benchmarks,
)
from planner.core.document import PlanDocument, PlanOptions, PriceSource, WorkloadSummary
from planner.core.predicted import Hardware, predicted_candidates
from planner.core.remarks import (
    EmulatedPrecision,
    KindOnly,
    NothingPriced,
    NotMeasuredHere,
    PredictedHere,
    Remark,
    Said,
)
from planner.errors import RunError, StepTooLong
from planner.journal import Measured
from planner.service.bench import BenchOptions, ProgressFn, measure_here
from planner.service.calibration import (
    corrections,
)
from planner.service.settings import AwsOptions
from runner.aws import worst_case_bench_cost

if TYPE_CHECKING:  # importing the service stays cheap: `planner --help` loads it
    import pandas as pd

    from planner.service.account import Account
    from planner.service.describe import Workloads
    from planner.workload.spec import WorkloadSpec
    from pricing.facts import InstanceFacts
    from runner.bench.result import BenchResult


def hardware() -> Hardware:
    """The device model's facts, read once at the edge: GPU and CPU spec tables, this machine's
    processor, the calibration corrections, the multi-GPU instances' interconnects."""
    from pricing.catalog import (
        cpu_facts_by_family,
        gpu_specs_by_name,
        interconnects_by_type,
        local_cpu_facts,
    )

    return Hardware(
        gpu_specs_by_name(),
        cpu_facts_by_family(),
        local_cpu_facts(),
        corrections(),
        interconnects_by_type(),
    )


def measured_region(options: PlanOptions, ran_in: str | None) -> str:
    """Where a measured instance is priced: the plan's region, or, when the plan spans several, the region it ran in
    (the first of the plan's when not journaled)."""
    from pricing.facts import ALL_REGIONS, is_many_regions

    if not is_many_regions(options.region):
        return options.region
    return ran_in or (
        "us-east-1" if options.region == ALL_REGIONS else options.region.split(",")[0]
    )


def measured_candidates(
    results: dict[str, Measured],
    options: PlanOptions,
    catalog: pd.DataFrame | None = None,
    need_bytes: int | None = None,
) -> tuple[list[Candidate], Said]:
    """A candidate per journaled result (label -> planner.journal.Measured), and what the measurements
    say (warnings, notes); AWS options are priced from `catalog` (a frame) in the plan's region and
    purchase option (re-planning may change both)."""
    from pricing.catalog import hourly_price, instances, load_catalog

    if catalog is None and any(m.target.cloud for m in results.values()):
        catalog = load_catalog().frame
    candidates, said = [], Said()
    # the catalog's facts of each region a result is priced in, read once
    by_region: dict[str, dict[str, InstanceFacts]] = {}
    for label, m in sorted(results.items()):
        region = measured_region(options, m.region)
        if region not in by_region:
            by_region[region] = (
                {f.instance_type: f for f in instances(catalog, region=region)}
                if catalog is not None
                else {}
            )
        rows = by_region[region]
        price = (
            hourly_price(catalog, m.target.instance_type, region, options.purchase)
            if m.target.cloud and m.target.instance_type
            else options.local_price_per_hour
        )
        candidates.append(
            measured_candidate(
                m.target,
                m.result,
                price,
                region,
                options.purchase,
                need_bytes,
                facts=rows.get(m.target.instance_type or ""),
            )
        )
        said += measurement_said(label, m.result)
    return candidates, said


def emulation_warnings(options: list[RankedOption]) -> list[Remark]:
    """A GPU that runs the spec's precision emulated (bf16 on a T4 or V100) is said once under the plan:
    its rows' notes are cut in a narrow table."""
    said = {n.gpu: n for o in options for n in o.note if isinstance(n, EmulatedPrecision)}
    return [said[gpu] for gpu in sorted(said)]


def benchmark_choices(plan: Plan, aws: AwsOptions | None = None) -> list[BenchmarkChoice]:
    """Which predicted instances a paid benchmark could change the decision for (the rent answer's
    question: speedups there are against the best rented CPU), within the budget."""
    aws = aws or AwsOptions()
    settings = aws.settings()
    worst = {
        o.target: worst_case_bench_cost(o.price_per_hour, settings)
        for o in plan.options
        if o.source == "predicted"
    }
    choices = select_benchmarks(plan, worst, aws.bench_budget, aws.max_instances)
    if any(isinstance(w, PredictedHere) and w.stops for w in plan.warnings):
        # a script that does not run on a CPU as written is not benchmarked on one: it would stop there too
        cpus = {o.target for o in plan.options if o.device == "cpu"}
        choices = [c for c in choices if c.target not in cpus]
    return choices


def nothing_priced(options: PlanOptions, gpu: bool | None) -> NothingPriced:
    """The plan's warning when the price data has no instance of the kind asked for in its region (and purchase)."""
    return NothingPriced(options.region, options.purchase, gpu)


def auto_benchmarks(choices: list[BenchmarkChoice], here: PlanDocument) -> list[BenchmarkChoice]:
    """`--targets auto`'s choice, given the plan with this machine's measurement in it (`here`): when
    training here wins clearly, whatever an instance would measure, nothing is worth paying for (as
    estimate says and the TUI picks); each choice keeps its reason, with why it is not benchmarked."""
    if not here.trains_here_clearly:
        return choices
    return [replace(c, benchmark=False, here_wins=True) for c in choices]


class Predict:
    """Predict before renting: the estimate, its re-plans, `auto`'s choice, calibration."""

    def __init__(self, account: Account, workloads: Workloads):
        self.account, self.workloads = account, workloads

    def estimate(
        self,
        spec: WorkloadSpec,
        options: PlanOptions,
        seconds: float = 5.0,
        gpu: bool | None = None,
        on_progress: ProgressFn | None = None,
        predict_only: bool = False,
        on_result: Callable[[str, Measured], None] | None = None,
        threads: int | None = None,
        cancel: threading.Event | None = None,
    ) -> PlanDocument:
        """Measure here (unless `predict_only`: GPUs are then predicted from their specs alone and CPU
        instances, which scale this machine's measurement, are not), predict every instance in the
        region, headline and both answers, and the paid benchmarks that would settle it. `on_result`
        gets this machine's measurement as `run` reports results (estimate_from re-plans it).
        Raises InputError (a region the prices lack), RunError (the bench failed)."""
        from pricing.catalog import check_region

        check_region(self.account.catalog().frame, options.region)
        results = {}
        stopped = None
        if not predict_only:
            try:
                local = Measured(
                    LOCAL,
                    measure_here(
                        spec,
                        self.workloads.footprint(spec),
                        BenchOptions(device="cpu", seconds=seconds, threads=threads),
                        on_progress,
                        cancel,
                    ),
                )
            except (
                StepTooLong
            ) as exc:  # an answer all the same, on time: every row from the work alone (issue 40)
                stopped = exc.message
            else:
                results[local.label] = local
                if on_result:
                    on_result(local.label, local)
        doc = self.plan_of(spec, options, results, gpu)
        if stopped:
            doc.plan.say(Said([NotMeasuredHere(stopped)], []))
        return doc

    def estimate_from(
        self,
        spec: WorkloadSpec,
        options: PlanOptions,
        results: dict[str, Measured],
        gpu: bool | None = None,
    ) -> PlanDocument:
        """The plan over measurements already made (label -> Measured, as `run`'s and `estimate`'s
        on_result give them): those rows measured, every other instance predicted from this machine's
        CPU result. Re-plans an estimate, or a run as its results arrive, at once.
        Raises InputError (a region the prices lack)."""
        return self.plan_of(spec, options, results, gpu)

    def plan_of(
        self,
        spec: WorkloadSpec,
        options: PlanOptions,
        results: dict[str, Measured],
        gpu: bool | None = None,
        run_dir: Path | None = None,
    ) -> PlanDocument:
        """THE plan of every use case: the measured rows of `results` (label -> Measured), every other
        instance in the region predicted (CPU instances from this machine's CPU measurement; without
        one, GPUs alone, from their specs), decided, with the paid benchmarks that would settle it."""
        catalog = self.account.catalog()
        measured, said = measured_candidates(
            results, options, catalog.frame, self.workloads.footprint(spec).total_bytes
        )
        local = results.get(LOCAL.label("cpu"))
        plan = self._predicted_plan(
            spec, options, local.result if local else None, gpu=gpu, measured=measured
        )
        plan.say(said)
        choices = benchmark_choices(plan)
        return PlanDocument(
            WorkloadSummary.of(spec),
            plan,
            options,
            str(run_dir) if run_dir else None,
            prices=PriceSource(catalog.source, catalog.as_of),
            benchmark=[c for c in choices if c.benchmark],
            skipped=[c for c in choices if not c.benchmark],
        )

    def auto_choices(
        self, spec: WorkloadSpec, options: PlanOptions, local: Measured, aws: AwsOptions
    ) -> list[BenchmarkChoice]:
        """`--targets auto`: which instances to benchmark, given this machine's measurement: those that could
        change the rent answer (its plan leaves this machine out), none when training here wins clearly."""
        choices = benchmark_choices(
            self._predicted_plan(spec, options, local.result, include_local=False), aws
        )
        return auto_benchmarks(choices, self.plan_of(spec, options, {local.label: local}))

    def auto_preview(
        self,
        spec: WorkloadSpec,
        options: PlanOptions,
        seconds: float,
        aws: AwsOptions,
        on_progress: ProgressFn | None = None,
    ) -> list[BenchmarkChoice]:
        """`planner run SPEC --targets auto --dry-run`: what `auto` would benchmark, chosen as a run chooses (this
        machine measured, free; nothing journaled, nothing rented). Raises RunError (the bench failed)."""
        local = Measured(
            LOCAL,
            measure_here(
                spec,
                self.workloads.footprint(spec),
                BenchOptions(device="cpu", seconds=seconds),
                on_progress,
            ),
        )
        if local.result.status != "ok":
            raise RunError(
                f"this machine's measurement failed, so auto cannot choose: {local.result.message}"
            )
        return self.auto_choices(spec, options, local, aws)

    def _predicted_plan(
        self,
        spec: WorkloadSpec,
        options: PlanOptions,
        local: BenchResult | None,
        gpu: bool | None = None,
        include_local: bool = True,
        measured: list[Candidate] | None = None,
    ) -> Plan:
        """The plan over the local measurement (a BenchResult) and a prediction for every catalog
        instance in the region; `measured` (candidates: a run's results) replaces the local row and
        the predictions of the instances it measured."""
        from pricing.catalog import instances

        fp = self.workloads.footprint(spec)
        facts = instances(
            self.account.catalog().frame, region=options.region, gpu=gpu, purchase=options.purchase
        )
        predicted = predicted_candidates(spec, fp, local, facts, options.purchase, hardware())
        here = local if include_local and measured is None else None  # this machine's row, measured
        if measured is None:
            measured = (
                [
                    measured_candidate(
                        LOCAL, here, options.local_price_per_hour, need_bytes=fp.total_bytes
                    )
                ]
                if here is not None
                else []
            )
        done = {c.target for c in measured}
        opts = [
            c.option(spec.total_steps)
            for c in measured + [c for c in predicted if c.target not in done]
        ]
        plan = decide(
            opts, options.objective, options.deadline_seconds, options.time_value_per_hour
        )
        if not facts:
            plan.warnings.append(nothing_priced(options, gpu))
        if gpu is not None:
            plan.notes.append(KindOnly(gpu))
        if here is not None:
            plan.say(measurement_said(LOCAL.label(here.device), here))
        plan.warnings.extend(emulation_warnings(plan.options))
        return plan
