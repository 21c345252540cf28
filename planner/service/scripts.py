"""The user's own training script, unchanged: estimated (every instance predicted from its measurement here), run
and journaled, re-planned from its journal or from measurements in memory (docs/guides/scripts.md says how)."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from planner.core.candidates import LOCAL
from planner.core.decide import decide
from planner.core.document import (
    PlanDocument,
    PlanOptions,
    PriceSource,
)
from planner.core.remarks import KindOnly, Said, WhatIfLength
from planner.core.script import (
    PER_STEPS,
    ScriptEnv,
    ScriptEstimate,
    ScriptJob,
    ScriptLength,
    ScriptRun,
    estimate_or_per_steps,
    length_disagreement,
    length_free_warning,
    script_candidates,
    script_said,
)
from planner.journal import RunJournal
from planner.service import script_run
from planner.service.bench import ProgressFn
from planner.service.journals import Journals
from planner.service.plan import Runs, saved_options
from planner.service.predictions import (
    auto_benchmarks,
    benchmark_choices,
    hardware,
    nothing_priced,
)
from planner.service.script_checks import (
    refuse_deadline_without_length,
    script_path,
    script_workdir,
)
from planner.service.script_jobs import script_job, script_summary, task_choice
from planner.service.script_lengths import length_crossovers, measured_rows
from planner.service.settings import (
    AutoPreview,
    AwsOptions,
    PlanChoice,
    RunCallbacks,
    TargetChoice,
)
from planner.service.timelines import here_label, measured_timelines, timeline_here, timelines
from planner.service.workload import journaled

if TYPE_CHECKING:  # importing the service stays cheap: `planner --help` loads it
    from collections.abc import Callable

    from planner.core.candidates import Candidate
    from planner.journal import Measured
    from planner.service.account import Account
    from planner.service.measure import Measure
    from planner.service.workload import ScriptWorkload


class Scripts:
    """A user's training script: estimate, run, re-plan (and any saved run re-planned: a spec's by Runs)."""

    def __init__(self, account: Account, measure: Measure, runs: Runs, journals: Journals):
        self.account, self.measure, self.runs, self.journals = account, measure, runs, journals

    def script_plan(
        self,
        job: ScriptJob,
        run: ScriptRun,
        est: ScriptEstimate,
        options: PlanOptions,
        gpu: bool | None = None,
        measured_only: bool = False,
        run_dir: Path | None = None,
        measured: list[Candidate] | None = None,
        what_if: bool = False,
    ) -> PlanDocument:
        """THE plan of a script: this machine's row measured, every instance in the region predicted from it
        (none with `measured_only`), decided, with the paid benchmarks that would settle it; warned when its length
        is not the one the script's own arguments train (not for a `what_if`, a length asked of a run made)."""
        from pricing.catalog import check_region, instances

        catalog = self.account.catalog()
        check_region(catalog.frame, options.region)
        facts = (
            []
            if measured_only
            else instances(catalog.frame, region=options.region, gpu=gpu, purchase=options.purchase)
        )
        done = {c.target for c in measured or []}
        facts = [f for f in facts if f"aws:{f.instance_type}" not in done]
        candidates = [
            *script_candidates(
                run, est, facts, options.purchase, hardware(), options.local_price_per_hour
            ),
            *(measured or []),
        ]
        plan = decide(
            [c.option(est.total_steps) for c in candidates],
            options.objective,
            options.deadline_seconds,
            options.time_value_per_hour,
        )
        plan.say(script_said(run, est, predicted=not measured_only))
        if not facts and not measured_only and not measured:
            plan.warnings.append(nothing_priced(options, gpu))
        if gpu is not None:
            plan.notes.append(KindOnly(gpu))
        if not what_if and (differs := length_disagreement(job.args, run, est)) is not None:
            plan.say(Said([differs]))
        choices = [] if measured_only else benchmark_choices(plan)
        return PlanDocument(
            script_summary(job, run, est),
            plan,
            options,
            str(run_dir) if run_dir else None,
            prices=None if measured_only else PriceSource(catalog.source, catalog.as_of),
            benchmark=[c for c in choices if c.benchmark],
            skipped=[c for c in choices if not c.benchmark],
            task_choice=task_choice(job, catalog.frame, options),
        )

    def estimate_script(
        self,
        workload: ScriptWorkload,
        options: PlanOptions,
        seconds: float = 10.0,
        gpu: bool | None = None,
        on_progress: ProgressFn | None = None,
        predict_only: bool = False,
        on_result: Callable[[str, Measured], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> tuple[PlanDocument, ScriptRun, ScriptEstimate]:
        """`planner estimate train.py -- ARGS`: the script measured here unchanged, every instance predicted from it,
        decided; and the measurement it rests on (`on_result`: as a run journals it, for plan_measured).
        Raises InputError, RunError (the script failed), Cancelled (`cancel` was set)."""
        from pricing.catalog import check_region

        script, args = workload.path, list(workload.args)
        # before the measurement, not after it
        check_region(self.account.catalog().frame, options.region)
        refuse_deadline_without_length(workload, options.deadline_seconds)
        cwd = script_workdir(script_path(script), workload.workdir)
        env = workload.env or ScriptEnv()
        job = script_job(workload, seconds, cwd if workload.workdir is not None else None, env)
        run = self.measure.measure_script(
            script,
            args,
            seconds,
            workload.epochs is not None,
            cancel=cancel,
            on_progress=on_progress,
            workdir=cwd,
            env=env,
            predict_only=predict_only,
        )
        if on_result is not None:
            on_result(*script_run.measured_here(script_path(script), run, seconds))
        doc, est = self._plan_measured(job, job.length, run, {}, {}, options, gpu, False, None)
        return doc, run, est

    def script_auto_preview(
        self,
        workload: ScriptWorkload,
        options: PlanOptions,
        aws: AwsOptions,
        seconds: float = 10.0,
        on_progress: ProgressFn | None = None,
    ) -> AutoPreview:
        """`planner run train.py --targets auto --dry-run`: what `auto` would benchmark, chosen as run_script
        chooses (the script measured here, free; nothing journaled, nothing rented), and for what length. Raises as
        estimate_script."""
        planned, _run, _est = self.estimate_script(
            workload, options, seconds, on_progress=on_progress
        )
        choices = auto_benchmarks(benchmark_choices(planned.plan, aws), planned)
        return AutoPreview(choices, planned.length_not_given)

    def run_script(
        self,
        workload: ScriptWorkload,
        targets: TargetChoice,
        options: PlanOptions,
        seconds: float = 10.0,
        out: Path | None = None,
        callbacks: RunCallbacks | None = None,
        aws: AwsOptions | None = None,
        cancel: threading.Event | None = None,
    ) -> tuple[PlanDocument, RunJournal]:
        """`planner run train.py --targets local,aws:TYPE,... -- ARGS`: the script measured here and on rented
        instances (its folder shipped, its requirements installed at boot), each result journaled as it arrives, the
        plan written as plan.json; `auto` benchmarks what could change the decision (service/script_run.py's steps).
        Every instance started is terminated before it returns, also on Ctrl-C, SIGTERM and SIGHUP.
        Raises InputError (refused before anything is written or launched), RunError, RunStopped (its journal)."""
        run = script_run.begin(self, workload, targets, options, seconds, out, callbacks, aws)
        no_credentials = self.runs.auto_without_credentials(targets, run.cb)
        if LOCAL in targets.targets:  # `auto` adds it: every other instance is predicted from it
            script_run.measure_here(self, run, cancel)
            if targets.auto:
                script_run.pick_auto(self, run, no_credentials)
        if run.aws_types and run.shipped is not None and run.priced is not None:
            script_run.rent(self, run, cancel)
        return script_run.finish(self, run), run.journal

    def estimate_run(
        self,
        run_dir: str | Path,
        overrides: PlanChoice | None = None,
        gpu: bool | None = None,
        options: PlanOptions | None = None,
        measured_only: bool = False,
        length: ScriptLength | None = None,
    ) -> PlanDocument:
        """A saved run's plan (see Runs.estimate_run); a script's run is re-planned from its journal: each
        target's timeline extrapolated again (for `length`, a what-if; None: the length it was run with), every
        instance not measured predicted from this machine's (`measured_only`: its measured rows alone).
        Raises JournalError (naming the file and the field), InputError (no result here yet; an option out of range;
        a length given for a spec's run; RunLengthUnknown)."""
        return journaled(run_dir).estimate(self, overrides, gpu, options, measured_only, length)

    def estimate_script_run(
        self,
        journal: RunJournal,
        own: ScriptJob,
        overrides: PlanChoice | None,
        gpu: bool | None,
        options: PlanOptions | None,
        measured_only: bool,
        length: ScriptLength | None,
    ) -> PlanDocument:
        """A script's saved run re-planned from its journal (`own`: its script.json), for `length` (None: its own)."""
        options = options or saved_options(journal, overrides or PlanChoice())
        results = journal.read_results()
        runs = timelines(journal, results)
        here = here_label(journal, runs)
        doc, _est = self._plan_measured(
            own.with_length(length),
            own.length,
            runs[here],
            results,
            runs,
            options,
            gpu,
            measured_only,
            journal.path,
        )
        return doc

    def plan_measured(
        self,
        workload: ScriptWorkload,
        options: PlanOptions,
        results: dict[str, Measured],
        gpu: bool | None = None,
        seconds: float = 10.0,
    ) -> PlanDocument:
        """A script's plan over measurements already made (`results`, by label, as a run journals them: an estimate
        re-planned for another length or other options, a run's results as they arrive), for the workload's length.
        Raises InputError (no result here: every other instance is predicted from it; a length it cannot count)."""
        runs = measured_timelines(results)
        here = timeline_here(runs)
        cwd = script_workdir(script_path(workload.path), workload.workdir)
        env = workload.env or ScriptEnv()
        job = script_job(workload, seconds, cwd if workload.workdir is not None else None, env)
        doc, _est = self._plan_measured(
            job, job.length, here, results, runs, options, gpu, False, None
        )
        return doc

    def _plan_measured(
        self,
        job: ScriptJob,
        own: ScriptLength,
        here: ScriptRun,
        results: dict[str, Measured],
        runs: dict[str, ScriptRun],
        options: PlanOptions,
        gpu: bool | None,
        measured_only: bool,
        run_dir: Path | None,
    ) -> tuple[PlanDocument, ScriptEstimate]:
        """THE plan of a script's measurements: this machine's timeline extrapolated for the job's length (per PER_STEPS
        steps without one), each rented instance's from its own, every other instance predicted; a what-if when the
        job's length is not the run's own (`own`). Returns the plan and this machine's whole run."""
        est = estimate_or_per_steps(here, job.total_steps, job.epochs, job.args)
        # no length, given or known: the answer per PER_STEPS steps, and where it changes
        if est.per_steps:
            refuse_deadline_without_length(job.length, options.deadline_seconds)
            job = replace(job, total_steps=PER_STEPS)

        def measured(steps: int, epochs: int | None) -> list[Candidate]:
            return measured_rows(results, runs, options, self._price_of, steps, epochs)

        if (
            own == ScriptLength() and here.stopped_because == "finished"
        ):  # measured whole: the steps it took are its own length, and another one a what-if (a trial: it was kept)
            own = ScriptLength(len(here.steps), None)
        what_if = job.length not in (own, ScriptLength()) and own != ScriptLength()
        doc = self.script_plan(
            job,
            here,
            est,
            options,
            gpu,
            measured_only,
            run_dir=run_dir,
            measured=measured(est.total_steps, job.epochs),
            what_if=what_if,
        )
        if est.per_steps:
            crossovers = length_crossovers(
                self.account.catalog().frame, here, options, gpu, lambda n: measured(n, None)
            )
            doc.plan.warnings.insert(0, length_free_warning(crossovers))
        if what_if:
            doc.plan.say(
                Said(
                    [],
                    [
                        WhatIfLength(
                            (job.length.total_steps, job.length.epochs),
                            (own.total_steps, own.epochs),
                        )
                    ],
                )
            )
        return doc, est

    def replan(
        self,
        run_dir: str | Path,
        overrides: PlanChoice,
        measured_only: bool = False,
        length: ScriptLength | None = None,
    ) -> PlanDocument:
        """estimate_run with some plan options changed (a script's run: for `length` too), and the new plan.json
        written; a script's run measured without a length of its own keeps the one given (its script.json).
        A what-if of another length than the run's own is not written: its plan.json stays the run's (a trial lost
        it to a 500,000-step what-if). Raises what estimate_run raises, and OSError when plan.json cannot be
        written."""
        doc = self.estimate_run(run_dir, overrides, measured_only=measured_only, length=length)
        if length is not None:
            journaled(run_dir).keep_length(length)
        if doc.what_if_length is None:
            RunJournal.open(run_dir).write_plan(doc)
        return doc

    def _price_of(
        self, instance_type: str, options: PlanOptions, region: str | None = None
    ) -> float:
        from pricing.catalog import hourly_price

        return float(
            hourly_price(
                self.account.catalog().frame,
                instance_type,
                region or options.region,
                options.purchase,
            )
        )
