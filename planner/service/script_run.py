"""`planner run train.py`: one run of a user's script, step by step (Scripts.run_script). Checked and journaled before
anything is measured or launched; measured here (every other instance is predicted from it); with `auto`, the
instances a paid benchmark could change the decision for picked within the budget; measured on those rented; planned
from its journal as `planner plan RUN_DIR` plans it. Every instance started is terminated before it returns."""

from __future__ import annotations

import datetime as dt
import secrets
import threading
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.core.candidates import LOCAL, Target
from planner.core.document import PlanDocument, PlanOptions
from planner.core.remarks import AutoBenchmarkedNone, Said, remark_json
from planner.core.script import (
    RunLengthUnknown,
    ScriptEnv,
    ScriptJob,
    ScriptRun,
    estimate_or_per_steps,
    steady_step,
)
from planner.errors import Cancelled, InputError
from planner.journal import Measured, RunJournal, RunRecord
from planner.journal_checks import result_problems
from planner.report.choices import choice_words
from planner.service.bench import runner_progress
from planner.service.launch import (
    fallback_prices,
    interrupted,
    measured_target,
    next_alternatives,
    preflight,
    states_as_launched,
    stopped,
    unterminated,
)
from planner.service.predictions import auto_benchmarks, benchmark_choices
from planner.service.script_checks import (
    refuse_deadline_without_length,
    script_path,
    script_workdir,
)
from planner.service.script_jobs import (
    refuse_fallback_without_here,
    requirements_path,
    script_job,
)
from planner.service.settings import AwsOptions, RunCallbacks, TargetChoice
from planner.units import shown_path
from runner.aws import AwsRun, AwsTarget
from runner.folder import script_folder
from runner.local import SCRIPT_CAP_EXTRA_SECONDS
from runner.script_job import script_result
from runner.session import BenchSession

if TYPE_CHECKING:
    import pandas as pd

    from planner.core.decide import BenchmarkChoice
    from planner.core.script import ScriptEstimate
    from planner.service.scripts import Scripts
    from planner.service.workload import ScriptWorkload
    from runner.folder import Shipped


@dataclass
class ScriptRunning:
    """A script's run under way: what was checked before it began (its folder, what ships, the instances priced),
    its journal, and what it has measured so far (`here`: its run here and the whole run estimated from it)."""

    workload: ScriptWorkload
    targets: TargetChoice
    options: PlanOptions
    seconds: float
    aws: AwsOptions
    cb: RunCallbacks
    path: Path
    cwd: Path
    catalog: pd.DataFrame  # the price catalog
    aws_types: list[str]
    # preflight's (prices, architectures, worst-case cost) of aws_types; None when none
    priced: tuple[dict[str, float], dict[str, str], float] | None
    shipped: Shipped | None
    requirements: str | None  # the requirements file, relative to the folder that ships
    env: ScriptEnv
    job: ScriptJob
    journal: RunJournal
    run_id: str
    info: RunRecord  # run.json
    here: tuple[ScriptRun, ScriptEstimate] | None = None
    choices: list[BenchmarkChoice] | None = None
    skipped: AutoBenchmarkedNone | None = None
    session: BenchSession | None = field(default=None)

    def record(self, label: str, measured: Measured) -> None:
        """A result journaled the moment it arrives (with the step its plan uses), then passed on."""
        measured = replace(measured, result=_as_planned(measured.result))
        self.journal.write_result(label, measured)  # on disk before anything else looks at it
        if self.cb.on_result:
            self.cb.on_result(label, measured)


def begin(
    scripts: Scripts,
    workload: ScriptWorkload,
    targets: TargetChoice,
    options: PlanOptions,
    seconds: float,
    out: Path | None,
    callbacks: RunCallbacks | None,
    aws: AwsOptions | None,
) -> ScriptRunning:
    """Every check of the input first (region, budget, quotas' words, a folder too big, a requirements file outside
    it, credentials last: a typo is said first), then the journal: the script's job and run.json.
    Raises InputError."""
    from pricing.catalog import check_region

    path = script_path(workload.path)
    cwd = script_workdir(path, workload.workdir)
    aws = aws or AwsOptions(region=options.region, purchase=options.purchase)
    catalog = scripts.account.catalog().frame
    check_region(catalog, options.region)
    refuse_deadline_without_length(workload, options.deadline_seconds)
    aws_types = list(targets.aws_types)
    priced = preflight(aws_types, aws, catalog) if aws_types else None
    refuse_fallback_without_here(targets, aws)
    shipped = script_folder(path, folder=cwd) if aws_types or targets.auto else None
    needs = requirements_path(cwd, workload.requirements) if workload.requirements else None
    scripts.runs.check_credentials(aws_types)
    env = workload.env or ScriptEnv()
    job = script_job(workload, seconds, cwd if workload.workdir is not None else None, env)
    journal = RunJournal.create(path.stem, out)
    journal.write_script(job)
    run_id = f"{dt.datetime.now(dt.timezone.utc):%Y%m%dT%H%M%SZ}-{secrets.token_hex(4)}"
    info = RunRecord(run_id, list(targets.tokens), options)
    journal.write_run(info)
    return ScriptRunning(
        workload,
        targets,
        options,
        seconds,
        aws,
        callbacks or RunCallbacks(),
        path,
        cwd,
        catalog,
        aws_types,
        priced,
        shipped,
        needs,
        env,
        job,
        journal,
        run_id,
        info,
    )


def measure_here(scripts: Scripts, run: ScriptRunning, cancel: threading.Event | None) -> None:
    """The script measured here, journaled, and its whole run estimated (`run.here`; per PER_STEPS steps when no
    length was given and none is known). Raises RunStopped (cancelled or interrupted: nothing was rented yet),
    RunLengthUnknown carrying the journal (a length given that the measurement cannot count: the measurement stands,
    another length plans it)."""
    w, cb = run.workload, run.cb
    if cb.on_state:
        cb.on_state(LOCAL.name, "running", 0.0, 0.0)
    try:
        measured = scripts.measure.measure_script(
            run.path,
            list(w.args),
            run.seconds,
            w.epochs is not None,
            cancel,
            cb.on_progress,
            LOCAL.name,
            workdir=run.cwd,
            env=run.env,
        )
    except (KeyboardInterrupt, Cancelled) as exc:
        raise stopped(exc, run.journal, None) from exc
    label, here = measured_here(run.path, measured, run.seconds)
    run.record(label, here)  # journaled before it is planned
    try:  # no length given and none known: planned per PER_STEPS steps, as estimate plans it
        est = estimate_or_per_steps(measured, w.total_steps, w.epochs, list(w.args))
    except RunLengthUnknown as exc:  # a length given that the measurement cannot count
        exc.run_dir = str(run.journal.path)
        exc.hint = (
            f"{exc.hint}; or plan this measurement without measuring again: planner plan "
            f"{shown_path(str(run.journal.path))} --total-steps N"
        )
        raise
    run.here = (measured, est)


def measured_here(path: Path, measured: ScriptRun, seconds: float) -> tuple[str, Measured]:
    """The script's measurement here as a run journals it (a bench result carrying its timeline, its step the one
    its plan uses), and its label."""
    result = script_result(
        {
            **asdict(measured),
            "busy_warnings": [remark_json(b) for b in measured.busy_warnings],
            "script": path.name,
        },
        "",
        0,
        seconds + SCRIPT_CAP_EXTRA_SECONDS,
    )
    return LOCAL.label(result.device), Measured(LOCAL, _as_planned(result))


def pick_auto(scripts: Scripts, run: ScriptRunning, no_credentials: str | None) -> None:
    """`auto`: the instances a paid benchmark could change the decision for (the plan of the measurement here), within
    the budget, added to the run's and said (run.json's `auto`, on_choices); none without credentials."""
    assert run.here is not None
    planned = scripts.script_plan(run.job, *run.here, run.options)
    run.choices = auto_benchmarks(benchmark_choices(planned.plan, run.aws), planned)
    run.info.auto = [choice_words(c) for c in run.choices]
    run.journal.write_run(run.info)
    if run.cb.on_choices:
        run.cb.on_choices(run.choices)
    chosen, run.skipped = scripts.runs.benchmarkable(
        [c.instance_type for c in run.choices if c.benchmark], no_credentials
    )
    run.aws_types += [t for t in chosen if t not in run.aws_types]
    run.priced = preflight(run.aws_types, run.aws, run.catalog) if run.aws_types else None


def rent(scripts: Scripts, run: ScriptRunning, cancel: threading.Event | None) -> None:
    """The script measured on each rented instance (its folder shipped, its requirements installed at boot), each
    result journaled as it arrives; every instance terminated before it returns (`run.session` says what was not).
    Raises RunStopped, or RunError for a cancel that left instances running."""
    assert run.shipped is not None and run.priced is not None
    aws, cb = run.aws, run.cb
    for line in run.shipped.lines():
        if cb.on_notice:
            cb.on_notice("", line)
    settings = aws.settings()
    aws_run = AwsRun(
        settings, run.run_id, session=scripts.account.aws_session, check_result=result_problems
    )
    aws_run.user_files = run.shipped.files
    cap = min(  # within the instance's bench minutes, less its boot's 4
        run.seconds + SCRIPT_CAP_EXTRA_SECONDS, max(60.0, settings.max_bench_minutes * 60 - 240)
    )
    where, aws_targets = _aws_targets(scripts, run, aws_run, _instance_job(run, cap))
    instances = {t.label: t for t in aws_targets}

    def measured_there(label: str, result: Any) -> None:
        # --fallback next may launch another
        target = measured_target(where[label], instances[label])
        run.record(target.label(), Measured(target, result, aws.region, aws.purchase))

    run.session = BenchSession(
        aws_targets,
        on_state=states_as_launched(cb.on_state, where, instances),
        on_progress=runner_progress(cb.on_progress),
        cancel=cancel,
        on_result=measured_there,
        backstops=[aws_run.terminate_run],
        on_notice=cb.on_notice,
    )
    try:
        run.session.run()
    except (KeyboardInterrupt, Cancelled) as exc:
        raise stopped(exc, run.journal, run.session) from exc


def _aws_targets(
    scripts: Scripts, run: ScriptRunning, aws_run: AwsRun, job: dict[str, Any]
) -> tuple[dict[str, Target], list[AwsTarget]]:
    """Each rented instance's target and its bench (its device by its GPUs; with --fallback next, the instances
    that may take its place, ranked by the plan of the measurement here), by label."""
    from pricing.catalog import instance_facts

    assert run.priced is not None
    aws = run.aws
    nexts = (
        next_alternatives(
            aws_run,
            scripts.script_plan(run.job, *run.here, run.options).plan,
            run.aws_types,
            aws,
            run.catalog,
            run.priced[2],
        )
        if aws.fallback == "next" and run.here is not None
        else {}
    )
    where: dict[str, Target] = {}
    aws_targets: list[AwsTarget] = []
    for itype in run.aws_types:
        target = Target("aws", itype)
        gpu = instance_facts(run.catalog, itype, aws.region)["gpu_count"]
        where[target.label()] = target
        aws_targets.append(
            AwsTarget(
                aws_run,
                itype,
                {**job, "device": "cuda" if gpu else "cpu"},
                target.label(),
                run.priced[0][itype],
                run.priced[1][itype],
                fallback_price=fallback_prices([itype], aws, run.catalog).get(itype),
                alternatives=nexts.get(itype, []),
            )
        )
    return where, aws_targets


def finish(scripts: Scripts, run: ScriptRunning) -> PlanDocument:
    """The plan of what was measured, as `planner plan RUN_DIR` makes it (every instance not measured predicted), with
    the run's own facts (failed and interrupted targets, what it left running, its bill, auto's picks), written to
    plan.json."""
    doc = scripts.estimate_run(run.journal.path)
    if run.skipped:
        doc.plan.say(Said([run.skipped], []))
    results = run.journal.read_results()
    session = run.session
    doc = replace(
        doc,
        failed_targets=sorted(k for k, m in results.items() if m.result.status == "error"),
        interrupted_targets=interrupted(results),
        unterminated=unterminated(session) if session else [],
        bench_cost_usd=session.billed_usd() if session else None,
        auto=run.choices,
    )
    run.journal.write_plan(doc)
    return doc


def _instance_job(run: ScriptRunning, cap: float) -> dict[str, Any]:
    """The job an instance's bench runs (runner/script_job.py reads it: JSON), the script stopped at `cap` seconds."""
    w = run.workload
    return {
        "kind": "script",
        "folder": "user",
        "script": run.path.resolve().relative_to(run.cwd).as_posix(),
        "args": list(w.args),
        "seconds": run.seconds,
        "env": run.env.envs,  # never its secrets
        "until_epoch": w.epochs is not None,
        "cap_seconds": cap,
        "requirements": run.requirements,
    }


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
