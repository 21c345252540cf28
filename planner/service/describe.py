"""Workloads: what the user brings, read and described before anything is measured. Design notes:
docs/reference/modules.md (planner/service/describe.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from planner.errors import InputError, SpecError
from planner.report.remarks import word
from planner.service.bench import emulated_on
from planner.service.script_checks import (
    names_a_gpu,
    refuse_deadline_without_length,
    refuse_validate_without_length,
    script_path,
    script_workdir,
)
from planner.units import shown_path
from planner.workload.footprint import layer_from_row, layers_of
from runner.local import DescribeError, describe_model

if TYPE_CHECKING:  # importing the service stays cheap: `planner --help` loads it
    from planner.core.script import ScriptEnv, ScriptEstimate, ScriptRun
    from planner.core.task import Task, TaskOrigin
    from planner.journal import Measured
    from planner.service.workload import ScriptWorkload, Workload
    from planner.workload.footprint import Footprint, Layer
    from planner.workload.form import SpecFields
    from planner.workload.spec import WorkloadSpec
    from runner.folder import Shipped


@dataclass(frozen=True)
class OpenedTask:
    """A SkyPilot task resolved into the run it plans (Workloads.open_task)."""

    task: Task
    script: str  # the script's path, its workdir joined
    workdir: str  # the task's workdir, `~` expanded
    # the requirements file its setup installs (a path in the workdir), None: none
    requirements: str | None
    # where its resources ask to run, as written (checked where it is used), None: they do not say
    region: str | None
    purchase: str | None  # "spot" or "on-demand" from their use_spot, None: they do not say


class Workloads:
    """What the user brings, read and described: a spec (load, check what is being typed, layers and footprint once per
    spec, the form), a training script (checked, parsed, what of its folder ships) and a SkyPilot task."""

    def __init__(self) -> None:
        self._layers: dict[str, list[Layer]] = {}

    def open(
        self,
        path: str,
        args: list[str] | tuple[str, ...] = (),
        total_steps: int | None = None,
        epochs: int | None = None,
        workdir: str | None = None,
        env: ScriptEnv | None = None,
        task: TaskOrigin | None = None,
        requirements: str | None = None,
    ) -> Workload:
        """What the user named, as the one value every use case takes: a training script (`.py`) with its arguments,
        length, folder and environment, or a spec loaded and checked (the script's fields are then unused).
        Raises SpecError naming the file and the field, with the fix."""
        from planner.service.workload import opened

        return opened(path, tuple(args), total_steps, epochs, workdir, env, task, requirements)

    def load(self, path: str | Path) -> WorkloadSpec:
        """Raises SpecError naming the file and the field, with the fix."""
        from planner.workload.spec import load_spec

        return load_spec(path)

    def check_text(
        self, text: str, source: str, base_dir: Path | None = None
    ) -> tuple[WorkloadSpec, Footprint]:
        """(spec, footprint) of a spec being typed (the TUI's editor), by the file's own rules with
        `source` naming it. Raises SpecError."""
        from planner.workload.spec import parse_spec_text

        spec = parse_spec_text(text, source=source, base_dir=base_dir)
        return spec, self.footprint(spec)

    def layers(self, spec: WorkloadSpec) -> list[Layer]:
        """The model's layers (a custom model described in a child process). Raises SpecError."""
        key = json.dumps(spec.model_dump(mode="json"), sort_keys=True)
        if key not in self._layers:
            self._layers[key] = _describe(spec)
        return self._layers[key]

    def footprint(self, spec: WorkloadSpec, batch_size: int | None = None) -> Footprint:
        """Training memory and FLOPs at the spec's batch (or `batch_size`). Raises SpecError."""
        from planner.workload.footprint import footprint

        return footprint(spec, self.layers(spec), batch_size)

    def spec_form(self) -> SpecFields:
        """The spec's fields for a generated form (planner/workload/form.py)."""
        from planner.workload.form import form_fields

        return form_fields()

    def emulated_here(self, spec: WorkloadSpec, device: str = "cpu") -> str:
        """Why this machine's bench on `device` measures `spec` in fp32 (this CPU has no units for its precision;
        every CPU's bench does so), said before it measures; '' when it measures the spec's own precision (on a GPU,
        `auto` with CUDA here)."""
        emulated = emulated_on(spec, device)
        return word(emulated) if emulated is not None else ""

    @staticmethod
    def check_validated_epochs(workload: Workload, epochs: int | None) -> None:
        """The length `validate --epochs N` trains, checked before anything runs: a spec's limit on total steps; a
        script's own arguments naming another. Raises InputError."""
        workload.check_validated_epochs(epochs)

    def task(
        self,
        path: str | Path,
        env: dict[str, str] | None = None,
        secrets: dict[str, str] | None = None,
    ) -> Task | None:
        """A SkyPilot task YAML read as the training script it runs (planner/core/task.py: its workdir, its one
        python command, the requirements its setup installs, what of it is not used); None when `path` is not one
        (a workload spec: its own loader says what is wrong with it). Raises InputError naming the task's field
        when it is a task the planner cannot plan. `env`, `secrets`: `--env`, `--secret`, over the task's own."""
        from planner.core.task import is_task, read_task
        from planner.workload.load import (  # lazy: importing the service stays cheap
            load_yaml,
            read_spec_file,
        )

        if Path(path).suffix not in (".yaml", ".yml") or not Path(path).is_file():
            return None
        try:
            data = load_yaml(read_spec_file(path), str(path))
        except SpecError:
            return None
        return read_task(data, shown_path(str(path)), env, secrets) if is_task(data) else None

    def open_task(
        self,
        path: str | Path,
        env: dict[str, str] | None = None,
        secrets: dict[str, str] | None = None,
        workdir: str | None = None,
    ) -> OpenedTask | None:
        """A SkyPilot task YAML resolved into the run it plans (`task` read, then checked here): the script in its
        workdir, its folder, the requirements its setup installs, the region and purchase its resources ask for. None
        when `path` is not a task. `workdir`: one the user gave (a task has its own: refused). Raises InputError naming
        the task's field, with the fix (a workdir or script that is not there, a script outside its workdir)."""
        import os

        task = self.task(path, env, secrets)
        if task is None:
            return None
        if workdir:
            raise InputError(
                f"--workdir {workdir}: {task.source} has its own (workdir: {task.workdir})",
                hint="leave --workdir out: the task's workdir is used, as `sky launch` uses it",
            )
        folder = os.path.expanduser(task.workdir)
        if not os.path.isdir(folder):
            raise InputError(
                f"{task.source}: workdir: {task.workdir}: no such folder here",
                hint="a relative workdir is relative to where the planner runs, as for `sky launch`: run it from "
                "the folder the task is written for, or fix workdir",
            )
        if Path(folder).resolve() not in Path(folder, task.script).resolve().parents:
            raise InputError(
                f"{task.source}: run: {task.script}: not inside the workdir ({task.workdir}), which is what ships",
                hint="point workdir at a folder that holds the script (e.g. `workdir: ..`)",
            )
        if not os.path.isfile(os.path.join(folder, task.script)):
            beside = Path(path).parent
            here = (
                os.path.isfile(beside / os.path.expanduser(task.workdir) / task.script)
                and beside.resolve() != Path.cwd()
            )
            raise InputError(
                f"{task.source}: run: {task.script}: no such file in the workdir ({task.workdir})",
                hint=f"a relative workdir is relative to where the planner runs, as for `sky launch`: run it "
                f"from {shown_path(str(beside))}"
                if here
                else "the run command's script is relative to the workdir, as on the cluster",
            )
        region = task.asks.region if task.asks is not None and task.asks.region else None
        use_spot = task.asks.use_spot if task.asks is not None else None
        return OpenedTask(
            task,
            os.path.normpath(os.path.join(folder, task.script)),
            folder,
            os.path.normpath(os.path.join(folder, task.requirements))
            if task.requirements
            else None,
            region,
            None if use_spot is None else "spot" if use_spot else "on-demand",
        )

    def check_script(self, script: str | Path, workdir: str | Path | None = None) -> Path:
        """The training script to run. Raises InputError unless it is a readable .py file (inside `workdir`, a
        folder, when one is given) that parses as Python (a trial: estimate ran a script with a syntax error and
        ended 'run failed', exit 1, where check said 'bad input', exit 2)."""
        path = script_path(script)
        script_workdir(path, workdir)
        error = self.script_syntax(path)
        if error is not None:
            raise InputError(  # the input is not a script: bad input, as a spec that does not parse
                f"{script} does not parse as Python; its own error: {error}",
                hint="fix the script; `python -m py_compile` shows the same",
            )
        return path

    def found(
        self, script: ScriptWorkload, results: dict[str, Measured]
    ) -> tuple[ScriptRun, ScriptEstimate]:
        """What the script's measurement here found (its timeline: steps, epochs, what it does outside PyTorch) and its
        whole run extrapolated for its length (per 1,000 steps without one). Raises InputError (no measurement here;
        RunLengthUnknown: a length it cannot count)."""
        from planner.core.script import estimate_or_per_steps
        from planner.service.timelines import measured_timelines, timeline_here

        run = timeline_here(measured_timelines(results))
        return run, estimate_or_per_steps(run, script.total_steps, script.epochs, list(script.args))

    def check_length(
        self, workload: ScriptWorkload, deadline_seconds: float | None, validate: bool = False
    ) -> None:
        """Whether what is asked of the script needs its run's length and lacks it (a deadline, `validate`): said
        before anything is measured. Raises InputError."""
        refuse_deadline_without_length(workload, deadline_seconds)
        if validate:
            refuse_validate_without_length(workload)

    def traced_first(self, script: str | Path) -> bool:
        """Whether the script is traced on the stand-in GPU before it is measured here: its text names CUDA
        (measure.names_a_gpu), and it is not measured here when that trace predicts its step too slow for this CPU."""
        return names_a_gpu(script_path(script))

    def script_syntax(self, script: str | Path) -> str | None:
        """Whether the training script parses as Python (compiled, never run: its code runs only in a child
        process): its own syntax error ("line 3: invalid syntax"), or None. Raises InputError (not a .py file)."""
        path = script_path(script)
        data = path.read_bytes()
        try:
            compile(data, str(path), "exec", dont_inherit=True)
        except SyntaxError as exc:
            return f"line {exc.lineno}: {exc.msg}" + (
                f"\n    {exc.text.strip()}" if exc.text else ""
            )
        except ValueError as exc:  # null bytes
            return str(exc)
        return None

    def ships(self, workload: Workload) -> Shipped | None:
        """What of a script's folder (or its workdir) would ship to an instance; None for a spec, which ships as its
        job. Raises InputError (not a .py file; a folder too big to ship; a workdir without the script)."""
        return workload.ships()


def _describe(spec: WorkloadSpec) -> list[Layer]:
    layers = layers_of(spec)
    if layers is not None:
        return layers

    try:
        # the whole job: the task decides the loss it describes
        rows = describe_model(spec.to_job())
    except DescribeError as exc:
        raise SpecError(str(exc)) from None
    return [layer_from_row(r) for r in rows]
