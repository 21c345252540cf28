"""PlannerService: THE ONLY DOOR. The CLI and the TUI call it and render what it returns; they
import nothing from runner/, pricing/, infra/, boto3 or botocore, and hold no rule the other lacks.

One method per use case; each delegates to the module that owns it:

    describe.py     load, check (live spec text), describe (layers + footprint, once per spec)
    measure.py      bench, validate
    plan.py         run, replan (run journals), the plan options and their rules
    predictions.py  estimate (predict every instance), `auto`'s choice, calibrate
    account.py      prices, instances, terminate, reap, infra

It owns no presentation: callers pass callbacks (`on_progress`, ...) and render what comes back.
Heavy libraries (torch, pandas, boto3) are imported inside the methods, so importing the service
is cheap (`planner --help` must not pay for them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from planner.errors import Cancelled
from planner.service.account import PriceQuery
from planner.service.describe import Describer
from planner.service.measure import BenchOptions, ProgressFn, unsteady_reason
from planner.core.decide import RankedOption, Recommendation
from planner.core.document import LeftRunning, PlanDocument
from planner.service.plan import SavedRun, preflight
from planner.service.settings import (
    OBJECTIVES, PURCHASES, AwsOptions, PlanOptions, RunCallbacks, TargetChoice, parse_targets, plan_options, resolve_objective,
)
from planner.units import parse_duration

__all__ = ["AwsOptions", "BenchOptions", "Cancelled", "OBJECTIVES", "PURCHASES", "PlanOptions", "PlannerService", "PriceQuery",
           "LeftRunning", "PlanDocument", "RankedOption", "Recommendation", "RunCallbacks", "SavedRun", "TargetChoice", "parse_duration", "parse_targets", "plan_options", "preflight",
           "resolve_objective", "unsteady_reason"]


class PlannerService:
    def __init__(self, aws_session: Any = None):
        self.aws_session = aws_session  # boto3.Session; None: standard configuration
        self._describer = Describer()

    # ------------------------------------------------------------------ describe

    def load(self, path: str | Path):
        from planner.service.describe import load

        return load(path)

    def check_text(self, text: str, source: str, base_dir: Path | None = None):
        """(spec, footprint) of a spec being typed (the TUI's editor); SpecError when invalid."""
        from planner.service.describe import parse_text

        spec = parse_text(text, source, base_dir)
        return spec, self.footprint(spec)

    def layers(self, spec):
        return self._describer.layers(spec)

    def footprint(self, spec, batch_size: int | None = None):
        return self._describer.footprint(spec, batch_size)

    def spec_form(self) -> dict[str, Any]:
        from planner.service.describe import spec_form

        return spec_form()

    # ------------------------------------------------------------------ prices

    def catalog(self, refresh_regions: list[str] | None = None, warn: Callable[[str], None] | None = None):
        from planner.service.account import catalog

        return catalog(self.aws_session, refresh_regions, warn)

    def regions(self) -> list[str]:
        from pricing.catalog import regions

        return regions(self.catalog().frame)

    def prices(self, query: PriceQuery, refresh: bool = False, warn: Callable[[str], None] | None = None):
        from planner.service.account import prices

        return prices(self.aws_session, query, refresh, warn)

    def bench_cost(self, aws_types: list[str], aws: AwsOptions) -> float:
        """The worst-case bench cost of benchmarking `aws_types` (InputError when over budget)."""
        return preflight(aws_types, aws, self.catalog().frame)[2]

    # ------------------------------------------------------------------ measure

    def bench(self, spec, options: BenchOptions, workdir: Path | None = None, on_progress: ProgressFn | None = None,
              label: str = "local", extra: dict[str, Any] | None = None, batch_size: int | None = None):
        from planner.service.measure import bench

        return bench(spec, self.footprint(spec), options, workdir, on_progress, label, extra, batch_size)

    def validate(self, spec, epochs: int | None, options: BenchOptions, on_progress: ProgressFn | None = None,
                 recheck: bool = True) -> dict[str, Any]:
        from planner.service.measure import validate

        return validate(spec, self.footprint(spec), epochs, options, on_progress, recheck)

    # ------------------------------------------------------------------ plan

    def estimate(self, spec, options: PlanOptions, seconds: float = 5.0, gpu: bool | None = None,
                 on_progress: ProgressFn | None = None, predict_only: bool = False,
                 on_result: Callable[[str, dict[str, Any]], None] | None = None) -> PlanDocument:
        """Measure here (unless `predict_only`), predict every catalog instance, headline and both
        answers, and the paid benchmarks that would settle it. `on_result` gets this machine's
        measurement as `run` reports results (estimate_from re-plans it).
        Raises InputError (a region the prices lack), RunError (the bench failed to start)."""
        from planner.service.predictions import estimate

        return estimate(self, spec, options, seconds, gpu, on_progress, predict_only, on_result)

    def estimate_from(self, spec, options: PlanOptions, results: dict[str, dict[str, Any]],
                      gpu: bool | None = None) -> PlanDocument:
        """The plan over measurements already made (label -> result, as `run`'s and `estimate`'s
        on_result give them): those rows measured, every other instance predicted from this machine's
        CPU result. Re-plans an estimate, or a run as its results arrive, at once.
        Raises InputError (a region the prices lack)."""
        from planner.journal import Measured
        from planner.service.predictions import estimate_document

        measured = {label: Measured.from_dict(label, data) for label, data in results.items()}
        return estimate_document(self, spec, options, measured, gpu)

    def estimate_run(self, run_dir: str | Path, overrides: dict[str, Any] | None = None, gpu: bool | None = None,
                     options: PlanOptions | None = None, measured_only: bool = False) -> PlanDocument:
        """A saved run's plan: its measured rows and every instance it did not measure predicted
        (`measured_only`: its measured rows alone), with plan options changed by `overrides` (None
        keeps the saved value) or `options` instead of the run's altogether (a front whose controls
        show every option). Nothing is written.
        Raises JournalError (naming the file and the field) when `run_dir` is not a run journal,
        InputError when it has no results yet or an option is out of range."""
        from planner.journal import RunJournal
        from planner.service.plan import measured_plan, saved_options, saved_results
        from planner.service.predictions import estimate_document

        journal = RunJournal.open(run_dir)
        options = options or saved_options(journal, overrides or {})
        if measured_only:
            return measured_plan(journal, options)
        return estimate_document(self, journal.read_spec(), options, saved_results(journal), gpu, run_dir=journal.path)

    def run(self, spec, spec_text: str | None, targets: TargetChoice, options: PlanOptions, bench: BenchOptions,
            out: Path | None = None, callbacks: RunCallbacks | None = None, aws: AwsOptions | None = None, cancel=None):
        """Measure, journal, plan: (plan document, journal, session). Every instance started is
        terminated before it returns, also on Ctrl-C, SIGTERM and SIGHUP.
        Raises InputError (refused before anything launches: budget, region, settings), Cancelled or
        KeyboardInterrupt carrying `run_dir`, `unterminated_instances` and `results_count`, RunError
        (cancelled with instances it could not terminate, named with the reap command)."""
        from planner.service.plan import run_plan

        return run_plan(self, spec, spec_text, targets, options, bench, out, callbacks, aws, cancel)

    def replan(self, run_dir: str | Path, overrides: dict[str, Any], measured_only: bool = False) -> PlanDocument:
        """estimate_run with some plan options changed, and the new plan.json written.
        Raises what estimate_run raises, and OSError when plan.json cannot be written."""
        from planner.journal import RunJournal

        doc = self.estimate_run(run_dir, overrides, measured_only=measured_only)
        RunJournal.open(run_dir).write_plan(doc)
        return doc

    def new_run_dir(self, name: str, folder: str | Path | None = None) -> Path:
        """Where a new run of `name` journals in `folder` (None: planner-runs/), as `planner run` names it."""
        from planner.service.plan import new_run_dir

        return new_run_dir(name, folder)

    def check_run(self, run_dir: str | Path):
        """The spec of a saved run; JournalError naming the file and field unless `run_dir` is one."""
        from planner.journal import RunJournal

        return RunJournal.open(run_dir).read_spec()

    def saved_runs(self, folder: str | Path | None = None) -> list[SavedRun]:
        """The run journals in `folder` (None: planner-runs/), newest first, with their recommendation."""
        from planner.service.plan import saved_runs

        return saved_runs(folder)

    def calibrate(self, run_dirs: list[str], dry_run: bool = False):
        """(rows, saved path or None, corrections now in force)."""
        from planner.service.calibration import append_rows, corrections
        from planner.service.predictions import calibration_rows

        rows = [row for run_dir in run_dirs for row in calibration_rows(self, run_dir)]
        path = append_rows(rows) if rows and not dry_run else None
        return rows, path, corrections()

    # ------------------------------------------------------------------ account

    def instances(self, region: str) -> list[dict[str, Any]]:
        from planner.service.account import instances

        return instances(self.aws_session, region)

    def terminate(self, region: str, instance_ids: list[str]) -> None:
        from planner.service.account import terminate

        terminate(self.aws_session, region, instance_ids)

    def reap(self, region: str, at: str | None = None, run_id: str | None = None, dry_run: bool = False):
        from planner.service.account import reap

        return reap(self.aws_session, region, at, run_id, dry_run)

    def infra(self, action: str, region: str, stack_name: str | None = None, vpc: str | None = None,
              schedule: str | None = None):
        from planner.service.account import infra
        from infra.stack import DEFAULT_STACK_NAME

        return infra(self.aws_session, action, region, stack_name or DEFAULT_STACK_NAME, vpc, schedule)

    def stack_outputs(self, found: dict[str, Any] | None) -> dict[str, str]:
        from infra.stack import outputs

        return outputs(found)
