"""Run journals, a spec's or a script's: where a run journals, the saved runs the TUI's picker lists, what a script's run
measured (its job, its timeline here) and the length a script's run is planned for."""

from __future__ import annotations

import datetime as dt
import json
import shlex
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
from planner.errors import InputError, PlannerError
from planner.journal import DEFAULT_BASE, Measured, RunJournal, new_run_dir, typed


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

    def is_script_run(self, run_dir: str | Path) -> bool:
        """Whether `run_dir` journals a user's script (script.json) rather than a spec. Raises JournalError."""
        return RunJournal.open(run_dir).is_script

    def script_job(self, run_dir: str | Path) -> ScriptJob:
        """What a script run measured (its script.json): the script, its arguments, its length, its --workdir.
        Raises JournalError naming the file and the field."""
        return RunJournal.open(run_dir).read_script()

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

    def keep_script_length(self, run_dir: str | Path, length: ScriptLength) -> None:
        """A script's run measured without a length of its own keeps `length` (its script.json), so later plans of
        it need none; one with a length, or measured whole (it finished), keeps its own (`length` was a what-if)."""
        journal = RunJournal.open(run_dir)
        job = journal.read_script() if journal.is_script else None
        if job is None or job.length != ScriptLength():
            return
        runs = timelines(journal, journal.read_results())
        if runs[here_label(journal, runs)].stopped_because == "finished":
            return  # measured whole: the steps it took are its length, `length` a what-if
        journal.write_script(job.with_length(length))

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
            journal = RunJournal(path)
            if not (path / "spec.json").is_file() and not journal.is_script:
                continue
            try:
                info, plan = journal.read_run(), journal.read_plan()
                if journal.is_script:
                    job = journal.read_script()
                    name = " ".join([Path(job.script).name, *job.args])
                else:
                    name = json.loads((path / "spec.json").read_text()).get("name", path.name)
            except (OSError, ValueError, PlannerError):
                continue  # a damaged journal is not offered
            runs.append(
                SavedRun(
                    str(path),
                    name,
                    list(info.get("targets", [])),
                    len(list((path / "results").glob("*.json"))),
                    plan.recommendation if plan is not None else None,
                )
            )
        return runs


def here_label(journal: RunJournal, runs: dict[str, ScriptRun]) -> str:
    """The label of this machine's timeline among a script run's (what every other instance is predicted from)."""
    label = _local_label(runs)
    if label is not None:
        return label
    job = journal.read_script()
    again = " ".join(shlex.quote(a) for a in [job.script, *(["--"] + job.args if job.args else [])])
    raise InputError(
        f"{journal.path}: the run has no result here (this machine's measurement is what every other "
        "instance is predicted from; a run that failed here leaves none)",
        hint=f"run `planner run {again} --targets local` first",
    )


def _local_label(runs: dict[str, ScriptRun]) -> str | None:
    """This machine's label among a script's timelines (local-cpu, local-cuda); None when it has none."""
    return next((label for label in sorted(runs) if label.startswith("local-")), None)


def measured_timelines(results: dict[str, Measured]) -> dict[str, ScriptRun]:
    """The script timelines of measurements held in memory (an estimate's, a run's as they arrive), by label."""
    return {
        label: ScriptRun.from_json(m.result.script)
        for label, m in results.items()
        if m.result.status == "ok" and m.result.script
    }


def timeline_here(runs: dict[str, ScriptRun]) -> ScriptRun:
    """This machine's timeline among a script's (what every other instance is predicted from). Raises InputError
    (none yet)."""
    label = _local_label(runs)
    if label is None:
        raise InputError(
            "no measurement of the script here yet: every other instance is predicted from it",
            hint="estimate it first (e)",
        )
    return runs[label]


def timelines(journal: RunJournal, results: dict[str, Measured]) -> dict[str, ScriptRun]:
    """The script timelines of a run's successful results, by their dataclass's own types; JournalError naming
    the file of one that is not."""
    return {
        label: typed(
            journal.path / "results" / f"{label}.json", m.result.script, ScriptRun.from_json
        )
        for label, m in results.items()
        if m.result.status == "ok"
    }
