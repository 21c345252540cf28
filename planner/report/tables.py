"""Tables for people: a spec's check, a bench result, a batch-size sweep, prices, managed instances."""

from __future__ import annotations

import math
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from planner.core.remarks import remark_from_json
from planner.report.remarks import remark_json
from planner.report.text import (
    counted,
    human_bytes,
    human_count,
    money_text,
    range_text,
    seconds_text,
)

if TYPE_CHECKING:
    from rich.table import Table

    from planner.core.document import ManagedInstance
    from planner.core.script import ScriptEstimate, ScriptRun
    from planner.workload.footprint import Footprint
    from planner.workload.spec import WorkloadSpec
    from runner.bench.result import BenchResult


def check_summary(spec: WorkloadSpec, fp: Footprint) -> dict[str, Any]:
    return {
        "workload": spec.name,
        "kind": spec.model.kind,
        "task": spec.task,
        "samples": spec.data.samples,
        "batch_size": spec.batch_size,
        "steps_per_epoch": spec.steps_per_epoch,
        "epochs": spec.train.epochs,
        "total_steps": spec.total_steps,
        "data_location": spec.data.location,
        "flops_per_sample": fp.train_flops_per_sample,
        "flops_per_step": fp.train_flops_per_sample * spec.batch_size,
        "memory": fp.as_dict(),
    }


def check_table(spec: WorkloadSpec, fp: Footprint) -> Table:
    from rich.table import Table

    t = Table(
        title=f"{spec.name}: {spec.model.kind}, {spec.task}",
        show_header=False,
        title_justify="left",
    )
    t.add_column("field", style="bold")  # named for csv and markdown; the terminal shows no header
    t.add_column("value")
    t.add_row("parameters", f"{fp.params:,} ({human_count(fp.params)})")
    t.add_row("FLOPs per sample", f"{human_count(fp.train_flops_per_sample)} (forward + backward)")
    t.add_row(
        "FLOPs per step",
        f"{human_count(fp.train_flops_per_sample * spec.batch_size)} at batch {spec.batch_size:,}",
    )
    t.add_row(
        "steps",
        f"{spec.steps_per_epoch:,} per epoch x {counted(spec.train.epochs, 'epoch')} = {spec.total_steps:,}",
    )
    t.add_row(
        "training memory",
        f"{human_bytes(fp.total_bytes)} ({fp.precision}, batch {fp.batch_size:,})",
    )
    t.add_row("  weights", human_bytes(fp.weights_bytes))
    t.add_row("  gradients", human_bytes(fp.gradients_bytes))
    t.add_row(f"  optimizer ({spec.train.optimizer})", human_bytes(fp.optimizer_bytes))
    t.add_row("  activations", human_bytes(fp.activations_bytes))
    # data on the host: the device holds one batch at a time (a trial read 1.5 MiB as the dataset's size)
    data = "data (all of it)" if spec.data.location == "device" else "data (one batch)"
    t.add_row(f"  {data}", human_bytes(fp.data_bytes))
    return t


def check_lines(spec, fp) -> list[str]:
    """The check summary as aligned plain lines (the TUI's side panel)."""
    return [
        f"parameters        {fp.params:,}",
        f"FLOPs per sample  {human_count(fp.train_flops_per_sample)}",
        f"steps             {spec.steps_per_epoch:,} x {counted(spec.train.epochs, 'epoch')} = {spec.total_steps:,}",
        f"training memory   {human_bytes(fp.total_bytes)} ({fp.precision}, batch {fp.batch_size:,})",
        f"  weights+grads   {human_bytes(fp.weights_bytes + fp.gradients_bytes)}",
        f"  optimizer       {human_bytes(fp.optimizer_bytes)}",
        f"  activations     {human_bytes(fp.activations_bytes)}",
        f"  data            {human_bytes(fp.data_bytes)}",
    ]


BENCH_JSON_KEYS = (
    "status",
    "message",
    "workload",
    "device",
    "device_name",
    "torch_version",
    "threads",
    "precision",
    "batch_size",
    "steps_per_epoch",
    "steps_measured",
    "step_seconds",
    "step_seconds_ci_low",
    "step_seconds_ci_high",
    "step_seconds_median",
    "step_seconds_p10",
    "step_seconds_p90",
    "coefficient_of_variation",
    "samples_per_second",
    "peak_memory_bytes",
    "peak_memory_kind",
    "warmup_seconds",
    "warmup_steps",
    "setup_seconds",
    "stopped_because",
    "warnings",
    "sweep",
    "processes",
    "backend",
    "step_seconds_no_sync",
    "allreduce_share",
    "allreduce_seconds",
    "gradient_bytes",
)


def bench_json(result: BenchResult) -> dict[str, Any]:
    """A bench's result as `planner bench --json` prints it: its warnings as facts with their words."""
    data = result.to_dict()
    data["warnings"] = [remark_json(remark_from_json(w)) for w in data.get("warnings") or []]
    return {k: data.get(k) for k in BENCH_JSON_KEYS}


def bench_table(result: BenchResult) -> Table:
    from rich.table import Table

    r = result
    t = Table(
        title=f"{r.workload} on {r.device} ({r.device_name})",
        show_header=False,
        title_justify="left",
    )
    t.add_column("field", style="bold")  # named for csv and markdown; the terminal shows no header
    t.add_column("value")
    if r.status != "ok":
        t.add_row("result", f"[red]{r.status}[/]: {r.message}")
        return t
    high = r.step_seconds_ci_high
    half = (high - r.step_seconds) / r.step_seconds if r.step_seconds and high is not None else 0
    t.add_row("step time (mean)", f"{seconds_text(r.step_seconds)} +-{half:.1%} (95% interval)")
    t.add_row(
        "median / p10 / p90",
        f"{seconds_text(r.step_seconds_median)} / {seconds_text(r.step_seconds_p10)} / {seconds_text(r.step_seconds_p90)}",
    )
    t.add_row("variation", f"{r.coefficient_of_variation:.1%} coefficient of variation")
    t.add_row("throughput", f"{r.samples_per_second:,.0f} samples/s at batch {r.batch_size:,}")
    t.add_row("steps measured", f"{r.steps_measured:,} ({r.stopped_because})")
    t.add_row(
        "warm-up",
        f"{seconds_text(r.warmup_seconds)} over {r.warmup_steps:,} steps; setup {seconds_text(r.setup_seconds)}",
    )
    kind = (
        "CUDA max allocated"
        if r.peak_memory_kind == "cuda_max_allocated"
        else "peak RSS of the bench process"
    )
    t.add_row("peak memory", f"{human_bytes(r.peak_memory_bytes or 0)} ({kind})")
    t.add_row("software", f"torch {r.torch_version}, {counted(r.threads, 'thread')}, {r.precision}")
    if getattr(r, "processes", 1) > 1:
        t.add_row(
            "data parallel",
            f"{r.processes} processes ({r.backend}), batch {r.batch_size // r.processes:,} each",
        )
        t.add_row(
            "all-reduce",
            f"{r.allreduce_share:.0%} of the step exposed (without it: "
            f"{seconds_text(r.step_seconds_no_sync)}); {human_bytes(r.gradient_bytes or 0)} of "
            f"gradients all-reduced alone: {seconds_text(r.allreduce_seconds)}",
        )
    return t


def sweep_table(result: BenchResult) -> Table:
    from rich.table import Table

    t = Table(
        title="batch-size sweep (advice only: the spec's batch size is the basis of every estimate)",
        title_justify="left",
    )
    for col in ("batch", "x spec", "step time", "samples/s"):
        t.add_column(col, justify="right")
    for p in result.sweep:
        if p["status"] == "ok":
            note = "" if p.get("interval_usable", True) else " (few steps)"
            t.add_row(
                f"{p['batch_size']:,}",
                f"{p['factor']:g}",
                seconds_text(p["step_seconds"]) + note,
                f"{p['samples_per_second']:,.0f}",
            )
        else:
            t.add_row(
                f"{p['batch_size']:,}",
                f"{p['factor']:g}",
                p["status"].replace("_", " "),
                p.get("message", "")[:40],
            )
    return t


# ----------------------------------------------------------------------------- instances

INSTANCE_COLUMNS = ("instance", "type", "state", "run", "age", "expires at", "cost so far")


def instance_row(r: ManagedInstance) -> list[str]:
    """One planner-managed instance (PlannerService.instances) as cells, for `planner ls` and the TUI."""
    return [
        r.instance_id,
        r.instance_type,
        r.state,
        r.run_id or "-",
        seconds_text(r.age_seconds),
        (r.expires_at or "-") + (" [red](expired)[/]" if r.expired else ""),
        money_text(r.cost_so_far_usd, precise_below=math.inf),
    ]


def instances_table(rows: list[ManagedInstance]) -> Table:
    from rich.table import Table

    t = Table(title="planner-managed instances", title_justify="left")
    for col in INSTANCE_COLUMNS:
        t.add_column(col, no_wrap=True)
    for r in rows:
        t.add_row(*instance_row(r))
    return t


def script_json(run: ScriptRun, est: ScriptEstimate) -> dict[str, Any]:
    """A script's measurement and its whole run, as JSON data."""
    trace = run.trace
    return {
        "boundary": run.boundary,
        "optimizers": run.optimizers,
        "closure_steps": run.closure_steps,
        "closure_passes": run.closure_passes,
        "stopped_because": run.stopped_because,
        "cuda_used": run.cuda_used,
        "threads": run.threads,
        "steps_seen": len(run.steps),
        **asdict(est),
        "warnings": [remark_json(w) for w in est.warnings],
        "notes": [remark_json(n) for n in est.notes],
        "trace": None
        if trace is None
        else {
            "flops": trace.flops,
            "bytes": trace.bytes,
            "python_share": trace.python_share,
            **asdict(trace),
        },
    }


def script_rows(run: ScriptRun, est: ScriptEstimate) -> list[tuple[str, str]]:
    """What the launcher found in a script and what its whole run comes to, as (what, value) rows."""
    from planner.core.script import python_share

    boundary = {
        "optimizer": f"optimizer steps ({counted(run.optimizers, 'optimizer')} "
        "stepping once each is one step)",
        "backward": "backward passes (no torch.optim)",
    }
    closure = (
        f"; with a closure: one step of {run.closure_passes:g} passes (median)"
        if run.closure_steps and run.closure_passes is not None
        else ""
    )
    # it did not run here: its steps are the stand-in trace's prediction
    predicted = bool(run.predicted_here)
    span = f"{seconds_text(est.step_low)}-{seconds_text(est.step_high)}"
    rows = [
        ("step boundary", boundary.get(run.boundary, run.boundary) + closure),
        (
            "step time",
            f"{seconds_text(est.step_seconds)} ({span}, predicted from its trace on the stand-in GPU: not run here)"
            if predicted
            else f"{seconds_text(est.step_seconds)} ({span}, "
            f"{est.steps_measured:,} steady steps after {est.warmup_steps} warm-up)",
        ),
        (
            "setup",
            f"{seconds_text(est.setup_seconds)} (start, imports, data and model, to the first step; the warm-up steps beyond a steady one)",
        ),
        (
            "per epoch",
            f"{est.steps_per_epoch:,.0f} steps"
            if est.steps_per_epoch
            else "no whole DataLoader epoch seen",
        ),
        (
            "between epochs",
            seconds_text(est.between_epochs_seconds) + " (evaluation, checkpoints)"
            if est.between_epochs_seconds is not None
            else "not seen",
        ),
        (
            "after the last step",
            seconds_text(est.after_seconds) + " (measured: the run finished)"
            if est.after_seconds is not None
            else "not seen"
            if est.between_epochs_seconds is None
            else "not seen: one between-epoch pass",
        ),
        (
            "whole run",
            f"{est.total_steps:,} steps" + (f", {est.epochs:,.1f} epochs" if est.epochs else ""),
        ),
        ("training time", f"{seconds_text(est.seconds)} ({range_text(est.low, est.high)})"),
        (
            "device",
            f"CPU, predicted: {run.predicted_here}"
            if predicted
            else ("CUDA" if run.cuda_used else "CPU")
            + f", {counted(run.threads, 'thread')}; stopped: {run.stopped_because}"
            + (
                "; never asks for a GPU (it would not use one on an instance)"
                if run.gpu_asked is False and not run.cuda_used
                else ""
            ),
        ),
    ]
    if run.trace is not None:
        tr = run.trace
        mix = ", ".join(
            f"{name} {c.flops / tr.flops:.0%}"
            for name, c in sorted(tr.device_classes.items(), key=lambda kv: -kv[1].flops)
            if tr.flops and c.flops / tr.flops >= 0.01
        )
        loader = (
            f"; {tr.host_ops.ops:,} more in DataLoader collate (host)" if tr.host_ops.ops else ""
        )
        rows.append(
            (
                "work per step",
                f"{human_count(tr.flops)} FLOP" + (f" ({mix})" if mix else "") + f", "
                f"{human_bytes(tr.bytes)} read and written, {tr.kernels:,} ops{loader}",
            )
        )
        rows += (
            []
            if predicted
            else [
                (
                    "outside PyTorch",
                    f"{python_share(run, est) or 0.0:.0%} of a step on the host: Python code (an "
                    "environment, data preparation, the training loop itself)"
                    + (" and DataLoader collate" if tr.host_ops.ops else ""),
                )
            ]
        )
    return rows


def script_table(script: str, run: ScriptRun, est: ScriptEstimate) -> Table:
    from rich.table import Table

    how = (
        "predicted from its trace on the stand-in GPU (it did not run here)"
        if run.predicted_here
        else "measured here, unchanged"
    )
    t = Table(title=f"{script}: {how}", show_header=False, title_justify="left")
    t.add_column("field", style="bold")  # named for csv and markdown; the terminal shows no header
    t.add_column("value")
    for what, value in script_rows(run, est):
        t.add_row(what, value)
    return t
