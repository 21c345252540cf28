"""Each kind of workload's way through the use cases: one `Pipeline` per kind, chosen by the workload value itself
(`SpecWorkload.pipeline`, `ScriptWorkload.pipeline`), so the service's use cases never ask which kind they hold.
A spec is benched by the bench harness and predicted from its layers; a script runs unchanged here and is traced on
the stand-in GPU."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Protocol

from planner.service.settings import AutoPreview

if TYPE_CHECKING:
    from planner.core.document import PlanDocument, PlanOptions
    from planner.core.script import ScriptEstimate, ScriptRun
    from planner.journal import Measured, RunJournal
    from planner.service.bench import BenchOptions, ProgressFn, SpecValidation
    from planner.service.measure import Measure
    from planner.service.plan import Runs
    from planner.service.predictions import Predict
    from planner.service.script_checks import ScriptValidation
    from planner.service.scripts import Scripts
    from planner.service.settings import AwsOptions, RunCallbacks, TargetChoice
    from planner.service.workload import ScriptWorkload, SpecWorkload
    from runner.bench.result import BenchResult
    from runner.session import BenchSession


SPEC_SECONDS = 5.0  # an estimate's measurement here, when the caller does not say: a spec's bench
# a script's training steps (it starts slower and settles later than the bench)
SCRIPT_SECONDS = 10.0


class ScriptBench(NamedTuple):
    """A script's bench: its run here as measured, and its whole run extrapolated from it."""

    run: ScriptRun
    estimate: ScriptEstimate


@dataclass(frozen=True)
class Parts:
    """The service's parts a pipeline hands its work to."""

    measure: Measure
    predict: Predict
    runs: Runs
    scripts: Scripts


class Pipeline(Protocol):
    """The use cases of one workload (see PlannerService for what each does and raises)."""

    def bench(
        self,
        options: BenchOptions,
        on_progress: ProgressFn | None,
        cancel: threading.Event | None,
    ) -> BenchResult | ScriptBench: ...

    def validate(
        self,
        options: BenchOptions,
        epochs: int | None,
        on_progress: ProgressFn | None,
        recheck: bool,
    ) -> SpecValidation | ScriptValidation: ...

    def estimate(
        self,
        options: PlanOptions,
        seconds: float | None,
        gpu: bool | None,
        on_progress: ProgressFn | None,
        predict_only: bool,
        on_result: Callable[[str, Measured], None] | None,
        threads: int | None,
        cancel: threading.Event | None,
    ) -> PlanDocument: ...

    def estimate_from(
        self, options: PlanOptions, results: dict[str, Measured], gpu: bool | None
    ) -> PlanDocument: ...

    def auto_preview(
        self,
        options: PlanOptions,
        aws: AwsOptions,
        seconds: float | None,
        on_progress: ProgressFn | None,
    ) -> AutoPreview: ...

    def run(
        self,
        targets: TargetChoice,
        options: PlanOptions,
        bench: BenchOptions,
        out: Path | None,
        callbacks: RunCallbacks | None,
        aws: AwsOptions | None,
        cancel: threading.Event | None,
    ) -> tuple[PlanDocument, RunJournal, BenchSession | None]: ...

    def check_run(self, targets: TargetChoice, aws: AwsOptions) -> None: ...


@dataclass(frozen=True)
class SpecPipeline:
    """A spec: benched in the harness's child process, every instance predicted from its layers."""

    workload: SpecWorkload
    parts: Parts

    def bench(
        self,
        options: BenchOptions,
        on_progress: ProgressFn | None,
        cancel: threading.Event | None,
    ) -> BenchResult:
        return self.parts.measure.bench(self.workload.spec, options, None, on_progress)

    def validate(
        self,
        options: BenchOptions,
        epochs: int | None,
        on_progress: ProgressFn | None,
        recheck: bool,
    ) -> SpecValidation:
        return self.parts.measure.validate(
            self.workload.spec, epochs, options, on_progress, recheck
        )

    def estimate(
        self,
        options: PlanOptions,
        seconds: float | None,
        gpu: bool | None,
        on_progress: ProgressFn | None,
        predict_only: bool,
        on_result: Callable[[str, Measured], None] | None,
        threads: int | None,
        cancel: threading.Event | None,
    ) -> PlanDocument:
        return self.parts.predict.estimate(
            self.workload.spec,
            options,
            SPEC_SECONDS if seconds is None else seconds,
            gpu,
            on_progress,
            predict_only,
            on_result,
            threads,
            cancel,
        )

    def estimate_from(
        self, options: PlanOptions, results: dict[str, Measured], gpu: bool | None
    ) -> PlanDocument:
        return self.parts.predict.estimate_from(self.workload.spec, options, results, gpu)

    def auto_preview(
        self,
        options: PlanOptions,
        aws: AwsOptions,
        seconds: float | None,
        on_progress: ProgressFn | None,
    ) -> AutoPreview:
        return AutoPreview(
            self.parts.predict.auto_preview(
                self.workload.spec,
                options,
                SPEC_SECONDS if seconds is None else seconds,
                aws,
                on_progress,
            )
        )

    def run(
        self,
        targets: TargetChoice,
        options: PlanOptions,
        bench: BenchOptions,
        out: Path | None,
        callbacks: RunCallbacks | None,
        aws: AwsOptions | None,
        cancel: threading.Event | None,
    ) -> tuple[PlanDocument, RunJournal, BenchSession | None]:
        w = self.workload
        return self.parts.runs.run(
            w.spec, w.text, targets, options, bench, out, callbacks, aws, cancel
        )

    def check_run(self, targets: TargetChoice, aws: AwsOptions) -> None:
        """A spec's run refuses nothing more than its targets' own checks."""


@dataclass(frozen=True)
class ScriptPipeline:
    """A training script: run unchanged here (its own device, threads and processes), traced on the stand-in GPU."""

    workload: ScriptWorkload
    parts: Parts

    def bench(
        self,
        options: BenchOptions,
        on_progress: ProgressFn | None,
        cancel: threading.Event | None,
    ) -> ScriptBench:
        return ScriptBench(
            *self.parts.measure.bench_script(
                self.workload, options.seconds, cancel, on_progress, per_steps=True
            )
        )

    def validate(
        self,
        options: BenchOptions,
        epochs: int | None,
        on_progress: ProgressFn | None,
        recheck: bool,
    ) -> ScriptValidation:
        return self.parts.measure.validate_script(
            self.workload, options.seconds, recheck, on_progress
        )

    def estimate(
        self,
        options: PlanOptions,
        seconds: float | None,
        gpu: bool | None,
        on_progress: ProgressFn | None,
        predict_only: bool,
        on_result: Callable[[str, Measured], None] | None,
        threads: int | None,
        cancel: threading.Event | None,
    ) -> PlanDocument:
        return self.parts.scripts.estimate_script(
            self.workload,
            options,
            SCRIPT_SECONDS if seconds is None else seconds,
            gpu,
            on_progress,
            predict_only,
            on_result,
            cancel,
        )[0]

    def estimate_from(
        self, options: PlanOptions, results: dict[str, Measured], gpu: bool | None
    ) -> PlanDocument:
        return self.parts.scripts.plan_measured(self.workload, options, results, gpu)

    def auto_preview(
        self,
        options: PlanOptions,
        aws: AwsOptions,
        seconds: float | None,
        on_progress: ProgressFn | None,
    ) -> AutoPreview:
        return self.parts.scripts.script_auto_preview(
            self.workload,
            options,
            aws,
            SCRIPT_SECONDS if seconds is None else seconds,
            on_progress,
        )

    def run(
        self,
        targets: TargetChoice,
        options: PlanOptions,
        bench: BenchOptions,
        out: Path | None,
        callbacks: RunCallbacks | None,
        aws: AwsOptions | None,
        cancel: threading.Event | None,
    ) -> tuple[PlanDocument, RunJournal, BenchSession | None]:
        doc, journal = self.parts.scripts.run_script(
            self.workload, targets, options, bench.seconds, out, callbacks, aws, cancel
        )
        return doc, journal, None

    def check_run(self, targets: TargetChoice, aws: AwsOptions) -> None:
        """A script's --fallback next needs this machine among the targets (its run plans from the run here)."""
        from planner.service.script_jobs import refuse_fallback_without_here

        refuse_fallback_without_here(targets, aws)
