"""What a run would launch, said before it starts (planner/cli/run.py): the instances, their bill and guards, `auto`'s
choice and why, the files a script ships; `--dry-run` says it all and launches nothing (`--json` for a program); on a
terminal the run asks before launching."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from planner.cli.common import escape, print_json, progress, stderr
from planner.cli.workload import say_before_measuring
from planner.report.choices import choice_reason, choice_words
from planner.report.remarks import word
from planner.report.text import seconds_text
from planner.service import AwsOptions, PlannerService

if TYPE_CHECKING:
    from planner.service import LaunchPreview, Workload

# `auto`'s instances not benchmarked, listed on stderr (--json has every one)
AUTO_SKIPPED_SHOWN = 8


def say_choices(choices: list, verb: str = "benchmarking") -> None:
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
    say_choices(preview.choices, verb="would choose" if no_credentials else "would benchmark")
    # chosen for 1,000 steps: at another length, auto may choose others
    if preview.per_steps is not None:
        err.print(f"[yellow]note[/]: {escape(word(preview.per_steps))}", highlight=False)
    choices = preview.choices
    chosen = [c.instance_type for c in choices if c.benchmark]
    if chosen:  # the bill and the quotas, also without credentials (as a dry run of named instances says them)
        for line in service.launch_preview(chosen, aws).lines():
            err.print(line, highlight=False, markup=False, soft_wrap=True)
    return choices


def may_launch(
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
    problem = service.account.credentials_problem() if args.dry_run else None
    for line in _launch_lines(service, args, targets, aws, workload, options, problem):
        err.print(line, highlight=False, markup=False, soft_wrap=True)
    if args.dry_run:
        choices = (
            _auto_preview(service, args, workload, options, aws, bool(problem))
            if targets.auto
            else None
        )
        err.print("dry run: nothing launched", highlight=False)
        if args.format == "json":
            print_json(dry_run_json(service, workload, targets, aws, choices))
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


def _launch_lines(
    service: PlannerService,
    args: argparse.Namespace,
    targets,
    aws: AwsOptions,
    workload: Workload,
    options,
    problem: str | None,
) -> list[str]:
    """What a launch would start and its guards, in lines; a run (not a dry run) without credentials or quota is
    refused here, before anything is said or started (`problem`: a dry run's credentials problem)."""
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
    return lines


def dry_run_json(
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
    chosen = [c.instance_type for c in choices or [] if c.benchmark]
    types = list(dict.fromkeys([*targets.aws_types, *chosen]))
    if aws is not None and types:
        launch = _launch_json(service.launch_preview(types, aws, workload))
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


def _launch_json(p: LaunchPreview) -> dict:
    """A dry run's launch as JSON: the instances, their prices and worst case, the guards and the quotas."""
    return {
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
