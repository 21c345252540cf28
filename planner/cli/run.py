"""`planner run`: measured here and on rented instances, journaled, planned; its dry run, its launch guards and
how it ends (Ctrl-C, instances left running)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from planner.cli.common import (
    default_region,
    escape,
    print_json,
    progress,
    stderr,
)
from planner.cli.launching import dry_run_json, may_launch, say_choices
from planner.cli.plan import options_of
from planner.cli.plan_output import print_plan
from planner.cli.workload import open_workload, say_before_measuring
from planner.errors import ExitCode
from planner.report.answers import left_running_line
from planner.report.text import interrupted_text, label_text, seconds_text
from planner.service import (
    AwsOptions,
    BenchOptions,
    PlannerService,
    RunCallbacks,
    RunStopped,
    parse_targets,
)
from planner.service.inputs import check_run_dir

if TYPE_CHECKING:
    from planner.service import LeftRunning, Measured, PlanDocument


def cmd_run(args: argparse.Namespace) -> int:
    service = PlannerService()
    if args.out is not None:
        # a file, a non-empty directory, a path too long: refused before any work
        check_run_dir(args.out)
    targets = parse_targets(args.targets)
    region = args.region or default_region()
    options = options_of(args, region)
    workload = open_workload(service, args, ("processes", "threads"))
    aws = _aws_options(args, region)
    service.check_run(workload, targets, aws)  # a dry run refuses what the run would
    err = stderr()
    if targets.aws_types or targets.auto:  # what it may launch and bill, said first, also with -y
        if not may_launch(service, args, targets, aws, workload, options):
            return ExitCode.OK if args.dry_run else ExitCode.RUNTIME_FAILURE
    elif args.dry_run:
        err.print(
            "nothing to launch: every target is this machine (--dry-run launches nothing anyway)",
            highlight=False,
        )
        if args.format == "json":
            print_json(dry_run_json(service, workload, targets, None))
        return ExitCode.OK

    say_before_measuring(workload, service, args, here=any(not t.cloud for t in targets.targets))
    try:
        with progress() as on_progress:
            callbacks = RunCallbacks(
                on_progress=on_progress,
                on_result=_said_result,
                on_state=_said_state,
                on_choices=say_choices,
                on_notice=_said_notice,
            )
            doc, _journal, _session = service.run(
                workload,
                targets,
                options,
                BenchOptions(seconds=args.seconds, processes=args.processes, threads=args.threads),
                Path(args.out) if args.out else None,
                callbacks,
                aws,
            )
    except RunStopped as exc:  # Ctrl-C, SIGTERM, SIGHUP: the run's journal and what it left
        return _interrupted(exc)
    except KeyboardInterrupt:  # before the run began
        return _interrupted(None)
    print_plan(doc, args)
    if doc.bench_cost_usd is not None:
        err.print(
            f"bench instances: about ${doc.bench_cost_usd:.4f} billed (per-second, 60 s minimum each, root volume included)",
            highlight=False,
        )
    return _run_exit_code(doc)


def _aws_options(args: argparse.Namespace, region: str) -> AwsOptions:
    """The run's AWS options from its flags (the guards not given are AwsOptions' own)."""
    given = ("ami_type", "max_bench_minutes", "bench_budget", "max_instances")
    return AwsOptions(
        region=region,
        purchase=args.purchase,
        ami=args.ami,
        subnet=args.subnet,
        bucket=args.bucket,
        poll_seconds=args.poll_seconds,
        fallback=args.fallback,
        **{name: getattr(args, name) for name in given if getattr(args, name) is not None},
    )


# A run's events on stderr as they come. Labels name journal files (aws-g5.xlarge); lines name targets as the plan
# does (aws:g5.xlarge); a message may quote a log ("[planner 12:00:00] ..."): escaped.


def _said_result(label: str, measured: Measured) -> None:
    r = measured.result
    if r.status == "ok":
        stderr().print(
            f"[green]measured[/] {label_text(label)}: {seconds_text(r.step_seconds)}/step on "
            f"{escape(r.device_name)}{escape(interrupted_text(r))}",
            highlight=False,
        )
    else:
        stderr().print(
            f"[red]{r.status}[/] {label_text(label)}: {escape(r.message)}", highlight=False
        )


def _said_state(label: str, state: str, elapsed: float, cost: float) -> None:
    if label.startswith("aws-"):
        stderr().print(
            f"[{elapsed:5.0f} s] {label_text(label)}: {state}  (${cost:.4f} so far)",
            highlight=False,
        )


def _said_notice(label: str, text: str) -> None:
    stderr().print(
        f"{label_text(label)}: {text}" if label else text,
        style="yellow",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )


def _interrupted(exc: RunStopped | None) -> int:
    """SIGINT, SIGTERM, SIGHUP: everything the run started was terminated, or is named here (`exc` None: stopped
    before the run began, nothing started)."""
    _print_unterminated(exc.unterminated if exc is not None else [])
    run_dir = exc.run_dir if exc is not None else None
    if exc is not None and run_dir and exc.results == 0:
        where = f": stopped before any result, so there is nothing to plan yet ({run_dir} holds only the spec); run it again"
    elif run_dir:
        where = f": the results measured so far are in {run_dir}; `planner plan {run_dir}` plans from them"
    else:
        where = ""
    stderr().print(
        f"interrupted ({exc.signal_name if exc is not None and exc.signal_name else 'SIGINT'}){where}",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    return 128 + (exc.signum if exc is not None and exc.signum is not None else 2)


def _print_unterminated(instances: list[LeftRunning]) -> None:
    err = stderr()
    for left in instances:
        err.print(
            left_running_line(left), style="bold red", markup=False, highlight=False, soft_wrap=True
        )


def _run_exit_code(doc: PlanDocument) -> int:
    """0: everything measured and cleaned up; 3 (incomplete): an instance left running, or a plan
    without some target that failed; 1: nothing to recommend."""
    left, failed, cut = (
        doc.unterminated or [],
        doc.failed_targets or [],
        doc.interrupted_targets or [],
    )
    _print_unterminated(left)
    if left:
        return ExitCode.INCOMPLETE
    if not doc.recommendation.target:
        return ExitCode.RUNTIME_FAILURE
    kept = [label_text(label) for label in cut if label not in failed]
    reclaimed = [label_text(label) for label in failed if label in cut]
    failed = [label_text(label) for label in failed if label not in cut]
    if failed or kept or reclaimed:
        what = "; ".join(
            part
            for part in (
                f"{', '.join(failed)} failed (see above)" if failed else "",
                f"{', '.join(reclaimed)} reclaimed by spot before it measured enough steps (see above)"
                if reclaimed
                else "",
                f"{', '.join(kept)} interrupted by a spot reclaim (its steps until then are "
                "planned)"
                if kept
                else "",
            )
            if part
        )
        stderr().print(
            f"incomplete: {what}; the plan is of what was measured and predicted",
            markup=False,
            highlight=False,
        )
        return ExitCode.INCOMPLETE
    return ExitCode.OK
