"""A script run's timelines (one per target measured), read from its journal or from results held in memory, and the
one measured here, which every other instance is predicted from."""

from __future__ import annotations

import shlex

from planner.core.script import ScriptRun
from planner.errors import InputError
from planner.journal import Measured, RunJournal, typed


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
