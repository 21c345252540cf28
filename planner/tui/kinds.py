"""What the app does with the workload it plans, one class per kind, chosen once (`shown_for`, or when a spec or a
saved run is opened): a spec is edited in the Workload pane and estimated once it validates, its length its
train.epochs; a script is shown read-only, estimated at once, and its length set with `s`."""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from planner.errors import PlannerError
from planner.report.tables import script_rows
from planner.service import ScriptLength, ScriptWorkload, SpecWorkload, is_script
from planner.tui.workload import WorkloadPane

if TYPE_CHECKING:
    from planner.service import ScriptEnv, ScriptEstimate, TaskOrigin, Workload
    from planner.tui.app import PlannerApp

LENGTH_LATER = "s sets a script's run length once it is measured; a spec's run is its train.epochs"
KIND_ACTIONS = frozenset({"length", "toggle_form", "save"})  # the actions only one kind takes


def script_title(script: str, args: list[str]) -> str:
    """The title of a script's plan: its file name and arguments, as the user runs it ('convnet.py --epochs 20'),
    whether it was opened by a relative path or from a saved run's absolute one."""
    return f"{Path(script).name} {' '.join(args)}".strip()


def planned_text(est: ScriptEstimate) -> str:
    """The length a script's plan is of, after its title (`s` changes it)."""
    if est.per_steps:
        return f": per {est.total_steps:,} steps (its length: s)"
    return f": {est.total_steps:,} optimizer steps planned"


@dataclass
class SpecShown:
    """A spec: edited in the Workload pane (its form, Save), estimated once it validates."""

    actions: ClassVar[frozenset[str]] = frozenset({"toggle_form", "save"})

    def editing(self, path: str | None) -> str | None:
        """The file the Workload pane's editor opens: the spec's."""
        return path

    def open(self, app: PlannerApp, path: str) -> None:
        """A spec typed in the Workload pane's path field: into the editor, estimated once it validates."""
        app.query_one(WorkloadPane).load(path)

    def workload(self, app: PlannerApp) -> Workload | None:
        """The spec as last validated (None: not valid yet)."""
        return None if app.spec is None else SpecWorkload(app.spec, app.spec_path, app.spec_text)

    def start(self, app: PlannerApp) -> None:
        """Nothing yet: it is estimated once the Workload pane has validated it."""

    def measuring(self, app: PlannerApp) -> None:
        """Nothing: the editor keeps the spec as typed."""

    def found(self, app: PlannerApp) -> None:
        """Nothing: a spec's measurement finds nothing about it its own text does not say."""

    def secrets(self) -> dict[str, str]:
        """None: a spec runs in its own job, with no environment of the user's."""
        return {}

    def ask_length(self, app: PlannerApp, run_dir: str | None) -> None:
        """Nothing to ask: a spec's run is its train.epochs."""
        app.notify(LENGTH_LATER, severity="warning")


@dataclass
class ScriptShown:
    """A training script: shown read-only with what its measurement found, estimated at once, its length set with `s`
    (`script`: as it stands, its length given since it opened)."""

    script: ScriptWorkload
    actions: ClassVar[frozenset[str]] = frozenset({"length"})

    def editing(self, path: str | None) -> None:
        """None: the editor shows the script read-only, no file to edit."""
        return None

    def open(self, app: PlannerApp, path: str) -> None:
        """A script typed in the Workload pane's path field: measured here and planned, as `planner tui train.py`
        opens it (without arguments: the command line gives them)."""
        if app.run_pane.running or app.results.estimating:
            busy = "a run" if app.run_pane.running else "an estimate"
            app.notify(f"{busy} is measuring this machine: open it after", severity="warning")
            return
        try:
            app.service.workloads.check_script(path)
        except PlannerError as exc:
            app.notify(exc.message.splitlines()[0], severity="error")
            return
        app.notify(
            f"{path}: measured with no arguments of its own; give them with `planner tui {path} -- ARGS`",
            timeout=10,
        )
        app.shown = self
        # not the run opened before it: `s` plans this script's measurement
        app.results.run_dir, app._unplanned = None, None
        self.start(app)

    def workload(self, app: PlannerApp) -> Workload | None:
        return self.script

    def start(self, app: PlannerApp) -> None:
        """Measured at once: nothing to validate first."""
        app.action_estimate()

    def measuring(self, app: PlannerApp) -> None:
        """Shown read-only while it is measured (it may have been edited)."""
        self.show(app)

    def show(self, app: PlannerApp, rows: list[tuple[str, str]] | None = None) -> None:
        """The script in the Workload pane, read-only, with what was found in its measurement (None: being
        measured)."""
        script = self.script
        app.sub_title = script_title(script.path, list(script.args))
        app.query_one(WorkloadPane).show_script(
            script.path,
            list(script.args),
            rows,
            workdir=script.workdir,
            task=script.task,
            env=script.env,
        )

    def found(self, app: PlannerApp) -> None:
        """What its measurement here found (its steps, epochs, what it does outside PyTorch), under it in the
        Workload pane, and the length its plan is of in the title."""
        # the estimate failed: the pane said "measuring it here ..." forever
        if not app.results.results:
            self.show(app, [("measured", "nothing: the estimate failed (see the Results pane)")])
            return
        try:
            measured, est = app.service.workloads.found(self.script, app.results.results)
        except PlannerError as exc:  # a length it cannot count: the plan says why
            self.show(app, [("whole run", exc.message.splitlines()[0])])
            return
        self.show(app, script_rows(measured, est))
        app.sub_title += planned_text(est)

    def ask_length(self, app: PlannerApp, run_dir: str | None) -> None:
        """Its whole run planned for another length (the measurement made, not measured again): a saved or finished
        run's from its journal (`run_dir`), an estimate's from its measurement."""
        if not (run_dir or app.results.results):
            app.notify(LENGTH_LATER, severity="warning")
            return
        script = self.script
        why = f"{script_title(script.path, list(script.args))}: how long is the whole run?"
        current = ScriptLength(script.total_steps, script.epochs)
        if run_dir:
            app.ask_length(why, current, functools.partial(app.open_run, run_dir), run_dir)
        else:
            app.ask_length(why, current, functools.partial(self.plan_length, app))

    def plan_length(self, app: PlannerApp, length: ScriptLength) -> None:
        """The estimate's measurement planned for `length` (the script's own from now on: what `r` runs)."""
        self.script = replace(self.script, total_steps=length.total_steps, epochs=length.epochs)
        app.results.plan_for(self.script)
        self.found(app)

    def secrets(self) -> dict[str, str]:
        """This session's secrets it was given (never journaled)."""
        return self.script.env.secrets if self.script.env else {}


Shown = SpecShown | ScriptShown


def shown_for(
    path: str | None,
    args: list[str] | None = None,
    total_steps: int | None = None,
    epochs: int | None = None,
    workdir: str | None = None,
    env: ScriptEnv | None = None,
    task: TaskOrigin | None = None,
) -> Shown:
    """What `planner tui PATH` opens: `train.py -- ARGS` a script, measured here as a local run, then planned;
    anything else the Workload pane's editor (a spec; nothing yet)."""
    if path and is_script(path):
        return ScriptShown(
            ScriptWorkload(path, tuple(args or ()), total_steps, epochs, workdir, env, task)
        )
    return SpecShown()
