"""Tables for people: a spec's check, a bench result, a batch-size sweep, prices, managed instances."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from planner.core.remarks import remark_from_json
from planner.core.shown import DEFAULT_GROUP_BY, GroupBy, Shown
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
    from pricing.gpus import NoMatch
    from pricing.rows import PriceList, PriceRow


def check_summary(spec, fp) -> dict[str, Any]:
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


def check_table(spec, fp):
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
    t.add_row(f"  data (on {spec.data.location})", human_bytes(fp.data_bytes))
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


def bench_json(result) -> dict[str, Any]:
    """A bench's result as `planner bench --json` prints it: its warnings as facts with their words."""
    data = result.to_dict()
    data["warnings"] = [remark_json(remark_from_json(w)) for w in data.get("warnings") or []]
    return {k: data.get(k) for k in BENCH_JSON_KEYS}


def bench_table(result):
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
    half = (r.step_seconds_ci_high - r.step_seconds) / r.step_seconds if r.step_seconds else 0
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


def sweep_table(result):
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


# ----------------------------------------------------------------------------- prices


def prices_json(prices: PriceList) -> dict[str, Any]:
    """`planner prices --json`: where the prices come from and every row (nothing found: `instances: []`)."""
    return {
        "source": prices.source,
        "as_of": prices.as_of,
        "note": prices.note,
        "instances": [row.to_json() for row in prices.rows],
    }


def _money(value: float | None) -> str:
    """A price cell: four decimals under $1 (0.5260), '-' when not offered (the caption says so)."""
    return money_text(value, unit="", precise_below=1)


def shown_prices(
    rows: Sequence[PriceRow],
    group_by: GroupBy = DEFAULT_GROUP_BY,
    max_rows: int | None = None,
    by_region: bool = False,
) -> tuple[list[PriceRow], Shown]:
    """The catalog rows a table shows, in the rows' order (their sort), and how many of how many: by default the
    cheapest of each GPU model at each GPU count (every 4- and 8-GPU machine a model comes in) and the cheapest CPU;
    `instance`: the cheapest of each instance type; `none`: every row. `by_region`: the cheapest of each in every
    region (`--all-regions`)."""
    chosen: list[int] = []
    seen: set[tuple[object, ...]] = set()
    for i, r in enumerate(rows):
        if group_by == "none":
            key: tuple[object, ...] = (i,)
        elif group_by == "instance":
            key = (r.instance_type,)
        else:
            key = (r.gpu_name or "", r.gpu_count) if r.gpu_count else ("cpu",)
        key += (r.region,) if by_region else ()
        if key not in seen:
            seen.add(key)
            chosen.append(i)
    if max_rows is not None:
        chosen = chosen[:max_rows]
    return [rows[i] for i in chosen], Shown(tuple(chosen), len(rows))


def prices_table(
    prices: PriceList,
    rows: Sequence[PriceRow],
    purchase: str = "on-demand",
    region: str | None = None,
) -> Table:
    """The rows as a table; `region`: the one region the user asked for (--region), named in the title instead of
    a column (None: every row says its region, also when they happen to share one)."""
    from rich import box
    from rich.table import Table

    one_region = region is not None
    title = f"AWS instances in {region}" if one_region else "AWS instances"
    t = Table(
        title=title,
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        caption=f"Source: {prices.source}, as of {prices.as_of}; {prices.note}.\n"
        "Prices in USD per hour; spot is the median over the region's zones ('-': not offered)."
        + _unknown_facts_caption(rows),
        caption_justify="left",
    )
    any_gpu = any(r.gpu_count for r in rows)
    columns = [("instance", "left"), ("vCPUs", "right"), ("GiB", "right")]
    columns += [("GPU", "left"), ("GPU GB", "right")] if any_gpu else []
    for name, justify in columns + [("on-demand", "right"), ("spot", "right")]:
        t.add_column(
            name,
            justify="right" if justify == "right" else "left",
            no_wrap=True,
            style="bold" if name == purchase else None,
        )
    if not one_region:
        t.add_column("region", no_wrap=True)
    for r in rows:
        gpu, gpu_mem = gpu_cells(r)
        cells = [r.instance_type, f"{r.vcpus}", f"{r.memory_gib:g}"]
        cells += [gpu, gpu_mem] if any_gpu else []
        cells += [_money(r.ondemand_usd_per_hour), _money(r.spot_usd_per_hour_median)]
        t.add_row(*cells, *([] if one_region else [r.region]))
    return t


def no_prices_text(found: NoMatch) -> str:
    """Why `planner prices` lists nothing, in a line or two: the count or memory the GPU never comes with and what
    it does, or the regions it is priced in instead ("no 8x H100 in eu-west-1; it is priced in us-east-1, ...")."""
    asked, gpu = found.asked, found.gpu
    if found.why == "count" and asked is not None:
        wanted = _span(asked.count_min, asked.count_max)
        if gpu:
            return (
                f"no instance has {wanted} {gpu}; {gpu} comes {_either(found.counts)} per instance"
            )
        return f"no instance has {wanted} GPUs; they come {_either(found.counts)} per instance"
    if found.why == "memory":
        wanted = _span(found.memory_min_gb, found.memory_max_gb, " GB")
        if gpu:
            return f"no {gpu} has {wanted} per GPU; {gpu} has {_either(found.memory_gb, ' GB')} per GPU"
        sizes = found.memory_gb
        return (
            f"no GPU has {wanted}; the catalog's GPUs have {_span(sizes[0], sizes[-1], ' GB')} each"
        )
    if found.why == "region":
        regions = found.regions
        where = ", ".join(regions[:4]) + (
            f" and {len(regions) - 4} more" if len(regions) > 4 else ""
        )
        if asked is None:
            return (
                f"no instance in {found.region} matches these filters; some in {where} do "
                "(--all-regions instead of --region lists them)"
            )
        single = asked.count_min is not None and asked.count_min == asked.count_max
        what = f"{asked.count_min}x {gpu}" if gpu and single else gpu or f"GPU {asked.text}"
        return (
            f"no {what} in {found.region}; it is priced in {where} "
            f"(planner prices {asked.text} --all-regions)"
        )
    return "no instance matches these filters"


def _span(low: float | None, high: float | None, unit: str = "") -> str:
    """A range asked for in words: "3", "2 to 4", "30 GB or more", "at most 4"."""
    if low is not None and high is not None:
        return f"{low:g}{unit}" if low == high else f"{low:g} to {high:g}{unit}"
    return f"{low:g}{unit} or more" if low is not None else f"at most {high:g}{unit}"


def _either(values: tuple[float, ...], unit: str = "") -> str:
    """The values the catalog has, in words: "1 or 8", "1, 4 or 8", "40 or 80 GB"."""
    words = [f"{v:g}" for v in values]
    return (", ".join(words[:-1]) + " or " if len(words) > 1 else "") + words[-1] + unit


def gpu_cells(row: PriceRow) -> tuple[str, str]:
    """A catalog row's GPU ("4x A10G", "-" for none) and each GPU's memory in the vendor's GB ("24"; "?" when the
    catalog lacks it)."""
    if not row.gpu_count:
        return "-", "-"
    memory = row.gpu_memory_gb
    return f"{row.gpu_count}x {row.gpu_name}", "?" if memory is None else f"{memory:.4g}"


def _unknown_facts_caption(rows: Sequence[PriceRow]) -> str:
    """The rows' models the device model lacks facts for (their `facts_note`), named once under the table."""
    unknown = [r for r in rows if r.facts_note]

    def names(items: Iterable[str]) -> str:
        found = sorted(set(items))
        return ", ".join(found[:8]) + (f" and {len(found) - 8} more" if len(found) > 8 else "")

    gpus = [r.gpu_name or "" for r in unknown if r.gpu_count]
    others = [r.accelerator.split(" x")[0] for r in unknown if r.accelerator]
    cpus = [r.family for r in unknown if "no sourced processor" in (r.facts_note or "")]
    text = ""
    if gpus:
        text += f"\nNo spec, priced but not predicted: {names(gpus)}."
    if others:
        text += f"\nNot NVIDIA GPUs, planned as CPU instances: {names(others)}."
    if cpus:
        text += f"\nNo sourced processor facts, predicted at this machine's per-core speed: {names(cpus)}."
    return text


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


def instances_table(rows: list[ManagedInstance]):
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
    rows = [
        ("step boundary", boundary.get(run.boundary, run.boundary) + closure),
        (
            "step time",
            f"{seconds_text(est.step_seconds)} ({seconds_text(est.step_low)}-{seconds_text(est.step_high)}, "
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
            ("CUDA" if run.cuda_used else "CPU")
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
        rows.append(
            (
                "outside PyTorch",
                f"{python_share(run, est) or 0.0:.0%} of a step on the host: Python code (an "
                "environment, data preparation, the training loop itself)"
                + (" and DataLoader collate" if tr.host_ops.ops else ""),
            )
        )
    return rows


def script_table(script: str, run: ScriptRun, est: ScriptEstimate):
    from rich.table import Table

    t = Table(title=f"{script}: measured here, unchanged", show_header=False, title_justify="left")
    t.add_column("field", style="bold")  # named for csv and markdown; the terminal shows no header
    t.add_column("value")
    for what, value in script_rows(run, est):
        t.add_row(what, value)
    return t
