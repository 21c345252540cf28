"""Run journals, a spec's or a script's: where a run journals, the saved runs the TUI's picker lists, what a script's run
measured (its job, its timeline here) and the length a script's run is planned for."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from planner.core.decide import Recommendation
from planner.core.script import (
    ScriptEstimate,
    ScriptJob,
    ScriptLength,
    ScriptRun,
    estimate_or_per_steps,
)
from planner.errors import PlannerError
from planner.journal import DEFAULT_BASE, RunJournal, new_run_dir
from planner.service.timelines import here_label, timelines
from planner.service.workload import Journaled, journaled


@dataclass(frozen=True)
class SavedRun:
    """A run journal as the TUI's run picker lists it."""

    path: str
    name: str
    targets: list[str]
    results: int
    recommendation: Recommendation | None  # None: no plan yet


class Journals:
    """The run journals: where a run goes, the saved ones, a script run's job and timeline, its kept length."""

    def saved(self, run_dir: str | Path) -> Journaled:
        """A saved run's workload as its journal holds it, a spec's or a script's: its title, its plan, its length
        kept, the command that runs it again. Raises JournalError (not a run; `check()`: SpecError, its spec does
        not load)."""
        return journaled(run_dir)

    def saved_script(
        self, run_dir: str | Path, length: ScriptLength | None = None
    ) -> tuple[ScriptJob, ScriptRun, ScriptEstimate]:
        """A script run's job (planned for `length`; None: the one it was run with), its timeline here and its
        whole run extrapolated again (what the TUI's Workload pane shows as detected; per PER_STEPS steps when it has no
        length). Raises JournalError (naming the file and the field), InputError (no result here; RunLengthUnknown: a
        length it cannot count)."""
        journal = RunJournal.open(run_dir)
        job = journal.read_script().with_length(length)
        runs = timelines(journal, journal.read_results())
        run = runs[here_label(journal, runs)]
        return job, run, estimate_or_per_steps(run, job.total_steps, job.epochs, job.args)

    def new_run_dir(
        self, name: str, folder: str | Path | None = None, now: dt.datetime | None = None
    ) -> Path:
        """Where a run of `name` journals in `folder` (None: planner-runs/), named as RunJournal.create
        names a run without --out: <UTC time>-<name>."""
        return new_run_dir(name, folder, now)

    def saved_runs(self, folder: str | Path | None = None) -> list[SavedRun]:
        """The run journals in `folder` (None: planner-runs/), a spec's or a script's, newest first: path, workload
        name (a script's: its name and arguments), targets, how many results, and the saved plan's recommendation
        (None when it has no plan yet)."""
        base = Path(folder or DEFAULT_BASE)
        runs = []
        for path in sorted(base.iterdir() if base.is_dir() else [], reverse=True):
            try:
                saved = journaled(path)
                title, info, plan = saved.title, saved.journal.read_run(), saved.journal.read_plan()
            except (OSError, ValueError, PlannerError):
                continue  # a damaged journal is not offered
            runs.append(
                SavedRun(
                    str(path),
                    title,
                    list(info.targets),
                    len(list((path / "results").glob("*.json"))),
                    plan.recommendation if plan is not None else None,
                )
            )
        return runs
