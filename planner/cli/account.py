"""`planner prices`, `planner ls`, `planner reap`, `planner infra`, and `planner tui`."""

from __future__ import annotations

import argparse
import sys

from planner.cli.common import (
    default_region,
    flag,
    output_arguments,
    print_json,
    print_shown,
    print_table,
    ranged,
    refuse_script_flags,
    region_argument,
    rows_arguments,
    script_length_arguments,
    stderr,
    stdout,
    warn,
)
from planner.errors import ExitCode, InputError
from planner.report.plan import GroupBy
from planner.report.tables import instances_table, prices_json, prices_table, shown_prices
from planner.service import PRICE_SOURCES, PURCHASES, PlannerService, PriceQuery
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
    if args.refresh:
        where = "the hosted catalog" if source == "catalog" else "AWS's Price List API"
        with stderr().status(f"reading prices from {where} ..."):
            catalog, rows = PlannerService().account.prices(
                query, refresh=True, warn=warn, source=source
            )
    else:
        catalog, rows = PlannerService().account.prices(query, warn=warn)
    if args.json:
        print_json(prices_json(catalog, rows))
    else:
        group_by: GroupBy = (
            "instance" if args.gpus and args.rows_defaulted else args.group_by
        )  # GPUs asked for: each machine
        shown_rows, shown = shown_prices(rows, group_by, args.max_rows, by_region=args.all_regions)
        print_table(args, prices_table(catalog, shown_rows, args.purchase))
        print_shown(args, shown)
    if rows.empty:
        stderr().print("no instance matches these filters", highlight=False)
    return ExitCode.OK


def cmd_reap(args: argparse.Namespace) -> int:
    taken = PlannerService().account.reap(
        args.region or default_region(), at=args.at, run_id=args.run_id, dry_run=args.dry_run
    )
    verb = "would terminate" if args.dry_run else "terminated"
    out = stdout()
    for i in taken:
        tags = {t["Key"]: t["Value"] for t in i.get("Tags", [])}
        out.print(
            f"{verb} {i['InstanceId']} {i['InstanceType']} run {tags.get('planner:run-id', '?')} "
            f"expired {tags.get('planner:expires-at', '?')}",
            highlight=False,
        )
    stderr().print(f"{len(taken)} instance(s) {verb}", highlight=False)
    return ExitCode.OK


def cmd_infra(args: argparse.Namespace) -> int:
    service = PlannerService()
    region = args.region or default_region()
    if args.action == "template":
        sys.stdout.write(service.account.infra("template", region) + "\n")
        return ExitCode.OK
    if args.action == "policy":
        print_json(service.account.infra("policy", region))
        return ExitCode.OK
    err = stderr()
    if args.action == "deploy":
        with err.status(f"deploying stack {args.stack_name} in {region} ..."):
            found = service.account.infra(
                "deploy", region, args.stack_name, args.vpc, args.schedule
            )
    elif args.action == "delete":
        with err.status(f"deleting stack {args.stack_name} in {region} ..."):
            deleted = service.account.infra("delete", region, args.stack_name)
        err.print(
            f"stack {args.stack_name} {'deleted' if deleted else 'does not exist'} in {region}; "
            "the results bucket is kept (delete it yourself when it is no longer needed)",
            highlight=False,
        )
        return ExitCode.OK
    else:
        found = service.account.infra("status", region, args.stack_name)
    if found is None:
        err.print(
            f"stack {args.stack_name} is not deployed in {region}; `planner infra deploy` creates it",
            highlight=False,
        )
        return ExitCode.RUNTIME_FAILURE if args.action == "status" else ExitCode.OK
    out = stdout()
    out.print(f"stack {found['StackName']}: {found['StackStatus']}", highlight=False)
    for key, value in service.account.stack_outputs(found).items():
        out.print(f"  {key}: {value}", highlight=False)
    return ExitCode.OK


def cmd_ls(args: argparse.Namespace) -> int:
    rows = PlannerService().account.instances(args.region or default_region())
    if args.json:
        print_json({"instances": rows})
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


def cmd_tui(args: argparse.Namespace) -> int:
    if args.spec is not None:
        from pathlib import Path

        try:
            is_dir = Path(args.spec).is_dir()
        except OSError:  # a name too long for the file system: check_spec_file names the fault
            is_dir = False
        script_run = False
        if is_dir:  # `planner tui RUN_DIR`: a saved run, refused here unless it is one
            service = PlannerService()
            script_run = service.journals.is_script_run(args.spec)
            if not script_run:
                service.workloads.check_run(args.spec)
        elif args.spec.endswith(
            ".py"
        ):  # `planner tui train.py -- ARGS`: the user's script, measured here
            PlannerService().workloads.check_script(args.spec, args.workdir)
        else:
            check_spec_file(
                args.spec
            )  # the editor reads it whole: a FIFO or /dev/zero is refused here, before it opens
    from planner.tui.app import PlannerApp

    if not (args.spec or "").endswith(
        ".py"
    ):  # a saved script run takes its secrets again (never journaled)
        refuse_script_flags(
            args, args.spec, but=("env", "secret") if args.spec is not None and script_run else ()
        )
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


def add_prices_parser(sub) -> None:
    p = sub.add_parser(
        "prices",
        help="list AWS instances with on-demand and spot prices (bundled or live)",
        usage="planner prices [GPU[:COUNT]] [options]",
    )
    p.add_argument(
        "gpus",
        nargs="?",
        metavar="GPU[:COUNT]",
        help="the GPUs asked for, as `sky gpus list` and `dstack offer --gpu` read them: a model (A100: the "
        "40 and 80 GB parts), a count (H100:8, L4:1..4), memory per GPU in GB (24GB..80GB), in any order; "
        "every machine of them is listed",
    )
    region_argument(p, "one region (default: all regions in the data, the cheapest of each row)")
    p.add_argument(
        "--all-regions",
        action="store_true",
        help="the cheapest of each row in every region, cheapest first (as `sky gpus list --all-regions`)",
    )
    kind = p.add_mutually_exclusive_group()
    kind.add_argument("--gpu", action="store_true", help="GPU instances only")
    kind.add_argument("--cpu", action="store_true", help="CPU-only instances")
    p.add_argument("--arch", type=flag("--arch"), help="x86_64 or arm64")
    p.add_argument(
        "--min-gpu-memory",
        type=flag("--min-gpu-memory"),
        metavar="GB",
        help=ranged(
            "--min-gpu-memory",
            "at least this much memory on each GPU, in GB as its vendor states it (an A10G has 24)",
        ),
    )
    p.add_argument(
        "--max-price",
        type=flag("--max-price"),
        metavar="USD",
        help=ranged("--max-price", "at most this many dollars per hour"),
    )
    p.add_argument(
        "--purchase",
        choices=PURCHASES,
        default="on-demand",
        help="price that --max-price and --sort use",
    )
    p.add_argument("--sort", choices=("price", "gpu-memory"), default="price")
    p.add_argument(
        "--refresh",
        action="store_true",
        help="read current prices first: by default every instance type and region from the hosted catalog "
        "(SkyPilot's public AWS catalog; PLANNER_CATALOG_URL: a mirror, a file path or file:// URL), "
        "no credentials; kept for 24 h",
    )
    p.add_argument(
        "--source",
        choices=PRICE_SOURCES,
        help="with --refresh: catalog (the hosted catalog, the default) or aws (AWS's Price List API and spot "
        "price history for the catalog's instance types; needs credentials)",
    )
    rows_arguments(p, plan=False)
    output_arguments(p, json_help='print {"source", "as_of", "instances": [...]}')
    p.set_defaults(handler=cmd_prices)


def add_tui_parser(sub) -> None:
    p = sub.add_parser(
        "tui",
        help="plan interactively in the terminal",
        usage="planner tui [options] [SPEC | RUN_DIR | train.py [--total-steps N | --epochs N] [-- ARGS...]]",
    )
    p.add_argument(
        "spec",
        nargs="?",
        metavar="SPEC|RUN_DIR|train.py",
        help="a workload spec to open (estimated at once), a saved run's directory to show its plan, or your "
        "training script (measured here unchanged, then planned)",
    )
    script_length_arguments(p)
    p.add_argument(
        "--seconds",
        type=flag("--seconds"),
        help=ranged(
            "--seconds",
            "time budget of each measurement: the one on opening (default 5, a quick "
            "first answer) and each run's per target (default 10)",
        ),
    )
    region_argument(p, "AWS region for prices and targets")
    p.add_argument(
        "--purchase", choices=PURCHASES, help="price AWS options on-demand (the default) or spot"
    )
    p.add_argument(
        "--ami",
        type=flag("--ami"),
        help="AMI id for AWS targets (default: the PyTorch Deep Learning AMI)",
    )
    p.set_defaults(handler=cmd_tui)


def add_account_parsers(sub) -> None:
    p = sub.add_parser("reap", help="terminate planner-managed instances past planner:expires-at")
    region_argument(p)
    p.add_argument(
        "--run-id",
        type=flag("--run-id"),
        help="terminate every instance of this run (its run directory's name), expired or not",
    )
    p.add_argument("--dry-run", action="store_true", help="list what would be terminated")
    p.add_argument(
        "--at",
        type=flag("--at"),
        metavar="UTC_TIME",
        help="judge expiry as of this time instead of now (preview)",
    )
    p.set_defaults(handler=cmd_reap)

    p = sub.add_parser(
        "infra",
        help="the account stack: bucket, no-ingress security group, scheduled reaper, user policy",
    )
    p.add_argument(
        "action",
        choices=("deploy", "status", "delete", "template", "policy"),
        help="deploy/status/delete the stack; print the rendered template or the user policy",
    )
    region_argument(p)
    p.add_argument("--stack-name", type=flag("--stack-name"), default="cloud-planner")
    p.add_argument(
        "--vpc", type=flag("--vpc"), help="VPC for the security group (default: the default VPC)"
    )
    p.add_argument(
        "--schedule",
        type=flag("--schedule"),
        help='reaper schedule, e.g. "rate(10 minutes)" (the default)',
    )
    p.set_defaults(handler=cmd_infra)

    p = sub.add_parser("ls", help="list planner-managed instances with age, expiry and cost so far")
    region_argument(p)
    output_arguments(p)
    p.set_defaults(handler=cmd_ls)
