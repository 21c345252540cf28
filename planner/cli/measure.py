"""`planner check`, `planner bench`, `planner validate`: describe and measure on this machine."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from planner.cli.common import (
    env_arguments,
    escape,
    flag,
    note,
    open_workload,
    output_arguments,
    print_json,
    print_table,
    progress,
    ranged,
    refuse_script_flags,
    say_before_measuring,
    script_length_arguments,
    stderr,
    stdout,
    threads_argument,
    warn,
    workdir_argument,
)
from planner.errors import ExitCode, PlannerError, RunError
from planner.report.tables import (
    bench_json,
    bench_table,
    check_summary,
    check_table,
    script_json,
    script_table,
    sweep_table,
)
from planner.report.text import counted, range_text, seconds_text
from planner.service import (
    BenchOptions,
    PlannerService,
    ScriptBench,
    ScriptValidation,
    ScriptWorkload,
    is_script,
    unsteady_reason,
)
from planner.service.inputs import check_epochs, check_out_file, shown_path


def cmd_check(args: argparse.Namespace) -> int:
    service = PlannerService()
    if is_script(args.spec):
        return _check_script(service, args)
    refuse_script_flags(args, args.spec)
    spec = service.workloads.load(args.spec)
    fp = service.workloads.footprint(spec)
    if args.json:
        print_json(check_summary(spec, fp))
    else:
        print_table(args, check_table(spec, fp))
        stderr().print(f"[green]ok[/]: {escape(args.spec)} is a valid spec")
    return ExitCode.OK


def cmd_bench(args: argparse.Namespace) -> int:
    service = PlannerService()
    workload = open_workload(service, args, ("out", "device", "threads", "sweep", "processes"))
    out_file = (
        check_out_file(args.out) if args.out is not None else None
    )  # before the bench, not after it
    options = BenchOptions(
        device=args.device,
        seconds=args.seconds,
        sweep=args.sweep,
        threads=args.threads,
        processes=args.processes,
    )
    say_before_measuring(service, args, workload)
    with progress() as on_progress:
        result = service.bench(workload, options, on_progress=on_progress)
    if isinstance(result, ScriptBench):
        return _script_benched(args, result)
    data = bench_json(result)
    if args.json:
        print_json(data)
    else:
        print_table(args, bench_table(result), *([sweep_table(result)] if result.sweep else []))
    for warning in result.warnings:
        warn(warning)
    if out_file is not None:
        try:
            out_file.write_text(json.dumps(result.to_dict(), indent=2) + "\n")
        except (
            OSError
        ) as exc:  # it was writable before the bench; a full disk or a removed directory since
            raise RunError(
                f"--out {shown_path(args.out)}: cannot write it ({exc.strerror or exc})",
                hint="the result is printed above; write it somewhere else next time",
            ) from None
    return ExitCode.OK if result.status == "ok" else ExitCode.RUNTIME_FAILURE


def _script_benched(args: argparse.Namespace, bench: ScriptBench) -> int:
    """`planner bench train.py -- ARGS`: the script's steps as timed here, its whole run as estimated."""
    run, est = bench
    if args.json:
        print_json(script_json(run, est))
        return ExitCode.OK
    print_table(args, script_table(args.spec, run, est))
    for text in est.warnings:
        warn(text)
    for text in est.notes:
        note(text)
    return ExitCode.OK


def validate_lines(data: dict) -> list[str]:
    verdict = "inside" if data["inside_interval"] else "outside"
    lines = [
        f"{data['workload']} on {data['device']} ({data['device_name']}), {counted(data['epochs'], 'epoch')} = {counted(data['steps'], 'step')}",
        f"  predicted {seconds_text(data['predicted_seconds'])} "
        f"({seconds_text(data['predicted_seconds_low'])}-{seconds_text(data['predicted_seconds_high'])}) "
        f"from a {data['bench_seconds']:g} s bench: {data['predicted_step_seconds'] * 1e3:.3g} ms per step",
        f"  actual    {seconds_text(data['actual_seconds'])}: {data['actual_step_seconds'] * 1e3:.3g} ms per step"
        f"  -> error {data['error_percent']:+.1f}% ({verdict} the interval)",
    ]
    if data["actual_window_spread_percent"] is not None:
        lines.append(
            f"  during the run the step time varied by {data['actual_window_spread_percent']:.0f}% "
            "(p10 to p90 of its 20 windows)"
        )
    return lines + machine_lines(
        data["machine_drift_percent"],
        data["actual_window_spread_percent"],
        data["recheck_step_seconds"],
    )


def machine_lines(
    drift: float | None, spread: float | None, recheck_step: float | None
) -> list[str]:
    """Whether the machine held its speed around a validate run (planner/service/measure.unsteady_reason)."""
    if drift is None or recheck_step is None:
        return []
    return [
        f"  machine   a second bench after the run measured {recheck_step * 1e3:.3g} ms per step, {drift:+.1f}% from the first",
        *verdict_lines(unsteady_reason(drift, spread)),
    ]


def _check_script(service: PlannerService, args: argparse.Namespace) -> int:
    """A training script checked without running it: it parses (its own syntax error, exit 1), and what of its
    folder would ship; its parameters, FLOPs and memory are measured by running it (bench)."""
    workdir = getattr(args, "workdir", None)
    path = service.workloads.check_script(args.spec, workdir)
    shipped = service.workloads.shipped(
        path, workdir
    )  # bounded first: a folder too big to ship is refused before reading
    error = service.workloads.script_syntax(path)
    if error is not None:
        raise PlannerError(
            f"{args.spec} does not parse as Python; its own error: {error}",
            hint="fix the script; `python -m py_compile` shows the same",
        )
    if args.json:
        task = getattr(args, "task", None)  # a SkyPilot task: what was read from it
        print_json(
            {
                "script": args.spec,
                "args": list(args.script_args),
                "parses": True,
                "folder": str(shipped.folder),
                "ships": [name for _, name in shipped.files],
                "total_bytes": shipped.total_bytes,
                "left_out": [{"path": p, "why": why} for p, why in shipped.left_out],
                "skypilot_task": {
                    **asdict(task),
                    "secrets": sorted(task.secrets),
                    "envs": {
                        k: v for k, v in task.envs.items() if k not in args.script_env.secrets
                    },
                }
                if task is not None
                else None,
                "env": args.script_env.envs,
                "secrets": sorted(args.script_env.secrets),
            }
        )  # a secret by name only
        return ExitCode.OK
    given = getattr(args, "task_file", None)  # a SkyPilot task: measured as it is, by its own file
    out = stdout()
    for line in shipped.lines():
        out.print(line, markup=False, highlight=False, soft_wrap=True)
    out.print(
        f"[green]ok[/]: {escape(args.spec)} parses as Python (checked, not run); its steps, parameters, FLOPs and "
        f"memory are measured by running it: planner bench {escape(given) if given else escape(args.spec) + ' -- ARGS'}",
        highlight=False,
    )
    return ExitCode.OK


def verdict_lines(why: str | None) -> list[str]:
    """What a validate run's error means, given why the machine did not hold its speed (None: it did)."""
    if not why:
        return [
            "            the machine held its speed before, during and after the run: the error is the",
            "            prediction's own",
        ]
    return [
        f"            {why}:",
        "            runs of the same work differ by about that much here; validate again "
        "when it is",
        "            quieter before blaming the prediction",
    ]


def script_machine_lines(check: ScriptValidation, drift: float, again: float) -> list[str]:
    """Whether the machine held its speed around a script's validate run: the script measured twice (`again`: the
    second's mean step), the same steps compared window by window (planner/core/script.paired_windows)."""
    lines = [
        f"  machine   measured again after the run, the same steps took {drift:+.1f}% "
        f"(the median of their windows' ratios; mean step {again * 1e3:.3g} ms against "
        f"{check.estimate.step_seconds * 1e3:.3g} ms)"
    ]
    if check.window_spread_percent is not None:
        lines.append(
            f"            their windows' ratios spread {check.window_spread_percent:.0f}% (p10 to p90)"
        )
    return lines + verdict_lines(check.unsteady_reason)


def cmd_validate(args: argparse.Namespace) -> int:
    service = PlannerService()
    workload = open_workload(service, args, ("device",), spec_takes=("epochs",))
    if isinstance(workload, ScriptWorkload):
        service.workloads.check_validated_epochs(args.script_args, args.epochs)
    else:
        check_epochs(workload.spec, args.epochs)
    say_before_measuring(service, args, workload, then="then runs it whole")
    with progress() as on_progress:
        check = service.validate(
            workload,
            BenchOptions(device=args.device, seconds=args.seconds),
            args.epochs,
            on_progress,
            recheck=args.recheck,
        )
    if isinstance(check, ScriptValidation):
        return _script_validated(args, check)
    if args.json:
        print_json(check)
        return ExitCode.OK
    stdout().print("\n".join(validate_lines(check)), highlight=False)
    return ExitCode.OK


def _script_validated(args: argparse.Namespace, check: ScriptValidation) -> int:
    """`planner validate train.py`: the estimate against the script's whole run, and whether the machine held."""
    if args.json:
        print_json(check.to_json())
        return ExitCode.OK
    est = check.estimate
    span = range_text(est.low, est.high) if check.interval_usable else "no usable interval"
    verdict = (
        "inside the interval"
        if check.inside_interval
        else "outside the interval"
        if check.interval_usable
        else "no interval to be inside of (see the warnings)"
    )
    stdout().print(
        f"{args.spec}: predicted {seconds_text(est.seconds)} ({span}), took "
        f"{seconds_text(check.actual_seconds)} spawn to exit: error {check.error_percent:+.1f}%, {verdict}",
        highlight=False,
    )
    for warning in est.warnings:
        stdout().print(f"[yellow]warning[/]: {escape(warning)}", highlight=False)
    drift, again = check.machine_drift_percent, check.recheck_step_seconds
    if drift is not None and again is not None:
        stdout().print("\n".join(script_machine_lines(check, drift, again)), highlight=False)
    return ExitCode.OK


def add_parsers(sub) -> None:
    p = sub.add_parser(
        "check",
        help="validate a workload spec (print parameters, FLOPs and training memory), or check that a "
        "training script parses and list what of its folder would ship",
    )
    p.add_argument(
        "spec",
        help="workload spec (YAML or JSON), training script (train.py) or SkyPilot task (task.yaml)",
    )
    env_arguments(p)
    output_arguments(p)
    p.set_defaults(handler=cmd_check)

    p = sub.add_parser(
        "bench",
        help="measure the steady-state training step on this machine (a spec, or your own train.py)",
        description="Measure a spec's training step here, or run your own training script unchanged and "
        "time its steps: `planner bench train.py --epochs 10 -- --lr 0.1` (everything after -- "
        "goes to the script). For a script only --seconds, --total-steps, --epochs, --workdir, --env, --secret and the output flags (--json, --format, --out-file) apply.",
        usage="planner bench [options] SPEC | train.py [--total-steps N | --epochs N] [--workdir DIR] [-- ARGS...]",
    )
    p.add_argument(
        "spec",
        help="workload spec (YAML or JSON), your training script (train.py) run unchanged, or a SkyPilot task (task.yaml) that runs one",
    )
    script_length_arguments(p)
    p.add_argument(
        "--device",
        choices=("cpu", "cuda", "auto"),
        default="auto",
        help="where to train (auto: CUDA when present, else CPU)",
    )
    p.add_argument(
        "--seconds",
        type=flag("--seconds"),
        default=10.0,
        help=ranged("--seconds", "time budget of the measurement (default 10)"),
    )
    p.add_argument(
        "--sweep",
        action="store_true",
        help="also measure throughput at 1/4x to 16x the batch size (advice)",
    )
    threads_argument(p)
    p.add_argument(
        "--processes",
        type=flag("--processes"),
        default=1,
        help=ranged(
            "--processes",
            "data-parallel processes under torchrun (DistributedDataParallel: gloo "
            "on CPU, NCCL with one GPU each on CUDA); the batch is split evenly (default 1)",
        ),
    )
    output_arguments(p)
    p.add_argument("--out", metavar="FILE", help="also write the full result JSON to FILE")
    p.set_defaults(handler=cmd_bench)


def add_validate_parser(sub) -> None:
    p = sub.add_parser(
        "validate",
        help="really train for N epochs and compare with the prediction",
        usage="planner validate [options] SPEC | train.py [--total-steps N | --epochs N] [--workdir DIR] [-- ARGS...]",
    )
    p.add_argument(
        "spec",
        help="workload spec (YAML or JSON), or your training script (train.py) or SkyPilot task (task.yaml): estimated, then run whole",
    )
    p.add_argument(
        "--total-steps",
        type=flag("--total-steps"),
        metavar="N",
        help=ranged("--total-steps", "a script's whole run, in optimizer steps"),
    )
    workdir_argument(p)
    p.add_argument(
        "--target",
        choices=("local",),
        default="local",
        help="where to train: this machine (the only choice)",
    )
    p.add_argument(
        "--device",
        choices=("cpu", "cuda", "auto"),
        default="auto",
        help="a spec's device here (default auto: CUDA when this machine has it); a script picks its own",
    )
    p.add_argument(
        "--epochs",
        type=flag("--epochs"),
        help=ranged("--epochs", "epochs to train (default: the spec's)"),
    )
    p.add_argument(
        "--seconds",
        type=flag("--seconds"),
        default=10.0,
        help=ranged("--seconds", "bench time budget for the prediction (default 10)"),
    )
    p.add_argument(
        "--no-recheck",
        dest="recheck",
        action="store_false",
        help="skip the second bench (for a script: its second measurement) after the run that tells whether the "
        "machine held its speed",
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_validate)
