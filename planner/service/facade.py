"""PlannerService: the one door, a plain object composed of the parts that do the work (see planner/service/__init__.py
for the door's rules). Its methods are the use cases that measure, predict and plan; three parts are open to the
fronts as they are: `account` (prices and the AWS account), `workloads` (reading and describing what the user brings)
and `journals` (saved runs)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from planner.service.account import Account
from planner.service.bench import BenchOptions
from planner.service.describe import Workloads
from planner.service.journals import Journals
from planner.service.measure import Measure
from planner.service.pipelines import Parts, ScriptBench
from planner.service.plan import Runs
from planner.service.predictions import Predict
from planner.service.scripts import Scripts

if TYPE_CHECKING:  # importing the service stays cheap: `planner --help` loads it
    from planner.core.document import PlanDocument, PlanOptions
    from planner.core.script import ScriptLength
    from planner.journal import Measured, RunJournal
    from planner.service.bench import ProgressFn, SpecValidation
    from planner.service.calibration import Calibration
    from planner.service.launch import LaunchPreview
    from planner.service.script_checks import ScriptValidation
    from planner.service.settings import (
        AutoPreview,
        AwsOptions,
        PlanChoice,
        RunCallbacks,
        TargetChoice,
    )
    from planner.service.workload import ScriptWorkload, SpecWorkload, Workload
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
        self._parts = Parts(self._measure, self._predict, self._runs, self._scripts)

    # ------------------------------------------------------------------ measure, predict, plan: any workload

    @overload
    def bench(
        self,
        workload: SpecWorkload,
        options: BenchOptions | None = None,
        on_progress: ProgressFn | None = None,
        cancel: threading.Event | None = None,
    ) -> BenchResult: ...

    @overload
    def bench(
        self,
        workload: ScriptWorkload,
        options: BenchOptions | None = None,
        on_progress: ProgressFn | None = None,
        cancel: threading.Event | None = None,
    ) -> ScriptBench: ...

    @overload
    def bench(
        self,
        workload: Workload,
        options: BenchOptions | None = None,
        on_progress: ProgressFn | None = None,
        cancel: threading.Event | None = None,
    ) -> BenchResult | ScriptBench: ...

    def bench(
        self,
        workload: Workload,
        options: BenchOptions | None = None,
        on_progress: ProgressFn | None = None,
        cancel: threading.Event | None = None,
    ) -> BenchResult | ScriptBench:
        """`planner bench SPEC|train.py`: one bench of a spec here, in a child process (its device, seconds, threads,
        processes and sweep from `options`); or the script run here unchanged for `options.seconds`, its whole run
        extrapolated. `cancel` ends a script's measurement (a spec's bench is bounded by its seconds and its wall cap).
        Raises InputError (a device or processes this machine lacks; not a script; a script's length that cannot be
        known), RunError (the bench or the script failed), Cancelled (a script's)."""
        return workload.pipeline(self._parts).bench(options or BenchOptions(), on_progress, cancel)

    @overload
    def validate(
        self,
        workload: SpecWorkload,
        options: BenchOptions | None = None,
        epochs: int | None = None,
        on_progress: ProgressFn | None = None,
        recheck: bool = True,
    ) -> SpecValidation: ...

    @overload
    def validate(
        self,
        workload: ScriptWorkload,
        options: BenchOptions | None = None,
        epochs: int | None = None,
        on_progress: ProgressFn | None = None,
        recheck: bool = True,
    ) -> ScriptValidation: ...

    @overload
    def validate(
        self,
        workload: Workload,
        options: BenchOptions | None = None,
        epochs: int | None = None,
        on_progress: ProgressFn | None = None,
        recheck: bool = True,
    ) -> SpecValidation | ScriptValidation: ...

    def validate(
        self,
        workload: Workload,
        options: BenchOptions | None = None,
        epochs: int | None = None,
        on_progress: ProgressFn | None = None,
        recheck: bool = True,
    ) -> SpecValidation | ScriptValidation:
        """`planner validate SPEC|train.py`: the estimate against the run itself. A spec: `epochs` of it (default its
        own) predicted from a short bench, then trained for real (SpecValidation). A script: its estimate
        from `options.seconds` of steps, against the script run whole with its own arguments (its length is the
        workload's). `recheck`: measure again after the run, to tell a drifting machine.
        Raises InputError, RunError (a bench failed; the run failed or outlasted three times the estimate)."""
        return workload.pipeline(self._parts).validate(
            options or BenchOptions(), epochs, on_progress, recheck
        )

    def estimate(
        self,
        workload: Workload,
        options: PlanOptions,
        seconds: float | None = None,
        gpu: bool | None = None,
        on_progress: ProgressFn | None = None,
        predict_only: bool = False,
        on_result: Callable[[str, Measured], None] | None = None,
        threads: int | None = None,
        cancel: threading.Event | None = None,
    ) -> PlanDocument:
        """`planner estimate SPEC|train.py`: measure here (`seconds`: 5 for a spec, 10 for a script), predict every
        instance, decide. `on_result` gets the measurement here (estimate_from plans it again); `cancel` stops it;
        `threads` is a spec's bench's (a script sets its own). Raises InputError (a region the prices lack; a script
        that is not one, or a length it cannot count), RunError (the bench or the script failed), Cancelled."""
        return workload.pipeline(self._parts).estimate(
            options, seconds, gpu, on_progress, predict_only, on_result, threads, cancel
        )

    def estimate_from(
        self,
        workload: Workload,
        options: PlanOptions,
        results: dict[str, Measured],
        gpu: bool | None = None,
    ) -> PlanDocument:
        """The plan over measurements already made (an estimate re-planned for other options, a script's for another
        length; a run's results as they arrive). Raises InputError (a region the prices lack; a script's: no result
        here, a length it cannot count)."""
        return workload.pipeline(self._parts).estimate_from(options, results, gpu)

    def auto_preview(
        self,
        workload: Workload,
        options: PlanOptions,
        aws: AwsOptions,
        seconds: float | None = None,
        on_progress: ProgressFn | None = None,
    ) -> AutoPreview:
        """`planner run SPEC|train.py --targets auto --dry-run`: this machine measured (free) and what `auto` would
        benchmark (a script without its length: for 1,000 steps, and said). Raises as estimate."""
        return workload.pipeline(self._parts).auto_preview(options, aws, seconds, on_progress)

    def run(
        self,
        workload: Workload,
        targets: TargetChoice,
        options: PlanOptions,
        bench: BenchOptions,
        out: Path | None = None,
        callbacks: RunCallbacks | None = None,
        aws: AwsOptions | None = None,
        cancel: threading.Event | None = None,
    ) -> tuple[PlanDocument, RunJournal, BenchSession | None]:
        """`planner run SPEC|train.py`: measured here and on rented instances, journaled, planned; every instance
        started is terminated before it returns. A script takes `bench.seconds` alone (it picks its own device,
        threads and processes); its run has no session to return (None).
        Raises InputError (refused before anything is written or launched), Cancelled or KeyboardInterrupt carrying
        the run's directory and what it left, RunError."""
        return workload.pipeline(self._parts).run(
            targets, options, bench, out, callbacks, aws, cancel
        )

    def check_run(self, workload: Workload, targets: TargetChoice, aws: AwsOptions) -> None:
        """What `run` refuses of its targets and AWS options before it measures anything, also for a dry run: a
        script's --fallback next without this machine among the targets. Raises InputError."""
        workload.pipeline(self._parts).check_run(targets, aws)

    def calibrate(self, run_dirs: list[str], dry_run: bool = False) -> Calibration:
        """`planner calibrate RUN_DIR...`: measured against predicted steps, appended to the calibration file.
        Raises JournalError naming a damaged run's file and field, RunError (the file cannot be written)."""
        from planner.service.calibrating import calibrate

        return calibrate(self.workloads, run_dirs, dry_run)

    # ------------------------------------------------------------------ renting, and a saved run

    def check_credentials(self, aws_types: list[str]) -> None:
        """Refuse the instances named when boto3 finds no credentials here. Raises InputError naming them and the fix."""
        self._runs.check_credentials(aws_types)

    def launch_preview(
        self,
        aws_types: list[str],
        aws: AwsOptions,
        workload: Workload | None = None,
        options: PlanOptions | None = None,
    ) -> LaunchPreview:
        """What `planner run` would launch, each price and worst case, the vCPU quotas it counts against; with
        --fallback next and a spec `workload`, the instances its plan (`options`) ranks next for each.
        Raises InputError (over the budget, too many instances, a region the prices lack)."""
        spec = workload.planned_spec if workload is not None else None
        return self._runs.launch_preview(aws_types, aws, spec, options)

    def bench_cost(self, aws_types: list[str], aws: AwsOptions) -> float:
        """The worst-case bill of benchmarking `aws_types`. Raises InputError when it is over the budget."""
        return self._runs.bench_cost(aws_types, aws)

    def estimate_run(
        self,
        run_dir: str | Path,
        overrides: PlanChoice | None = None,
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
        overrides: PlanChoice,
        measured_only: bool = False,
        length: ScriptLength | None = None,
    ) -> PlanDocument:
        """estimate_run with some options changed, its plan.json written. Raises as estimate_run, and OSError."""
        return self._scripts.replan(run_dir, overrides, measured_only, length)
