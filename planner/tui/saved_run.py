"""A saved run opened in the TUI (`planner tui RUN_DIR`, `o`): its plan, and its workload as the run journaled it (a
script's: read-only, with what was found in it and the session's secrets it names; a spec's: in the editor)."""

from __future__ import annotations

import functools
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from planner.errors import PlannerError
from planner.report.tables import script_rows
from planner.service import (
    RunLengthUnknown,
    SavedScriptRun,
    SavedSpecRun,
    ScriptEnv,
    ScriptLength,
    ScriptWorkload,
    SpecWorkload,
)
from planner.tui.kinds import ScriptShown, planned_text, script_title
from planner.tui.workload import WorkloadPane

if TYPE_CHECKING:
    from planner.tui.app import PlannerApp


def open_saved(app: PlannerApp, run_dir: str, length: ScriptLength | None = None) -> None:
    """Show a saved run: its plan (every instance it did not measure predicted) and its workload (a script's run
    planned for `length`, None: its own, which a run measured without one keeps; a length it cannot be planned for
    is asked for again)."""
    try:
        saved = app.service.journals.saved(run_dir)
        saved.check()  # a damaged journal is refused before anything of it is shown
        _open(saved, app, length)
    except PlannerError as exc:
        app.notify(f"{run_dir}: {exc.message.splitlines()[0]}", severity="error")


@functools.singledispatch
def _open(saved: object, app: PlannerApp, length: ScriptLength | None) -> None:
    """A saved run shown by its kind. Raises PlannerError."""
    raise TypeError(f"not a saved run: {saved!r}")


@_open.register(SavedSpecRun)
def _open_spec_run(saved: SavedSpecRun, app: PlannerApp, length: ScriptLength | None) -> None:
    """A spec's run: its journaled spec in the editor, its plan."""
    # a spec that does not load: said before anything changes
    path, spec = saved.journal.path, saved.spec
    shown = str(path / "spec.yaml") if (path / "spec.yaml").is_file() else str(path / "spec.json")
    app.query_one(WorkloadPane).load(shown, estimate=False)
    app.results.open_run(str(path), SpecWorkload(spec, shown))
    _shown(app, path)


@_open.register(SavedScriptRun)
def _open_script_run(saved: SavedScriptRun, app: PlannerApp, length: ScriptLength | None) -> None:
    """A script's run: the script read-only with what was found in it, planned for `length`. Raises PlannerError."""
    path = saved.journal.path
    unknown, planned, est = None, "", None
    try:
        job, measured, est = app.service.journals.saved_script(path, length)
        rows = script_rows(measured, est)
        planned = planned_text(est)
    except RunLengthUnknown as exc:  # a length it cannot count: shown, another asked for
        job, unknown = saved.job, exc.message
        rows = [("whole run", "its length is not known: s gives it (steps or epochs)")]
    given = {  # this session's secrets (the command line's, the script's): never journaled
        **(app.given_env.secrets if app.given_env else {}),
        **app.shown.secrets(),
    }
    env = ScriptEnv(job.env, {k: v for k, v in given.items() if k in job.secret_names})
    shown = ScriptShown(
        ScriptWorkload(job.path, tuple(job.args), None, None, job.workdir, env, job.task)
    )
    app.shown = shown
    missing = [n for n in job.secret_names if n not in given]
    # once per run opened, not at each length planned
    if missing and str(path) != app.results.run_dir:
        app.notify(
            f"its secrets ({', '.join(missing)}) were never journaled: a run from here goes without them (give "
            "them: planner tui RUN_DIR --secret NAME)",
            severity="warning",
        )
    app.query_one(WorkloadPane).show_script(
        job.path, job.args, rows, job.script, workdir=job.workdir, task=job.task, env=env
    )
    app.sub_title = script_title(job.script, job.args) + planned
    if unknown is not None or est is None:
        app.ask_length(
            unknown or "", length, functools.partial(open_saved, app, str(path)), str(path)
        )
        return
    if length is not None:
        saved.keep_length(length)
    # `r` runs it
    shown.script = replace(shown.script, total_steps=job.total_steps, epochs=job.epochs)
    app.results.show_status(
        "no run length given: planned per 1,000 steps; s gives the run's length"
        if est.per_steps
        else ""
    )
    app.results.open_run(str(path), shown.script, job.length)
    _shown(app, path)


def _shown(app: PlannerApp, path: Path) -> None:
    """A saved run opened: its re-runs journal beside it, and `o` lists its neighbours (unless the app was given a
    folder for them); the Results pane shown."""
    if app.runs_folder is None:
        app.runs_folder = path.resolve().parent
    app.action_show("results")
