"""`planner prices`, `planner ls`, `planner reap`, `planner infra`, and `planner tui`."""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict

from planner.cli.common import (
    default_region,
    print_json,
    print_shown,
    print_table,
    stderr,
    stdout,
    warn,
)
from planner.cli.env import say_env
from planner.cli.workload import refuse_saved_run_flags, refuse_script_flags
from planner.errors import ExitCode, InputError
from planner.report.plan import GroupBy
from planner.report.prices import no_prices_text, prices_json, prices_table, shown_prices
from planner.report.tables import instances_table
from planner.service import PlannerService, PriceQuery, is_script
from planner.service.inputs import check_spec_file


def cmd_prices(args: argparse.Namespace) -> int:
    query = PriceQuery(
        region=args.region,
        gpu=True if args.gpu else False if args.cpu else None,
        arch=args.arch,
        min_gpu_memory_gb=args.min_gpu_memory,
        max_price=args.max_price,
        purchase=args.purchase,
        sort=args.sort,
        gpus=args.gpus,
    )
    if args.all_regions and args.region:
        raise InputError(
            f"--all-regions and --region {args.region}: one region, or the cheapest of each",
            hint="give one of them",
        )
    if args.source and not args.refresh:
        raise InputError(
            f"--source {args.source}: says where --refresh reads prices from; without --refresh nothing is read",
            hint=f"planner prices --refresh --source {args.source}",
        )
    source = args.source or "catalog"
    account = PlannerService().account
    if args.refresh:
        where = "the hosted catalog" if source == "catalog" else "AWS's Price List API"
        with stderr().status(f"reading prices from {where} ..."):
            prices = account.prices(query, refresh=True, warn=warn, source=source)
    else:
        prices = account.prices(query, warn=warn)
    if args.json:  # nothing found: `instances: []`, and the reason below
        print_json(prices_json(prices))
    elif prices.rows:  # nothing found: no empty table, the reason alone
        # GPUs asked for: each machine
        group_by: GroupBy = "instance" if args.gpus and args.rows_defaulted else args.group_by
        shown_rows, shown = shown_prices(
            prices.rows, group_by, args.max_rows, by_region=args.all_regions
        )
        print_table(args, prices_table(prices, shown_rows, args.purchase, query.one_region))
        print_shown(args, shown)
    if prices.no_match is not None:
        stderr().print(
            no_prices_text(prices.no_match),
            highlight=False,
            markup=False,
        )
    return ExitCode.OK


def cmd_reap(args: argparse.Namespace) -> int:
    taken = PlannerService().account.reap(
        args.region or default_region(), at=args.at, run_id=args.run_id, dry_run=args.dry_run
    )
    verb = "would terminate" if args.dry_run else "terminated"
    out = stdout()
    for i in taken:
        out.print(
            f"{verb} {i.instance_id} {i.instance_type} run {i.run_id or '?'} "
            f"expired {i.expires_at or '?'}",
            highlight=False,
        )
    stderr().print(f"{len(taken)} instance(s) {verb}", highlight=False)
    return ExitCode.OK


def cmd_infra(args: argparse.Namespace) -> int:
    service = PlannerService()
    region = args.region or default_region()
    if args.action == "template":
        sys.stdout.write(service.account.infra_template() + "\n")
        return ExitCode.OK
    if args.action == "policy":
        print_json(service.account.infra_policy())
        return ExitCode.OK
    err = stderr()
    if args.action == "deploy":
        with err.status(f"deploying stack {args.stack_name} in {region} ..."):
            found = service.account.stack(
                "deploy", region, args.stack_name, args.vpc, args.schedule
            )
    elif args.action == "delete":
        with err.status(f"deleting stack {args.stack_name} in {region} ..."):
            deleted = service.account.stack("delete", region, args.stack_name)
        err.print(
            f"stack {args.stack_name} {'deleted' if deleted else 'does not exist'} in {region}; "
            "the results bucket is kept (delete it yourself when it is no longer needed)",
            highlight=False,
        )
        return ExitCode.OK
    else:
        found = service.account.stack("status", region, args.stack_name)
    if found is None:
        err.print(
            f"stack {args.stack_name} is not deployed in {region}; `planner infra deploy` creates it",
            highlight=False,
        )
        return ExitCode.RUNTIME_FAILURE if args.action == "status" else ExitCode.OK
    out = stdout()
    out.print(f"stack {found.name}: {found.status}", highlight=False)
    for key, value in found.outputs.items():
        out.print(f"  {key}: {value}", highlight=False)
    return ExitCode.OK


def cmd_ls(args: argparse.Namespace) -> int:
    rows = PlannerService().account.instances(args.region or default_region())
    if args.json:
        print_json({"instances": [asdict(r) for r in rows]})
        return ExitCode.OK
    if not rows:
        stdout().print(
            f"no planner-managed instance in {args.region or default_region()} (none billed, none that could be)",
            markup=False,
            highlight=False,
        )
        return ExitCode.OK
    print_table(args, instances_table(rows))
    return ExitCode.OK


def _check_tui_path(args: argparse.Namespace) -> None:
    """What `planner tui PATH` opens, checked before the screen is taken: a saved run (refused unless it is one; a
    script's takes its secrets again, never journaled), a training script (it is there; its env said), or a spec
    file (the editor reads it whole: a FIFO or /dev/zero is refused); a spec or a run refuses the script's flags.
    Raises InputError, JournalError."""
    from pathlib import Path

    if args.spec is None:
        refuse_script_flags(args, None)
        return
    try:
        is_dir = Path(args.spec).is_dir()
    except OSError:  # a name too long for the file system: check_spec_file names the fault
        is_dir = False
    if is_dir:
        saved = PlannerService().journals.saved(args.spec)
        saved.check()
        refuse_saved_run_flags(args, args.spec, saved.takes_secrets)
    elif is_script(args.spec):
        PlannerService().workloads.check_script(args.spec, args.workdir)
        say_env(args)
    else:
        check_spec_file(args.spec)
        refuse_script_flags(args, args.spec)


def cmd_tui(args: argparse.Namespace) -> int:
    _check_tui_path(args)
    from planner.tui.app import PlannerApp

    seconds = (
        {}
        if args.seconds is None
        else {"bench_seconds": args.seconds, "estimate_seconds": args.seconds}
    )
    app = PlannerApp(
        args.spec,
        region=args.region or default_region(),
        ami=args.ami,
        script_args=args.script_args,
        total_steps=args.total_steps,
        epochs=args.epochs,
        workdir=args.workdir,
        script_env=getattr(args, "script_env", None),
        purchase=args.purchase or "on-demand",
        task=task.origin if (task := getattr(args, "task", None)) is not None else None,
        said=getattr(args, "task_said", None),
        **seconds,
    )
    app.run()
    return app.return_code or ExitCode.OK  # 128 + N after a routed SIGTERM/SIGHUP, as the CLI exits
