"""The workload a command names, opened for the service: the flags its kind takes and refuses, one run length, the
script's environment (--env, --secret; a secret never in its arguments), a SkyPilot task read as the script it runs,
and what a measurement will do, said before it starts."""

from __future__ import annotations

import argparse
import shlex
from functools import singledispatch
from pathlib import Path
from typing import TYPE_CHECKING

from planner.cli.common import escape, note, stderr
from planner.cli.env import env_pairs, env_taken, say_env
from planner.errors import InputError
from planner.report.remarks import words
from planner.service import (
    SCRIPT_CAP_EXTRA_SECONDS,
    UNSTEADY_EXTENSION,
    PlannerService,
    ScriptEnv,
    ScriptWorkload,
    SpecWorkload,
)
from planner.service.inputs import parse_flag

if TYPE_CHECKING:
    from planner.service import Workload
    from planner.service.describe import OpenedTask


@singledispatch
def say_before_measuring(
    workload: object,
    service: PlannerService,
    args: argparse.Namespace,
    then: str = "",
    predict_only: bool = False,
    here: bool = True,
    validate: bool = False,
    device: str = "cpu",
) -> None:
    """What the measurement will do, said on stderr before it starts: a script's run here and where it is stopped
    (with --predict-only, its trace on the stand-in alone), or that a spec is measured in fp32 where this CPU would
    emulate its precision (`here`: this machine measures it, on `device`; every command measures a CPU so). Raises
    InputError (a script that is not there; a length it needs and lacks: a deadline's, `validate`'s)."""
    raise TypeError(f"not a workload: {workload!r}")


@say_before_measuring.register(SpecWorkload)
def _say_spec(
    workload: SpecWorkload,
    service: PlannerService,
    args: argparse.Namespace,
    *,
    predict_only: bool = False,
    here: bool = True,
    device: str = "cpu",
    **_: object,
) -> None:
    """A spec measured here in fp32 where this CPU would emulate its precision, said first."""
    if (
        here
        and not predict_only
        and (emulated := service.workloads.emulated_here(workload.spec, device))
    ):
        stderr().print(f"[yellow]note[/]: {escape(emulated)}", highlight=False)


@say_before_measuring.register(ScriptWorkload)
def _say_script(
    workload: ScriptWorkload,
    service: PlannerService,
    args: argparse.Namespace,
    *,
    then: str = "",
    predict_only: bool = False,
    validate: bool = False,
    **_: object,
) -> None:
    """A script's run here and where it is stopped; with --predict-only, its trace on the stand-in alone."""
    if not predict_only:
        _say_script_cap(service, workload, args, then, validate)
        return
    service.workloads.check_script(workload.path, workload.workdir)
    stderr().print(
        f"tracing {escape(workload.path)} on a stand-in GPU only (--predict-only): nothing of it runs here",
        highlight=False,
    )


def _say_script_cap(
    service: PlannerService,
    script: ScriptWorkload,
    args: argparse.Namespace,
    then: str = "",
    validate: bool = False,
) -> None:
    """Say, before it starts, what a script's measurement will do and where it is stopped (a script that is not
    there is refused first: InputError)."""
    service.workloads.check_script(script.path, script.workdir)
    service.workloads.check_length(script, getattr(args, "deadline", None), validate)
    running = " ".join([script.path, *script.args]) + (
        f" in {Path(script.workdir).resolve()}" if script.workdir else ""
    )
    epoch = (
        "; longer while an epoch under way can end before the cap: --epochs counts steps from a whole one"
        if script.epochs
        else ""
    )
    seconds = args.seconds
    if service.workloads.traced_first(script.path):
        stderr().print(
            f"{escape(script.path)} names CUDA: it is traced on a stand-in GPU first, and not run here if that "
            "trace says its step is too slow for this CPU.",
            highlight=False,
        )
    stderr().print(
        f"Running {escape(running)} here, unchanged: {seconds:g} s of training steps (at least 20; up to "
        f"{UNSTEADY_EXTENSION * seconds:g} s while the step time has not settled{epoch}). It is stopped, with "
        f"everything it started, at {seconds + SCRIPT_CAP_EXTRA_SECONDS:g} s if not finished"
        + (f"; {then}." if then else "."),
        highlight=False,
    )  # a terminal wraps it at words; a pipe keeps it one line


def check_script_flags(args: argparse.Namespace, flags: tuple[str, ...]) -> None:
    """Refuse the spec-only flags a script cannot honour, and two lengths of its run."""
    defaults = {"out": None, "device": "auto", "threads": None, "sweep": False, "processes": 1}
    given = [
        f"--{name.replace('_', '-')}"
        for name in flags
        if getattr(args, name, None) != defaults[name]
    ]
    if given == ["--threads"]:
        raise InputError(
            f"--threads {args.threads}: not for a training script (the planner does not change its code)",
            hint=f"set the script's threads in its environment: OMP_NUM_THREADS={args.threads} planner ... (the "
            "launcher and torch honour it)",
        )
    if given == ["--out"]:
        raise InputError(
            "--out: not for a training script's bench",
            hint="write its result with --json --out-file FILE",
        )
    if given:
        raise InputError(
            f"{', '.join(given)}: not for a training script (it picks its own device, threads and batch)",
            hint="give them to a spec, or set them in the script's own arguments after --",
        )
    check_one_length(args)


def check_one_length(args: argparse.Namespace) -> None:
    """A script's whole run has one length: --total-steps or --epochs, not both."""
    if getattr(args, "total_steps", None) and getattr(args, "epochs", None):
        raise InputError(
            "--total-steps and --epochs: give one length of the whole run, not both",
            hint="--total-steps N (optimizer steps) or --epochs N (DataLoader epochs)",
        )


SCRIPT_ONLY = (
    ("total_steps", "--total-steps"),
    ("epochs", "--epochs"),
    ("workdir", "--workdir"),
    ("requirements", "--requirements"),
    ("env", "--env"),
    ("secret", "--secret"),
    ("script_args", "arguments after --"),
)
# each as a script's command line takes it, and what a spec has in its place
SCRIPT_USAGE = {
    "--total-steps": ("--total-steps N", "its run is its train.epochs"),
    "--epochs": ("--epochs N", "its run is its train.epochs"),
    "--workdir": ("--workdir DIR", "its job runs in a folder of its own"),
    "--requirements": ("--requirements FILE", "its job needs torch alone"),
    "--env": ("--env NAME=VALUE", "its job takes no environment"),
    "--secret": ("--secret NAME", "its job takes no environment"),
    "arguments after --": ("", "its settings are its fields"),
}


def _script_flags_given(args: argparse.Namespace, but: tuple[str, ...]) -> list[str]:
    """The flags only a training script takes that the command line gives, `but` those (by their names)."""
    return [flag for name, flag in SCRIPT_ONLY if name not in but and getattr(args, name, None)]


def refuse_script_flags(
    args: argparse.Namespace, spec: str | None, but: tuple[str, ...] = ()
) -> None:
    """A spec given what only a training script takes: InputError naming exactly those given (`but`: the
    command's own flags of the same name, as validate's --epochs for a spec)."""
    given = _script_flags_given(args, but)
    if given:
        one = len(given) == 1 and given[0] != "arguments after --"
        it = "it" if one else "them"
        why = "; ".join(dict.fromkeys(SCRIPT_USAGE[flag][1] for flag in given))
        usage = " ".join(SCRIPT_USAGE[flag][0] for flag in given if SCRIPT_USAGE[flag][0])
        command = getattr(args, "command", None) or "COMMAND"
        raise InputError(
            f"{', '.join(given)}: {'is' if one else 'are'} for a training script (.py) or a "
            f"SkyPilot task, not {spec or 'a spec'}",
            hint=f"leave {it} out for a spec ({why}); a script takes {it}: "
            f"`planner {command} train.py {usage + ' ' if usage else ''}-- ARGS`",
        )


def refuse_saved_run_flags(args: argparse.Namespace, run_dir: str, takes_secrets: bool) -> None:
    """`planner tui RUN_DIR` given what the run itself keeps (its script's arguments, length, folder, requirements;
    a spec run's env too): InputError naming them, and where a run's length is changed (a trial: the message spoke
    of a spec to a script's run)."""
    given = _script_flags_given(args, ("env", "secret") if takes_secrets else ())
    if given:
        raise InputError(
            f"{', '.join(given)}: {run_dir} is a saved run: it keeps what it was run with"
            + ("" if takes_secrets else " (a spec's run takes no environment)"),
            hint="open it as it is; a script's run is planned for another length with s in the TUI, or with "
            "`planner plan RUN_DIR --total-steps N`",
        )
    if takes_secrets:
        env_taken(args)


def open_workload(
    service: PlannerService,
    args: argparse.Namespace,
    script_refuses: tuple[str, ...] = (),
    spec_takes: tuple[str, ...] = (),
) -> Workload:
    """The workload the command names, as the service opens it (a spec loaded and checked; a script with its
    arguments, length, folder and environment; a SkyPilot task as the script it runs), then the flags its kind does
    not take refused: `script_refuses`, the spec-only flags given to a script; `spec_takes`, the command's own flags
    of a script flag's name (validate's --epochs). Raises InputError, SpecError."""
    task = getattr(args, "task", None)
    workload = service.workloads.open(
        args.spec,
        getattr(args, "script_args", None) or [],
        getattr(args, "total_steps", None),
        getattr(args, "epochs", None),
        getattr(args, "workdir", None),
        getattr(args, "script_env", None),
        task.origin if task is not None else None,
        getattr(args, "requirements", None),
    )
    refuse_flags(workload, args, script_refuses, spec_takes)
    return workload


@singledispatch
def refuse_flags(
    workload: object,
    args: argparse.Namespace,
    script_refuses: tuple[str, ...],
    spec_takes: tuple[str, ...],
) -> None:
    """The flags a workload's kind does not take, refused (open_workload). Raises InputError."""
    raise TypeError(f"not a workload: {workload!r}")


@refuse_flags.register(SpecWorkload)
def _spec_refuses(
    workload: SpecWorkload,
    args: argparse.Namespace,
    script_refuses: tuple[str, ...],
    spec_takes: tuple[str, ...],
) -> None:
    refuse_script_flags(args, args.spec, spec_takes)


@refuse_flags.register(ScriptWorkload)
def _script_refuses(
    workload: ScriptWorkload,
    args: argparse.Namespace,
    script_refuses: tuple[str, ...],
    spec_takes: tuple[str, ...],
) -> None:
    check_script_flags(args, script_refuses)
    say_env(args)


def _given(argv: set[str], flag: str) -> bool:
    """Whether `flag` is on the command line (`--region X` or `--region=X`)."""
    return flag in argv or any(a.startswith(flag + "=") for a in argv)


def _is_task(service: PlannerService, path: str) -> bool:
    """Whether `path` is a SkyPilot task (one the planner cannot plan counts: its own error is said)."""
    try:
        return service.workloads.task(path) is not None
    except InputError:
        return True


def _resources_taken(args: argparse.Namespace, opened: OpenedTask, given: set[str]) -> list[str]:
    """The task's resources' region and use_spot as the flags they stand for, unless the command line `given` has
    --region or --purchase: what is said of them."""
    said: list[str] = []
    task = opened.task
    if opened.region and hasattr(args, "region") and not _given(given, "--region"):
        try:
            args.region = parse_flag("--region", opened.region)
        except ValueError as exc:
            raise InputError(
                f"{task.source}: resources.region: {exc}",
                hint="write an AWS region such as us-east-1 (or infra: aws/us-east-1), or pass --region",
            ) from None
        said.append(
            f"{task.source}: resources: priced in {args.region}, the task's region (--region overrides it)"
        )
    if opened.purchase and hasattr(args, "purchase") and not _given(given, "--purchase"):
        args.purchase = opened.purchase
        said.append(
            f"{task.source}: resources: use_spot: {'true' if opened.purchase == 'spot' else 'false'}: priced "
            f"{args.purchase} (--purchase overrides it)"
        )
    return said


def take_task(args: argparse.Namespace, argv: list[str] | None = None) -> None:
    """`planner COMMAND task.yaml [-- ARGS]`: a SkyPilot task read as the training script it runs
    (resolved by PlannerService.workloads.open_task): the arguments become those of `planner COMMAND WORKDIR/SCRIPT.py --workdir WORKDIR
    [--requirements FILE] -- TASK_ARGS ARGS`, said on stderr with what of the task is not used. Its resources' region
    and use_spot price the plan, as `sky launch` reads them, unless --region or --purchase is in `argv` (the command
    line: a config file's default is under the task's). A workload spec is left as it is."""
    spec = getattr(args, "spec", None)
    if not spec or not str(spec).endswith((".yaml", ".yml")):
        return
    service = PlannerService()
    try:
        env = env_pairs(getattr(args, "env", None), "--env")
        secrets = env_pairs(getattr(args, "secret", None), "--secret")
    except InputError:
        if not _is_task(service, spec):
            return  # a spec: it refuses --env and --secret itself (open_workload), before what they name
        raise
    opened = service.workloads.open_task(spec, env, secrets, getattr(args, "workdir", None))
    if opened is None:
        return
    task = opened.task
    args.task_file, args.task = spec, task
    args.spec, args.workdir = opened.script, opened.workdir
    args.script_args = [*task.args, *getattr(args, "script_args", [])]
    if opened.requirements and hasattr(args, "requirements") and not args.requirements:
        args.requirements = opened.requirements
    shown = " ".join(shlex.quote(a) for a in [args.spec, *args.script_args])
    head = (
        f"{task.source}: SkyPilot task{f' {task.name}' if task.name else ''}: runs `python {shown}` in its workdir "
        f"{opened.workdir}"
        + (
            f", with setup's requirements {args.requirements}"
            if getattr(args, "requirements", None) and task.requirements
            else ""
        )
    )
    said = _resources_taken(args, opened, set(argv or []))
    task_said = [head, *words(task.notes), *said]
    # the TUI shows them too (this line is gone once it takes the screen)
    args.task_said = task_said
    stderr().print(head, markup=False, highlight=False, soft_wrap=True)
    for line in task_said[1:]:
        note(line)
    if hasattr(args, "env"):
        args.script_env = ScriptEnv.of(task.envs, task.secrets)
