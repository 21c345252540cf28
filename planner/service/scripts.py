"""The user's own training script, unchanged: planned on every instance (`planner estimate train.py`), run
and journaled (`planner run train.py`), re-planned from its journal (`planner plan RUN_DIR`).

The script is measured here by runner/script.py (Measure.bench_script); its whole run is extrapolated by
planner/core/script.py, and every instance is predicted from its traced step (script_candidates). A run
journals the script's job (script.json) and each target's timeline (script-results/) the moment it
arrives, so a replan needs nothing but the journal.
"""

from __future__ import annotations

import datetime as dt
import secrets
from dataclasses import replace
from pathlib import Path
from typing import Any

from planner.core.decide import decide
from planner.core.document import SCRIPT_KIND, PlanDocument, PlanOptions, PriceSource, WorkloadSummary
from planner.core.candidates import LOCAL
from planner.core.script import ScriptEstimate, ScriptJob, ScriptRun, estimate_script, script_candidates, script_warnings
from planner.errors import InputError
from planner.journal import MeasuredScript, RunJournal
from planner.service.measure import script_path
from planner.service.plan import Runs, saved_options
from planner.service.predictions import benchmark_choices, hardware
from planner.service.settings import TargetChoice
from planner.units import shown_path


class Scripts(Runs):
    """A user's training script: estimate, run, re-plan."""

    def script_plan(self, job: ScriptJob, run: ScriptRun, est: ScriptEstimate, options: PlanOptions,
                    gpu: bool | None = None, measured_only: bool = False, run_dir: Path | None = None) -> PlanDocument:
        """THE plan of a script: this machine's row measured, every instance in the region predicted from it
        (none with `measured_only`), decided, with the paid benchmarks that would settle it."""
        from pricing.catalog import check_region, instances

        catalog = self.catalog()
        check_region(catalog.frame, options.region)
        facts = [] if measured_only else instances(catalog.frame, region=options.region, gpu=gpu)
        candidates = script_candidates(run, est, facts, options.purchase, hardware(), options.local_price_per_hour)
        plan = decide([c.option(est.total_steps) for c in candidates], options.objective, options.deadline_seconds,
                      options.time_value_per_hour)
        plan.warnings[:0] = [*est.notes, *script_warnings(run, est)]
        choices = [] if measured_only else benchmark_choices(plan)
        summary = WorkloadSummary(job.script, SCRIPT_KIND, run.boundary, 0, 0, int(round(est.epochs)),
                                  int(round(est.steps_per_epoch or 0)), est.total_steps,
                                  run.trace.precision if run.trace else "fp32", " ".join(job.args))
        return PlanDocument(summary, plan, options, str(run_dir) if run_dir else None,
                            prices=None if measured_only else PriceSource(catalog.source, catalog.as_of),
                            benchmark=[c for c in choices if c.benchmark], skipped=[c for c in choices if not c.benchmark])

    def estimate_script(self, script: str | Path, args: list[str], options: PlanOptions, seconds: float = 10.0,
                        total_steps: int | None = None, epochs: int | None = None,
                        gpu: bool | None = None) -> tuple[PlanDocument, ScriptRun, ScriptEstimate]:
        """`planner estimate train.py -- ARGS`: the script measured here unchanged (bench_script), its whole
        run here, every instance in the region predicted from it, decided; and the measurement it rests on.
        Raises InputError (a region the prices lack; what bench_script refuses), RunError (the script failed)."""
        from pricing.catalog import check_region

        check_region(self.catalog().frame, options.region)  # before the measurement, not after it
        job = ScriptJob(shown_path(str(script)), str(Path(script).resolve()), list(args), total_steps, epochs, seconds)
        run, est = self.bench_script(script, args, seconds, total_steps, epochs)
        return self.script_plan(job, run, est, options, gpu), run, est

    def run_script(self, script: str | Path, args: list[str], targets: TargetChoice, options: PlanOptions,
                   seconds: float = 10.0, total_steps: int | None = None, epochs: int | None = None,
                   out: Path | None = None) -> tuple[PlanDocument, RunJournal]:
        """`planner run train.py --targets local -- ARGS`: measure the script here, journal its job and its
        timeline the moment it arrives, plan, write plan.json. Rented targets are refused for a script
        (not built yet): `planner estimate` predicts them.
        Raises InputError (an AWS target, a region the prices lack, what bench_script refuses), RunError."""
        from pricing.catalog import check_region

        if targets.aws_types or targets.auto:
            raise InputError(f"--targets {','.join(targets.tokens)}: a training script is measured here only for now "
                             "(running it on rented instances is not built yet)",
                             hint="use --targets local; `planner estimate` predicts every instance from it")
        check_region(self.catalog().frame, options.region)
        job = ScriptJob(shown_path(str(script)), str(Path(script).resolve()), list(args), total_steps, epochs, seconds)
        script_path(script)  # refused before a journal is made
        journal = RunJournal.create(Path(script).stem, out)
        journal.write_script(job)
        run_id = f"{dt.datetime.now(dt.timezone.utc):%Y%m%dT%H%M%SZ}-{secrets.token_hex(4)}"
        journal.write_run({"run_id": run_id, "targets": list(targets.tokens), "plan_options": options.as_dict()})
        run, est = self.bench_script(script, args, seconds, total_steps, epochs)
        journal.write_script_result(LOCAL.label("cuda" if run.cuda_used else "cpu"), MeasuredScript(LOCAL.name, run))
        doc = self.script_plan(job, run, est, options, measured_only=True, run_dir=journal.path)
        doc = replace(doc, failed_targets=[], unterminated=[])
        journal.write_plan(doc)
        return doc, journal

    def estimate_run(self, run_dir: str | Path, overrides: dict[str, Any] | None = None, gpu: bool | None = None,
                     options: PlanOptions | None = None, measured_only: bool = False) -> PlanDocument:
        """A saved run's plan (see Runs.estimate_run); a script's run is re-planned from its journal: its
        timeline here extrapolated again, every instance predicted from it (`measured_only`: its row alone).
        Raises JournalError (naming the file and the field), InputError (no result yet; an option out of range)."""
        journal = RunJournal.open(run_dir)
        if not journal.is_script:
            return super().estimate_run(run_dir, overrides, gpu, options, measured_only)
        options = options or saved_options(journal, overrides or {})
        job = journal.read_script()
        results = journal.read_script_results()
        here = results.get(LOCAL.label("cpu")) or results.get(LOCAL.label("cuda"))
        if here is None:
            raise InputError(f"{journal.path}: the run has no result here yet", hint="run `planner run` to measure the script")
        est = estimate_script(here.run, job.total_steps, job.epochs)
        return self.script_plan(job, here.run, est, options, gpu, measured_only, run_dir=journal.path)
