"""PlannerService: the one door, a plain object composed of the parts that do the work (see planner/service/__init__.py
for the door's rules). Its methods are the use cases that measure, predict and plan; three parts are open to the
fronts as they are: `account` (prices and the AWS account), `workloads` (reading and describing what the user brings)
and `journals` (saved runs)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.service.account import Account
from planner.service.describe import Workloads
from planner.service.journals import Journals
from planner.service.measure import Measure
from planner.service.plan import Runs
from planner.service.predictions import Predict
from planner.service.scripts import Scripts

if TYPE_CHECKING:  # importing the service stays cheap: `planner --help` loads it
    from planner.core.decide import BenchmarkChoice
    from planner.core.document import PlanDocument, PlanOptions
    from planner.core.script import ScriptEnv, ScriptEstimate, ScriptLength, ScriptRun
    from planner.core.task import TaskOrigin
    from planner.journal import Measured, RunJournal
    from planner.service.measure import BenchOptions, ProgressFn, ScriptValidation
    from planner.service.plan import LaunchPreview
    from planner.service.settings import AwsOptions, RunCallbacks, TargetChoice
    from planner.workload.spec import WorkloadSpec
    from runner.bench.result import BenchResult
    from runner.session import BenchSession


class PlannerService:
    """Every use case the CLI and the TUI have, and nothing below them: each method hands its work to the part that
    owns it (no method of a part overrides another's)."""

    def __init__(self, aws_session: Any = None, catalog_url: str | None = None):
        self.account = Account(aws_session, catalog_url)
        self.workloads = Workloads()
        self.journals = Journals()
        self._measure = Measure(self.workloads)
        self._predict = Predict(self.account, self.workloads)
        self._runs = Runs(self.account, self.workloads, self._predict)
        self._scripts = Scripts(self.account, self._measure, self._runs, self.journals)

    # ------------------------------------------------------------------ a spec

    def bench(
        self,
        spec: WorkloadSpec,
        options: BenchOptions,
        workdir: Path | None = None,
        on_progress: ProgressFn | None = None,
        label: str = "local",
        extra: dict[str, Any] | None = None,
        batch_size: int | None = None,
    ) -> BenchResult:
        """`planner bench SPEC`: one bench here, in a child process.
        Raises InputError (a device or processes this machine lacks), RunError (the bench failed)."""
        return self._measure.bench(spec, options, workdir, on_progress, label, extra, batch_size)

    def validate(
        self,
        spec: WorkloadSpec,
        epochs: int | None,
        options: BenchOptions,
        on_progress: ProgressFn | None = None,
        recheck: bool = True,
    ) -> dict[str, Any]:
        """`planner validate SPEC`: predict N epochs from a short bench, train them for real, compare.
        Raises RunError (a bench or the training failed), InputError."""
        return self._measure.validate(spec, epochs, options, on_progress, recheck)

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
        """`planner estimate SPEC`: measure here, predict every instance, decide (Predict.estimate).
        Raises InputError (a region the prices lack), RunError (the bench failed)."""
        return self._predict.estimate(
            spec, options, seconds, gpu, on_progress, predict_only, on_result, threads, cancel
        )

    def estimate_from(
        self,
        spec: WorkloadSpec,
        options: PlanOptions,
        results: dict[str, Measured],
        gpu: bool | None = None,
    ) -> PlanDocument:
        """The plan over measurements already made (an estimate re-planned, a run's results as they arrive).
        Raises InputError (a region the prices lack)."""
        return self._predict.estimate_from(spec, options, results, gpu)

    def auto_preview(
        self,
        spec: WorkloadSpec,
        options: PlanOptions,
        seconds: float,
        aws: AwsOptions,
        on_progress: ProgressFn | None = None,
    ) -> list[BenchmarkChoice]:
        """`planner run SPEC --targets auto --dry-run`: what `auto` would benchmark. Raises RunError (the bench failed)."""
        return self._predict.auto_preview(spec, options, seconds, aws, on_progress)

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
        """`planner run SPEC`: measure, journal, plan (Runs.run); every instance started is terminated before it returns.
        Raises InputError (refused before anything launches), Cancelled or KeyboardInterrupt carrying the run's
        directory and what it left, RunError."""
        return self._runs.run(spec, spec_text, targets, options, bench, out, callbacks, aws, cancel)

    def calibrate(
        self, run_dirs: list[str], dry_run: bool = False
    ) -> tuple[list[dict[str, Any]], Path | None, dict[str, float]]:
        """`planner calibrate RUN_DIR...`: measured against predicted steps, appended to the calibration file.
        Raises JournalError naming a damaged run's file and field."""
        return self._predict.calibrate(run_dirs, dry_run)

    # ------------------------------------------------------------------ a training script

    def bench_script(
        self,
        script: str | Path,
        args: list[str],
        seconds: float = 10.0,
        total_steps: int | None = None,
        epochs: int | None = None,
        cancel: threading.Event | None = None,
        on_progress: ProgressFn | None = None,
        label: str = "local",
        workdir: str | Path | None = None,
        env: ScriptEnv | None = None,
    ) -> tuple[ScriptRun, ScriptEstimate]:
        """`planner bench train.py`: the script run here unchanged, its whole run extrapolated.
        Raises InputError (not a script; its length cannot be known), RunError (it failed), Cancelled."""
        return self._measure.bench_script(
            script, args, seconds, total_steps, epochs, cancel, on_progress, label, workdir, env
        )

    def validate_script(
        self,
        script: str | Path,
        args: list[str],
        seconds: float = 10.0,
        total_steps: int | None = None,
        epochs: int | None = None,
        recheck: bool = True,
        on_progress: ProgressFn | None = None,
        workdir: str | Path | None = None,
        env: ScriptEnv | None = None,
    ) -> ScriptValidation:
        """`planner validate train.py`: the estimate against the script run whole.
        Raises InputError, RunError (the whole run failed or outlasted three times the estimate)."""
        return self._measure.validate_script(
            script, args, seconds, total_steps, epochs, recheck, on_progress, workdir, env
        )

    def estimate_script(
        self,
        script: str | Path,
        args: list[str],
        options: PlanOptions,
        seconds: float = 10.0,
        total_steps: int | None = None,
        epochs: int | None = None,
        gpu: bool | None = None,
        on_progress: ProgressFn | None = None,
        workdir: str | Path | None = None,
        env: ScriptEnv | None = None,
        task: TaskOrigin | None = None,
        predict_only: bool = False,
    ) -> tuple[PlanDocument, ScriptRun, ScriptEstimate]:
        """`planner estimate train.py`: measured here unchanged, every instance predicted from it, decided.
        Raises InputError (a region the prices lack; what bench_script refuses), RunError (the script failed)."""
        return self._scripts.estimate_script(
            script,
            args,
            options,
            seconds,
            total_steps,
            epochs,
            gpu,
            on_progress,
            workdir,
            env,
            task,
            predict_only,
        )

    def script_auto_preview(
        self,
        script: str | Path,
        args: list[str],
        options: PlanOptions,
        aws: AwsOptions,
        seconds: float = 10.0,
        total_steps: int | None = None,
        epochs: int | None = None,
        on_progress: ProgressFn | None = None,
        workdir: str | Path | None = None,
        env: ScriptEnv | None = None,
        task: TaskOrigin | None = None,
    ) -> list[BenchmarkChoice]:
        """`planner run train.py --targets auto --dry-run`: what `auto` would benchmark. Raises as estimate_script."""
        return self._scripts.script_auto_preview(
            script,
            args,
            options,
            aws,
            seconds,
            total_steps,
            epochs,
            on_progress,
            workdir,
            env,
            task,
        )

    def run_script(
        self,
        script: str | Path,
        args: list[str],
        targets: TargetChoice,
        options: PlanOptions,
        seconds: float = 10.0,
        total_steps: int | None = None,
        epochs: int | None = None,
        out: Path | None = None,
        callbacks: RunCallbacks | None = None,
        aws: AwsOptions | None = None,
        requirements: str | None = None,
        cancel: threading.Event | None = None,
        workdir: str | Path | None = None,
        env: ScriptEnv | None = None,
        task: TaskOrigin | None = None,
    ) -> tuple[PlanDocument, RunJournal]:
        """`planner run train.py`: measured here and on rented instances, journaled, planned (Scripts.run_script).
        Raises InputError (refused before anything is written or launched), RunError, Cancelled or KeyboardInterrupt
        carrying the run's directory."""
        return self._scripts.run_script(
            script,
            args,
            targets,
            options,
            seconds,
            total_steps,
            epochs,
            out,
            callbacks,
            aws,
            requirements,
            cancel,
            workdir,
            env,
            task,
        )

    # ------------------------------------------------------------------ renting, and a saved run

    def check_credentials(self, aws_types: list[str]) -> None:
        """Refuse the instances named when boto3 finds no credentials here. Raises InputError naming them and the fix."""
        self._runs.check_credentials(aws_types)

    def launch_preview(self, aws_types: list[str], aws: AwsOptions) -> LaunchPreview:
        """What `planner run` would launch, each price and worst case, the vCPU quotas it counts against.
        Raises InputError (over the budget, too many instances, a region the prices lack)."""
        return self._runs.launch_preview(aws_types, aws)

    def bench_cost(self, aws_types: list[str], aws: AwsOptions) -> float:
        """The worst-case bill of benchmarking `aws_types`. Raises InputError when it is over the budget."""
        return self._runs.bench_cost(aws_types, aws)

    def estimate_run(
        self,
        run_dir: str | Path,
        overrides: dict[str, Any] | None = None,
        gpu: bool | None = None,
        options: PlanOptions | None = None,
        measured_only: bool = False,
        length: ScriptLength | None = None,
    ) -> PlanDocument:
        """`planner plan RUN_DIR`: a saved run's plan, a spec's or a script's, nothing written.
        Raises JournalError (naming the file and the field), InputError (no results yet; an option out of range)."""
        return self._scripts.estimate_run(run_dir, overrides, gpu, options, measured_only, length)

    def replan(
        self,
        run_dir: str | Path,
        overrides: dict[str, Any],
        measured_only: bool = False,
        length: ScriptLength | None = None,
    ) -> PlanDocument:
        """estimate_run with some options changed, its plan.json written. Raises as estimate_run, and OSError."""
        return self._scripts.replan(run_dir, overrides, measured_only, length)
