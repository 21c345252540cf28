"""`planner ...`: the headless front end. Data on stdout, progress and diagnostics on stderr.

Exit codes (every command): 0 success, 1 runtime failure, 2 bad input or usage. Errors print as
`<title>: <message>` and `  to fix: <hint>` with no traceback. Heavy modules (torch, pandas, boto3,
textual, rich) are imported inside the commands, never at module level, so `planner --help` is fast;
tests/cli/test_imports.py guards that.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable

from planner import __version__
from planner.errors import ExitCode, PlannerError

Handler = Callable[[argparse.Namespace], int]


class _Parser(argparse.ArgumentParser):
    """argparse exits 2 on usage errors already; keep its message short and point to --help."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(ExitCode.BAD_INPUT, f"{self.prog}: error: {message}\n  (see {self.prog} --help)\n")


def _stdout():
    from rich.console import Console

    # A pipe has no width: COLUMNS when set, else 150 columns, beats truncated values in a log or a file.
    width = None if sys.stdout.isatty() else int(os.environ.get("COLUMNS") or 150)
    return Console(soft_wrap=False, width=width)


def _stderr():
    from rich.console import Console

    return Console(stderr=True)


def _print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value


# ----------------------------------------------------------------------------- commands


def cmd_check(args: argparse.Namespace) -> int:
    from planner.report import check_summary, check_table
    from planner.service import PlannerService

    service = PlannerService()
    spec = service.load(args.spec)
    fp = service.footprint(spec)
    if args.json:
        _print_json(check_summary(spec, fp))
    else:
        _stdout().print(check_table(spec, fp))
        _stderr().print(f"[green]ok[/]: {args.spec} is a valid spec")
    return ExitCode.OK


class _BenchProgress:
    """A rich status line on stderr: phase, elapsed seconds, current step time."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.status = None

    def __enter__(self) -> "_BenchProgress":
        if self.enabled:
            self.status = _stderr().status("starting the bench ...")
            self.status.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.status is not None:
            self.status.__exit__(*exc)

    def __call__(self, label: str, event: dict[str, Any]) -> None:
        if self.status is None:
            return
        from planner.report import seconds_text

        kind = event.get("event")
        if kind == "built":
            text = "warming up"
        elif kind == "warmup":
            text = f"warming up: {seconds_text(event.get('step_seconds'))}/step"
        elif kind == "measure":
            text = (f"measuring: {event.get('steps', 0):,} steps, {seconds_text(event.get('step_seconds'))}/step "
                    f"+-{event.get('rel_ci', 0):.1%}")
        elif kind == "sweep":
            text = "batch-size sweep"
        else:
            text = str(kind)
        elapsed = event.get("seconds")
        self.status.update(f"[{label}] {text}" + (f"  ({elapsed:.0f} s)" if elapsed else ""))


def cmd_bench(args: argparse.Namespace) -> int:
    from planner.report import bench_json, bench_table, sweep_table
    from planner.service import BenchOptions, PlannerService

    service = PlannerService()
    spec = service.load(args.spec)
    options = BenchOptions(device=args.device, seconds=args.seconds, sweep=args.sweep, threads=args.threads)
    with _BenchProgress(enabled=sys.stderr.isatty()) as progress:
        result = service.bench(spec, options, on_progress=progress)
    data = bench_json(result)
    if args.out:
        Path(args.out).write_text(json.dumps(result.to_dict(), indent=2) + "\n")
    if args.json:
        _print_json(data)
    else:
        out = _stdout()
        out.print(bench_table(result))
        if result.sweep:
            out.print(sweep_table(result))
    err = _stderr()
    for warning in result.warnings:
        err.print(f"[yellow]warning[/]: {warning}", highlight=False)
    return ExitCode.OK if result.status == "ok" else ExitCode.RUNTIME_FAILURE


def cmd_prices(args: argparse.Namespace) -> int:
    from planner.report import prices_json, prices_table
    from planner.service import PlannerService, PriceQuery

    err = _stderr()
    query = PriceQuery(region=args.region, gpu=True if args.gpu else False if args.cpu else None, arch=args.arch,
                       min_gpu_memory_gib=args.min_gpu_memory, max_price=args.max_price, purchase=args.purchase,
                       sort=args.sort)
    catalog, rows = PlannerService().prices(query, refresh=args.refresh,
                                            warn=lambda text: err.print(f"[yellow]warning[/]: {text}", highlight=False))
    if args.json:
        _print_json(prices_json(catalog, rows))
    else:
        _stdout().print(prices_table(catalog, rows, args.purchase))
    if rows.empty:
        err.print("no instance matches these filters", highlight=False)
    return ExitCode.OK


def _duration(text: str) -> float:
    from planner.units import parse_duration

    try:
        return parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _non_negative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return value


def _objective(args: argparse.Namespace) -> str | None:
    """--deadline alone means "cheapest within the deadline"."""
    if getattr(args, "deadline", None) and args.objective in (None, "cheapest"):
        return "deadline"
    return args.objective


def _print_plan(doc: dict[str, Any], as_json: bool) -> None:
    from planner.report import plan_table, recommendation_text

    if as_json:
        _print_json(doc)
        return
    out = _stdout()
    out.print(plan_table(doc))
    out.print(recommendation_text(doc), highlight=False)
    for warning in doc.get("warnings", []):
        _stderr().print(f"[yellow]warning[/]: {warning}", highlight=False)
    if doc.get("run_dir"):
        _stderr().print(f"run journal: {doc['run_dir']}  (re-plan with `planner plan {doc['run_dir']}`)", highlight=False)


def _default_region() -> str:
    return os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"


def cmd_run(args: argparse.Namespace) -> int:
    from planner.report import seconds_text
    from planner.service import AwsOptions, BenchOptions, PlannerService, PlanOptions, parse_targets, run_plan

    service = PlannerService()
    spec = service.load(args.spec)
    targets = parse_targets(args.targets)
    if args.objective == "deadline" and not args.deadline:
        raise PlannerError("--objective deadline needs --deadline", hint="e.g. --deadline 4h")
    region = args.region or _default_region()
    options = PlanOptions(objective=_objective(args) or "cheapest", deadline_seconds=args.deadline,
                          time_value_per_hour=args.time_value, local_price_per_hour=args.local_price,
                          region=region, purchase=args.purchase)
    aws = None
    if any(t.startswith("aws:") or t == "auto" for t in targets):
        from runner.aws import AwsSettings

        aws = AwsOptions(AwsSettings(region=region, purchase=args.purchase, ami=args.ami, ami_type=args.ami_type,
                                     subnet=args.subnet, bucket=args.bucket, max_bench_minutes=args.max_bench_minutes),
                         bench_budget=args.bench_budget, max_instances=args.max_instances, poll_seconds=args.poll_seconds)
    err = _stderr()

    def on_result(label: str, data: dict[str, Any]) -> None:
        if data.get("status") == "ok":
            err.print(f"[green]measured[/] {label}: {seconds_text(data['step_seconds'])}/step on {data.get('device_name', '')}", highlight=False)
        else:
            err.print(f"[red]{data.get('status')}[/] {label}: {data.get('message', '')}", highlight=False)

    def on_state(label: str, state: str, elapsed: float, cost: float) -> None:
        if label.startswith("aws-"):
            err.print(f"[{elapsed:5.0f} s] {label}: {state}  (${cost:.4f} so far)", highlight=False)

    def on_choices(choices: list) -> None:
        chosen = [c for c in choices if c.benchmark]
        err.print(f"auto: benchmarking {len(chosen)} of {len(choices)} candidate instances", highlight=False)
        for c in chosen:
            err.print(f"  + {c.target}: {c.reason}", highlight=False)
        for c in choices:
            if not c.benchmark:
                err.print(f"  - {c.target}: {c.reason}", highlight=False)

    with _BenchProgress(enabled=sys.stderr.isatty()) as progress:
        doc, _journal, _session = run_plan(service, spec, Path(args.spec).read_text(), targets, options,
                                           BenchOptions(seconds=args.seconds), Path(args.out) if args.out else None,
                                           on_progress=progress, on_result=on_result, aws=aws, on_state=on_state,
                                           on_choices=on_choices)
    _print_plan(doc, args.json)
    if "bench_cost_usd" in doc:
        err.print(f"bench instances: about ${doc['bench_cost_usd']:.4f} billed (per-second, 60 s minimum each, root volume included)",
                  highlight=False)
    return ExitCode.OK if doc["recommendation"]["target"] else ExitCode.RUNTIME_FAILURE


def _ec2(region: str | None):
    import boto3

    from pricing.aws import client

    return client(boto3.Session(), "ec2", region or _default_region())


def _aws_failure(exc: Exception, doing: str) -> PlannerError:
    from pricing.aws import explain_aws_error

    return explain_aws_error(exc, doing)


def cmd_reap(args: argparse.Namespace) -> int:
    from runner.reaper import parse_time, reap

    now = None
    if args.at:
        now = parse_time(args.at)
        if now is None:
            raise PlannerError(f"--at: must be a UTC time like 2026-11-21T18:00:00Z, got {args.at!r}")
    try:
        taken = reap(_ec2(args.region), now=now, run_id=args.run_id, dry_run=args.dry_run)
    except PlannerError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise _aws_failure(exc, "reaping instances") from None
    verb = "would terminate" if args.dry_run else "terminated"
    out = _stdout()
    for i in taken:
        tags = {t["Key"]: t["Value"] for t in i.get("Tags", [])}
        out.print(f"{verb} {i['InstanceId']} {i['InstanceType']} run {tags.get('planner:run-id', '?')} "
                  f"expired {tags.get('planner:expires-at', '?')}", highlight=False)
    _stderr().print(f"{len(taken)} instance(s) {verb}", highlight=False)
    return ExitCode.OK


def cmd_infra(args: argparse.Namespace) -> int:
    from planner import infra

    if args.action == "template":
        sys.stdout.write(infra.render_template() + "\n")
        return ExitCode.OK
    if args.action == "policy":
        _print_json(infra.user_policy())
        return ExitCode.OK
    import boto3

    region = args.region or _default_region()
    err = _stderr()
    try:
        session = boto3.Session()
        if args.action == "deploy":
            with err.status(f"deploying stack {args.stack_name} in {region} ..."):
                found = infra.deploy(session, region, args.stack_name, args.vpc, args.schedule)
        elif args.action == "delete":
            with err.status(f"deleting stack {args.stack_name} in {region} ..."):
                deleted = infra.delete(session, region, args.stack_name)
            err.print(f"stack {args.stack_name} {'deleted' if deleted else 'does not exist'} in {region}; "
                      "the results bucket is kept (delete it yourself when it is no longer needed)", highlight=False)
            return ExitCode.OK
        else:
            found = infra.stack(session, region, args.stack_name)
    except PlannerError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise _aws_failure(exc, f"infra {args.action}") from None
    if found is None:
        err.print(f"stack {args.stack_name} is not deployed in {region}; `planner infra deploy` creates it", highlight=False)
        return ExitCode.RUNTIME_FAILURE if args.action == "status" else ExitCode.OK
    out = _stdout()
    out.print(f"stack {found['StackName']}: {found['StackStatus']}", highlight=False)
    for key, value in infra.outputs(found).items():
        out.print(f"  {key}: {value}", highlight=False)
    return ExitCode.OK


def cmd_ls(args: argparse.Namespace) -> int:
    import datetime as dt

    from pricing.billing import instance_cost
    from pricing.catalog import hourly_price, load_catalog
    from runner.reaper import is_expired, managed_instances

    try:
        instances = managed_instances(_ec2(args.region))
    except Exception as exc:  # noqa: BLE001
        raise _aws_failure(exc, "listing instances") from None
    now = dt.datetime.now(dt.timezone.utc)
    frame = load_catalog().frame if instances else None
    rows = []
    for i in instances:
        tags = {t["Key"]: t["Value"] for t in i.get("Tags", [])}
        age = (now - i["LaunchTime"]).total_seconds()
        spot = i.get("InstanceLifecycle") == "spot"
        try:
            price = hourly_price(frame, i["InstanceType"], args.region or _default_region(), "spot" if spot else "on-demand")
            cost = instance_cost(price, age)
        except PlannerError:
            cost = None
        rows.append({"instance_id": i["InstanceId"], "instance_type": i["InstanceType"], "state": i["State"]["Name"],
                     "run_id": tags.get("planner:run-id"), "age_seconds": age, "expires_at": tags.get("planner:expires-at"),
                     "expired": is_expired(i, now), "cost_so_far_usd": cost})
    if args.json:
        _print_json({"instances": rows})
        return ExitCode.OK
    from rich.table import Table

    from planner.report import seconds_text

    t = Table(title="planner-managed instances", title_justify="left")
    for col in ("instance", "type", "state", "run", "age", "expires at", "cost so far"):
        t.add_column(col, no_wrap=True)
    for r in rows:
        t.add_row(r["instance_id"], r["instance_type"], r["state"], r["run_id"] or "-", seconds_text(r["age_seconds"]),
                  (r["expires_at"] or "-") + (" [red](expired)[/]" if r["expired"] else ""),
                  "-" if r["cost_so_far_usd"] is None else f"${r['cost_so_far_usd']:.4f}")
    _stdout().print(t)
    return ExitCode.OK


def cmd_estimate(args: argparse.Namespace) -> int:
    from planner.report import plan_table, recommendation_text
    from planner.service import (
        BenchOptions, PlannerService, PlanOptions, benchmark_choices, estimate_plan, plan_document,
    )

    service = PlannerService()
    spec = service.load(args.spec)
    region = args.region or _default_region()
    options = PlanOptions(objective=_objective(args) or "cheapest", deadline_seconds=args.deadline,
                          time_value_per_hour=args.time_value, local_price_per_hour=args.local_price,
                          region=region, purchase=args.purchase)
    from pricing.catalog import check_region

    check_region(service.catalog().frame, region)
    with _BenchProgress(enabled=sys.stderr.isatty()) as progress:
        local = service.bench(spec, BenchOptions(device="cpu", seconds=args.seconds), on_progress=progress).to_dict()
    plan, catalog = estimate_plan(service, spec, options, local, gpu=True if args.gpu else False if args.cpu else None)
    cloud_plan, choices = benchmark_choices(plan, options)
    doc = plan_document(spec, plan, options, None)
    doc["cloud_recommendation"] = cloud_plan.as_dict()["recommendation"]
    doc["prices"] = {"source": catalog.source, "as_of": catalog.as_of}
    doc["benchmark"] = [c.__dict__ for c in choices if c.benchmark]
    doc["skipped"] = [c.__dict__ for c in choices if not c.benchmark]
    if args.json:
        _print_json(doc)
        return ExitCode.OK
    out = _stdout()
    out.print(plan_table(doc))
    out.print(recommendation_text(doc), highlight=False)
    out.print(recommendation_text({"recommendation": doc["cloud_recommendation"]}, prefix=f"In the cloud ({region}): "),
              highlight=False)
    out.print(f"\nPredicted rows are estimates from a device model (uncalibrated: +-50% GPU, +-40% CPU); "
              f"prices: {catalog.source}, as of {catalog.as_of}.", highlight=False)
    if doc["benchmark"]:
        targets = ",".join(c["target"] for c in doc["benchmark"])
        out.print("A paid benchmark would settle:", highlight=False)
        for c in doc["benchmark"]:
            out.print(f"  {c['target']}: {c['reason']}", highlight=False)
        out.print(f"  -> planner run {args.spec} --targets local,{targets} --region {region}   (or --targets auto)", highlight=False)
    out.print(f"Not worth benchmarking: {len(doc['skipped'])} instance(s) (see --json for each reason).", highlight=False)
    return ExitCode.OK


def cmd_tui(args: argparse.Namespace) -> int:
    if args.spec and not Path(args.spec).exists():
        raise PlannerError(f"{args.spec}: no such file", hint="give a workload spec, e.g. examples/surface-mlp.yaml")
    from planner.tui.app import PlannerApp

    PlannerApp(args.spec, bench_seconds=args.seconds, region=args.region or _default_region(), ami=args.ami).run()
    return ExitCode.OK


def cmd_calibrate(args: argparse.Namespace) -> int:
    from planner.calibration import append_rows, corrections
    from planner.service import calibration_rows

    rows = [row for run_dir in args.run_dirs for row in calibration_rows(run_dir)]
    out = _stdout()
    if not rows:
        _stderr().print("no measured GPU or cloud CPU results in these runs: nothing to calibrate", highlight=False)
        return ExitCode.OK
    for row in rows:
        out.print(f"{row['device']:12s} {row['workload']:20s} measured {row['measured_step_seconds'] * 1e3:9.3f} ms  "
                  f"predicted {row['predicted_step_seconds'] * 1e3:9.3f} ms  x{row['measured_step_seconds'] / row['predicted_step_seconds']:.2f}",
                  highlight=False)
    if not args.dry_run:
        path = append_rows(rows)
        current = corrections()
        _stderr().print(f"saved to {path}; corrections now: " + ", ".join(f"{k} x{v:.2f}" for k, v in sorted(current.items())),
                        highlight=False)
    return ExitCode.OK


def cmd_plan(args: argparse.Namespace) -> int:
    from planner.service import replan

    overrides = {"objective": _objective(args), "deadline_seconds": args.deadline, "time_value_per_hour": args.time_value,
                 "local_price_per_hour": args.local_price, "region": args.region, "purchase": args.purchase}
    doc, journal = replan(args.run_dir, overrides)
    if doc["objective"] == "deadline" and not doc.get("deadline_seconds"):
        raise PlannerError("--objective deadline needs --deadline", hint="e.g. --deadline 4h")
    journal.write_plan(doc)
    _print_plan(doc, args.json)
    return ExitCode.OK if doc["recommendation"]["target"] else ExitCode.RUNTIME_FAILURE


def cmd_validate(args: argparse.Namespace) -> int:
    from planner.report import seconds_text
    from planner.service import BenchOptions, PlannerService, unsteady_reason, validate

    service = PlannerService()
    spec = service.load(args.spec)
    with _BenchProgress(enabled=sys.stderr.isatty()) as progress:
        data = validate(service, spec, args.epochs, BenchOptions(device=args.device, seconds=args.seconds), progress,
                        recheck=args.recheck)
    if args.json:
        _print_json(data)
        return ExitCode.OK
    verdict = "inside" if data["inside_interval"] else "outside"
    lines = [
        f"{data['workload']} on {data['device']} ({data['device_name']}), {data['epochs']:,} epochs = {data['steps']:,} steps",
        f"  predicted {seconds_text(data['predicted_seconds'])} "
        f"({seconds_text(data['predicted_seconds_low'])}-{seconds_text(data['predicted_seconds_high'])}) "
        f"from a {data['bench_seconds']:g} s bench: {data['predicted_step_seconds'] * 1e3:.3g} ms per step",
        f"  actual    {seconds_text(data['actual_seconds'])}: {data['actual_step_seconds'] * 1e3:.3g} ms per step"
        f"  -> error {data['error_percent']:+.1f}% ({verdict} the interval)",
    ]
    if data["actual_window_spread_percent"] is not None:
        lines.append(f"  during the run the step time varied by {data['actual_window_spread_percent']:.0f}% "
                     "(p10 to p90 of its 20 windows)")
    drift, spread = data["machine_drift_percent"], data["actual_window_spread_percent"]
    if drift is not None:
        lines.append(f"  machine   a second bench after the run measured {data['recheck_step_seconds'] * 1e3:.3g} ms per step, "
                     f"{drift:+.1f}% from the first")
        why = unsteady_reason(drift, spread)
        lines += (["            the machine held its speed before, during and after the run: the error is the",
                   "            prediction's own"] if not why else
                  [f"            {why}:", "            runs of the same work differ by about that much here; validate again "
                   "when it is", "            quieter before blaming the prediction"])
    _stdout().print("\n".join(lines), highlight=False)
    return ExitCode.OK


def _plan_arguments(p: argparse.ArgumentParser, defaults: bool) -> None:
    p.add_argument("--objective", choices=("cheapest", "fastest", "deadline"), default="cheapest" if defaults else None,
                   help="what to minimize (default cheapest; --deadline alone means cheapest within it)")
    p.add_argument("--deadline", type=_duration, metavar="DURATION", help="finish within this time, e.g. 4h, 90m, 1h30m")
    p.add_argument("--time-value", type=_non_negative_float, metavar="USD_PER_HOUR",
                   help="what an hour of your waiting is worth; added to each option's cost")
    p.add_argument("--local-price", type=_non_negative_float, metavar="USD_PER_HOUR", default=0.0 if defaults else None,
                   help="hourly cost of this machine (amortized hardware, power); default 0")


# ----------------------------------------------------------------------------- parser


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="planner",
        description="Measure a training workload on CPUs and GPUs, predict the full run, and decide where to train it.",
    )
    parser.add_argument("--version", action="version", version=f"cloud-planner {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser("check", help="validate a workload spec; print parameters, FLOPs and training memory")
    p.add_argument("spec", help="workload spec (YAML or JSON)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=cmd_check)

    p = sub.add_parser("bench", help="measure the steady-state training step on this machine")
    p.add_argument("spec", help="workload spec (YAML or JSON)")
    p.add_argument("--device", choices=("cpu", "cuda", "auto"), default="auto",
                   help="where to train (auto: CUDA when present, else CPU)")
    p.add_argument("--seconds", type=_positive_float, default=10.0, help="time budget of the measurement (default 10)")
    p.add_argument("--sweep", action="store_true", help="also measure throughput at 1/4x to 16x the batch size (advice)")
    p.add_argument("--threads", type=_positive_int, help="torch CPU threads (default: torch's choice)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--out", metavar="FILE", help="also write the full result JSON to FILE")
    p.set_defaults(handler=cmd_bench)

    p = sub.add_parser("prices", help="list AWS instances with on-demand and spot prices (bundled or live)")
    p.add_argument("--region", help="one region (default: all regions in the data)")
    kind = p.add_mutually_exclusive_group()
    kind.add_argument("--gpu", action="store_true", help="GPU instances only")
    kind.add_argument("--cpu", action="store_true", help="CPU-only instances")
    p.add_argument("--arch", help="x86_64 or arm64")
    p.add_argument("--min-gpu-memory", type=_positive_float, metavar="GIB", help="at least this much GPU memory in total")
    p.add_argument("--max-price", type=_positive_float, metavar="USD", help="at most this many dollars per hour")
    p.add_argument("--purchase", choices=("on-demand", "spot"), default="on-demand", help="price that --max-price and --sort use")
    p.add_argument("--sort", choices=("price", "gpu-memory"), default="price")
    p.add_argument("--refresh", action="store_true", help="fetch live prices from AWS first (needs credentials)")
    p.add_argument("--json", action="store_true", help='print {"source", "as_of", "instances": [...]}')
    p.set_defaults(handler=cmd_prices)

    p = sub.add_parser("run", help="measure targets, estimate the full training run, and recommend where to train")
    p.add_argument("spec", help="workload spec (YAML or JSON)")
    p.add_argument("--targets", default="local",
                   help="comma-separated: local (this machine's CPU, and its GPU when present), aws:INSTANCE_TYPE, "
                        "auto (measure here, predict every instance, benchmark only those that could change the decision)")
    _plan_arguments(p, defaults=True)
    p.add_argument("--seconds", type=_positive_float, default=10.0, help="bench time budget per target (default 10)")
    aws = p.add_argument_group("AWS targets")
    aws.add_argument("--region", help="AWS region (default: AWS_REGION, else us-east-1)")
    aws.add_argument("--purchase", choices=("on-demand", "spot"), default="on-demand")
    aws.add_argument("--ami", help="AMI id (default: the PyTorch Deep Learning AMI from its public SSM parameter)")
    aws.add_argument("--ami-type", default="oss-nvidia-driver-gpu-pytorch-2.9-ubuntu-24.04",
                     help="DLAMI type in /aws/service/deeplearning/ami/ARCH/TYPE/latest/ami-id")
    aws.add_argument("--subnet", help="subnet id (default: the default VPC)")
    aws.add_argument("--bucket", help="results bucket (default: the infra stack's, else one the planner creates)")
    aws.add_argument("--bench-budget", type=_positive_float, default=2.00, metavar="USD",
                     help="refuse to launch when the worst-case bench cost exceeds this (default 2.00)")
    aws.add_argument("--max-bench-minutes", type=_positive_float, default=20.0, metavar="N",
                     help="dead-man deadline of each instance; the planner stops waiting then (default 20)")
    aws.add_argument("--max-instances", type=_positive_int, default=8, metavar="N", help="at most N instances at once (default 8)")
    aws.add_argument("--poll-seconds", type=_positive_float, default=5.0, help="how often to ask AWS for progress (default 5)")
    p.add_argument("--out", metavar="RUN_DIR", help="run journal directory (default planner-runs/<UTC time>-<name>/)")
    p.add_argument("--json", action="store_true", help='print {"workload", "options", "recommendation", ...}')
    p.set_defaults(handler=cmd_run)

    p = sub.add_parser("estimate", help="measure here, predict every catalog instance, say which ones a paid benchmark would settle")
    p.add_argument("spec", help="workload spec (YAML or JSON)")
    p.add_argument("--region", help="AWS region (default: AWS_REGION, else us-east-1)")
    kind = p.add_mutually_exclusive_group()
    kind.add_argument("--gpu", action="store_true", help="GPU instances only")
    kind.add_argument("--cpu", action="store_true", help="CPU instances only")
    p.add_argument("--purchase", choices=("on-demand", "spot"), default="on-demand")
    _plan_arguments(p, defaults=True)
    p.add_argument("--seconds", type=_positive_float, default=5.0, help="local bench time budget (default 5)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_estimate)

    p = sub.add_parser("tui", help="plan interactively in the terminal")
    p.add_argument("spec", nargs="?", help="workload spec to open")
    p.add_argument("--seconds", type=_positive_float, default=10.0, help="bench time budget per target (default 10)")
    p.add_argument("--region", help="AWS region for prices and targets")
    p.add_argument("--ami", help="AMI id for AWS targets (default: the PyTorch Deep Learning AMI)")
    p.set_defaults(handler=cmd_tui)

    p = sub.add_parser("calibrate", help="correct the device model with the measurements in run directories")
    p.add_argument("run_dirs", nargs="+", metavar="RUN_DIR")
    p.add_argument("--dry-run", action="store_true", help="show the corrections without saving them")
    p.set_defaults(handler=cmd_calibrate)

    p = sub.add_parser("plan", help="recompute a plan from a run directory without running anything")
    p.add_argument("run_dir", help="a directory written by `planner run`")
    _plan_arguments(p, defaults=False)
    p.add_argument("--region", help="price AWS options in this region")
    p.add_argument("--purchase", choices=("on-demand", "spot"), help="price AWS options on-demand or spot")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(handler=cmd_plan)

    p = sub.add_parser("reap", help="terminate planner-managed instances past planner:expires-at")
    p.add_argument("--region", help="AWS region (default: AWS_REGION, else us-east-1)")
    p.add_argument("--run-id", help="terminate every instance of this run (its run directory's name), expired or not")
    p.add_argument("--dry-run", action="store_true", help="list what would be terminated")
    p.add_argument("--at", metavar="UTC_TIME", help="judge expiry as of this time instead of now (preview)")
    p.set_defaults(handler=cmd_reap)

    p = sub.add_parser("infra", help="the account stack: bucket, no-ingress security group, scheduled reaper, user policy")
    p.add_argument("action", choices=("deploy", "status", "delete", "template", "policy"),
                   help="deploy/status/delete the stack; print the rendered template or the user policy")
    p.add_argument("--region", help="AWS region (default: AWS_REGION, else us-east-1)")
    p.add_argument("--stack-name", default="cloud-planner")
    p.add_argument("--vpc", help="VPC for the security group (default: the default VPC)")
    p.add_argument("--schedule", help='reaper schedule, e.g. "rate(10 minutes)" (the default)')
    p.set_defaults(handler=cmd_infra)

    p = sub.add_parser("ls", help="list planner-managed instances with age, expiry and cost so far")
    p.add_argument("--region", help="AWS region (default: AWS_REGION, else us-east-1)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_ls)

    p = sub.add_parser("validate", help="really train for N epochs and compare with the prediction")
    p.add_argument("spec", help="workload spec (YAML or JSON)")
    p.add_argument("--target", choices=("local",), default="local")
    p.add_argument("--device", choices=("cpu", "cuda", "auto"), default="auto")
    p.add_argument("--epochs", type=_positive_int, help="epochs to train (default: the spec's)")
    p.add_argument("--seconds", type=_positive_float, default=10.0, help="bench time budget for the prediction (default 10)")
    p.add_argument("--no-recheck", dest="recheck", action="store_false",
                   help="skip the second bench after the run that tells whether the machine held its speed")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_validate)

    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return ExitCode.BAD_INPUT
    try:
        return int(handler(args))
    except PlannerError as exc:
        sys.stderr.write(exc.render() + "\n")
        return int(exc.exit_code)
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    except Exception as exc:  # a bug: say so in one line; the traceback on request
        if os.environ.get("PLANNER_DEBUG"):
            raise
        sys.stderr.write(f"internal error: {type(exc).__name__}: {exc}\n"
                         "  this is a bug in cloud-planner; run again with PLANNER_DEBUG=1 for the traceback\n")
        return int(ExitCode.RUNTIME_FAILURE)


if __name__ == "__main__":
    sys.exit(main())
