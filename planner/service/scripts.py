"""The user's own training script, unchanged: planned on every instance (`planner estimate train.py`), run
and journaled (`planner run train.py`), re-planned from its journal (`planner plan RUN_DIR`).

The script is measured here by runner/script.py (Measure.bench_script); its whole run is extrapolated by
planner/core/script/, and every instance is predicted from its traced step (script_candidates). A run
journals the script's job (script.json) and each target's timeline (script-results/) the moment it
arrives, so a replan needs nothing but the journal.
"""

from __future__ import annotations

import datetime as dt
import secrets
import threading
from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.core.candidates import LOCAL, Target, measured_candidate
from planner.core.decide import BenchmarkChoice, decide
from planner.core.document import (
    SCRIPT_KIND,
    LeftRunning,
    PlanDocument,
    PlanOptions,
    PriceSource,
    TaskChoice,
    WorkloadSummary,
)
from planner.core.remarks import Said, WhatIfLength, remark_json
from planner.core.script import (
    LENGTHS,
    PER_STEPS,
    Crossover,
    RunLengthUnknown,
    ScriptEnv,
    ScriptEstimate,
    ScriptJob,
    ScriptLength,
    ScriptRun,
    estimate_script,
    gpu_precision,
    length_disagreement,
    length_free_warning,
    measured_script_candidate,
    script_candidates,
    script_said,
    steady_step,
)
from planner.core.task import TaskOrigin
from planner.errors import Cancelled, InputError
from planner.journal import Measured, RunJournal, result_problems
from planner.report.why import choice_words
from planner.service.bench import ProgressFn, runner_progress
from planner.service.journals import Journals, here_label, timelines
from planner.service.launch import (
    fallback_prices,
    measured_target,
    next_alternatives,
    preflight,
    states_as_launched,
)
from planner.service.plan import Runs, interrupted, saved_options, stopped, unterminated
from planner.service.predictions import (
    auto_benchmarks,
    benchmark_choices,
    hardware,
    measured_region,
    nothing_priced,
)
from planner.service.script_checks import script_path, script_workdir
from planner.service.settings import AwsOptions, PlanChoice, RunCallbacks, TargetChoice
from planner.units import shown_path
from runner.aws import AwsRun, AwsTarget
from runner.folder import script_folder
from runner.local import SCRIPT_CAP_EXTRA_SECONDS
from runner.script_job import script_result
from runner.session import BenchSession

if TYPE_CHECKING:  # importing the service stays cheap: `planner --help` loads it
    from planner.core.candidates import Candidate
    from planner.service.account import Account
    from planner.service.measure import Measure
    from planner.service.workload import ScriptWorkload
    from runner.aws import AwsTarget


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
        if not what_if and (differs := length_disagreement(job.args, run, est)) is not None:
            plan.say(Said([differs]))
        choices = [] if measured_only else benchmark_choices(plan)
        chosen = None
        if (
            job.task is not None and job.task.asks is not None and job.task.asks.chooses
        ):  # the task's pick, priced
            asks = job.task.asks
            allowed = [
                f"aws:{f.instance_type}"
                for f in instances(catalog.frame, region=options.region, purchase=options.purchase)
                if asks.matches(f)
            ]
            chosen = TaskChoice(job.task.source, asks.written, allowed)
        per_epoch = int(round(est.steps_per_epoch)) if est.steps_per_epoch else None
        summary = WorkloadSummary(
            job.script,
            SCRIPT_KIND,
            None,
            None,
            None,
            est.epochs if per_epoch else None,
            per_epoch,
            est.total_steps,
            gpu_precision(run),
            None,
            script_args=list(job.args),
            step_boundary=run.boundary,
        )
        return PlanDocument(
            summary,
            plan,
            options,
            str(run_dir) if run_dir else None,
            prices=None if measured_only else PriceSource(catalog.source, catalog.as_of),
            benchmark=[c for c in choices if c.benchmark],
            skipped=[c for c in choices if not c.benchmark],
            task_choice=chosen,
        )

    def estimate_script(
        self,
        workload: ScriptWorkload,
        options: PlanOptions,
        seconds: float = 10.0,
        gpu: bool | None = None,
        on_progress: ProgressFn | None = None,
        predict_only: bool = False,
    ) -> tuple[PlanDocument, ScriptRun, ScriptEstimate]:
        """`planner estimate train.py -- ARGS`: the script measured here unchanged (bench_script), its whole
        run here, every instance in the region predicted from it, decided; and the measurement it rests on.
        Raises InputError (a region the prices lack; what bench_script refuses), RunError (the script failed).
        The workload's `env` is set in its environment (ScriptEnv); its `task`, the SkyPilot task that named it, has
        its resources' choice priced against the answer."""
        from pricing.catalog import check_region

        script, args, total_steps, epochs, workdir = _unpacked(workload)

        check_region(
            self.account.catalog().frame, options.region
        )  # before the measurement, not after it
        cwd = script_workdir(script_path(script), workdir)
        env = workload.env or ScriptEnv()
        job = _script_job(
            script,
            args,
            total_steps,
            epochs,
            seconds,
            cwd if workdir is not None else None,
            env,
            workload.task,
        )
        run = self.measure.measure_script(
            script,
            args,
            seconds,
            epochs is not None,
            on_progress=on_progress,
            workdir=cwd,
            env=env,
            predict_only=predict_only,
        )
        try:
            est = estimate_script(run, total_steps, epochs, args=args)
        except RunLengthUnknown:
            if total_steps is not None or epochs is not None:
                raise  # a length was given that the measurement cannot count: say so
            # no length: the answer per PER_STEPS steps, and the lengths at which it changes
            est = estimate_script(run, PER_STEPS, None, args=args)
            doc = self.script_plan(replace(job, total_steps=PER_STEPS), run, est, options, gpu)
            doc.plan.warnings.insert(
                0, length_free_warning(self.length_crossovers(run, options, gpu))
            )
            return doc, run, est
        return self.script_plan(job, run, est, options, gpu), run, est

    def length_crossovers(
        self, run: ScriptRun, options: PlanOptions, gpu: bool | None = None
    ) -> list[Crossover]:
        """The run lengths (steps) at which the headline's pick changes, from LENGTHS and bisection between them: a
        script measured without its length still answers at every length (no measurement is repeated)."""
        from pricing.catalog import instances

        facts = instances(
            self.account.catalog().frame, region=options.region, gpu=gpu, purchase=options.purchase
        )
        facts_of = hardware()

        def pick(steps: int) -> str:
            est = estimate_script(run, steps, None)
            rows = script_candidates(
                run, est, facts, options.purchase, facts_of, options.local_price_per_hour
            )
            plan = decide(
                [c.option(steps) for c in rows],
                options.objective,
                options.deadline_seconds,
                options.time_value_per_hour,
            )
            return plan.recommendation.target or "none"

        picks = [(n, pick(n)) for n in LENGTHS]
        out = []
        for (lo, a), (hi, b) in zip(picks, picks[1:]):
            if a == b:
                continue
            while hi - lo > max(1, lo // 50):  # to 2%
                mid = (lo + hi) // 2
                if pick(mid) == a:
                    lo = mid
                else:
                    hi = mid
            out.append(Crossover(hi, a, b))
        return out

    def script_auto_preview(
        self,
        workload: ScriptWorkload,
        options: PlanOptions,
        aws: AwsOptions,
        seconds: float = 10.0,
        on_progress: ProgressFn | None = None,
    ) -> list[BenchmarkChoice]:
        """`planner run train.py --targets auto --dry-run`: what `auto` would benchmark, chosen as run_script
        chooses (the script measured here, free; nothing journaled, nothing rented). Raises as estimate_script."""
        planned, _run, _est = self.estimate_script(
            workload, options, seconds, on_progress=on_progress
        )
        return auto_benchmarks(benchmark_choices(planned.plan, aws), planned)

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
        """`planner run train.py --targets local,aws:TYPE,... -- ARGS`: measure the script here and on rented
        instances (its folder shipped as runner/folder.py bounds and filters it, `requirements` installed at
        boot), journal each result the moment it arrives (a bench result carrying the script's timeline),
        plan what was measured, write plan.json. Every instance started is terminated before it returns,
        also on Ctrl-C, SIGTERM and SIGHUP (runner/session.py), as for a spec.
        `auto` measures here first, plans every instance from it, and benchmarks the instances that could
        change the decision (the paid benchmarks `planner estimate train.py` suggests), within the budget;
        none when training here wins clearly (each choice then says so).
        Raises InputError (refused before anything is written or launched: budget, region, a folder too big,
        a requirements file outside it), RunError, Cancelled/KeyboardInterrupt carrying `run_dir`. The workload's
        `workdir` is the folder the script runs in and that ships (--workdir; default the script's own); its `env` is
        set in its environment, here (envs and secrets) and on instances (envs only: ScriptEnv); its `requirements`
        are installed at each instance's boot."""
        from pricing.catalog import check_region, instance_facts

        script, args, total_steps, epochs, workdir = _unpacked(workload)
        requirements, task = workload.requirements, workload.task
        path = script_path(script)
        cwd = script_workdir(path, workdir)
        cb = callbacks or RunCallbacks()
        aws_types = targets.aws_types
        aws = aws or AwsOptions(region=options.region, purchase=options.purchase)
        catalog = self.account.catalog().frame
        check_region(catalog, options.region)
        priced = preflight(aws_types, aws, catalog) if aws_types else None
        refuse_fallback_without_here(targets, aws)
        shipped = script_folder(path, folder=cwd) if aws_types or targets.auto else None
        needs = _requirements(cwd, requirements) if requirements else None
        self.runs.check_credentials(
            aws_types
        )  # after every check of the input: a typo is said first
        env = workload.env or ScriptEnv()
        job = _script_job(
            script,
            args,
            total_steps,
            epochs,
            seconds,
            cwd if workdir is not None else None,
            env,
            task,
        )
        journal = RunJournal.create(path.stem, out)
        journal.write_script(job)
        run_id = f"{dt.datetime.now(dt.timezone.utc):%Y%m%dT%H%M%SZ}-{secrets.token_hex(4)}"
        info: dict[str, Any] = {
            "run_id": run_id,
            "targets": list(targets.tokens),
            "plan_options": options.as_dict(),
        }
        journal.write_run(info)

        def record(label: str, measured: Measured) -> None:
            measured = replace(measured, result=_as_planned(measured.result))
            journal.write_result(label, measured)  # on disk before anything else looks at it
            if cb.on_result:
                cb.on_result(label, measured)

        choices, skipped = None, None
        no_credentials = self.runs.auto_without_credentials(targets, cb)
        if (
            LOCAL in targets.targets
        ):  # `auto` adds it: every other instance is predicted from this measurement
            if cb.on_state:
                cb.on_state(LOCAL.name, "running", 0.0, 0.0)
            try:
                run = self.measure.measure_script(
                    path,
                    args,
                    seconds,
                    epochs is not None,
                    cancel,
                    cb.on_progress,
                    LOCAL.name,
                    workdir=cwd,
                    env=env,
                )
            except (KeyboardInterrupt, Cancelled) as exc:  # nothing was rented yet
                raise stopped(exc, journal, None) from exc
            here = script_result(
                {
                    **asdict(run),
                    "busy_warnings": [remark_json(w) for w in run.busy_warnings],
                    "script": path.name,
                },
                "",
                0,
                seconds + SCRIPT_CAP_EXTRA_SECONDS,
            )
            record(
                LOCAL.label(here.device), Measured(LOCAL, here)
            )  # journaled before it is planned: nothing is lost
            try:
                est = estimate_script(run, total_steps, epochs, args=args)
            except (
                RunLengthUnknown
            ) as exc:  # the measurement stands: planned when a length is given
                exc.run_dir = str(journal.path)
                exc.hint = (
                    f"{exc.hint}; or plan this measurement without measuring again: planner plan "
                    f"{shown_path(str(journal.path))} --total-steps N"
                )
                raise
            if (
                targets.auto
            ):  # the instances a paid benchmark could change the decision for, within the budget
                planned = self.script_plan(job, run, est, options)
                choices = auto_benchmarks(benchmark_choices(planned.plan, aws), planned)
                info["auto"] = [choice_words(c) for c in choices]
                journal.write_run(info)
                if cb.on_choices:
                    cb.on_choices(choices)
                chosen, skipped = self.runs.benchmarkable(
                    [c.instance_type for c in choices if c.benchmark], no_credentials
                )
                aws_types += [t for t in chosen if t not in aws_types]
                priced = preflight(aws_types, aws, catalog) if aws_types else None
        session = None
        if aws_types and shipped is not None and priced is not None:
            for line in shipped.lines():
                if cb.on_notice:
                    cb.on_notice("", line)
            settings = aws.settings()
            aws_run = AwsRun(
                settings, run_id, session=self.account.aws_session, check_result=result_problems
            )
            aws_run.user_files = shipped.files
            cap = min(
                seconds + SCRIPT_CAP_EXTRA_SECONDS, max(60.0, settings.max_bench_minutes * 60 - 240)
            )
            script_job = {
                "kind": "script",
                "folder": "user",
                "script": path.resolve().relative_to(cwd).as_posix(),
                "args": list(args),
                "seconds": seconds,
                "env": env.envs,  # never its secrets
                "until_epoch": epochs is not None,
                "cap_seconds": cap,
                "requirements": needs,
            }
            where = {}
            aws_targets: list[AwsTarget] = []
            # --fallback next: the plan of the measurement here ranks the instances (none without one: refused above)
            nexts = (
                next_alternatives(
                    aws_run,
                    self.script_plan(job, run, est, options).plan,
                    aws_types,
                    aws,
                    catalog,
                    priced[2],
                )
                if aws.fallback == "next"
                else {}
            )
            for itype in aws_types:
                target = Target("aws", itype)
                gpu = instance_facts(catalog, itype, aws.region)["gpu_count"]
                where[target.label()] = target
                aws_targets.append(
                    AwsTarget(
                        aws_run,
                        itype,
                        {**script_job, "device": "cuda" if gpu else "cpu"},
                        target.label(),
                        priced[0][itype],
                        priced[1][itype],
                        fallback_price=fallback_prices([itype], aws, catalog).get(itype),
                        alternatives=nexts.get(itype, []),
                    )
                )
            instances = {t.label: t for t in aws_targets}

            def measured_there(label: str, result: Any) -> None:
                target = measured_target(
                    where[label], instances[label]
                )  # --fallback next may have launched another
                record(target.label(), Measured(target, result, aws.region, aws.purchase))

            session = BenchSession(
                aws_targets,
                on_state=states_as_launched(cb.on_state, where, instances),
                on_progress=runner_progress(cb.on_progress),
                cancel=cancel,
                on_result=measured_there,
                backstops=[aws_run.terminate_run],
                on_notice=cb.on_notice,
            )
            try:
                session.run()
            except (KeyboardInterrupt, Cancelled) as exc:
                raise stopped(exc, journal, session) from exc
        doc = self.estimate_run(
            journal.path
        )  # as `planner plan RUN_DIR`: every instance not measured predicted (issue 40)
        if skipped:
            doc.plan.say(Said([skipped], []))
        results = journal.read_results()
        doc = replace(
            doc,
            failed_targets=sorted(
                label for label, m in results.items() if m.result.status == "error"
            ),
            interrupted_targets=interrupted(results),
            unterminated=[LeftRunning(**x) for x in unterminated(session)] if session else [],
            bench_cost_usd=session.billed_usd() if session else None,
            auto=choices,
        )
        journal.write_plan(doc)
        return doc, journal

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
        journal = RunJournal.open(run_dir)
        if not journal.is_script:
            if length is not None:
                raise InputError(
                    "--total-steps and --epochs re-plan a script's run; a spec's run is as long as its "
                    "train.epochs",
                    hint="change train.epochs in the spec and estimate or run it again",
                )
            return self.runs.estimate_run(run_dir, overrides, gpu, options, measured_only)
        options = options or saved_options(journal, overrides or PlanChoice())
        own = journal.read_script()
        job = own.with_length(length)
        results = journal.read_results()
        runs = timelines(journal, results)
        here = here_label(journal, runs)
        est = estimate_script(runs[here], job.total_steps, job.epochs, args=job.args)
        measured = []
        for label, m in sorted(results.items()):
            if not m.target.cloud:
                continue
            region = measured_region(options, m.region)
            price = self._price_of(m.target.instance_type or "", options, region)
            if label in runs:
                there = estimate_script(runs[label], job.total_steps, job.epochs)
                setup = float((m.result.script or {}).get("requirements_seconds") or 0.0)
                measured.append(
                    measured_script_candidate(
                        m.target, runs[label], there, price, replace(options, region=region), setup
                    )
                )
            else:
                measured.append(
                    measured_candidate(m.target, m.result, price, region, options.purchase)
                )
        what_if = job.length != own.length and own.length != ScriptLength()
        doc = self.script_plan(
            job,
            runs[here],
            est,
            options,
            gpu,
            measured_only,
            run_dir=journal.path,
            measured=measured,
            what_if=what_if,
        )
        if what_if:
            doc.plan.say(
                Said(
                    [],
                    [
                        WhatIfLength(
                            (job.length.total_steps, job.length.epochs),
                            (own.length.total_steps, own.length.epochs),
                        )
                    ],
                )
            )
        return doc

    def replan(
        self,
        run_dir: str | Path,
        overrides: PlanChoice,
        measured_only: bool = False,
        length: ScriptLength | None = None,
    ) -> PlanDocument:
        """estimate_run with some plan options changed (a script's run: for `length` too), and the new plan.json
        written; a script's run measured without a length of its own keeps the one given (its script.json).
        Raises what estimate_run raises, and OSError when plan.json cannot be written."""
        doc = self.estimate_run(run_dir, overrides, measured_only=measured_only, length=length)
        if length is not None:
            self.journals.keep_script_length(run_dir, length)
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


def refuse_fallback_without_here(targets: TargetChoice, aws: AwsOptions) -> None:
    """A script's --fallback next ranks the next-best instances by the plan of its measurement here: refused, before
    anything runs or is said, when --targets leaves this machine out. Raises InputError."""
    if aws.fallback == "next" and LOCAL not in targets.targets:
        raise InputError(
            "--fallback next: a script's next-best instance is ranked by the plan of its measurement "
            "here, and --targets leaves this machine out",
            hint="add local to --targets (auto has it)",
        )


def _unpacked(
    workload: ScriptWorkload,
) -> tuple[str, list[str], int | None, int | None, str | None]:
    """A script workload's path, arguments, length and folder, as the measurement takes them."""
    return (
        workload.path,
        list(workload.args),
        workload.total_steps,
        workload.epochs,
        workload.workdir,
    )


def _script_job(
    script: str | Path,
    args: list[str],
    total_steps: int | None,
    epochs: int | None,
    seconds: float,
    workdir: Path | None,
    env: ScriptEnv,
    task: TaskOrigin | None = None,
) -> ScriptJob:
    """What a run of the script measures, as the journal keeps it (its envs; its secrets by name only; the task that
    named it)."""
    return ScriptJob(
        shown_path(str(script)),
        str(Path(script).resolve()),
        list(args),
        total_steps,
        epochs,
        seconds,
        str(workdir) if workdir is not None else None,
        env.envs,
        list(env.secrets),
        task,
    )


def _as_planned(result: Any) -> Any:
    """A script's bench result with the step its plan uses (core.script.steady_step: no traced step, no epoch's
    end), so the progress line, the journal and the plan say one step time; as it came when it has none."""
    if result.status != "ok" or not result.script:
        return result
    try:
        mean, half = steady_step(ScriptRun.from_json(result.script))
    except (
        InputError,
        TypeError,
        ValueError,
        KeyError,
    ):  # too few steady steps; a timeline the journal check refuses
        return result
    return replace(
        result,
        step_seconds=mean,
        step_seconds_ci_low=mean * max(1 - half, 0.05),
        step_seconds_ci_high=mean * (1 + half),
    )


def _requirements(folder: Path, requirements: str) -> str:
    """The requirements file as the instance finds it: inside the folder that ships (the script's, or --workdir)."""
    path = Path(requirements).resolve()
    if not path.is_file():
        raise InputError(
            f"--requirements {shown_path(requirements)}: no such file",
            hint="give the script's requirements.txt",
        )
    if folder not in path.parents:
        raise InputError(
            f"--requirements {shown_path(requirements)}: not inside the folder that ships, {folder}",
            hint="keep requirements.txt beside the script (or in --workdir): that folder is what ships",
        )
    return path.relative_to(folder).as_posix()
