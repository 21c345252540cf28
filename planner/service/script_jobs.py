"""What a run of a user's script measures, as the journal keeps it (its job: the script, its arguments, its length,
its envs; its secrets by name only), as a plan states it, what it ships (its requirements inside the folder that
ships), what is refused before it starts, and what to do when it fails."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from planner.core.candidates import LOCAL
from planner.core.document import SCRIPT_KIND, PlanOptions, ScriptSummary, TaskChoice
from planner.core.script import ScriptEnv, ScriptEstimate, ScriptJob, ScriptRun, gpu_precision
from planner.errors import InputError
from planner.units import shown_path

if TYPE_CHECKING:
    import pandas as pd

    from planner.service.settings import AwsOptions, TargetChoice
    from planner.service.workload import ScriptWorkload


def script_job(
    workload: ScriptWorkload, seconds: float, workdir: Path | None, env: ScriptEnv
) -> ScriptJob:
    """What a run of the script measures, as the journal keeps it (its envs; its secrets by name only; the task that
    named it)."""
    return ScriptJob(
        shown_path(workload.path),
        str(Path(workload.path).resolve()),
        list(workload.args),
        workload.total_steps,
        workload.epochs,
        seconds,
        str(workdir) if workdir is not None else None,
        env.envs,
        list(env.secrets),
        workload.task,
    )


def requirements_path(folder: Path, requirements: str) -> str:
    """The requirements file as the instance finds it: inside the folder that ships (the script's, or --workdir)."""
    path = Path(requirements).resolve()
    if not path.is_file():
        raise InputError(
            f"--requirements {shown_path(requirements)}: no such file",
            hint="give the script's requirements.txt",
        )
    if folder not in path.parents:
        raise InputError(
            f"--requirements {shown_path(requirements)}: not inside the folder that ships, {folder}",
            hint="keep requirements.txt beside the script (or in --workdir): that folder is what ships",
        )
    return path.relative_to(folder).as_posix()


def refuse_fallback_without_here(targets: TargetChoice, aws: AwsOptions) -> None:
    """A script's --fallback next ranks the next-best instances by the plan of its measurement here: refused, before
    anything runs or is said, when --targets leaves this machine out. Raises InputError."""
    if aws.fallback == "next" and LOCAL not in targets.targets:
        raise InputError(
            "--fallback next: a script's next-best instance is ranked by the plan of its measurement "
            "here, and --targets leaves this machine out",
            hint="add local to --targets (auto has it)",
        )


def script_summary(job: ScriptJob, run: ScriptRun, est: ScriptEstimate) -> ScriptSummary:
    """The script as a plan's title states it."""
    per_epoch = int(round(est.steps_per_epoch)) if est.steps_per_epoch else None
    return ScriptSummary(
        job.script,
        SCRIPT_KIND,
        None,
        None,
        None,
        est.epochs if per_epoch else None,
        per_epoch,
        est.total_steps,
        gpu_precision(run),
        None,
        script_args=list(job.args),
        step_boundary=run.boundary,
    )


def task_choice(job: ScriptJob, frame: pd.DataFrame, options: PlanOptions) -> TaskChoice | None:
    """The SkyPilot task's own pick of instances (its resources), priced; None when it picks none."""
    from pricing.catalog import instances

    if job.task is None or job.task.asks is None or not job.task.asks.chooses:
        return None
    asks = job.task.asks
    there = instances(frame, region=options.region, purchase=options.purchase)
    allowed = [f"aws:{f.instance_type}" for f in there if asks.matches(f)]
    names = {a.name.lower() for a in asks.accelerators}
    asked = {(a.name.lower(), a.count) for a in asks.accelerators}
    # SkyPilot matches an accelerator's count exactly: A100:1 is no AWS instance, A100:8 is (a count it asked for
    # and its cpus ruled out is not one to offer)
    other = sorted(
        {
            f"{f.gpu_name}:{f.gpu_count} aws:{f.instance_type}"
            for f in there
            if not allowed
            and f.gpu_name
            and f.gpu_name.lower() in names
            and (f.gpu_name.lower(), f.gpu_count) not in asked
        }
    )
    return TaskChoice(job.task.source, asks.written, allowed, other)


# the file an OSError names: "[Errno 2] No such file or directory: 'data/train.pt'"
_MISSING_FILE = re.compile(r"No such file or directory: '([^']+)'")


def _here_not_there(own: str, cwd: Path) -> bool:
    """The file the script missed is found from here and not from its folder, or, one it writes, its folder is (a
    trial: --workdir . was suggested for an absolute path that exists nowhere). True when the error names no file:
    the hint may still be the fix."""
    named = _MISSING_FILE.findall(own)
    if not named:
        return True
    missed = Path(named[-1])
    if missed.is_absolute():
        return False
    here, there = Path.cwd() / missed, cwd / missed
    if here.exists():
        return not there.exists()
    # a file it writes (checkpoints/m.pt): its folder is here and not there (a review)
    return here.parent.is_dir() and not there.parent.is_dir()


# argparse's refusal of a command line that lacks what it requires (an argument given badly was given after --)
_ARGPARSE_REQUIRED = re.compile(r"error: the following arguments are required: (\S+?)[,\s]")


def failure_hint(own: str, path: Path, script: str | Path, cwd: Path, stepped: bool) -> str:
    """The fix for a script that failed with its own error `own` ('' when there is none to say): run in its own folder
    it looked for a file here; it read its standard input; its parser refused its command line (before a step)."""
    # run from its own folder below this one (also when the caller resolved the default), it looked for a file
    if (
        cwd == path.resolve().parent
        and "No such file or directory" in own
        and Path.cwd() in cwd.parents
        and _here_not_there(own, cwd)
    ):
        return (
            f"it ran in its own folder, {shown_path(str(cwd))}; to run it from here, as "
            f"`python {shown_path(str(script))}` would, give --workdir ."
        )
    if "EOFError" in own and ("input(" in own or "EOF when reading a line" in own):
        return (
            "it read its standard input: the planner runs a script with none (no terminal, as on an "
            "instance); give it its answers as arguments or environment variables"
        )
    # a trial: a required --lr, and no word of where a script's arguments go
    required = _ARGPARSE_REQUIRED.search(own + "\n") if not stepped and "usage:" in own else None
    if required is not None:
        flag = required.group(1)
        value = " VALUE" if flag.startswith("-") else ""
        return (
            "give the script its own arguments after -- (the planner's go before it): "
            f"planner COMMAND {path.name} [the planner's flags] -- {flag}{value} ..."
        )
    return ""
