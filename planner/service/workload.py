"""The workload a user brings, as one value: a spec (a YAML or JSON spec, a custom model's spec) or a training
script with its arguments, length, folder and environment (a SkyPilot task opens as the script it runs). Every use
case of the service takes one; the fronts open it with `Workloads.open` and do not choose a use case by its kind."""

from __future__ import annotations

import functools
import json
import os
import shlex
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from planner.core.document import PlanDocument
    from planner.core.script import ScriptEnv, ScriptJob, ScriptLength
    from planner.core.task import TaskOrigin
    from planner.journal import RunJournal
    from planner.service.pipelines import Parts, Pipeline
    from planner.service.scripts import Scripts
    from planner.service.settings import PlanChoice, PlanOptions
    from planner.workload.spec import WorkloadSpec
    from runner.folder import Shipped


@dataclass(frozen=True)
class SpecWorkload:
    """A workload spec, loaded and checked."""

    spec: WorkloadSpec
    path: str | None = None  # the file, as the user gave it (None: a spec built in memory)
    text: str | None = None  # the file's text, as a run journals it (None: the spec as loaded)

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def stem(self) -> str:
        """What its run journals are named by."""
        return self.spec.name

    @property
    def planned_spec(self) -> WorkloadSpec:
        """The spec its plan predicts every instance from (its layers)."""
        return self.spec

    def check_validated_epochs(self, epochs: int | None) -> None:
        """`validate --epochs N` trains N epochs: the spec's limit on total steps applies. Raises InputError."""
        from planner.service.inputs import check_epochs

        check_epochs(self.spec, epochs)

    def ships(self) -> None:
        """Nothing of a folder: a spec ships as its job."""
        return None

    def pipeline(self, parts: Parts) -> Pipeline:
        """Its way through the use cases: benched by the harness, predicted from its layers."""
        from planner.service.pipelines import SpecPipeline

        return SpecPipeline(self, parts)


@dataclass(frozen=True)
class ScriptWorkload:
    """The user's own training script, run unchanged: `planner COMMAND train.py [--total-steps N] -- ARGS`."""

    path: str  # as the user gave it
    args: tuple[str, ...] = ()  # the script's own arguments (after `--`)
    total_steps: int | None = None  # the whole run's optimizer steps, when the user said
    epochs: int | None = None  # or its epochs
    workdir: str | None = None  # where it runs (--workdir); None: its own folder
    env: ScriptEnv | None = None  # --env and --secret
    task: TaskOrigin | None = None  # the SkyPilot task it came from
    requirements: str | None = None  # what an instance installs first (a requirements file)

    @property
    def name(self) -> str:
        """The script's file name, as the Run pane and the progress lines name it."""
        return PurePath(self.path).name

    @property
    def stem(self) -> str:
        """What its run journals are named by: the script's name without .py."""
        return PurePath(self.path).stem

    @property
    def planned_spec(self) -> None:
        """None: a script's plan is of its measured and traced steps, not of a spec's layers."""
        return None

    def check_validated_epochs(self, epochs: int | None) -> None:
        """validate compares the estimate with the run the script's own arguments train: `--epochs 5 -- --epochs 20`
        is refused before anything runs. Raises InputError."""
        from planner.service.script_checks import check_validated_epochs

        check_validated_epochs(list(self.args), epochs)

    def ships(self) -> Shipped:
        """What of its folder (or its workdir) would ship to an instance. Raises InputError (not a .py file; a
        folder too big to ship; a workdir without the script)."""
        from planner.service.script_checks import script_path, script_workdir
        from runner.folder import script_folder

        path = script_path(self.path)
        return script_folder(path, folder=script_workdir(path, self.workdir))

    def pipeline(self, parts: Parts) -> Pipeline:
        """Its way through the use cases: run unchanged here, traced on the stand-in GPU."""
        from planner.service.pipelines import ScriptPipeline

        return ScriptPipeline(self, parts)


Workload = SpecWorkload | ScriptWorkload


def opened(
    path: str,
    args: tuple[str, ...] = (),
    total_steps: int | None = None,
    epochs: int | None = None,
    workdir: str | None = None,
    env: ScriptEnv | None = None,
    task: TaskOrigin | None = None,
    requirements: str | None = None,
) -> Workload:
    """What the user named, as the one value every use case takes: a training script (`.py`) with its arguments,
    length, folder and environment, or a spec loaded and checked (the script's fields are then unused). Raises
    SpecError naming the file and the field, with the fix."""
    if is_script(path):
        return ScriptWorkload(path, args, total_steps, epochs, workdir, env, task, requirements)
    from planner.workload.spec import read_spec

    spec, text = read_spec(path)  # read once, bounded: the run journals the same text it parsed
    return SpecWorkload(spec, path, text)


def is_script(path: str) -> bool:
    """A path names a training script (a .py file), not a spec: the one place the kind is told from the name."""
    return str(path).endswith(".py")


def script_command(
    script: str, workdir: str | None, total_steps: int | None, epochs: int | None
) -> str:
    """A script as a suggested `planner run` names it: where it runs and how long its whole run is."""
    return (
        shlex.quote(script)
        + (f" --workdir {shlex.quote(workdir)}" if workdir else "")
        + (f" --total-steps {total_steps}" if total_steps else "")
        + (f" --epochs {epochs}" if epochs else "")
    )


@dataclass(frozen=True)
class SavedSpecRun:
    """A spec's run journal (spec.json): re-planned from its results, as long as its spec's train.epochs."""

    journal: RunJournal
    takes_secrets: ClassVar[bool] = False  # `planner tui RUN_DIR --secret`: a spec takes none

    @functools.cached_property
    def spec(self) -> WorkloadSpec:
        """Its spec.json, loaded and checked. Raises SpecError naming the file and the field."""
        return self.journal.read_spec()

    def check(self) -> None:
        """Raises SpecError unless its spec loads, JournalError unless its run.json and results read (a run opened is
        checked before anything is shown of it)."""
        _ = self.spec
        self.journal.read_run()
        self.journal.read_results()

    @property
    def title(self) -> str:
        """Its name in the TUI's run picker, as spec.json names it (a spec a newer schema refuses is still listed:
        opening it says why)."""
        data = json.loads((self.journal.path / "spec.json").read_text())
        name = data.get("name") if isinstance(data, dict) else None
        return str(name) if name else self.journal.path.name

    def estimate(
        self,
        scripts: Scripts,
        overrides: PlanChoice | None,
        gpu: bool | None,
        options: PlanOptions | None,
        measured_only: bool,
        length: ScriptLength | None,
    ) -> PlanDocument:
        """Its plan from its results (Runs.estimate_run). Raises InputError for a `length` (its train.epochs is its)."""
        from planner.errors import InputError

        if length is not None:
            raise InputError(
                "--total-steps and --epochs re-plan a script's run; a spec's run is as long as its "
                "train.epochs",
                hint="change train.epochs in the spec and estimate or run it again",
            )
        return scripts.runs.estimate_run(self.journal.path, overrides, gpu, options, measured_only)

    def keep_length(self, length: ScriptLength) -> None:
        """Nothing: a spec's run is as long as its train.epochs (estimate refuses another)."""

    def again(self, length: ScriptLength | None) -> tuple[str, list[str] | None]:
        """The run again, as a suggested `planner run` names it: its journaled spec, no arguments."""
        return shlex.quote(str(self.journal.path / "spec.json")), None


@dataclass(frozen=True)
class SavedScriptRun:
    """A script's run journal (script.json): its job re-planned from its timelines, for its length or another."""

    journal: RunJournal
    job: ScriptJob
    takes_secrets: ClassVar[bool] = True  # never journaled: a re-opened run takes them again

    def check(self) -> None:
        """Raises JournalError unless its run.json and results read (its script.json was read as it was opened)."""
        self.journal.read_run()
        self.journal.read_results()

    @property
    def title(self) -> str:
        """Its name in the TUI's run picker: the script's and its arguments."""
        return " ".join([PurePath(self.job.script).name, *self.job.args])

    def estimate(
        self,
        scripts: Scripts,
        overrides: PlanChoice | None,
        gpu: bool | None,
        options: PlanOptions | None,
        measured_only: bool,
        length: ScriptLength | None,
    ) -> PlanDocument:
        """Its plan: each target's timeline extrapolated again for `length` (None: its own). Raises InputError."""
        return scripts.estimate_script_run(
            self.journal, self.job, overrides, gpu, options, measured_only, length
        )

    def keep_length(self, length: ScriptLength) -> None:
        """A run measured without a length of its own keeps `length` (its script.json), so later plans of it need
        none; one with a length, or measured whole (it finished), keeps its own (`length` was a what-if)."""
        from planner.core.script import ScriptLength
        from planner.service.timelines import here_label, timelines

        if self.job.length != ScriptLength():
            return
        runs = timelines(self.journal, self.journal.read_results())
        if runs[here_label(self.journal, runs)].stopped_because == "finished":
            return  # measured whole: the steps it took are its length, `length` a what-if
        self.journal.write_script(self.job.with_length(length))

    def again(self, length: ScriptLength | None) -> tuple[str, list[str] | None]:
        """The run again, as a suggested `planner run` names it: the script where it ran, its length, its env
        (a secret by name: its value was never journaled), and its own arguments."""
        from planner.core.script import args_for_length

        job = self.job.with_length(length)
        args = args_for_length(job.args, self.job.length, job.length)
        envs = "".join(f" --env {shlex.quote(f'{k}={v}')}" for k, v in job.env.items())
        secrets = "".join(f" --secret {shlex.quote(name)}" for name in job.secret_names)
        named = script_command(
            _from_here(job.script, job.path), job.workdir, job.total_steps, job.epochs
        )
        return named + envs + secrets, args


Journaled = SavedSpecRun | SavedScriptRun


def _from_here(shown: str, absolute: str) -> str:
    """A journaled script's path as a command run from this folder finds it: as the user named it when it still
    names the script from here, else relative to here (inside this folder) or absolute (a trial: `planner plan
    RUN_DIR` from another folder suggested a relative path that no longer resolved)."""
    if Path(shown).resolve() == Path(absolute).resolve():
        return shown
    relative = os.path.relpath(absolute)
    return absolute if relative.startswith("..") else relative


def journaled(run_dir: str | Path) -> Journaled:
    """A saved run's workload, as its journal holds it: a spec's (spec.json, loaded when used) or a script's
    (script.json). Raises JournalError (not a run directory; a script.json that is not one)."""
    from planner.journal import RunJournal

    journal = RunJournal.open(run_dir)
    if journal.is_script:
        return SavedScriptRun(journal, journal.read_script())
    return SavedSpecRun(journal)
