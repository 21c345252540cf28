"""`planner run`: measured here and on rented instances, journaled, planned; its dry run, its launch guards and
how it ends (Ctrl-C, instances left running)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from planner.cli.common import (
    default_region,
    escape,
    print_json,
    print_plan,
    progress,
    stderr,
)
from planner.cli.plan import options_of
from planner.cli.workload import open_workload, say_before_measuring
from planner.errors import ExitCode
from planner.report.answers import left_running_line
from planner.report.choices import choice_reason, choice_words
from planner.report.remarks import word
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
    from planner.service import LeftRunning, Measured, PlanDocument, Workload


# `auto`'s instances not benchmarked, listed on stderr (--json has every one)
AUTO_SKIPPED_SHOWN = 8


def cmd_run(args: argparse.Namespace) -> int:
    service = PlannerService()
    if args.out is not None:
        # a file, a non-empty directory, a path too long: refused before any work
        check_run_dir(args.out)
    targets = parse_targets(args.targets)
    region = args.region or default_region()
    options = options_of(args, region)
    workload = open_workload(service, args, ("processes", "threads"))
    # the guards not given are AwsOptions' own
    given = ("ami_type", "max_bench_minutes", "bench_budget", "max_instances")
    aws = AwsOptions(
        region=region,
        purchase=args.purchase,
        ami=args.ami,
        subnet=args.subnet,
        bucket=args.bucket,
        poll_seconds=args.poll_seconds,
        fallback=args.fallback,
        **{name: getattr(args, name) for name in given if getattr(args, name) is not None},
    )
    service.check_run(workload, targets, aws)  # a dry run refuses what the run would
    err = stderr()
    if targets.aws_types or targets.auto:  # what it may launch and bill, said first, also with -y
        if not _may_launch(service, args, targets, aws, workload, options):
            return ExitCode.OK if args.dry_run else ExitCode.RUNTIME_FAILURE
    elif args.dry_run:
        err.print(
            "nothing to launch: every target is this machine (--dry-run launches nothing anyway)",
            highlight=False,
        )
        if args.format == "json":
            print_json(_dry_run_json(service, workload, targets, None))
        return ExitCode.OK

    # labels name journal files (aws-g5.xlarge); lines name targets as the plan does (aws:g5.xlarge)
    def on_result(label: str, measured: Measured) -> None:
        r = measured.result  # a message may quote a log ("[planner 12:00:00] ..."): escaped
        if r.status == "ok":
            err.print(
                f"[green]measured[/] {label_text(label)}: {seconds_text(r.step_seconds)}/step on "
                f"{escape(r.device_name)}{escape(interrupted_text(r))}",
                highlight=False,
            )
        else:
            err.print(
                f"[red]{r.status}[/] {label_text(label)}: {escape(r.message)}", highlight=False
            )

    def on_state(label: str, state: str, elapsed: float, cost: float) -> None:
        if label.startswith("aws-"):
            err.print(
                f"[{elapsed:5.0f} s] {label_text(label)}: {state}  (${cost:.4f} so far)",
                highlight=False,
            )

    def on_notice(label: str, text: str) -> None:
        err.print(
            f"{label_text(label)}: {text}" if label else text,
            style="yellow",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )

    def on_choices(choices: list) -> None:
        _say_choices(choices)

    say_before_measuring(workload, service, args, here=any(not t.cloud for t in targets.targets))
    try:
        with progress() as on_progress:
            callbacks = RunCallbacks(
                on_progress=on_progress,
                on_result=on_result,
                on_state=on_state,
                on_choices=on_choices,
                on_notice=on_notice,
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


def _say_choices(choices: list, verb: str = "benchmarking") -> None:
    """`auto`'s choice on stderr: the instances it benchmarks, each with why, and the first it leaves out."""
    err = stderr()
    chosen = [c for c in choices if c.benchmark]
    left = [c for c in choices if not c.benchmark]
    said = f"auto: {verb} {len(chosen)} of {len(choices)} candidate instances"
    if not chosen and left and all(c.here_wins for c in left):
        err.print(
            f"{said}: training here wins clearly, whatever an instance measures (--json lists each and why)",
            highlight=False,
        )
        return
    err.print(said, highlight=False)
    for c in chosen:
        err.print(f"  + {c.target}: {choice_reason(c)}", highlight=False)
    for c in left[:AUTO_SKIPPED_SHOWN]:
        err.print(f"  - {c.target}: {choice_reason(c)}", highlight=False)
    if len(left) > AUTO_SKIPPED_SHOWN:
        err.print(
            f"  ... and {len(left) - AUTO_SKIPPED_SHOWN} more not benchmarked (--json lists each and why)",
            highlight=False,
        )


def _auto_preview(
    service: PlannerService,
    args: argparse.Namespace,
    workload: Workload,
    options,
    aws: AwsOptions,
    no_credentials: bool = False,
) -> list:
    """`run --targets auto --dry-run`: this machine measured (free) and `auto`'s choice made as a run makes it;
    said on stderr with what it would launch (`no_credentials`: what it would choose, which a run without them does not
    launch). Returns the choices."""
    err = stderr()
    err.print(
        "dry run: measuring here to choose what auto would benchmark (free: nothing is rented)",
        highlight=False,
    )
    # as the run says it (a precision measured in fp32)
    say_before_measuring(workload, service, args)
    with progress() as on_progress:
        preview = service.auto_preview(workload, options, aws, args.seconds, on_progress)
    _say_choices(preview.choices, verb="would choose" if no_credentials else "would benchmark")
    # chosen for 1,000 steps: at another length, auto may choose others
    if preview.per_steps is not None:
        err.print(f"[yellow]note[/]: {escape(word(preview.per_steps))}", highlight=False)
    choices = preview.choices
    chosen = [c.instance_type for c in choices if c.benchmark]
    if chosen:  # the bill and the quotas, also without credentials (as a dry run of named instances says them)
        for line in service.launch_preview(chosen, aws).lines():
            err.print(line, highlight=False, markup=False, soft_wrap=True)
    return choices


def _may_launch(
    service: PlannerService,
    args: argparse.Namespace,
    targets,
    aws: AwsOptions,
    workload: Workload,
    options,
) -> bool:
    """Say what would be launched and its worst-case cost (always: -y skips the question, not the facts).
    `--dry-run`: launch nothing (False). On a terminal, ask "Proceed? [y/N]" (-y/--yes skips it); without one
    (a script, CI) never wait for input (True). A script's folder is listed here when the user is asked or
    it is a dry run; otherwise the run lists it as it ships, right before launching."""
    err = stderr()
    preview = (
        service.launch_preview(targets.aws_types, aws, workload, options)
        if targets.aws_types
        else None
    )  # bad input refused first
    lines = preview.lines() if preview is not None else []
    refusal = preview.quota_refusal() if preview is not None else None
    if not args.dry_run:
        # no credentials here: refused before anything is said or run
        service.check_credentials(targets.aws_types)
        # EC2 would refuse it for want of vCPU quota: refused before anything starts
        if refusal is not None:
            raise refusal
    elif refusal is not None:
        lines.append(f"a run would be refused: {refusal.message}; to fix: {refusal.hint}")
    if targets.auto:
        lines.append(
            f"auto: measures here first, then benchmarks the instances that could change the decision, "
            f"worst case within --bench-budget ${aws.bench_budget:.2f}"
        )
    if args.deadline:
        lines.append(f"the plan's deadline: {seconds_text(args.deadline)}")
    problem = service.account.credentials_problem() if args.dry_run else None
    if problem:
        lines.append(
            f"a run would {'refuse these instances' if targets.aws_types else 'benchmark none of what auto chooses'}: "
            f"{problem}" + ("; or measure here only: --targets local" if targets.aws_types else "")
        )
    asking = args.dry_run or (not args.yes and sys.stdin.isatty())
    if (
        (targets.aws_types or targets.auto)
        and asking
        and (shipped := service.workloads.ships(workload)) is not None
    ):
        lines += shipped.lines()
    for line in lines:
        err.print(line, highlight=False, markup=False, soft_wrap=True)
    if args.dry_run:
        choices = (
            _auto_preview(service, args, workload, options, aws, bool(problem))
            if targets.auto
            else None
        )
        err.print("dry run: nothing launched", highlight=False)
        if args.format == "json":
            print_json(_dry_run_json(service, workload, targets, aws, choices))
        return False
    if args.yes or not sys.stdin.isatty():
        return True  # -y, scripts and CI: no prompt; the guards above hold
    try:
        answer = input("Proceed? [y/N] ")
    except EOFError:
        answer = ""
    if answer.strip().lower() in ("y", "yes"):
        return True
    err.print("aborted: nothing launched", highlight=False)
    return False


def _dry_run_json(
    service: PlannerService,
    workload: Workload,
    targets,
    aws: AwsOptions | None,
    choices: list | None = None,
) -> dict:
    """`run --dry-run --json`: what the lines on stderr say, for a program: the instances, their prices and worst
    case, the guards, `auto`'s choice (`auto_choices`, each with why; its instances are in `launch`), and (a
    script) the files that would ship and what was left out."""
    launch = None
    types = list(
        dict.fromkeys(
            [
                *targets.aws_types,
                *(c.instance_type for c in choices or [] if c.benchmark),
            ]
        )
    )
    if aws is not None and types:
        p = service.launch_preview(types, aws, workload)
        launch = {
            "region": p.region,
            "purchase": p.purchase,
            "ami": p.ami,
            "instances": [
                {
                    "target": f"aws:{t}",
                    "price_per_hour": price,
                    "worst_case_usd": worst,
                    **(
                        {"fallback_next": [f"aws:{n}" for n in p.next_types.get(t, [])]}
                        if p.next_types is not None
                        else {}
                    ),
                }
                for t, price, worst in p.instances
            ],
            "worst_case_usd": p.worst_case_usd,
            "bench_budget_usd": p.budget_usd,
            "deadman_minutes": p.deadman_minutes,
            "grace_minutes": p.grace_minutes,
            "max_instances": p.max_instances,
            "quotas": [
                {
                    "name": q.name,
                    "code": q.code,
                    "vcpus": q.limit,
                    "in_use": q.used,
                    "needed": q.needed,
                    "types": list(q.types),
                    "over": q.over,
                    "not_read": q.problem or None,
                }
                for q in p.quotas
            ],
        }
    out: dict = {
        "dry_run": True,
        "targets": [t.name for t in targets.targets],
        "auto": targets.auto,
        "launch": launch,
        **({"auto_choices": [choice_words(c) for c in choices]} if choices is not None else {}),
        "credentials_problem": service.account.credentials_problem()
        if targets.aws_types or targets.auto
        else None,
    }
    if (targets.aws_types or targets.auto) and (
        shipped := service.workloads.ships(workload)
    ) is not None:
        out["ships"] = {
            "folder": str(shipped.folder),
            "files": [name for _, name in shipped.files],
            "total_bytes": shipped.total_bytes,
            "left_out": [{"path": path, "why": why} for path, why in shipped.left_out],
        }
    return out


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
