"""`planner estimate`, `planner plan`, `planner calibrate`: plans (`planner run`: cli/run.py)."""

from __future__ import annotations

import argparse
import shlex
from functools import singledispatch
from typing import TYPE_CHECKING

from planner.cli.common import (
    check_chart,
    default_region,
    progress,
    stderr,
    stdout,
    write_chart,
)
from planner.cli.plan_output import print_plan
from planner.cli.workload import check_one_length, open_workload, say_before_measuring
from planner.errors import ExitCode
from planner.report.answers import predicted_footer
from planner.report.remarks import word
from planner.report.remarks.script import length_text
from planner.report.text import escape
from planner.service import (
    PlanChoice,
    PlannerService,
    ScriptLength,
    ScriptWorkload,
    SpecWorkload,
    plan_options,
    script_command,
)

if TYPE_CHECKING:
    from planner.service import PlanDocument, PlanOptions


def options_of(args: argparse.Namespace, region: str) -> PlanOptions:
    """The plan options a command's flags choose, priced in `region`."""
    return plan_options(
        args.objective,
        args.deadline,
        time_value_per_hour=args.time_value,
        local_price_per_hour=args.local_price,
        region=region,
        purchase=args.purchase,
    )


def cmd_estimate(args: argparse.Namespace) -> int:
    check_chart(args.chart)  # before the bench
    service = PlannerService()
    region = args.region or default_region()
    workload = open_workload(service, args, ("threads",))
    options = options_of(args, region)
    say_before_measuring(workload, service, args, predict_only=args.predict_only)
    with progress() as on_progress:
        doc = service.estimate(
            workload,
            options,
            args.seconds,
            gpu=True if args.gpu else False if args.cpu else None,
            on_progress=on_progress,
            predict_only=args.predict_only,
            threads=args.threads,
        )
    print_plan(doc, args)
    if args.format == "table":
        _print_predicted_footer(doc, *suggested_command(workload, args), explain=args.explain)
    write_chart(doc, args.chart)
    return _answer_code(doc)


def _answer_code(doc: PlanDocument) -> int:
    """An estimate's exit code: 1 when nothing can run the workload (no option: the headline says why), else 0."""
    return ExitCode.OK if doc.recommendation.target else ExitCode.RUNTIME_FAILURE


@singledispatch
def suggested_command(workload: object, args: argparse.Namespace) -> tuple[str, list[str] | None]:
    """The workload as a suggested `planner run` names it, and the script's arguments after `--` (None: a spec)."""
    raise TypeError(f"not a workload: {workload!r}")


@suggested_command.register(SpecWorkload)
def _spec_command(workload: SpecWorkload, args: argparse.Namespace) -> tuple[str, list[str] | None]:
    """A spec as the user named it."""
    return shlex.quote(args.spec), None


@suggested_command.register(ScriptWorkload)
def _script_command(
    workload: ScriptWorkload, args: argparse.Namespace
) -> tuple[str, list[str] | None]:
    """A SkyPilot task as the user gave it (its own arguments in it), a script where it runs, and its length."""
    task = getattr(args, "task", None)
    if task is not None:
        named = script_command(args.task_file, None, args.total_steps, args.epochs)
        return named + env_flags(args), args.script_args[len(task.args) :]
    named = script_command(args.spec, args.workdir, args.total_steps, args.epochs)
    return named + env_flags(args), args.script_args


def env_flags(args: argparse.Namespace) -> str:
    """The --env and --secret given, as a suggested command repeats them: a secret (or an env named like one) by
    its name alone, so its value is taken from the environment and never printed."""
    flags = []
    for option, values in (("--env", args.env or []), ("--secret", args.secret or [])):
        for value in values:
            name, eq, given = value.partition("=")
            shown = (
                name
                if option == "--secret" or name in args.script_env.secrets or not eq
                else f"{name}={given}"
            )
            flags.append(f" {option} {shlex.quote(shown)}")
    return "".join(flags)


def _print_predicted_footer(
    doc: PlanDocument, spec: str, script_args: list[str] | None = None, explain: bool = True
) -> None:
    """Under a plan with predicted rows: where they come from, and the paid benchmarks that would settle it."""
    out = stdout()
    for line in predicted_footer(doc, spec, script_args, explain):
        # a command is one line however long: the terminal wraps it, a paste runs it
        command = "planner run " in line
        out.print(line, highlight=False, markup=False, soft_wrap=command)


def cmd_plan(args: argparse.Namespace) -> int:
    overrides = PlanChoice(
        args.objective, args.deadline, args.time_value, args.local_price, args.region, args.purchase
    )
    check_chart(args.chart)  # before the plan
    service = PlannerService()
    check_one_length(args)
    length = (
        ScriptLength(args.total_steps, args.epochs) if args.total_steps or args.epochs else None
    )
    doc = service.replan(args.run_dir, overrides, measured_only=args.measured_only, length=length)
    what_if = doc.what_if_length
    print_plan(doc, args, saved=what_if is None)
    if length is not None:  # which length the run keeps, and whether this one is a what-if
        if what_if is None:
            note = (
                f"{escape(length_text(length.total_steps, length.epochs))} kept as the run's length (its "
                "script.json): a plan without a length plans it, another length is a what-if"
            )
        elif args.format == "table" and (args.explain or getattr(args, "verbose", False)):
            # the notes above name the what-if when they are listed (it was said twice)
            note = "a plan without a length plans the run's own, and its plan.json stays that plan"
        else:
            note = f"{escape(word(what_if))}; a plan without a length plans that, and its plan.json stays that plan"
        stderr().print(f"note: {note}", highlight=False)
    if args.format == "table" and not args.measured_only:
        named, script_args = service.journals.saved(args.run_dir).again(length)
        _print_predicted_footer(doc, named, script_args, explain=args.explain)
    write_chart(doc, args.chart)
    return ExitCode.OK if doc.recommendation.target else ExitCode.RUNTIME_FAILURE


def cmd_calibrate(args: argparse.Namespace) -> int:
    done = PlannerService().calibrate(args.run_dirs, args.dry_run)
    out = stdout()
    if not done.points:
        stderr().print(
            "no measured GPU or cloud CPU results in these runs: nothing to calibrate (a run with aws: "
            "targets has them: planner run SPEC --targets local,aws:TYPE)",
            highlight=False,
        )
        return ExitCode.OK
    for p in done.points:
        out.print(
            f"{p.device:12s} {p.workload:20s} measured {p.measured_step_seconds * 1e3:9.3f} ms  "
            f"predicted {p.predicted_step_seconds * 1e3:9.3f} ms  x{p.ratio:.2f}",
            highlight=False,
        )
    if done.saved_to is not None:
        stderr().print(
            f"saved to {done.saved_to}; corrections now: "
            + ", ".join(f"{k} x{v:.2f}" for k, v in sorted(done.corrections.items())),
            highlight=False,
        )
    return ExitCode.OK
