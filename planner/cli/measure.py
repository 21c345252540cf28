"""`planner check`, `planner bench`, `planner validate`: describe and measure on this machine."""

from __future__ import annotations

import argparse
import json
import shlex
from dataclasses import asdict
from functools import singledispatch
from pathlib import Path

from planner.cli.common import (
    escape,
    note,
    print_json,
    print_table,
    progress,
    stderr,
    stdout,
    warn,
)
from planner.cli.workload import open_workload, say_before_measuring
from planner.errors import ExitCode, RunError
from planner.report.remarks import words
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
    BenchResult,
    PlannerService,
    ScriptBench,
    ScriptValidation,
    ScriptWorkload,
    SpecValidation,
    SpecWorkload,
    unsteady_reason,
)
from planner.service.inputs import check_out_file, shown_path

# Each kind of workload and each kind of result is shown by its own function, chosen by its type (functools'
# singledispatch): the commands below never ask which kind they hold.


def cmd_check(args: argparse.Namespace) -> int:
    service = PlannerService()
    return checked(open_workload(service, args), service, args)


@singledispatch
def checked(workload: object, service: PlannerService, args: argparse.Namespace) -> int:
    """A workload checked without measuring it; exit code."""
    raise TypeError(f"not a workload: {workload!r}")


@checked.register(SpecWorkload)
def _spec_checked(workload: SpecWorkload, service: PlannerService, args: argparse.Namespace) -> int:
    """A spec checked: its parameters, FLOPs and training memory."""
    spec = workload.spec
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
    # before the bench, not after it
    out_file = check_out_file(args.out) if args.out is not None else None
    options = BenchOptions(
        device=args.device,
        seconds=args.seconds,
        sweep=args.sweep,
        threads=args.threads,
        processes=args.processes,
    )
    # a spec's bench says its precision after it
    say_before_measuring(workload, service, args, here=False)
    with progress() as on_progress:
        result = service.bench(workload, options, on_progress=on_progress)
    return benched(result, args, out_file)


@singledispatch
def benched(result: object, args: argparse.Namespace, out_file: Path | None) -> int:
    """A bench's result shown; exit code."""
    raise TypeError(f"not a bench result: {result!r}")


@benched.register(BenchResult)
def _spec_benched(result: BenchResult, args: argparse.Namespace, out_file: Path | None) -> int:
    """A spec's bench: its table or JSON, its warnings, --out."""
    if args.json:
        print_json(bench_json(result))
    else:
        print_table(args, bench_table(result), *([sweep_table(result)] if result.sweep else []))
    for warning in words(result.warnings):
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


@benched.register(ScriptBench)
def _script_benched(bench: ScriptBench, args: argparse.Namespace, out_file: Path | None) -> int:
    """`planner bench train.py -- ARGS`: the script's steps as timed here, its whole run as estimated."""
    run, est = bench
    if args.json:
        print_json(script_json(run, est))
        return ExitCode.OK
    print_table(args, script_table(args.spec, run, est))
    for text in words(est.warnings):
        warn(text)
    for text in words(est.notes):
        note(text)
    return ExitCode.OK


def validate_lines(data: SpecValidation, name: str = "") -> list[str]:
    verdict = "inside" if data.inside_interval else "outside"
    step = data.predicted_step_seconds or 0.0
    actual_step = data.actual_step_seconds or 0.0
    lines = [
        f"{data.workload} on {data.device} ({data.device_name}) in {data.precision}, "
        f"{counted(data.epochs, 'epoch')} = {counted(data.steps, 'step')}",
        f"  predicted {seconds_text(data.predicted_seconds)} "
        f"({seconds_text(data.predicted_seconds_low)}-{seconds_text(data.predicted_seconds_high)}) "
        f"from a {data.bench_seconds:g} s bench: {step * 1e3:.3g} ms per step",
        f"  actual    {seconds_text(data.actual_seconds)}: {actual_step * 1e3:.3g} ms per step"
        f"  -> error {data.error_percent:+.1f}% ({verdict} the interval)",
    ]
    if data.actual_window_spread_percent is not None:
        lines.append(
            f"  during the run the step time varied by {data.actual_window_spread_percent:.0f}% "
            "(p10 to p90 of its 20 windows)"
        )
    return lines + machine_lines(
        data.machine_drift_percent,
        data.actual_window_spread_percent,
        data.recheck_step_seconds,
    )


def machine_lines(
    drift: float | None, spread: float | None, recheck_step: float | None
) -> list[str]:
    """Whether the machine held its speed around a validate run (planner/service/script_checks.unsteady_reason)."""
    if drift is None or recheck_step is None:
        return []
    return [
        f"  machine   a second bench after the run measured {recheck_step * 1e3:.3g} ms per step, {drift:+.1f}% from the first",
        *verdict_lines(unsteady_reason(drift, spread)),
    ]


@checked.register(ScriptWorkload)
def _script_checked(
    workload: ScriptWorkload, service: PlannerService, args: argparse.Namespace
) -> int:
    """A training script checked without running it: it parses (check_script: its own syntax error, exit 2), and
    what of its folder would ship; its parameters, FLOPs and memory are measured by running it (bench)."""
    path = service.workloads.check_script(workload.path, workload.workdir)
    shipped = workload.ships()
    if args.json:
        task = getattr(args, "task", None)  # a SkyPilot task: what was read from it
        print_json(
            {
                "script": args.spec,
                "args": list(args.script_args),
                "parses": True,
                "names_cuda": service.workloads.traced_first(path),
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
    if service.workloads.traced_first(path):
        note(
            f"{args.spec} names CUDA: bench, estimate and run trace it on a stand-in GPU first; if it does not run "
            "on this CPU, its CPU rows are predicted from that trace (and a CPU answer says its device lines need "
            "changing)"
        )
    out.print(
        f"[green]ok[/]: {escape(args.spec)} parses as Python (checked, not run); its steps, parameters, FLOPs and "
        f"memory are measured by running it: planner bench {escape(given) if given else escape(shlex.join([args.spec, '--', *args.script_args]) if args.script_args else args.spec + ' -- ARGS')}",
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


def script_machine_lines(
    check: ScriptValidation, drift: float, again: float, verdict: bool = True
) -> list[str]:
    """Whether the machine held its speed around a script's validate run: the script measured twice (`again`: the
    second's mean step), the same steps compared window by window (planner/core/script.paired_windows)."""
    first = check.estimate.step_seconds
    means = 100.0 * (again / first - 1) if first > 0 else 0.0
    lines = [
        f"  machine   measured again after the run, the same steps took {abs(drift):.1f}% "
        f"{'longer' if drift >= 0 else 'less time'} (the median of their windows' ratios)",
        f"            mean step {again * 1e3:.3g} ms against {first * 1e3:.3g} ms ({means:+.0f}%)"
        + (  # a busy machine: a few windows far off move the mean, not the median
            f": a few windows {'slower' if means > drift else 'faster'} than the rest moved the mean"
            # by ratio: +480% against +466% is the same slowdown (a trial saw the note there)
            if abs((100 + means) / max(100 + drift, 1e-9) - 1) > 0.10
            else ""
        ),
    ]
    if check.window_spread_percent is not None:
        lines.append(
            f"            their windows' ratios spread {check.window_spread_percent:.0f}% (p10 to p90)"
        )
    return lines + (verdict_lines(check.unsteady_reason) if verdict else [])


def cmd_validate(args: argparse.Namespace) -> int:
    service = PlannerService()
    workload = open_workload(service, args, ("device",), spec_takes=("epochs",))
    service.workloads.check_validated_epochs(workload, args.epochs)
    say_before_measuring(
        workload, service, args, then="then runs it whole", validate=True, device=args.device
    )
    with progress() as on_progress:
        check = service.validate(
            workload,
            BenchOptions(device=args.device, seconds=args.seconds),
            args.epochs,
            on_progress,
            recheck=args.recheck,
        )
    if args.json:
        print_json(check.to_json())
        return ExitCode.OK
    stdout().print("\n".join(validated(check, args.spec)), highlight=False)
    return ExitCode.OK


@singledispatch
def validated(check: object, name: str) -> list[str]:
    """A validate run's lines: the estimate against the whole run, and whether the machine held."""
    raise TypeError(f"not a validation: {check!r}")


validated.register(SpecValidation, validate_lines)


@validated.register(ScriptValidation)
def _script_validated(check: ScriptValidation, name: str) -> list[str]:
    """`planner validate train.py`: the estimate against the script's whole run, and whether the machine held."""
    est = check.estimate
    span = range_text(est.low, est.high) if check.interval_usable else "no usable interval"
    verdict = (
        "inside the interval"
        if check.inside_interval
        else "outside the interval"
        if check.interval_usable
        else "no interval to be inside of (see the warnings)"
    )
    lines = [
        f"{escape(name)}: predicted {seconds_text(est.seconds)} ({span}), took "
        f"{seconds_text(check.actual_seconds)} spawn to exit: error {check.error_percent:+.1f}%, {verdict}",
        *(f"[yellow]warning[/]: {escape(warning)}" for warning in words(est.warnings)),
    ]
    own = check.own_steps_differ
    if own is not None:
        lines.append(
            f"[yellow]warning[/]: the script's own {escape(own[0])} {own[1]:,} is not the {est.total_steps:,} "
            f"steps planned: if it counts optimizer steps, the run is another length than the estimate's (give "
            f"--total-steps {own[1]}, or the script {escape(own[0])} {est.total_steps})"
        )
    drift, again = check.machine_drift_percent, check.recheck_step_seconds
    if drift is not None and again is not None:
        # a length that differs explains an error before the machine does (a trial: 'validate again when it is
        # quieter' under a run 1.5x the length planned)
        lines += script_machine_lines(check, drift, again, verdict=own is None)
    if own is not None:
        lines.append(
            f"            the run's length, {own[1] / max(est.total_steps, 1):.2g}x the steps planned if "
            f"{escape(own[0])} counts them, would explain an error of that size: compare at one length"
        )
    return lines
